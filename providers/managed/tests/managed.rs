//! Where `musepi-managed` looks (SPEC §5 step 6): `<agentDir>/managed-skills`,
//! the agent directory `~/.musepi/agent` unless `MUSEPI_CODING_AGENT_DIR`
//! moves it; each skill needs a description.

use skillpipe_provider_managed::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn the_agent_directory_s_managed_skills_and_nothing_of_the_project() {
    let tree = Tree::new();
    tree.skill(
        "home/.musepi/agent/managed-skills/learnt",
        "learnt",
        "Learnt.",
    )
    .skill(
        "project/.musepi/managed-skills/local",
        "local",
        "Not a root.",
    )
    .skill("moved/managed-skills/elsewhere", "elsewhere", "Moved.");
    let run = Run::new(provider());
    run.clone().check(
        &tree,
        &["skill learnt (musepi-managed/user) home/.musepi/agent/managed-skills/learnt/SKILL.md"],
    );
    run.env("MUSEPI_CODING_AGENT_DIR", "$TREE/moved").check(
        &tree,
        &["skill elsewhere (musepi-managed/user) moved/managed-skills/elsewhere/SKILL.md"],
    );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    hostile::check(
        &Run::new(provider()),
        &Tree::new(),
        "home/.musepi/agent/managed-skills",
    );
}
