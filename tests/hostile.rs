//! A hostile tree, or a file changed while skillpipe reads it, never hangs,
//! exhausts memory or leads a read outside a skill: the regressions of the
//! hardening issue that concern reads after discovery (`skill://`,
//! `/skill:` expansion, AGENTS.md, `validate`).

#![cfg(unix)] // FIFOs, sockets and symlinks as Unix makes them
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use skillpipe::core::runtime::{self, Contents, ResolveError, ResolveOptions};
use skillpipe::{Delivery, Discovery, ExpandOptions, Style};
use skillpipe_tests::{Flags, discover};

const SECRET: &str = "SECRET-7f3a-outside-the-skill";

/// A home with one skill `x` (`x/ref.md` inside it) and a secret file
/// beside the home, outside every skill.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let x = root.join("home/.musepi/agent/skills/x");
    fs::create_dir_all(&x).unwrap();
    fs::create_dir_all(root.join("project")).unwrap();
    fs::write(
        x.join("SKILL.md"),
        "---\nname: x\ndescription: d\n---\nBody\n",
    )
    .unwrap();
    fs::write(x.join("ref.md"), "inside").unwrap();
    fs::write(root.join("secret.txt"), SECRET).unwrap();
    (t, root)
}

fn load(root: &Path) -> Discovery {
    discover(root, "musepi", "home", "project", &Flags::default()).unwrap()
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_file_swapped_for_an_outside_link_during_resolve_is_never_served() {
    let (_t, root) = tree();
    let d = load(&root);
    let x = root.join("home/.musepi/agent/skills/x");
    // `ref.md` and a link to the secret trade places, atomically, as fast
    // as the kernel allows (renameat2 RENAME_EXCHANGE).
    std::os::unix::fs::symlink(root.join("secret.txt"), x.join("other")).unwrap();
    let stop = AtomicBool::new(false);
    let served_secret = std::thread::scope(|s| {
        s.spawn(|| {
            let dir = fs::File::open(&x).unwrap();
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    &dir,
                    "ref.md",
                    &dir,
                    "other",
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
            }
        });
        let mut served = 0;
        let mut outcomes = [0usize; 3];
        for _ in 0..20_000 {
            match runtime::resolve(&d.skills, "skill://x/ref.md") {
                Ok(r) if String::from_utf8_lossy(&r.content).contains(SECRET) => served += 1,
                Ok(_) => outcomes[0] += 1,
                Err(ResolveError::Escape) => outcomes[1] += 1,
                Err(_) => outcomes[2] += 1,
            }
        }
        stop.store(true, Ordering::Relaxed);
        // The swaps really happened: both outcomes were seen.
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
        served
    });
    assert_eq!(served_secret, 0, "the outside file was served");
}

#[test]
fn a_fifo_inside_a_skill_is_refused_at_once() {
    let (_t, root) = tree();
    let sub = root.join("home/.musepi/agent/skills/x/sub");
    fs::create_dir(&sub).unwrap();
    mkfifo(&sub.join("pipe"));
    let d = load(&root);
    let err = runtime::resolve(&d.skills, "skill://x/sub/pipe").unwrap_err();
    assert!(matches!(err, ResolveError::NotRegular(_)), "{err:?}");
    assert!(err.to_string().starts_with("Not a regular file: "));
    // The listing names it, without opening it.
    let listing = runtime::resolve(&d.skills, "skill://x/sub").unwrap();
    assert!(listing.is_dir);
    assert_eq!(listing.content, b"pipe");
}

#[test]
fn a_huge_file_is_refused_unread_and_its_metadata_still_resolves() {
    let (_t, root) = tree();
    let big = root.join("home/.musepi/agent/skills/x/big.bin");
    // Sparse: 700 MB on paper, nothing on disk.
    fs::File::create(&big)
        .unwrap()
        .set_len(700 * 1024 * 1024)
        .unwrap();
    let d = load(&root);
    let err = runtime::resolve(&d.skills, "skill://x/big.bin").unwrap_err();
    assert!(
        matches!(err, ResolveError::TooLarge { size, .. } if size == 700 * 1024 * 1024),
        "{err:?}"
    );
    let meta_only = ResolveOptions {
        contents: Contents::Skip,
        ..ResolveOptions::default()
    };
    let r = runtime::resolve_with(&d.skills, "skill://x/big.bin", meta_only).unwrap();
    assert!(r.content.is_empty() && !r.is_dir);
    assert_eq!(r.path, big);
}

#[test]
fn expanding_a_skill_file_swapped_for_a_fifo_reports_a_read_error() {
    let (_t, root) = tree();
    let d = load(&root);
    let file = root.join("home/.musepi/agent/skills/x/SKILL.md");
    fs::remove_file(&file).unwrap();
    mkfifo(&file);
    let e = runtime::expand(
        &d.skills,
        "/skill:x now",
        ExpandOptions {
            style: Style::Musepi,
            commands: skillpipe::core::runtime::SkillCommands::On,
            delivery: Delivery::Prompt,
            max_file_bytes: 1 << 20,
            arguments: Default::default(),
        },
    );
    assert!(!e.expanded());
    assert_eq!(e.diagnostics.len(), 1);
    assert_eq!(e.diagnostics[0].code, "read-error");
    assert!(e.diagnostics[0].message.contains("not a regular file"));
}

#[test]
fn validate_refuses_fifos_devices_and_huge_files_without_reading_them() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    for (name, make) in [("fifo", 0), ("zero", 1), ("huge", 2)] {
        let skill = dir.join(name);
        fs::create_dir(&skill).unwrap();
        let file = skill.join("SKILL.md");
        match make {
            0 => mkfifo(&file),
            1 => std::os::unix::fs::symlink("/dev/zero", &file).unwrap(),
            _ => fs::File::create(&file)
                .unwrap()
                .set_len(300 * 1024 * 1024)
                .unwrap(),
        }
        let v = skillpipe::validate(&skill);
        assert!(!v.is_valid(), "{name}");
        assert_eq!(v.errors.len(), 1, "{name}: {:?}", v.errors);
        let want = if make == 2 {
            "exceeds"
        } else {
            "not a regular file"
        };
        assert!(v.errors[0].contains(want), "{name}: {:?}", v.errors);
    }
}

#[test]
fn an_agents_md_that_is_a_fifo_is_skipped() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let (home, cwd) = (root.join("home"), root.join("home/proj"));
    fs::create_dir_all(cwd.join(".git")).unwrap();
    mkfifo(&cwd.join("AGENTS.md"));
    fs::write(
        home.join("AGENTS.md"),
        format!("{}rules", "\n".repeat(9000)),
    )
    .unwrap();
    let files = runtime::context_files(&cwd, &home, Some(&cwd));
    assert!(files.is_empty(), "{files:?}");
    let files = runtime::context_files(&cwd, &home, None);
    let found: Vec<_> = files.iter().map(|f| (f.path.clone(), f.depth)).collect();
    assert_eq!(found, [(home.join("AGENTS.md"), 1)]);
}

#[test]
fn a_deep_tree_with_a_huge_depth_setting_stops_at_the_hard_cap_on_a_small_stack() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("project")).unwrap();
    // Two chains of directories, a skill at the end of each.
    for (branch, depth) in [("a", 200), ("b", 300)] {
        let mut dir = root.join("home/.pi/agent/skills").join(branch);
        for _ in 1..depth {
            dir.push("d");
        }
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: at-{depth}\ndescription: d\n---\n"),
        )
        .unwrap();
    }
    let flags = Flags {
        set: vec!["scan.max_depth=100000".to_owned()],
        ..Flags::default()
    };
    // A host thread with a small stack: the walk must not overflow it.
    let d = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || discover(&root, "pi", "home", "project", &flags).unwrap())
        .unwrap()
        .join()
        .unwrap();
    let names: Vec<_> = d.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["at-200"]);
    let truncated: Vec<_> = d
        .diagnostics
        .iter()
        .filter(|d| d.code == "scan-truncated")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(truncated, ["scan stopped at max_depth (256)"]);
}

#[test]
fn a_walk_to_the_hard_cap_never_overflows_a_small_caller_stack() {
    use skillpipe::core::scan::{self, Found, ScanLimits, ScanMode, ScanSpec};
    let t = tempfile::tempdir().unwrap();
    let mut dir = t.path().join("root");
    for _ in 0..300 {
        dir.push("d");
    }
    fs::create_dir_all(&dir).unwrap();
    let root = t.path().join("root");
    // On the caller's thread, with a stack far smaller than 256 levels of
    // the walk take.
    let found = std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(move || {
            let source = std::sync::Arc::new(skillpipe::Source {
                provider: "path".into(),
                level: skillpipe::Level::Path,
                root: Some(root.clone()),
            });
            scan::scan(&ScanSpec {
                root: &root,
                mode: ScanMode::Recursive,
                source: &source,
                require_description: true,
                honor_enabled: false,
                limits: ScanLimits {
                    max_depth: usize::MAX,
                    ..ScanLimits::default()
                },
                observer: None,
            })
        })
        .unwrap()
        .join()
        .unwrap();
    let messages: Vec<_> = found
        .iter()
        .map(|f| match f {
            Found::Diagnostic(d) => d.message.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(messages, ["scan stopped at max_depth (256)"]);
}

#[test]
fn a_socket_named_skill_md_is_no_skill_in_either_profile() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("project")).unwrap();
    let mut sockets = Vec::new();
    for (profile, dir) in [
        ("musepi", "home/.musepi/agent/skills"),
        ("pi", "home/.pi/agent/skills"),
    ] {
        let dir = root.join(dir);
        fs::create_dir_all(dir.join("sock")).unwrap();
        fs::create_dir_all(dir.join("good")).unwrap();
        fs::write(
            dir.join("good/SKILL.md"),
            "---\nname: good\ndescription: d\n---\n",
        )
        .unwrap();
        sockets.push(std::os::unix::net::UnixListener::bind(dir.join("sock/SKILL.md")).unwrap());
        let d = discover(&root, profile, "home", "project", &Flags::default()).unwrap();
        let names: Vec<_> = d.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["good"], "{profile}");
        assert!(d.diagnostics.is_empty(), "{profile}: {:?}", d.diagnostics);
    }
}

#[test]
fn a_project_cannot_pass_off_a_users_file_as_a_skill() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("project"));
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::create_dir_all(home.join(".ssh")).unwrap();
    fs::write(
        home.join(".ssh/id_rsa"),
        format!("-----BEGIN KEY-----\n{SECRET}\n"),
    )
    .unwrap();
    // A shared skill kept outside the project, linked in: a real skill.
    let shared = root.join("shared/review");
    fs::create_dir_all(&shared).unwrap();
    fs::write(
        shared.join("SKILL.md"),
        "---\nname: review\ndescription: Reviews code.\n---\nBody\n",
    )
    .unwrap();
    let skills = project.join(".claude/skills");
    for name in ["x", "review", "inside"] {
        fs::create_dir_all(skills.join(name)).unwrap();
    }
    // Claude project roots require no description: without the rule, the
    // key loaded as skill `x`.
    std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), skills.join("x/SKILL.md")).unwrap();
    std::os::unix::fs::symlink(shared.join("SKILL.md"), skills.join("review/SKILL.md")).unwrap();
    // A file inside the project needs no description, as before.
    fs::write(skills.join("inside/SKILL.md"), "Just a body.\n").unwrap();
    let d = discover(&root, "musepi", "home", "project", &Flags::default()).unwrap();
    let names: Vec<_> = d.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["inside", "review"]);
    let diags: Vec<_> = d
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.path.clone()))
        .collect();
    assert_eq!(
        diags,
        [("symlink-outside-project", skills.join("x/SKILL.md"))]
    );
    let message = &d.diagnostics[0].message;
    assert!(
        message.contains(&*home.join(".ssh/id_rsa").to_string_lossy()),
        "{message}"
    );
    assert!(!format!("{d:?}").contains(SECRET), "the key's text leaked");
    assert!(matches!(
        runtime::resolve(&d.skills, "skill://x"),
        Err(ResolveError::UnknownSkill { .. })
    ));
}
