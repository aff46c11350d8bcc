//! Hostile layouts beside good skills: a provider's roots meet what users'
//! disks hold (a half-edited frontmatter, a binary where the SKILL.md
//! should be, a link back up the tree, a folder it may not read, a file
//! of a gigabyte), and the good skills beside them must load all the same,
//! with no hang and no panic.
//!
//! [`write()`] lays them out in one root of a [`Tree`]; [`check`] does that
//! and asserts that the two neighbours, `a-neighbour` and `z-neighbour`
//! (before and after every hostile name), load from that root and that
//! nothing else does.

use crate::{Run, Tree};

/// The neighbours' names, in byte order: one before every hostile name,
/// one after.
pub const NEIGHBOURS: [&str; 2] = ["a-neighbour", "z-neighbour"];

/// The size of the `huge` layout's SKILL.md (sparse: nothing on disk).
pub const HUGE_BYTES: u64 = 1 << 30;

/// Writes the hostile layouts, and the [`NEIGHBOURS`], into `root` (a
/// folder relative to the tree, e.g. `home/.claude/skills`), and returns
/// the names of the layouts written:
///
/// - `bad-yaml/SKILL.md`: a frontmatter whose YAML does not parse;
/// - `binary/SKILL.md`: bytes that are no text (NULs, invalid UTF-8);
/// - `huge/SKILL.md`: an opening `---` and then [`HUGE_BYTES`] of zeros;
/// - `cycle/back`: a link to `..`, the root itself (Unix);
/// - `self-link`: a link to itself (Unix);
/// - `locked/`: a skill in a folder of mode 000 (Unix, left out when the
///   process runs as root, which reads it all the same);
/// - `fifo/SKILL.md`: a named pipe, whose open would block (Unix, when a
///   `mkfifo` command is there to make one).
pub fn write(tree: &Tree, root: &str) -> Vec<&'static str> {
    for name in NEIGHBOURS {
        tree.skill(
            &format!("{root}/{name}"),
            name,
            "A good skill beside hostile files.",
        );
    }
    // Only Unix adds to the list (links, a locked folder, a FIFO).
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut written = vec!["bad-yaml", "binary", "huge"];
    tree.file(
        format!("{root}/bad-yaml/SKILL.md"),
        "---\nname: bad-yaml\ndescription: [unclosed\n  : : :\n---\nbody\n",
    );
    tree.file(
        format!("{root}/binary/SKILL.md"),
        b"\x00\xff\xfe\x00---\nname: \xc3\x28\x00\n---\n\x89PNG\r\n\x1a\n",
    );
    tree.file(format!("{root}/huge/SKILL.md"), "---\nname: huge\n");
    let huge = tree.path(format!("{root}/huge/SKILL.md"));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&huge)
        .and_then(|f| f.set_len(HUGE_BYTES))
        .unwrap_or_else(|e| panic!("testkit: cannot grow {}: {e}", huge.display()));
    #[cfg(unix)]
    {
        tree.symlink(format!("{root}/cycle/back"), "..");
        tree.symlink(format!("{root}/self-link"), "self-link");
        written.extend(["cycle", "self-link"]);
        if !crate::runs_as_root() {
            tree.skill(&format!("{root}/locked/inside"), "inside", "Unreadable.");
            tree.skill(&format!("{root}/locked"), "locked", "Unreadable.");
            tree.lock(format!("{root}/locked"));
            written.push("locked");
        }
        let fifo = tree.path(format!("{root}/fifo/SKILL.md"));
        tree.dir(format!("{root}/fifo"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .stderr(std::process::Stdio::null())
            .status();
        if made.is_ok_and(|s| s.success()) {
            written.push("fifo");
        }
    }
    written
}

/// Writes the hostile layouts into `root` ([`write()`]), runs `run` on the
/// tree, and asserts what must hold whatever the provider's rules:
///
/// - the two [`NEIGHBOURS`] load, each once, from `<root>/<name>/SKILL.md`;
/// - no other skill loads, but `binary` (in a root that needs no
///   description, a SKILL.md of no text is read with its invalid bytes
///   replaced, and loads under its folder's name, with an
///   `invalid-utf8` warning);
/// - every diagnostic is about a path inside the tree.
///
/// Returns the run's lines ([`Run::lines`]) for assertions of your own.
/// `root` must be a folder the provider scans: when it is not, the
/// neighbours are missing and the check fails.
#[track_caller]
pub fn check(run: &Run, tree: &Tree, root: &str) -> Vec<String> {
    let written = write(tree, root);
    let sp = run.skillpipe(tree);
    let found = sp.discover();
    let lines = crate::run::lines_of(tree, &sp, &found);
    let at = |name: &str| tree.path(root).join(name).join("SKILL.md");
    let fail = |what: &str| -> ! {
        panic!(
            "beside the hostile layouts {written:?} in {root}: {what}; the run gave:\n{}",
            indent(&lines)
        )
    };
    for name in NEIGHBOURS {
        let copies = found
            .skills()
            .iter()
            .filter(|s| s.name == name && s.file_path == at(name))
            .count();
        if copies != 1 {
            fail(&format!(
                "{name} must load once from {root}/{name}/SKILL.md, not {copies} times"
            ));
        }
    }
    let others: Vec<&str> = found
        .skills()
        .iter()
        .filter(|s| !NEIGHBOURS.contains(&s.name.as_str()))
        .map(|s| s.name.as_str())
        .collect();
    if others.iter().any(|n| *n != "binary")
        || found
            .skills()
            .iter()
            .any(|s| s.name == "binary" && s.file_path != at("binary"))
    {
        fail(&format!(
            "no other skill may load but binary, and {others:?} did"
        ));
    }
    let outside = found
        .diagnostics()
        .iter()
        .any(|d| !d.path.starts_with(tree.root()));
    if outside {
        fail("a diagnostic is about a path outside the tree");
    }
    lines
}

fn indent(lines: &[String]) -> String {
    lines.iter().map(|l| format!("    {l}\n")).collect()
}
