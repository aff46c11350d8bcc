//! Hostile trees for the scanners: bounds that cut a walk, and files that
//! are no regular files where discovery reads one (an ignore file, a skill
//! file named as the root). Run on both listing paths: the Linux one by
//! default, the portable one with `--features portable-scan`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillpipe_core::scan::{Found, ScanLimits, ScanMode, ScanSpec, scan};
use skillpipe_core::types::{Level, Source};

fn skill(dir: &Path, name: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: does {name}\n---\nbody\n"),
    )
    .unwrap();
}

/// What a scan of `root` found: the skills' names, then every diagnostic
/// as `code message`, each in visit order.
fn run(root: &Path, mode: ScanMode, limits: ScanLimits) -> (Vec<String>, Vec<String>) {
    let source = Arc::new(Source {
        provider: "path".into(),
        level: Level::Path,
        root: Some(root.to_path_buf()),
    });
    let found = scan(&ScanSpec {
        root,
        mode,
        source: &source,
        require_description: true,
        honor_enabled: false,
        limits,
        observer: None,
    });
    let mut skills = Vec::new();
    let mut diags = Vec::new();
    for f in found {
        match f {
            Found::Candidate { candidate, .. } => {
                skills.extend(candidate.skill.map(|s| s.name.to_string()));
                diags.extend(
                    candidate
                        .diagnostics
                        .iter()
                        .map(|d| format!("{} {}", d.code, d.message)),
                );
            }
            Found::Diagnostic(d) | Found::Failed(d) => {
                diags.push(format!("{} {}", d.code, d.message))
            }
        }
    }
    (skills, diags)
}

fn entries(max_entries: usize) -> ScanLimits {
    ScanLimits {
        max_entries,
        ..ScanLimits::default()
    }
}

fn root_of(t: &tempfile::TempDir) -> PathBuf {
    let root = t.path().join("skills");
    fs::create_dir_all(&root).unwrap();
    root
}

#[test]
fn a_skill_folder_with_more_files_than_the_bound_loads_and_hides_nothing() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    skill(&root.join("a-before"), "a-before");
    skill(&root.join("m-big"), "m-big");
    for i in 0..50 {
        fs::write(root.join("m-big").join(format!("asset-{i:02}")), "").unwrap();
    }
    skill(&root.join("z-after"), "z-after");
    let (skills, diags) = run(&root, ScanMode::Recursive, entries(10));
    assert_eq!(skills, ["a-before", "m-big", "z-after"]);
    assert_eq!(diags, Vec::<String>::new());
}

#[test]
fn crossing_max_entries_keeps_what_was_visited_and_says_where_it_stopped() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    // Twenty root `.md` files, every fifth a skill, then an empty folder.
    for i in 0..20 {
        let text = if i % 5 == 0 {
            format!("---\nname: f{i:02}\ndescription: md skill {i}\n---\n")
        } else {
            "# notes\n".to_owned()
        };
        fs::write(root.join(format!("f{i:02}.md")), text).unwrap();
    }
    fs::create_dir(root.join("zz")).unwrap();
    let all = ["f00", "f05", "f10", "f15"];
    // 21 entries: within a bound of 21, one past a bound of 20.
    assert_eq!(
        run(&root, ScanMode::Recursive, entries(21)),
        (all.map(String::from).to_vec(), vec![])
    );
    let (skills, diags) = run(&root, ScanMode::Recursive, entries(20));
    assert_eq!(skills, all);
    assert_eq!(
        diags,
        ["scan-truncated scan stopped at max_entries (20)"] // the walk stopped before zz
    );
    // The cut falls inside the listing: what comes before it stays.
    let (skills, diags) = run(&root, ScanMode::Recursive, entries(11));
    assert_eq!(skills, ["f00", "f05", "f10"]);
    assert_eq!(
        diags,
        ["scan-truncated scan stopped at max_entries (11)"] // the walk stopped before f11.md
    );
}

#[test]
fn a_bound_met_deep_in_the_walk_keeps_the_skills_before_it() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    for cat in ["a", "b", "c"] {
        for i in 0..4 {
            let name = format!("{cat}-{i}");
            skill(&root.join(cat).join(&name), &name);
        }
    }
    // Entries in walk order: a, its 4 skills, b, its 4, c, its 4 (15).
    let (skills, diags) = run(&root, ScanMode::Recursive, entries(8));
    assert_eq!(skills, ["a-0", "a-1", "a-2", "a-3", "b-0", "b-1"]);
    assert_eq!(
        diags,
        ["scan-truncated scan stopped at max_entries (8)"] // the walk stopped before b/b-2
    );
    // `max_dirs` stops the walk too: the root, a, four skills, b.
    let (skills, diags) = run(
        &root,
        ScanMode::Recursive,
        ScanLimits {
            max_dirs: 7,
            ..ScanLimits::default()
        },
    );
    assert_eq!(skills, ["a-0", "a-1", "a-2", "a-3"]);
    assert_eq!(
        diags,
        ["scan-truncated scan stopped at max_dirs (7)"] // the walk stopped before b/b-0
    );
}

#[test]
fn each_smaller_bound_finds_a_prefix_of_what_a_larger_one_finds() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    for i in 0..12 {
        skill(&root.join(format!("s{i:02}")), &format!("s{i:02}"));
        let inner = format!("inner-{i:02}");
        skill(&root.join(format!("cat{i:02}")).join(&inner), &inner);
        fs::write(root.join(format!("cat{i:02}")).join("notes.txt"), "").unwrap();
    }
    let (full, none) = run(&root, ScanMode::Recursive, ScanLimits::default());
    assert_eq!((full.len(), none), (24, vec![]));
    let mut last = 0;
    for max in 0..=60 {
        let (skills, diags) = run(&root, ScanMode::Recursive, entries(max));
        assert_eq!(skills, full[..skills.len()], "max_entries {max}");
        assert!(skills.len() >= last, "max_entries {max}");
        assert_eq!(
            diags.len(),
            usize::from(skills.len() < full.len()),
            "{max}: {diags:?}"
        );
        last = skills.len();
    }
    assert_eq!(last, full.len());
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.unwrap().success());
}

/// Scans on a thread of its own: a scan that blocks fails the test after
/// `secs` instead of hanging it.
#[cfg(unix)]
fn run_bounded(root: &Path, mode: ScanMode, secs: u64) -> (Vec<String>, Vec<String>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(run(&root, mode, ScanLimits::default()));
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .expect("the scan blocked")
}

#[cfg(unix)]
#[test]
fn an_ignore_file_that_is_no_regular_file_is_a_read_error_and_never_read() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    skill(&root.join("a"), "a");
    skill(&root.join("hidden"), "hidden");
    skill(&root.join("inner/b"), "b");
    // The `.ignore` beside it still applies.
    fs::write(root.join(".ignore"), "\u{feff}hidden/\r\n").unwrap();
    // A link to /dev/zero (git stores links) and a FIFO.
    std::os::unix::fs::symlink("/dev/zero", root.join(".gitignore")).unwrap();
    mkfifo(&root.join("inner/.fdignore"));
    // A directory of that name is no ignore file and says nothing.
    fs::create_dir(root.join("a/.ignore")).unwrap();
    let (skills, diags) = run_bounded(&root, ScanMode::Recursive, 20);
    assert_eq!(skills, ["a", "b"]);
    assert_eq!(
        diags,
        [
            format!(
                "read-error Failed to read {} (not a regular file)",
                root.join(".gitignore").display()
            ),
            format!(
                "read-error Failed to read {} (not a regular file)",
                root.join("inner/.fdignore").display()
            ),
        ]
    );
}

#[test]
fn ignore_files_keep_their_meaning_when_read_line_by_line() {
    let t = tempfile::tempdir().unwrap();
    let root = root_of(&t);
    for name in ["keep", "drop-1", "drop-2", "also", "crlf"] {
        skill(&root.join(name), name);
    }
    // A comment, a negation, a line that is not UTF-8 (skipped), CRLF.
    let mut text = b"# comment\ndrop-*/\n!drop-2/\n\xff\xfe/\ncrlf/\r\n".to_vec();
    text.extend_from_slice(b"also");
    fs::write(root.join(".gitignore"), text).unwrap();
    let (skills, diags) = run(&root, ScanMode::Recursive, ScanLimits::default());
    assert_eq!(skills, ["drop-2", "keep"]);
    assert_eq!(diags, Vec::<String>::new());
}

#[cfg(unix)]
#[test]
fn a_skill_file_named_as_the_root_that_is_no_regular_file_says_so() {
    let t = tempfile::tempdir().unwrap();
    let fifo = t.path().join("x.md");
    mkfifo(&fifo);
    let zero = t.path().join("z.md");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for path in [&fifo, &zero] {
        let (skills, diags) = run_bounded(path, ScanMode::File, 20);
        assert_eq!(skills, Vec::<String>::new());
        assert_eq!(
            diags,
            [format!(
                "read-error Failed to read {} (not a regular file)",
                path.display()
            )]
        );
    }
    // A regular file over the bound: `file-too-large`, as before.
    let big = t.path().join("big.md");
    fs::write(&big, "x".repeat(100)).unwrap();
    let limits = ScanLimits {
        max_file_bytes: 10,
        ..ScanLimits::default()
    };
    let (_, diags) = run(&big, ScanMode::File, limits);
    assert_eq!(diags, ["file-too-large file exceeds 10 bytes (100)"]);
}
