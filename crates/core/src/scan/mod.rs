//! The two scan modes of SPEC §3: `one-level` for provider roots and
//! custom directories, `recursive` (with `.gitignore`/`.ignore`/`.fdignore`)
//! for pi roots and explicit paths, plus a single explicit file.
//!
//! A scan yields [`Found`] items in visit order: candidates (each with its
//! real path) and root-level diagnostics. It never fails as a whole.
//!
//! This file holds what every scanner shares (the public types, the entry
//! point, the loading of one found file) and the single-file mode;
//! `one_level.rs` and `walk.rs` are the two directory scanners.

mod one_level;
mod walk;

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, SharedPath, Source};

use crate::load::{self, Candidate, FileKind, LoadSpec, Loaded};
use crate::paths;
use crate::schedule::Workers;
use one_level::one_level;
use walk::walk;

/// How a root is scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScanMode {
    /// `<root>/<entry>/SKILL.md` for each entry (SPEC §3.1).
    OneLevel,
    /// Directories with a `SKILL.md` at any depth, root `*.md` files, ignore
    /// files honoured (SPEC §3.2).
    Recursive,
    /// The root is one markdown file, loaded as a skill.
    File,
}

/// The scan bounds (SPEC §3.2 step 5, §3.2 step 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanLimits {
    /// Deepest directory visited; the root's entries are depth 1.
    pub max_depth: usize,
    /// Directories read before a root's scan stops.
    pub max_dirs: usize,
    /// Directory entries examined before a root's scan stops.
    pub max_entries: usize,
    /// Largest skill file loaded.
    pub max_file_bytes: u64,
}

impl ScanLimits {
    /// The bounds no setting can lift: deeper walks, larger trees or
    /// larger skill files than these are refused whatever the settings say.
    pub const HARD: ScanLimits = ScanLimits {
        max_depth: 256,
        max_dirs: 1_000_000,
        max_entries: 10_000_000,
        max_file_bytes: 64 << 20,
    };

    /// Each bound no higher than its hard cap ([`ScanLimits::HARD`]).
    #[must_use]
    pub fn capped(self) -> Self {
        self.at_most(Self::HARD)
    }

    /// Each bound the smaller of this one's and `ceiling`'s.
    #[must_use]
    pub fn at_most(self, ceiling: ScanLimits) -> Self {
        ScanLimits {
            max_depth: self.max_depth.min(ceiling.max_depth),
            max_dirs: self.max_dirs.min(ceiling.max_dirs),
            max_entries: self.max_entries.min(ceiling.max_entries),
            max_file_bytes: self.max_file_bytes.min(ceiling.max_file_bytes),
        }
    }
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_depth: 12,
            max_dirs: 20_000,
            max_entries: 200_000,
            max_file_bytes: 1 << 20,
        }
    }
}

/// What to scan and how to load what is found.
#[derive(Debug, Clone)]
pub struct ScanSpec<'a> {
    /// The directory (or file, for [`ScanMode::File`]).
    pub root: &'a Path,
    /// How.
    pub mode: ScanMode,
    /// The source every skill found gets.
    pub source: &'a Arc<Source>,
    /// Whether a missing description stops a skill.
    pub require_description: bool,
    /// Whether `enabled: false` skips a file.
    pub honor_enabled: bool,
    /// Bounds.
    pub limits: ScanLimits,
    /// Who hears of each skill file read whole (none: only heads are
    /// read).
    pub observer: Option<&'a crate::observe::FileObserver>,
}

/// One thing a scan found, in visit order.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A file that was read.
    Candidate {
        /// What loading it gave.
        candidate: Candidate,
        /// The file, as found (for a skill, its `file_path`'s buffer).
        path: SharedPath,
        /// Its canonical path, for dedup (the same buffer as `path` when
        /// they are the same path).
        real_path: SharedPath,
    },
    /// A finding about the root or a directory under it.
    Diagnostic(Diagnostic),
    /// The provider failed (SPEC §11: a plugin that panicked or returned an
    /// error): everything it returned in this discovery, from this root and
    /// from its other roots, is discarded, and this diagnostic reported in
    /// its place. The scanners of this module never yield it; a provider's
    /// `scan_root` does (the plugin host, for a failed plugin call).
    Failed(Diagnostic),
}

/// Scans one root, within the hard caps ([`ScanLimits::HARD`]) whatever
/// the spec asks, on this thread.
pub fn scan(spec: &ScanSpec<'_>) -> Vec<Found> {
    scan_in(spec, None)
}

/// [`scan`], sharing a large root with the idle cores of the pipeline run
/// `workers` belongs to (see [`schedule`](crate::schedule)).
pub(crate) fn scan_in(spec: &ScanSpec<'_>, workers: Option<&Workers>) -> Vec<Found> {
    let spec = &ScanSpec {
        limits: spec.limits.capped(),
        ..spec.clone()
    };
    let mut out = Vec::new();
    match spec.mode {
        ScanMode::OneLevel => one_level(spec, workers, &mut out),
        ScanMode::Recursive => walk(spec, workers, &mut out),
        ScanMode::File => single_file(spec, &mut out),
    }
    out
}

/// Loads again one skill file a scan of `spec`'s root found (`path`, as
/// it was found), on its own: the finding a new scan of the root would
/// make of it, for a file whose content changed in place. `None` when it
/// is no longer a candidate (removed, skipped, no longer a file): then only
/// a scan of the root says what the root holds. Its real path is resolved
/// afresh, so a file that became a link reports where it leads.
pub fn reload_file(spec: &ScanSpec<'_>, path: &Path) -> Option<Found> {
    let spec = &ScanSpec {
        limits: spec.limits.capped(),
        ..spec.clone()
    };
    // A recursive root's own `*.md` files other than `SKILL.md` are loaded
    // as root markdown; every other file the scanners find is a skill file.
    let root_markdown = spec.mode == ScanMode::Recursive
        && path.parent() == Some(spec.root)
        && path.file_name().is_some_and(|n| n != "SKILL.md");
    let kind = match root_markdown {
        true => FileKind::RootMarkdown,
        false => FileKind::SkillFile,
    };
    let opened = crate::dirfd::open_path_noting_link(path);
    let mut out = Vec::with_capacity(1);
    load_into(spec, opened, None, path, None, kind, &mut out);
    out.pop()
}

/// Loads the file at `path` (opened by the caller: `opened` is the open's
/// outcome and whether its name was a link; `known`, its metadata when the
/// caller asked for it) and, when it is a candidate, records it with its
/// real path.
///
/// Real paths are built, not resolved: `real_dir` is the real path of the
/// directory holding the file (known from the scan root's, resolved once,
/// and the entry types seen on the way down), and the open says whether the
/// file's own name is a link. Only a link, or an unknown `real_dir`, costs a
/// `realpath`.
fn load_into(
    spec: &ScanSpec<'_>,
    opened: io::Result<(fs::File, bool)>,
    known: Option<crate::dirfd::FileInfo>,
    path: &Path,
    real_dir: Option<&Path>,
    kind: FileKind,
    out: &mut Vec<Found>,
) {
    let (loaded, link) = load::load_opened(
        &LoadSpec {
            path,
            kind,
            source: spec.source,
            require_description: spec.require_description,
            honor_enabled: spec.honor_enabled,
            max_file_bytes: spec.limits.max_file_bytes,
            observer: spec.observer,
        },
        opened,
        known,
    );
    if let Loaded::Candidate(candidate) = loaded {
        let found = match &candidate.skill {
            Some(skill) => skill.file_path.clone(),
            None => SharedPath::from(path),
        };
        let real_path = match (real_dir, paths::parent_and_name(path)) {
            // Nothing on the way was a link: the path is real as it is.
            (Some(dir), (Some(parent), Some(_))) if !link && dir == parent => found.clone(),
            (Some(dir), (_, Some(name))) if !link => dir.join(name).into(),
            _ => fs::canonicalize(path).map_or_else(|_| found.clone(), SharedPath::from),
        };
        out.push(Found::Candidate {
            candidate,
            path: found,
            real_path,
        });
    }
}

/// A single file named as the root ([`ScanMode::File`]). A directory scan
/// passes a FIFO, socket or device by without a word (it is no skill file
/// there); named as the skill file itself, it is a `read-error` saying what
/// it is, as a file over the bound is a `file-too-large`: a candidate that
/// did not become a skill. Nothing is read from it.
fn single_file(spec: &ScanSpec<'_>, out: &mut Vec<Found>) {
    use crate::fsio::{OpenKind, ReadError};
    let refused = |why: ReadError| Err(io::Error::other(why));
    let opened = match crate::dirfd::open_path_noting_link(spec.root) {
        Ok((file, link)) => match crate::fsio::kind_of(&file) {
            Ok(OpenKind::File(_)) => Ok((file, link)),
            Ok(OpenKind::Dir) => refused(ReadError::Directory),
            Ok(OpenKind::Other) => refused(ReadError::NotRegular),
            Err(e) => Err(e),
        },
        // A socket, which cannot be opened at all.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => refused(ReadError::NotRegular),
        Err(e) => Err(e),
    };
    load_into(
        spec,
        opened,
        None,
        spec.root,
        None,
        FileKind::SkillFile,
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::{path_of as as_path, push_name};

    /// How the tests scan `root`: descriptions required, `enabled` honoured,
    /// no observer.
    fn spec_of<'a>(
        root: &'a Path,
        mode: ScanMode,
        source: &'a Arc<Source>,
        limits: ScanLimits,
    ) -> ScanSpec<'a> {
        ScanSpec {
            root,
            mode,
            source,
            require_description: true,
            honor_enabled: true,
            limits,
            observer: None,
        }
    }

    /// A root with `n` skill folders, a category folder with more, a
    /// `.gitignore` hiding some, a root `.md` skill and a deep one.
    fn busy_root(n: usize) -> io::Result<tempfile::TempDir> {
        let tmp = tempfile::tempdir()?;
        let skill = |dir: &Path, name: &str| -> io::Result<()> {
            fs::create_dir_all(dir)?;
            fs::write(
                dir.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: does {name}\n---\nbody\n"),
            )
        };
        for i in 0..n {
            let name = format!("skill-{i:03}");
            skill(&tmp.path().join(&name), &name)?;
        }
        for i in 0..n / 4 {
            let name = format!("nested-{i:03}");
            skill(&tmp.path().join("zz-category").join(&name), &name)?;
        }
        skill(&tmp.path().join("skill-999/a/b/c/deep"), "deep")?;
        fs::write(tmp.path().join(".gitignore"), "skill-01*/\n")?;
        fs::write(
            tmp.path().join("tip.md"),
            "---\nname: tip\ndescription: a tip\n---\n",
        )?;
        Ok(tmp)
    }

    fn scan_shared(spec: &ScanSpec<'_>, idle: usize) -> (Vec<Found>, usize) {
        let workers = crate::schedule::Workers::default();
        for _ in 0..idle {
            workers.add_idle();
        }
        let found = scan_in(spec, Some(&workers));
        (found, workers.times_lent())
    }

    #[test]
    fn a_root_shared_with_an_idle_core_gives_what_one_walk_gives() -> io::Result<()> {
        let tmp = busy_root(300)?;
        let source = pi_source();
        for mode in [ScanMode::Recursive, ScanMode::OneLevel] {
            // Default bounds, then bounds the walk meets (depth, entries,
            // directories), which send a shared walk back to one walk.
            for limits in [
                ScanLimits::default(),
                ScanLimits {
                    max_depth: 3,
                    ..ScanLimits::default()
                },
                ScanLimits {
                    // 383 entries are examined (a skill folder's own are not).
                    max_entries: 350,
                    ..ScanLimits::default()
                },
                ScanLimits {
                    max_dirs: 250,
                    ..ScanLimits::default()
                },
            ] {
                let spec = spec_of(tmp.path(), mode, &source, limits);
                let alone = scan(&spec);
                // One idle core, and the readers of a cold disk, which the
                // second walkers share their halves with again.
                for idle in [1, 40] {
                    let (shared, lent) = scan_shared(&spec, idle);
                    assert!(lent > 0, "{mode:?} {limits:?}: no core was borrowed");
                    assert_eq!(shared, alone, "{mode:?} {limits:?}, {idle} idle");
                }
                let skills = alone
                    .iter()
                    .filter(|f| matches!(f, Found::Candidate { candidate, .. } if candidate.skill.is_some()))
                    .count();
                let truncated = alone
                    .iter()
                    .any(|f| matches!(f, Found::Diagnostic(d) if d.code == "scan-truncated"));
                match (mode, limits == ScanLimits::default()) {
                    // 300 + 75 nested + a deep one + `tip.md`, less the 10
                    // the `.gitignore` hides.
                    (ScanMode::Recursive, true) => assert_eq!((skills, truncated), (367, false)),
                    (ScanMode::Recursive, false) => assert!(truncated, "{limits:?}"),
                    _ => assert_eq!((skills, truncated), (300, false)),
                }
            }
        }
        Ok(())
    }

    /// Each file a scan found, loaded again alone after an edit, is what a
    /// new scan finds of it (a root `*.md` of a recursive root as root
    /// markdown); a file gone is no finding.
    #[test]
    fn a_file_reloaded_alone_is_what_a_new_scan_finds_of_it() -> io::Result<()> {
        let tmp = busy_root(8)?;
        let source = pi_source();
        let spec = |mode| spec_of(tmp.path(), mode, &source, ScanLimits::default());
        let edit = |file: &Path, from: &str, to: &str| -> io::Result<()> {
            fs::write(file, fs::read_to_string(file)?.replace(from, to))
        };
        for mode in [ScanMode::OneLevel, ScanMode::Recursive] {
            let spec = spec(mode);
            let files: Vec<SharedPath> = scan(&spec)
                .iter()
                .filter_map(|f| match f {
                    Found::Candidate { path, .. } => Some(path.clone()),
                    _ => None,
                })
                .collect();
            assert!(files.iter().any(|p| p.ends_with("tip.md")) == (mode == ScanMode::Recursive));
            for file in &files {
                edit(file, "description: ", "description: edited, ")?;
            }
            let again = scan(&spec);
            for file in &files {
                let alone = reload_file(&spec, file);
                let scanned = again
                    .iter()
                    .find(|f| matches!(f, Found::Candidate { path, .. } if path == file));
                assert_eq!(alone.as_ref(), scanned, "{mode:?} {}", file.display());
                let Some(Found::Candidate { candidate, .. }) = alone else {
                    panic!("{mode:?}: {} did not load again", file.display());
                };
                assert!(
                    candidate
                        .skill
                        .is_some_and(|s| s.description.starts_with("edited, "))
                );
            }
            for file in &files {
                edit(file, "description: edited, ", "description: ")?;
            }
        }
        let gone = tmp.path().join("skill-000/SKILL.md");
        fs::remove_file(&gone)?;
        assert_eq!(reload_file(&spec(ScanMode::OneLevel), &gone), None);
        Ok(())
    }

    /// A recursive walk loads most skill folders without listing them
    /// (`DirFd::open_unlisted_skill`); wherever the listing could say
    /// otherwise (an ignore file of the folder's own, a `SKILL.md` that is
    /// no regular file, a rule above matching it), the folder is listed and
    /// what the listing says holds.
    #[test]
    fn a_skill_folder_loaded_unlisted_is_what_its_listing_gives() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let root = tmp.path().join("root");
        let skill = |dir: &str| -> io::Result<()> {
            let dir = root.join(dir);
            fs::create_dir_all(&dir)?;
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            fs::write(
                dir.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: does {name}\n---\n"),
            )
        };
        let write = |rel: &str, text: &str| fs::write(root.join(rel), text);
        skill("plain")?;
        // A folder's own ignore files: its SKILL.md hidden, the walk goes on.
        skill("own-gitignore/inner")?;
        skill("own-gitignore")?;
        write("own-gitignore/.gitignore", "/SKILL.md\n")?;
        skill("own-fdignore/deep")?;
        skill("own-fdignore")?;
        write("own-fdignore/.fdignore", "/SKILL.md\n")?;
        // Ignore files that hide nothing, one a directory.
        skill("own-ignore")?;
        write("own-ignore/.ignore", "other\n")?;
        skill("ignore-dir")?;
        fs::create_dir(root.join("ignore-dir/.gitignore"))?;
        // A rule above: `beta`'s SKILL.md is hidden, the one under it not.
        skill("group/alpha")?;
        skill("group/beta/under")?;
        skill("group/beta")?;
        write("group/.gitignore", "b*/SKILL.md\n")?;
        // `SKILL.md` as a directory, and a lower-case `skill.md`.
        skill("dir-named/SKILL.md/nested")?;
        fs::create_dir_all(root.join("lower"))?;
        write(
            "lower/skill.md",
            "---\nname: lower\ndescription: lower\n---\n",
        )?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            let target = tmp.path().join("target.md");
            fs::write(&target, "---\nname: via-link\ndescription: a link\n---\n")?;
            fs::create_dir_all(root.join("link-file"))?;
            symlink(&target, root.join("link-file/SKILL.md"))?;
            skill("link-dir/sub")?;
            fs::create_dir_all(tmp.path().join("elsewhere"))?;
            symlink(tmp.path().join("elsewhere"), root.join("link-dir/SKILL.md"))?;
            skill("dangling/sub2")?;
            symlink(tmp.path().join("nothing"), root.join("dangling/SKILL.md"))?;
            skill("dangling-ignore")?;
            symlink(
                tmp.path().join("nothing"),
                root.join("dangling-ignore/.gitignore"),
            )?;
            skill("fifo/sub3")?;
            let made = std::process::Command::new("mkfifo")
                .arg(root.join("fifo/SKILL.md"))
                .status()?;
            assert!(made.success(), "mkfifo");
        }
        let source = pi_source();
        let spec = spec_of(&root, ScanMode::Recursive, &source, ScanLimits::default());
        let mut names: Vec<String> = scan(&spec)
            .iter()
            .filter_map(|f| match f {
                Found::Candidate { candidate, .. } => {
                    candidate.skill.as_ref().map(|s| s.name.to_string())
                }
                Found::Diagnostic(d) | Found::Failed(d) => panic!("unexpected: {d:?}"),
            })
            .collect();
        names.sort();
        let mut expected = vec![
            "alpha",
            "deep",
            "ignore-dir",
            "inner",
            "nested",
            "own-ignore",
            "plain",
            "under",
        ];
        if cfg!(unix) {
            expected.extend(["dangling-ignore", "sub", "sub2", "sub3", "via-link"]);
        }
        expected.sort_unstable();
        assert_eq!(names, expected);
        Ok(())
    }

    /// The source of the roots these tests scan.
    fn pi_source() -> Arc<Source> {
        Arc::new(Source {
            provider: "pi".into(),
            level: skillpipe_types::Level::User,
            root: None,
        })
    }

    #[test]
    fn where_max_entries_cuts_a_shared_walk_is_where_it_cuts_one_walk() -> io::Result<()> {
        let tmp = busy_root(100)?;
        let source = pi_source();
        // Cuts in the root's listing, in the category folder near its end,
        // and past the end (no cut).
        let mut lent = 0;
        for max_entries in [0, 1, 17, 40, 64, 99, 100, 101, 110, 125, 128, 140, 1000] {
            let limits = ScanLimits {
                max_entries,
                ..ScanLimits::default()
            };
            let spec = spec_of(tmp.path(), ScanMode::Recursive, &source, limits);
            let alone = scan(&spec);
            // A few rounds, each with a core to borrow from the start, and
            // one with many (a cold disk's readers).
            for idle in [1, 1, 1, 40] {
                let (shared, times) = scan_shared(&spec, idle);
                lent += times;
                assert_eq!(shared, alone, "max_entries {max_entries}");
            }
        }
        assert!(lent > 0, "no core was ever borrowed");
        Ok(())
    }

    /// An observer of every file up to 64 KiB, and what it heard: each
    /// file's path, bytes and stamp.
    #[allow(clippy::type_complexity)]
    fn hearing() -> (
        crate::observe::FileObserver,
        Arc<std::sync::Mutex<Vec<(std::path::PathBuf, Vec<u8>, crate::observe::FileStamp)>>>,
    ) {
        let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = Arc::clone(&heard);
        let observer = crate::observe::FileObserver::new(
            |stamp| stamp.len <= 65_536,
            move |read| {
                let mut heard = into.lock().unwrap_or_else(|e| e.into_inner());
                heard.push((read.path.to_path_buf(), read.bytes.to_vec(), read.stamp));
            },
        );
        (observer, heard)
    }

    /// A scan with an observer reads each file it wants whole, but finds
    /// exactly what a scan without one finds, whichever way the loader
    /// takes a file's head: a frontmatter within the first read or past
    /// it, a blank head longer than it, no frontmatter, bytes that are not
    /// UTF-8, CRLF, a frontmatter never closed; and an empty file and one
    /// over the observer's bound are not heard of.
    #[test]
    fn an_observed_scan_finds_what_a_plain_one_finds() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let long = "x".repeat(9000);
        let bodies: Vec<(&str, Vec<u8>)> = vec![
            (
                "short",
                b"---\nname: short\ndescription: d\n---\nbody\n".to_vec(),
            ),
            (
                "long-body",
                format!("---\nname: long-body\ndescription: d\n---\n{long}\n").into_bytes(),
            ),
            (
                "long-front",
                format!("---\nname: long-front\ndescription: {long}\n---\nbody\n").into_bytes(),
            ),
            (
                "blank-head",
                format!(
                    "{}---\nname: blank-head\ndescription: d\n---\n",
                    " \n".repeat(3000)
                )
                .into_bytes(),
            ),
            ("no-front", format!("just text {long}").into_bytes()),
            (
                "bad-utf8",
                [
                    b"---\nname: bad-utf8\ndescription: \xff\xfe\n---\n".as_slice(),
                    long.as_bytes(),
                ]
                .concat(),
            ),
            (
                "crlf",
                b"---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n".to_vec(),
            ),
            (
                "unclosed",
                format!("---\nname: unclosed\ndescription: d\n{long}").into_bytes(),
            ),
            ("empty", Vec::new()),
            (
                "over",
                format!(
                    "---\nname: over\ndescription: d\n---\n{}",
                    "y".repeat(70_000)
                )
                .into_bytes(),
            ),
        ];
        for (dir, bytes) in &bodies {
            fs::create_dir(tmp.path().join(dir))?;
            fs::write(tmp.path().join(dir).join("SKILL.md"), bytes)?;
        }
        let source = pi_source();
        let (observer, heard) = hearing();
        for mode in [ScanMode::Recursive, ScanMode::OneLevel] {
            let spec = spec_of(tmp.path(), mode, &source, ScanLimits::default());
            let plain = scan(&spec);
            let skills: Vec<&str> = plain
                .iter()
                .filter_map(|f| match f {
                    Found::Candidate { candidate, .. } => candidate.skill.as_ref(),
                    _ => None,
                })
                .map(|s| s.name.as_str())
                .collect();
            for name in ["short", "long-body", "long-front", "crlf", "bad-utf8"] {
                assert!(skills.contains(&name), "{mode:?}: {name} in {skills:?}");
            }
            let observed = scan(&ScanSpec {
                observer: Some(&observer),
                ..spec.clone()
            });
            assert_eq!(observed, plain, "{mode:?}");
            // One that wants none is told of none, and changes nothing.
            let told = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let counted = Arc::clone(&told);
            let none = crate::observe::FileObserver::new(
                |_| false,
                move |_| {
                    counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                },
            );
            let unwanted = scan(&ScanSpec {
                observer: Some(&none),
                ..spec.clone()
            });
            assert_eq!(unwanted, plain, "{mode:?}");
            assert_eq!(told.load(std::sync::atomic::Ordering::Relaxed), 0);
            let heard = std::mem::take(&mut *heard.lock().unwrap_or_else(|e| e.into_inner()));
            if cfg!(not(unix)) {
                assert!(heard.is_empty());
                continue;
            }
            let mut names: Vec<String> = heard
                .iter()
                .filter_map(|(path, ..)| path.parent()?.file_name()?.to_str().map(str::to_owned))
                .collect();
            names.sort();
            let mut wanted: Vec<String> = bodies
                .iter()
                .map(|(dir, _)| (*dir).to_owned())
                .filter(|dir| dir != "empty" && dir != "over")
                .collect();
            wanted.sort();
            assert_eq!(names, wanted, "{mode:?}");
            #[cfg(unix)]
            for (path, bytes, stamp) in heard {
                use std::os::unix::fs::MetadataExt as _;
                assert_eq!(bytes, fs::read(&path)?, "{}", path.display());
                let meta = fs::metadata(&path)?;
                assert_eq!(stamp.len, meta.len());
                assert_eq!(stamp.inode, (meta.dev(), meta.ino()));
                assert_eq!(stamp.modified, (meta.mtime(), meta.mtime_nsec()));
                assert_eq!(stamp.changed, (meta.ctime(), meta.ctime_nsec()));
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever a skill file holds, an observed scan finds what a plain
        /// one finds, and hears the file's bytes as they are.
        #[test]
        fn observing_changes_no_finding(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b"---\n".to_vec()),
                    proptest::strategy::Just(b"name: p\n".to_vec()),
                    proptest::strategy::Just(b"description: d\n".to_vec()),
                    proptest::strategy::Just(b"\r\n".to_vec()),
                    proptest::strategy::Just(vec![b' '; 1500]),
                    proptest::strategy::Just(vec![b'z'; 2500]),
                    proptest::collection::vec(proptest::num::u8::ANY, 0..64),
                ],
                0..12,
            ),
        ) {
            let bytes = parts.concat();
            let tmp = tempfile::tempdir().map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let dir = tmp.path().join("p");
            fs::create_dir(&dir).and_then(|()| fs::write(dir.join("SKILL.md"), &bytes))
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let source = pi_source();
            let (observer, heard) = hearing();
            let spec = spec_of(tmp.path(), ScanMode::OneLevel, &source, ScanLimits::default());
            let plain = scan(&spec);
            let observed = scan(&ScanSpec { observer: Some(&observer), ..spec.clone() });
            proptest::prop_assert_eq!(observed, plain);
            let heard = heard.lock().unwrap_or_else(|e| e.into_inner());
            if cfg!(unix) && !bytes.is_empty() {
                proptest::prop_assert_eq!(heard.len(), 1);
                proptest::prop_assert_eq!(&heard[0].1, &bytes);
            } else {
                proptest::prop_assert!(heard.is_empty());
            }
        }
    }

    #[test]
    fn names_push_like_pathbuf() {
        for (base, name) in [("", "a"), ("/", "a"), ("/r", "a"), ("/r/", "a"), ("r", "b")] {
            let mut buf = base.as_bytes().to_vec();
            push_name(&mut buf, name.as_bytes());
            assert_eq!(
                as_path(&buf),
                Path::new(base).join(name),
                "{base:?} + {name:?}"
            );
        }
    }
}
