//! Search and cache-friendly updates on a tree (issue 24): what building
//! the search index costs against `discover()` itself (target < 10%),
//! what a query costs (target < 1 ms), and what `catalog_update` costs
//! after one skill's description changed (target < 1 ms).
//!
//! In this process, as `catalog_bench` does: `Skillpipe::discover()`,
//! then the index built from its skills (`SearchIndex::build`, what the
//! first `Discovered::search` does), each timed over `reps` runs; then
//! each query of [`QUERIES`] `reps` times; then a second configuration
//! whose `skills_override` edits one description (a discovery after an
//! edit, without touching the tree) and `catalog_update` from the first
//! discovery to it. The targets compare the fastest runs (a busy
//! neighbour's time slice doubles a millisecond's median); the medians
//! are printed beside. It also checks what the figures mean: every query
//! finds something, and the update names the one skill edited.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use skillpipe::core::search::SearchIndex;
use skillpipe::{Profile, Skillpipe};

use crate::bench::stats::{fastest, median};

/// Queries over the bench tree's words (`gen_tree.py`), as a person
/// might type them.
pub(crate) const QUERIES: &[&str] = &[
    "deploy terraform to the cloud",
    "review the api auth",
    "a pdf report with a chart",
    "search index cache",
    "send an email on slack",
    "k8s release build",
    "sql and mongo data audit",
    "trace metrics and logs",
];

/// What [`measure`] found: lines for the log and the summary, and the
/// targets' verdicts `(what, met, figure)`.
pub(crate) struct Measured {
    pub lines: Vec<String>,
    pub targets: Vec<(String, bool, String)>,
}

/// Times the index, the queries and `catalog_update` on `tree` (home
/// `tree/home`, cwd `tree/project`, `skill_paths` as `--skill`) in
/// `profile`.
pub(crate) fn measure(
    profile: &str,
    label: &str,
    tree: &Path,
    skill_paths: &[String],
    reps: usize,
) -> Result<Measured> {
    let builder = || -> Result<skillpipe::Builder> {
        Ok(Skillpipe::builder(profile.parse::<Profile>()?)
            .home(tree.join("home"))
            .cwd(tree.join("project"))
            .env::<String, String>([])
            .skill_paths(skill_paths.iter().map(PathBuf::from)))
    };
    let skillpipe = builder()?.build()?;
    let (mut loads, mut builds) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    let mut last = None;
    for i in 0..=reps {
        let t = Instant::now();
        let found = skillpipe.discover();
        let load_ms = ms(t);
        let t = Instant::now();
        let index = SearchIndex::build(found.skills());
        let build_ms = ms(t);
        if i > 0 {
            loads.push(load_ms);
            builds.push(build_ms);
        }
        last = Some((found, index));
    }
    let Some((found, index)) = last else {
        bail!("no run of the search index");
    };

    // Each query, fastest of `reps`; the slowest query decides.
    let mut per_query = Vec::with_capacity(QUERIES.len());
    let mut all = Vec::with_capacity(QUERIES.len() * reps);
    for q in QUERIES {
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            let hits = index.search(q, 10);
            times.push(ms(t));
            if hits.is_empty() {
                bail!("{profile} {label}: the query {q:?} found nothing");
            }
        }
        all.extend(&times);
        per_query.push(fastest(&times));
    }
    let query_max = per_query.iter().copied().fold(0.0, f64::max);

    // One description edited: a second configuration whose override
    // changes it, then the update from the first discovery.
    let Some(edited) = found
        .skills()
        .iter()
        .find(|s| !s.hidden)
        .map(|s| s.name.clone())
    else {
        bail!("{profile} {label}: no visible skill");
    };
    let target = edited.clone();
    let after = builder()?
        .skills_override(move |mut skills: Vec<skillpipe::Skill>| {
            if let Some(s) = skills.iter_mut().find(|s| s.name == target) {
                s.description = format!("{} (edited)", s.description).into();
            }
            skills
        })
        .build()?
        .discover();
    let mut updates = Vec::with_capacity(reps);
    let mut update = None;
    for _ in 0..=reps {
        let t = Instant::now();
        let u = after.catalog_update(&found);
        updates.push(ms(t));
        update = Some(u);
    }
    updates.remove(0);
    let Some(update) = update else {
        bail!("no run of catalog_update");
    };
    if update.changed != [edited.clone()] || !update.added.is_empty() || !update.removed.is_empty()
    {
        bail!(
            "{profile} {label}: catalog_update after editing {edited} gave {:?}",
            update
        );
    }

    let (load_min, build_min, update_min) = (fastest(&loads), fastest(&builds), fastest(&updates));
    let share = build_min / load_min * 100.0;
    let lines = vec![
        format!(
            "search {profile} {label}: index of {} skills {build_min:.2} ms against discover()'s {load_min:.1} ms ({share:.1}%; fastest of {reps}, medians {:.2} and {:.1} ms); a query {:.3} ms at most ({} queries, fastest of {reps} each; median of all runs {:.3} ms)",
            index.len(),
            median(&mut builds),
            median(&mut loads),
            query_max,
            QUERIES.len(),
            median(&mut all),
        ),
        format!(
            "catalog_update {profile} {label}: after one edit {update_min:.3} ms (fastest of {reps}, median {:.3} ms), {} characters of message",
            median(&mut updates),
            update.message.chars().count()
        ),
    ];
    Ok(Measured {
        lines,
        targets: vec![
            (
                format!("{profile} {label} search index < 10% of discover()"),
                share < 10.0,
                format!("{share:.2}%"),
            ),
            (
                format!("{profile} {label} search query < 1 ms"),
                query_max < 1.0,
                format!("{query_max:.3} ms"),
            ),
            (
                format!("{profile} {label} catalog_update after one edit < 1 ms"),
                update_min < 1.0,
                format!("{update_min:.3} ms"),
            ),
        ],
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
