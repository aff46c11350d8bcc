//! Where `claude` looks (SPEC §4): `~/.claude/skills`, which
//! `CLAUDE_CONFIG_DIR` moves, then `<A>/.claude/skills` for each ancestor
//! of the project directory up to the repository root.

use skillpipe_provider_claude::provider;
use skillpipe_testkit::{Run, Tree, check, hostile};

#[test]
fn the_user_root_and_each_project_ancestor_up_to_the_repository() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/deploy", "deploy", "Ship it.")
        .skill("project/.claude/skills/lint", "lint", "Lint.")
        .skill("project/app/.claude/skills/build", "build", "Build.")
        // Not roots: above the repository, a folder without `skills`.
        .skill(".claude/skills/above", "above", "Above the repository.")
        .skill("home/.claude/loose", "loose", "Not under skills.");
    Run::new(provider()).cwd("project/app").check(
        &tree,
        &[
            "skill build (claude/project) project/app/.claude/skills/build/SKILL.md",
            "skill deploy (claude/user) home/.claude/skills/deploy/SKILL.md",
            "skill lint (claude/project) project/.claude/skills/lint/SKILL.md",
        ],
    );
}

#[test]
fn claude_config_dir_moves_the_user_root() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/deploy", "deploy", "Ship it.")
        .skill("config/skills/moved", "moved", "Moved.");
    check(
        provider(),
        &tree,
        &["skill deploy (claude/user) home/.claude/skills/deploy/SKILL.md"],
    );
    Run::new(provider())
        .env("CLAUDE_CONFIG_DIR", "$TREE/config")
        .check(
            &tree,
            &["skill moved (claude/user) config/skills/moved/SKILL.md"],
        );
}

#[test]
fn a_project_in_the_home_walks_up_to_it_but_reads_the_home_as_the_user_s() {
    let tree = Tree::new();
    tree.skill("home/work/.claude/skills/w", "w", "Project.")
        .skill("home/.claude/skills/u", "u", "User.");
    Run::new(provider()).cwd("home/work").check(
        &tree,
        &[
            "skill u (claude/user) home/.claude/skills/u/SKILL.md",
            "skill w (claude/project) home/work/.claude/skills/w/SKILL.md",
        ],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(provider()),
        &Tree::new(),
        "project/.claude/skills",
    );
}
