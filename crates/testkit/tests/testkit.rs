//! The kit itself: `check` compares exactly and says how it differs, a run
//! has the one provider under test and none of the built-ins, its settings
//! and environment reach the pipeline, and the hostile check fails a
//! provider that looks in the wrong place.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use skillpipe::{Conventional, DiscoveryContext, Level, ProviderInfo, Root, RootItem, Toggle};
use skillpipe_testkit::{Profile, Run, Tree, check, hostile, lines};

/// `~/team-skills` (or `$TEAM_DIR`), switched by `skills.enableTeamSkills`.
fn team(id: &str) -> Conventional {
    fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
        let dir = cx
            .var("TEAM_DIR")
            .map_or_else(|| cx.home.join("team-skills"), Into::into);
        vec![
            Root::new(dir, Level::User)
                .toggle(Toggle::key("enableTeamSkills"))
                .into(),
        ]
    }
    Conventional::new(
        ProviderInfo::plugin(id, "Team skills", 60).toggles([Toggle::key("enableTeamSkills")]),
        roots,
    )
}

/// The panic message of `f`.
fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("it must panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast::<&str>().map(|s| s.to_string()).unwrap(),
    }
}

#[test]
fn check_passes_on_exactly_the_lines_and_no_built_in_takes_part() {
    let tree = Tree::new();
    tree.skill("home/team-skills/deploy", "deploy", "Ship it.")
        .file("home/team-skills/broken/SKILL.md", "---\nname: [x\n---\n")
        // Where built-ins look: switched off by the kit.
        .skill("home/.claude/skills/claude-only", "claude-only", "C.")
        .skill("home/.musepi/agent/skills/native-only", "native-only", "N.")
        .skill("project/.agents/skills/agents-only", "agents-only", "A.");
    check(
        team("team"),
        &tree,
        &[
            "skill deploy (team/user) home/team-skills/deploy/SKILL.md",
            "error[yaml-error] home/team-skills/broken/SKILL.md:2:7: invalid YAML frontmatter at line 2, column 7: unclosed bracket '['",
        ],
    );
}

#[test]
fn a_mismatch_panics_with_a_diff_of_expected_and_got() {
    let tree = Tree::new();
    tree.skill("home/team-skills/deploy", "deploy", "Ship it.")
        .skill("home/team-skills/review", "review", "Look.");
    let message = panic_of(|| {
        check(
            team("team"),
            &tree,
            &[
                "skill deploy (team/user) home/team-skills/deploy/SKILL.md",
                "skill lint (team/user) home/team-skills/lint/SKILL.md",
            ],
        );
    });
    assert_eq!(
        message,
        "provider `team` in profile musepi loaded other lines than expected (- expected, + got):\n\
         \x20   skill deploy (team/user) home/team-skills/deploy/SKILL.md\n\
         \x20 - skill lint (team/user) home/team-skills/lint/SKILL.md\n\
         \x20 + skill review (team/user) home/team-skills/review/SKILL.md\n"
    );
}

#[test]
fn settings_and_environment_reach_the_run() {
    let tree = Tree::new();
    tree.skill("home/team-skills/deploy", "deploy", "Ship it.")
        .skill("elsewhere/moved", "moved", "Moved.");
    let run = Run::new(team("team"));
    assert_eq!(lines(team("team"), &tree).len(), 1);
    assert!(
        run.clone()
            .set("skills.enableTeamSkills=false")
            .lines(&tree)
            .is_empty()
    );
    run.env("TEAM_DIR", "$TREE/elsewhere")
        .check(&tree, &["skill moved (team/user) elsewhere/moved/SKILL.md"]);
}

#[test]
fn a_built_in_id_takes_the_built_in_s_place_and_one_of_another_profile_is_refused() {
    let tree = Tree::new();
    tree.skill("home/team-skills/deploy", "deploy", "Ship it.");
    check(
        team("claude"),
        &tree,
        &["skill deploy (claude/user) home/team-skills/deploy/SKILL.md"],
    );
    let pi = || {
        Conventional::new(ProviderInfo::builtin("pi", "pi", 100), |cx| {
            vec![Root::new(cx.home.join("team-skills"), Level::User).into()]
        })
    };
    let message = panic_of(|| {
        lines(pi(), &Tree::new());
    });
    assert!(
        message.contains("`pi` takes no part in profile musepi"),
        "{message}"
    );
    Run::new(pi()).profile(Profile::Pi).check(
        &tree,
        &["skill deploy (pi/user) home/team-skills/deploy/SKILL.md"],
    );
}

#[test]
fn the_hostile_check_passes_where_the_provider_looks_and_fails_elsewhere() {
    let lines = hostile::check(&Run::new(team("team")), &Tree::new(), "home/team-skills");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("error[yaml-error] home/team-skills/bad-yaml/SKILL.md")),
        "{lines:?}"
    );
    let message = panic_of(|| {
        hostile::check(&Run::new(team("team")), &Tree::new(), "home/other-skills");
    });
    assert!(
        message.contains(
            "a-neighbour must load once from home/other-skills/a-neighbour/SKILL.md, not 0 times"
        ),
        "{message}"
    );
}

#[cfg(unix)]
#[test]
fn a_locked_folder_is_opened_again_when_the_tree_goes() {
    use std::os::unix::fs::PermissionsExt;
    let tree = Tree::new();
    tree.skill("home/locked/x", "x", "X.").lock("home/locked");
    let locked = tree.path("home/locked");
    let mode = std::fs::metadata(&locked).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0);
    let root = tree.root().to_path_buf();
    drop(tree);
    assert!(
        !root.exists(),
        "the tree was removed, locked folder and all"
    );
}
