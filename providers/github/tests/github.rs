//! Where `github` looks (SPEC §4): `<cwd>/.github/skills` alone, each
//! skill needing a description.

use skillpipe_provider_github::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn the_project_directory_only_and_a_description_is_required() {
    let tree = Tree::new();
    tree.skill("project/app/.github/skills/build", "build", "Build.")
        .file(
            "project/app/.github/skills/terse/SKILL.md",
            "---\nname: terse\n---\nNo description.\n",
        )
        // Not roots: an ancestor, the home.
        .skill("project/.github/skills/lint", "lint", "Lint.")
        .skill("home/.github/skills/deploy", "deploy", "Ship it.");
    Run::new(provider()).cwd("project/app").check(
        &tree,
        &[
            "skill build (github/project) project/app/.github/skills/build/SKILL.md",
            "error[description-required] project/app/.github/skills/terse/SKILL.md: description is required",
        ],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(provider()),
        &Tree::new(),
        "project/.github/skills",
    );
}
