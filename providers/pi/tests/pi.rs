//! Where the pi profile's providers look (SPEC §6): `pi` scans
//! `<agentDir>/skills` (`~/.pi/agent/skills`) and `<cwd>/.pi/skills`
//! recursively; `path` takes the settings files' `skills` entries and the
//! `--skill` paths. Each skill needs a description.

use skillpipe_provider_pi::{path_provider, pi_provider};
use skillpipe_testkit::{Profile, Run, Tree, hostile};

#[test]
fn pi_scans_its_two_roots_recursively_and_the_project_directory_only() {
    let tree = Tree::new();
    tree.skill("home/.pi/agent/skills/deploy", "deploy", "Ship it.")
        .skill(
            "home/.pi/agent/skills/ops/deep/rollback",
            "rollback",
            "Deep down.",
        )
        .skill("project/app/.pi/skills/build", "build", "Build.")
        // Not roots: an ancestor of the project directory, the home's app folder.
        .skill("project/.pi/skills/lint", "lint", "Lint.")
        .skill("home/.pi/skills/home-app", "home-app", "Not the agent dir.");
    Run::new(pi_provider())
        .profile(Profile::Pi)
        .cwd("project/app")
        .check(
            &tree,
            &[
                "skill deploy (pi/user) home/.pi/agent/skills/deploy/SKILL.md",
                "skill rollback (pi/user) home/.pi/agent/skills/ops/deep/rollback/SKILL.md",
                "skill build (pi/project) project/app/.pi/skills/build/SKILL.md",
            ],
        );
}

#[test]
fn path_takes_settings_entries_and_skill_paths() {
    let tree = Tree::new();
    tree.skill("library/essay", "essay", "Write.")
        .skill("extra/one", "one", "One.")
        .skill("home/.pi/agent/skills/deploy", "deploy", "Not path's.")
        // The user's settings: an entry relative to the file's folder.
        .file(
            "home/.pi/agent/settings.json",
            r#"{"skills": ["../../../library"]}"#,
        );
    Run::new(path_provider())
        .profile(Profile::Pi)
        .skill_path("extra/one")
        .skill_path("extra/missing")
        .check(
            &tree,
            &[
                "skill essay (path/path) library/essay/SKILL.md",
                "skill one (path/path) extra/one/SKILL.md",
                "warning[path-not-found] extra/missing: skill path does not exist",
            ],
        );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(pi_provider()).profile(Profile::Pi),
        &Tree::new(),
        "home/.pi/agent/skills",
    );
}
