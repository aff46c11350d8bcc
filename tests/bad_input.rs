//! Bad skill input gives diagnostics, never a panic, a hang or a lost
//! neighbour: invalid UTF-8, binary files, a 10 MB SKILL.md, a SKILL.md
//! that is a directory, a symlink loop, dangling links.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;
use std::path::Path;

use skillpipe_tests::{Flags, discover};

const GOOD: &str = "---\nname: good\ndescription: The neighbour.\n---\nBody\n";

fn skills_dir(root: &Path) -> std::path::PathBuf {
    let dir = root.join("home/.musepi/agent/skills");
    fs::create_dir_all(dir.join("good")).unwrap();
    fs::write(dir.join("good/SKILL.md"), GOOD).unwrap();
    fs::create_dir_all(root.join("project")).unwrap();
    dir
}

fn codes(root: &Path) -> (Vec<String>, Vec<String>) {
    let d = discover(root, "musepi", "home", "project", &Flags::default()).unwrap();
    (
        d.skills.iter().map(|s| s.name.to_string()).collect(),
        d.diagnostics.iter().map(|d| d.code.to_string()).collect(),
    )
}

#[test]
fn invalid_utf8_loads_with_a_warning_and_replacement_characters() {
    let t = tempfile::tempdir().unwrap();
    let dir = skills_dir(t.path());
    fs::create_dir_all(dir.join("latin")).unwrap();
    fs::write(
        dir.join("latin/SKILL.md"),
        b"---\nname: latin\ndescription: Caf\xE9 \xFF\n---\n",
    )
    .unwrap();
    let d = discover(t.path(), "musepi", "home", "project", &Flags::default()).unwrap();
    let latin = d.skills.iter().find(|s| s.name == "latin").unwrap();
    assert_eq!(latin.description, "Caf\u{FFFD} \u{FFFD}");
    assert_eq!(d.diagnostics.len(), 1);
    assert_eq!(d.diagnostics[0].code, "invalid-utf8");
    assert!(d.skills.iter().any(|s| s.name == "good"));
}

#[test]
fn binary_garbage_is_a_diagnostic_not_a_panic() {
    let t = tempfile::tempdir().unwrap();
    let dir = skills_dir(t.path());
    fs::create_dir_all(dir.join("bin")).unwrap();
    let mut bytes = b"---\n".to_vec();
    bytes.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    bytes.extend(b"\n---\n");
    fs::write(dir.join("bin/SKILL.md"), bytes).unwrap();
    let (skills, diags) = codes(t.path());
    assert_eq!(skills, ["good"]);
    assert!(!diags.is_empty(), "garbage gave no diagnostic");
}

#[test]
fn a_ten_megabyte_skill_file_is_refused_unread() {
    let t = tempfile::tempdir().unwrap();
    let dir = skills_dir(t.path());
    fs::create_dir_all(dir.join("huge")).unwrap();
    let mut text = String::from("---\nname: huge\ndescription: big\n---\n");
    text.push_str(&"x".repeat(10 * 1024 * 1024));
    fs::write(dir.join("huge/SKILL.md"), text).unwrap();
    let d = discover(t.path(), "musepi", "home", "project", &Flags::default()).unwrap();
    assert_eq!(
        d.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    assert_eq!(d.diagnostics[0].code, "file-too-large");
    assert!(
        d.diagnostics[0]
            .message
            .starts_with("file exceeds 1048576 bytes (")
    );
}

#[cfg(unix)]
#[test]
fn a_skill_md_directory_and_dangling_links_are_skipped() {
    let t = tempfile::tempdir().unwrap();
    let dir = skills_dir(t.path());
    fs::create_dir_all(dir.join("odd/SKILL.md")).unwrap();
    std::os::unix::fs::symlink("/nowhere/at/all", dir.join("dangling")).unwrap();
    let (skills, diags) = codes(t.path());
    assert_eq!(skills, ["good"]);
    assert!(diags.is_empty(), "{diags:?}");
}

#[cfg(unix)]
#[test]
fn pi_symlink_loops_terminate_with_one_diagnostic_per_link() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("home/.pi/agent/skills");
    fs::create_dir_all(root.join("a/b")).unwrap();
    fs::create_dir_all(root.join("s")).unwrap();
    fs::write(
        root.join("s/SKILL.md"),
        "---\nname: s\ndescription: d\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../..", root.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink(".", root.join("a/self")).unwrap();
    fs::create_dir_all(t.path().join("project")).unwrap();
    let d = discover(t.path(), "pi", "home", "project", &Flags::default()).unwrap();
    assert_eq!(
        d.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["s"]
    );
    let loops: Vec<_> = d
        .diagnostics
        .iter()
        .filter(|d| d.code == "symlink-loop")
        .collect();
    assert_eq!(loops.len(), 2, "{:?}", d.diagnostics);
}

#[test]
fn yaml_errors_carry_file_line_and_column() {
    let t = tempfile::tempdir().unwrap();
    let dir = skills_dir(t.path());
    fs::create_dir_all(dir.join("bad")).unwrap();
    fs::write(
        dir.join("bad/SKILL.md"),
        "---\nname: bad\ndescription: [unclosed\n---\n",
    )
    .unwrap();
    let d = discover(t.path(), "musepi", "home", "project", &Flags::default()).unwrap();
    let e = d
        .diagnostics
        .iter()
        .find(|d| d.code == "yaml-error")
        .unwrap();
    assert!(e.line.unwrap() >= 3, "{e:?}");
    assert!(e.message.starts_with(&format!(
        "invalid YAML frontmatter at line {}, column {}: ",
        e.line.unwrap(),
        e.column.unwrap()
    )));
    assert!(d.skills.iter().any(|s| s.name == "good"));
}
