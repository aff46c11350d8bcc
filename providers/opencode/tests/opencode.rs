//! Where `opencode` looks (SPEC §4): `~/.config/opencode/skills`, which
//! `XDG_CONFIG_HOME` moves, then `<cwd>/.opencode/skills`.

use skillpipe_provider_opencode::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn the_config_folder_and_the_project_directory_only() {
    let tree = Tree::new();
    tree.skill("home/.config/opencode/skills/deploy", "deploy", "Ship it.")
        .skill("project/app/.opencode/skills/build", "build", "Build.")
        // Not roots: an ancestor, the home's own `.opencode`.
        .skill("project/.opencode/skills/lint", "lint", "Lint.")
        .skill("home/.opencode/skills/home-dot", "home-dot", "Not a root.");
    Run::new(provider()).cwd("project/app").check(
        &tree,
        &[
            "skill build (opencode/project) project/app/.opencode/skills/build/SKILL.md",
            "skill deploy (opencode/user) home/.config/opencode/skills/deploy/SKILL.md",
        ],
    );
}

#[test]
fn xdg_config_home_moves_the_user_root() {
    let tree = Tree::new();
    tree.skill("home/.config/opencode/skills/deploy", "deploy", "Ship it.")
        .skill("xdg/opencode/skills/moved", "moved", "Moved.");
    Run::new(provider())
        .env("XDG_CONFIG_HOME", "$TREE/xdg")
        .check(
            &tree,
            &["skill moved (opencode/user) xdg/opencode/skills/moved/SKILL.md"],
        );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(provider()),
        &Tree::new(),
        "home/.config/opencode/skills",
    );
}
