//! Where `codex` looks (SPEC §4): `~/.codex/skills`, which `CODEX_HOME`
//! moves, then `<cwd>/.codex/skills`: the project directory itself, not
//! its ancestors.

use skillpipe_provider_codex::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn the_user_root_and_the_project_directory_only() {
    let tree = Tree::new();
    tree.skill("home/.codex/skills/deploy", "deploy", "Ship it.")
        .skill("project/app/.codex/skills/build", "build", "Build.")
        // Not a root: an ancestor of the project directory.
        .skill("project/.codex/skills/lint", "lint", "Lint.");
    Run::new(provider()).cwd("project/app").check(
        &tree,
        &[
            "skill build (codex/project) project/app/.codex/skills/build/SKILL.md",
            "skill deploy (codex/user) home/.codex/skills/deploy/SKILL.md",
        ],
    );
}

#[test]
fn codex_home_moves_the_user_root() {
    let tree = Tree::new();
    tree.skill("home/.codex/skills/deploy", "deploy", "Ship it.")
        .skill("codex/skills/moved", "moved", "Moved.");
    Run::new(provider()).env("CODEX_HOME", "$TREE/codex").check(
        &tree,
        &["skill moved (codex/user) codex/skills/moved/SKILL.md"],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(&Run::new(provider()), &Tree::new(), "home/.codex/skills");
}
