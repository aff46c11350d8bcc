//! The guide's in-process provider (`docs/src/providers.md`), built as a
//! user outside the workspace would build it: the files of "In process,
//! from the host" and "Testing your provider" (each the block after a
//! `<!-- file: team-host/PATH -->` line) are written to a fresh directory
//! outside the workspace, the manifest's
//! `path/to/skillpipe` made this workspace, beside a copy of its
//! `Cargo.lock`. `cargo test --offline` there runs the guide's test-kit
//! test; then the crate's binary, a `skillpipe` with the provider built in
//! (`Builder::provider` through `skillpipe_cli::run_with`), must list it in
//! `providers` beside the built-ins, where its priority and pass put it.
//!
//! The scratch crate builds into `<target>/scratch-provider`, a target dir
//! of its own: the nested cargo never waits on the workspace's lock nor
//! disturbs its artifacts, and a later run rebuilds only `team-host` and
//! the workspace crates that changed. A cold run compiles the library and
//! the CLI's dependencies once more there.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// What names a block as a file of the crate, before its fence.
const ANCHOR: &str = "<!-- file: team-host/";

/// The files the guide's walk-through consists of.
const FILES: [&str; 4] = ["Cargo.toml", "src/lib.rs", "src/main.rs", "tests/team.rs"];

/// The provider's line in `providers`, as the guide shows it.
const TEAM: &str = "team (Team skills) priority 60, plugin, toggles: skills.enableTeamSkills";

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The crate's files as the guide shows them: path → content.
fn files(readme: &str) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix(ANCHOR) else {
            continue;
        };
        let path = rest
            .strip_suffix(" -->")
            .unwrap_or_else(|| panic!("{line:?}: not `{ANCHOR}PATH -->`"));
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{path}: the line after its anchor is {fence:?}, not a fence"
        );
        let mut body = String::new();
        let mut closed = false;
        for line in lines.by_ref() {
            if line == "```" {
                closed = true;
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        assert!(closed, "{path}: its block is not closed");
        assert!(
            files.insert(path.to_owned(), body).is_none(),
            "{path}: two blocks"
        );
    }
    files
}

/// The guide's manifest with this workspace for `path/to/skillpipe`, and a
/// `[workspace]` of its own, so that no `Cargo.toml` above the scratch
/// directory can claim it.
fn manifest(shown: &str) -> String {
    assert!(
        shown.contains("\"path/to/skillpipe/"),
        "the guide's manifest has path dependencies on path/to/skillpipe"
    );
    let here = workspace().to_str().expect("a UTF-8 workspace path");
    assert!(!here.contains('"'), "{here}: a quote in the path");
    let here = here.replace('\\', "/");
    format!(
        "{}\n[workspace]\n",
        shown.replace("\"path/to/skillpipe/", &format!("\"{here}/"))
    )
}

/// The `#[test]` functions of a test file.
fn test_names(code: &str) -> Vec<&str> {
    code.split("#[test]\nfn ")
        .skip(1)
        .map(|rest| &rest[..rest.find('(').expect("fn NAME(")])
        .collect()
}

/// The scratch crate's target dir: beside the workspace's profiles, in the
/// target dir this test was built in.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp")
        .join("scratch-provider")
}

fn both(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// One provider line of `providers`: its id, priority and origin.
fn row(line: &str) -> (&str, i64, &str) {
    let id = &line[..line.find(" (").expect("ID (NAME)")];
    let rest = &line[line.find(" priority ").expect("priority N") + " priority ".len()..];
    let mut fields = rest.split(", ");
    let priority = fields.next().unwrap().parse().expect("a number");
    (id, priority, fields.next().expect("an origin"))
}

#[test]
fn the_guide_s_provider_is_built_tested_and_listed_by_a_crate_of_its_own() {
    let readme = std::fs::read_to_string(workspace().join("docs/src/providers.md")).unwrap();
    let files = files(&readme);
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        FILES,
        "the guide's team-host files"
    );

    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    assert!(
        !dir.starts_with(workspace()),
        "{} is inside the workspace",
        dir.display()
    );
    for (path, text) in &files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let text = match path.as_str() {
            "Cargo.toml" => manifest(text),
            _ => text.clone(),
        };
        std::fs::write(file, text).unwrap();
    }
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    // Its tests, the guide's test-kit test among them.
    let target = target_dir();
    let started = Instant::now();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--offline", "--target-dir"])
        .arg(&target)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo test in the scratch crate (the guide's team-host) failed:\n{}",
        both(&out)
    );
    let ran = String::from_utf8_lossy(&out.stdout);
    let names = test_names(&files["tests/team.rs"]);
    assert!(!names.is_empty(), "the guide's tests/team.rs has tests");
    for name in names {
        assert!(
            ran.contains(&format!("test {name} ... ok")),
            "{name} did not pass:\n{}",
            both(&out)
        );
    }
    eprintln!(
        "team-host: cargo test took {:.1?} ({})",
        started.elapsed(),
        target.display()
    );

    // Its binary: `providers`, in an empty home and project.
    let world = tempfile::tempdir().unwrap();
    let (home, project) = (world.path().join("home"), world.path().join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let bin = target
        .join("debug")
        .join(format!("team-host{}", std::env::consts::EXE_SUFFIX));
    let out = Command::new(&bin)
        .args(["--color", "never", "--home"])
        .arg(&home)
        .arg("--cwd")
        .arg(&project)
        .arg("providers")
        .env_clear()
        .env("HOME", &home)
        .env("USERPROFILE", &home)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    assert!(out.status.success(), "team-host providers:\n{}", both(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = listed.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == TEAM)
        .unwrap_or_else(|| panic!("no {TEAM:?} in team-host providers:\n{listed}"));
    let root = format!("  user     {}", home.join("team-skills").display());
    assert_eq!(lines.get(at + 1).copied(), Some(root.as_str()), "{listed}");
    assert!(
        readme.contains(&format!("{TEAM}\n  user     /home/you/team-skills\n")),
        "the guide shows the provider's lines as `providers` prints them"
    );

    // Pipeline order: every provider of the first pass, by priority (a
    // host's after the built-ins of equal priority), then the later
    // passes'. Built-ins above 60 before it and below it after it (the
    // managed pass's among those) place it in the first pass at 60.
    let rows: Vec<(&str, i64, &str)> = lines
        .iter()
        .filter(|l| !l.starts_with(' '))
        .map(|l| row(l))
        .collect();
    let team = rows.iter().position(|r| r.0 == "team").unwrap();
    let (before, after) = (&rows[..team], &rows[team + 1..]);
    assert!(
        before.iter().all(|r| r.1 >= 60) && after.iter().all(|r| r.1 < 60),
        "team is not where priority 60 in the first pass puts it:\n{listed}"
    );
    for side in [before, after] {
        assert!(
            side.iter().any(|r| r.2 == "builtin"),
            "built-ins on both sides of team:\n{listed}"
        );
    }
}
