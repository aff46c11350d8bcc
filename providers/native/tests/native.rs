//! Where `native` looks (SPEC §4): `<A>/.musepi/skills` for each ancestor
//! of the project directory up to the repository root, then
//! `<agentDir>/skills` (`~/.musepi/agent/skills`); each skill needs a
//! description.

use skillpipe_provider_native::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn each_project_ancestor_then_the_agent_directory() {
    let tree = Tree::new();
    tree.skill("project/.musepi/skills/lint", "lint", "Lint.")
        .skill("project/app/.musepi/skills/build", "build", "Build.")
        .skill("home/.musepi/agent/skills/deploy", "deploy", "Ship it.")
        // Not roots: above the repository, the home's app folder itself.
        .skill(".musepi/skills/above", "above", "Above the repository.")
        .skill(
            "home/.musepi/skills/home-app",
            "home-app",
            "Not the agent dir.",
        );
    Run::new(provider()).cwd("project/app").check(
        &tree,
        &[
            "skill build (native/project) project/app/.musepi/skills/build/SKILL.md",
            "skill deploy (native/user) home/.musepi/agent/skills/deploy/SKILL.md",
            "skill lint (native/project) project/.musepi/skills/lint/SKILL.md",
        ],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(provider()),
        &Tree::new(),
        "home/.musepi/agent/skills",
    );
}
