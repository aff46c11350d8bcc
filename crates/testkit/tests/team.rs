//! README's "Testing your provider", as a platform team writes it: the
//! team's provider pinned where it looks, then hostile files beside its
//! skills. `tests/readme.rs` holds the README's copy to this file.

use skillpipe::{
    Conventional, Description, DiscoveryContext, Level, ProviderInfo, Root, RootItem, Toggle,
};
use skillpipe_testkit::{Run, Tree, check, hostile};

/// The provider under test (your crate's `provider()`): `~/team-skills`,
/// each skill needing a description, switched by `skills.enableTeamSkills`.
fn team() -> Conventional {
    fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
        let root = Root::new(cx.home.join("team-skills"), Level::User);
        vec![root.description(Description::Required).into()]
    }
    // The toggle, declared once: it gates every root and is the one
    // `providers` shows.
    Conventional::new(ProviderInfo::plugin("team", "Team skills", 60), roots)
        .toggle(Toggle::key("enableTeamSkills"))
}

#[test]
fn the_team_s_skills_come_from_the_home_only() {
    let tree = Tree::new();
    tree.skill("home/team-skills/deploy", "deploy", "Ship it.")
        .file(
            "home/team-skills/draft/SKILL.md",
            "---\nname: draft\n---\nNo description yet.\n",
        )
        .skill(
            "project/team-skills/lint",
            "lint",
            "Not where the team looks.",
        );
    check(
        team(),
        &tree,
        &[
            "skill deploy (team/user) home/team-skills/deploy/SKILL.md",
            "error[description-required] home/team-skills/draft/SKILL.md: description is required",
        ],
    );
    // Switched off as a user would: `--set`, a settings file, SKILLPIPE_*.
    Run::new(team())
        .set("skills.enableTeamSkills=false")
        .check(&tree, &[]);
}

#[test]
fn hostile_files_leave_the_team_s_skills_loaded() {
    hostile::check(&Run::new(team()), &Tree::new(), "home/team-skills");
}
