//! Hostile trees for the scanners: files that are no regular files where
//! discovery reads one (an ignore file, a skill file named as the root). Run on both listing paths: the Linux one by
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
    });
    let mut skills = Vec::new();
    let mut diags = Vec::new();
    for f in found {
        match f {
            Found::Candidate { candidate, .. } => {
                skills.extend(candidate.skill.map(|s| s.name));
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

fn root_of(t: &tempfile::TempDir) -> PathBuf {
    let root = t.path().join("skills");
    fs::create_dir_all(&root).unwrap();
    root
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
