//! Property test: whatever URL a model writes, `resolve` never returns a
//! path outside the skill's real base directory (except the skill's own
//! file for `skill://<name>`), even with symlinks inside the skill that
//! lead out.

#![cfg(unix)] // symlinks as Unix makes them
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use skillpipe::core::runtime::resolve;
use skillpipe::{Level, Skill, Source};

struct Fixture {
    _dir: tempfile::TempDir,
    skill: Skill,
    base_real: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = root.join("skills/guide");
    fs::create_dir_all(base.join("refs/deep")).unwrap();
    fs::create_dir_all(root.join("outside/dir")).unwrap();
    fs::write(root.join("outside/secret.txt"), "secret").unwrap();
    fs::write(root.join("outside/dir/x.txt"), "x").unwrap();
    fs::write(
        base.join("SKILL.md"),
        "---\nname: guide\ndescription: d\n---\n",
    )
    .unwrap();
    fs::write(base.join("refs/a.md"), "a").unwrap();
    fs::write(base.join("refs/deep/b.json"), "{}").unwrap();
    symlink("../../outside/secret.txt", base.join("escape.txt")).unwrap();
    symlink("../../../outside/dir", base.join("refs/escape-dir")).unwrap();
    symlink("a.md", base.join("refs/inside-link.md")).unwrap();
    symlink("/", base.join("root-link")).unwrap();
    let skill = Skill {
        name: "guide".into(),
        description: "d".into(),
        file_path: base.join("SKILL.md").into(),
        base_dir: base.clone().into(),
        source: Source {
            provider: "native".into(),
            level: Level::User,
            root: None,
        }
        .into(),
        hidden: false,
        frontmatter: Default::default(),
        invocation: None,
        visibility: Default::default(),
    };
    let base_real = base.canonicalize().unwrap();
    Fixture {
        _dir: dir,
        skill,
        base_real,
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("%2e%2e".to_owned()),
        Just("%2E.".to_owned()),
        Just("%2F".to_owned()),
        Just("%5C".to_owned()),
        Just("\\".to_owned()),
        Just("".to_owned()),
        Just("refs".to_owned()),
        Just("deep".to_owned()),
        Just("a.md".to_owned()),
        Just("b.json".to_owned()),
        Just("escape.txt".to_owned()),
        Just("escape-dir".to_owned()),
        Just("inside-link.md".to_owned()),
        Just("root-link".to_owned()),
        Just("etc".to_owned()),
        Just("x.txt".to_owned()),
        Just("SKILL.md".to_owned()),
        "[a-z%.]{1,6}",
    ]
}

fn inside(p: &Path, base_real: &Path) -> bool {
    p.canonicalize()
        .map(|c| c.starts_with(base_real))
        .unwrap_or(false)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn no_resolved_path_leaves_the_skill(segments in prop::collection::vec(segment(), 0..6), sep in prop_oneof![Just("/"), Just("\\"), Just("%2F")], tail in prop_oneof![Just(""), Just("?q=1"), Just("#frag")]) {
        let f = fixture();
        let url = format!("skill://guide/{}{tail}", segments.join(sep));
        if let Ok(resource) = resolve(std::slice::from_ref(&f.skill), &url) {
            let own_file = resource.path == f.skill.file_path;
            prop_assert!(own_file || inside(&resource.path, &f.base_real), "{url} resolved to {}", resource.path.display());
            if resource.is_dir {
                prop_assert!(inside(&resource.path, &f.base_real));
            }
        }
    }
}

#[test]
fn the_escape_links_are_refused_and_inside_links_served() {
    let f = fixture();
    let skills = std::slice::from_ref(&f.skill);
    for url in [
        "skill://guide/escape.txt",
        "skill://guide/refs/escape-dir/x.txt",
        "skill://guide/root-link/etc",
        "skill://guide/refs/escape-dir",
    ] {
        let err = resolve(skills, url).unwrap_err().to_string();
        assert_eq!(err, "Path traversal is not allowed", "{url}");
    }
    let ok = resolve(skills, "skill://guide/refs/inside-link.md").unwrap();
    assert_eq!(ok.content, b"a");
    assert_eq!(ok.content_type, "text/markdown");
    let listing = resolve(skills, "skill://guide/refs").unwrap();
    assert_eq!(
        String::from_utf8(listing.content).unwrap(),
        "deep/\nescape-dir/\na.md\ninside-link.md"
    );
}
