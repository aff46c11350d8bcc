//! Every copy of a name: collision losers stay in the discovery as
//! shadowed copies with a typed fate, and copies with identical `SKILL.md`
//! bytes are quiet (issue 14), in both profiles.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;

use skillpipe::{Discovery, Fate, Level, Pass, ShadowedCopy};
use skillpipe_tests::{Flags, Tree, discover};

const REVIEW: &str =
    "---\nname: review\ndescription: Review the change.\n---\nRead the tests first.\n";
const OTHER_REVIEW: &str =
    "---\nname: review\ndescription: Review the change.\n---\nRead the code first.\n";

fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, Tree) {
    let t = tempfile::tempdir().unwrap();
    let tree = Tree {
        files: files
            .iter()
            .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
            .collect(),
        dirs: vec!["project/.git".into()],
        ..Tree::default()
    };
    tree.build(t.path()).unwrap();
    (t, tree)
}

fn run(root: &Path, profile: &str, set: &[&str], skill: &[&str]) -> Discovery {
    let flags = Flags {
        set: set.iter().map(|s| (*s).to_owned()).collect(),
        skill: skill
            .iter()
            .map(|s| root.join(s).display().to_string())
            .collect(),
        ..Flags::default()
    };
    discover(root, profile, "home", "project", &flags).unwrap()
}

fn collisions(d: &Discovery, root: &Path) -> Vec<String> {
    d.diagnostics
        .iter()
        .filter(|d| d.code == "collision")
        .map(|d| rel(&d.path, root))
        .collect()
}

/// `path` under `root`, its names joined by `/` on every platform.
fn rel(path: &Path, root: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap();
    let names: Vec<_> = rel.iter().map(|n| n.to_string_lossy()).collect();
    names.join("/")
}

/// `(kind, the copy's file)` of each copy that did not load.
fn kinds(d: &Discovery, root: &Path) -> Vec<(&'static str, String)> {
    fates(d, root)
        .into_iter()
        .map(|(k, f, ..)| (k, f))
        .collect()
}

/// `(kind, the copy's file, the winner's provider, priority, pass)`.
fn fates(d: &Discovery, root: &Path) -> Vec<(&'static str, String, String, Option<i32>, Pass)> {
    d.shadowed
        .iter()
        .map(|ShadowedCopy { skill, fate }| {
            let kind = match fate {
                Fate::Shadowed { .. } => "shadowed",
                Fate::Identical { .. } => "identical",
                _ => "other",
            };
            let w = fate.winner().unwrap();
            (
                kind,
                rel(&skill.file_path, root),
                w.provider.clone(),
                w.priority,
                w.pass,
            )
        })
        .collect()
}

#[test]
fn musepi_keeps_every_copy_and_identical_ones_are_quiet() {
    let (t, _) = tree(&[
        ("home/.musepi/agent/skills/review/SKILL.md", REVIEW),
        ("home/.claude/skills/review/SKILL.md", REVIEW),
        ("project/.claude/skills/review/SKILL.md", OTHER_REVIEW),
        (
            "home/.agents/skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: PDFs.\n---\n",
        ),
        (
            "home/.codex/skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: PDFs.\n---\n",
        ),
        ("extra/a/review/SKILL.md", OTHER_REVIEW),
        (
            "extra/b/tool/SKILL.md",
            "---\nname: tool\ndescription: T.\n---\n",
        ),
        (
            "extra/c/tool/SKILL.md",
            "---\nname: tool\ndescription: T.\n---\nother\n",
        ),
    ]);
    let root = t.path();
    let d = run(root, "musepi", &[], &["extra/a", "extra/b", "extra/c"]);
    let names: Vec<&str> = d.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pdf", "review", "tool"]);
    // Only the copies with other bytes are collisions.
    assert_eq!(
        collisions(&d, root),
        [
            "project/.claude/skills/review/SKILL.md",
            "extra/a/review/SKILL.md",
            "extra/c/tool/SKILL.md"
        ]
    );
    assert_eq!(
        fates(&d, root),
        [
            (
                "identical",
                "home/.claude/skills/review/SKILL.md".to_owned(),
                "native".to_owned(),
                Some(100),
                Pass::Providers
            ),
            (
                "shadowed",
                "project/.claude/skills/review/SKILL.md".to_owned(),
                "native".to_owned(),
                Some(100),
                Pass::Providers
            ),
            (
                "identical",
                "home/.codex/skills/pdf/SKILL.md".to_owned(),
                "agents".to_owned(),
                Some(70),
                Pass::Providers
            ),
            (
                "shadowed",
                "extra/a/review/SKILL.md".to_owned(),
                "native".to_owned(),
                Some(100),
                Pass::Providers
            ),
            (
                "shadowed",
                "extra/c/tool/SKILL.md".to_owned(),
                "custom".to_owned(),
                None,
                Pass::Custom
            ),
        ]
    );
    let first = &d.shadowed[0];
    assert_eq!(first.fate.winner().unwrap().level, Level::User);
    assert!(
        first
            .fate
            .winner()
            .unwrap()
            .file_path
            .ends_with(".musepi/agent/skills/review/SKILL.md")
    );
    assert_eq!(first.skill.source.provider, "claude");
    // The JSON of a fate names its kind and the winner.
    let json = serde_json::to_value(&first.fate).unwrap();
    assert_eq!(json["fate"], "identical");
    assert_eq!(json["to"]["provider"], "native");
    assert_eq!(json["to"]["pass"], "providers");
    // The discovery document itself has no new key.
    let doc = serde_json::to_value(&d).unwrap();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["skills", "diagnostics"]);

    // warnIdenticalCopies brings the warnings back; the fates stay.
    let loud = run(
        root,
        "musepi",
        &["skills.warnIdenticalCopies=true"],
        &["extra/a", "extra/b", "extra/c"],
    );
    assert_eq!(collisions(&loud, root).len(), 5);
    assert_eq!(fates(&loud, root), fates(&d, root));
    assert_eq!(loud.skills, d.skills);
}

#[test]
fn pi_keeps_every_copy_and_identical_ones_are_quiet() {
    let (t, _) = tree(&[
        ("home/.pi/agent/skills/review/SKILL.md", REVIEW),
        ("project/.pi/skills/review/SKILL.md", REVIEW),
        ("elsewhere/review/SKILL.md", OTHER_REVIEW),
    ]);
    let root = t.path();
    let d = run(root, "pi", &[], &["elsewhere"]);
    assert_eq!(d.skills.len(), 1);
    assert_eq!(collisions(&d, root), ["elsewhere/review/SKILL.md"]);
    assert_eq!(
        kinds(&d, root),
        [
            ("identical", "project/.pi/skills/review/SKILL.md".to_owned()),
            ("shadowed", "elsewhere/review/SKILL.md".to_owned())
        ]
    );
    assert!(
        d.shadowed
            .iter()
            .all(|c| c.fate.winner().unwrap().provider == "pi")
    );
    let loud = run(root, "pi", &["warnIdenticalCopies=true"], &["elsewhere"]);
    assert_eq!(
        collisions(&loud, root),
        [
            "project/.pi/skills/review/SKILL.md",
            "elsewhere/review/SKILL.md"
        ]
    );
}

/// Copies are told apart by their bytes, not their lengths: a copy of the
/// winner's length whose bytes differ (the winner's bytes are then read)
/// is a collision, one of another length is one without a read, and only
/// the same bytes are identical.
#[test]
fn copies_of_one_length_are_compared_by_their_bytes() {
    let same_len = "---\nname: lint\ndescription: Lints code.\n---\nA\n";
    let other_bytes = "---\nname: lint\ndescription: Lints code.\n---\nB\n";
    let longer = "---\nname: lint\ndescription: Lints code.\n---\nAB\n";
    assert_eq!(same_len.len(), other_bytes.len());
    let (t, _) = tree(&[
        ("home/.claude/skills/lint/SKILL.md", same_len),
        ("home/.agents/skills/lint/SKILL.md", other_bytes),
        ("home/.codex/skills/lint/SKILL.md", longer),
        ("project/.claude/skills/lint/SKILL.md", same_len),
    ]);
    let root = t.path();
    let d = run(root, "musepi", &[], &[]);
    assert_eq!(
        kinds(&d, root),
        [
            (
                "identical",
                "project/.claude/skills/lint/SKILL.md".to_owned()
            ),
            ("shadowed", "home/.agents/skills/lint/SKILL.md".to_owned()),
            ("shadowed", "home/.codex/skills/lint/SKILL.md".to_owned()),
        ],
        "the user's claude copy loads, and is the one compared"
    );
}
