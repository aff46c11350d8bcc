//! Where `agents` looks (SPEC §4): `<A>/.agent/skills` and
//! `<A>/.agents/skills` for each ancestor of the project directory up to
//! the repository root (the home skipped), then `~/.agent/skills` and
//! `~/.agents/skills`.

use skillpipe_provider_agents::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn both_folder_names_in_the_project_ancestors_and_the_home() {
    let tree = Tree::new();
    tree.skill("project/.agent/skills/a1", "a1", "Project, .agent.")
        .skill(
            "project/sub/.agents/skills/a2",
            "a2",
            "Project subfolder, .agents.",
        )
        .skill("home/.agent/skills/a3", "a3", "Home, .agent.")
        .skill("home/.agents/skills/a4", "a4", "Home, .agents.")
        // Not roots: above the repository, another folder name.
        .skill(".agents/skills/above", "above", "Above the repository.")
        .skill("project/agents/skills/plain", "plain", "No dot.");
    Run::new(provider()).cwd("project/sub").check(
        &tree,
        &[
            "skill a1 (agents/project) project/.agent/skills/a1/SKILL.md",
            "skill a2 (agents/project) project/sub/.agents/skills/a2/SKILL.md",
            "skill a3 (agents/user) home/.agent/skills/a3/SKILL.md",
            "skill a4 (agents/user) home/.agents/skills/a4/SKILL.md",
        ],
    );
}

#[test]
fn the_project_toggle_leaves_the_home() {
    let tree = Tree::new();
    tree.skill("project/.agents/skills/p", "p", "Project.")
        .skill("home/.agents/skills/u", "u", "User.");
    Run::new(provider())
        .set("skills.enableAgentsProject=false")
        .check(
            &tree,
            &["skill u (agents/user) home/.agents/skills/u/SKILL.md"],
        );
}

#[test]
fn a_project_in_the_home_walks_up_to_it_but_reads_the_home_as_the_user_s() {
    let tree = Tree::new();
    tree.skill("home/work/.agents/skills/w", "w", "Project.")
        .skill("home/.agents/skills/u", "u", "User.");
    Run::new(provider()).cwd("home/work").check(
        &tree,
        &[
            "skill u (agents/user) home/.agents/skills/u/SKILL.md",
            "skill w (agents/project) home/work/.agents/skills/w/SKILL.md",
        ],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(&Run::new(provider()), &Tree::new(), "home/.agents/skills");
}
