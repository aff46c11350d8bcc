//! Search quality on real skills: the queries of `tests/search/queries.toml`,
//! each with the skill a person would pick, against the published skills of
//! `../shared/corpus/real` (beside the workspace; CI has it). Prints the
//! figures and holds them to the targets: the expected skill first for at
//! least 90% of the queries, in the top 3 for all, in both profiles.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};

use serde::Deserialize;
use skillpipe::{Profile, Skillpipe};

#[derive(Deserialize)]
struct Queries {
    query: Vec<Query>,
}

#[derive(Deserialize)]
struct Query {
    text: String,
    expect: String,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The corpus's skill folders (`<source>/skills`), or `None` when the
/// corpus is not beside the workspace.
fn corpus() -> Option<Vec<PathBuf>> {
    let real = workspace().join("../shared/corpus/real");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&real)
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join("skills")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    (!dirs.is_empty()).then_some(dirs)
}

#[test]
fn the_skill_a_person_would_pick_comes_first() {
    let Some(dirs) = corpus() else {
        println!(
            "skipped: no ../shared/corpus/real beside the workspace ({})",
            workspace().display()
        );
        return;
    };
    let text = std::fs::read_to_string(workspace().join("tests/search/queries.toml")).unwrap();
    let queries: Queries = toml::from_str(&text).unwrap();
    assert!(queries.query.len() >= 30, "at least 30 queries");
    let home = tempfile::tempdir().unwrap();
    for profile in Profile::ALL {
        let skillpipe = Skillpipe::builder(profile)
            .home(home.path())
            .cwd(home.path())
            .env::<String, String>([])
            .skill_paths(dirs.iter().cloned())
            .build()
            .unwrap();
        let found = skillpipe.discover();
        let names: Vec<&str> = found.skills().iter().map(|s| s.name.as_str()).collect();
        for q in &queries.query {
            assert!(names.contains(&q.expect.as_str()), "no skill {}", q.expect);
        }
        let (mut first, mut top3, mut misses) = (0, 0, Vec::new());
        for q in &queries.query {
            let hits: Vec<&str> = found
                .search(&q.text, 3)
                .iter()
                .map(|h| h.skill.name.as_str())
                .collect();
            match hits.iter().position(|n| *n == q.expect) {
                Some(0) => first += 1,
                Some(_) => misses.push(format!("  {:?}: {} after {:?}", q.text, q.expect, hits)),
                None => misses.push(format!("  {:?}: {} not in {:?}", q.text, q.expect, hits)),
            }
            if hits.contains(&q.expect.as_str()) {
                top3 += 1;
            }
        }
        let n = queries.query.len();
        let pct = |k: usize| k as f64 * 100.0 / n as f64;
        println!(
            "search quality ({profile:?}, {} skills, {n} queries): first {first}/{n} ({:.0}%), top 3 {top3}/{n} ({:.0}%)",
            found.skills().len(),
            pct(first),
            pct(top3)
        );
        for m in &misses {
            println!("{m}");
        }
        assert!(
            pct(first) >= 90.0,
            "{profile:?}: first in {:.0}%",
            pct(first)
        );
        assert_eq!(
            top3,
            n,
            "{profile:?}: not in the top 3:\n{}",
            misses.join("\n")
        );
    }
}
