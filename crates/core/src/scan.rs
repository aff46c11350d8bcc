//! The two scan modes of SPEC §3: `one-level` for provider roots and
//! custom directories, `recursive` (with `.gitignore`/`.ignore`/`.fdignore`)
//! for pi roots and explicit paths, plus a single explicit file.
//!
//! A scan yields [`Found`] items in visit order: candidates (each with its
//! real path) and root-level diagnostics. It never fails as a whole.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, Source};

use crate::load::{self, Candidate, FileKind, LoadSpec, Loaded};

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
    pub source: &'a Source,
    /// Whether a missing description stops a skill.
    pub require_description: bool,
    /// Whether `enabled: false` skips a file.
    pub honor_enabled: bool,
    /// Bounds.
    pub limits: ScanLimits,
}

/// One thing a scan found, in visit order.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A file that was read.
    Candidate {
        /// What loading it gave.
        candidate: Candidate,
        /// The file, as found.
        path: PathBuf,
        /// Its canonical path, for dedup.
        real_path: PathBuf,
    },
    /// A finding about the root or a directory under it.
    Diagnostic(Diagnostic),
}

/// Scans one root.
pub fn scan(spec: &ScanSpec<'_>) -> Vec<Found> {
    let mut out = Vec::new();
    match spec.mode {
        ScanMode::OneLevel => one_level(spec, &mut out),
        ScanMode::Recursive => Walker::new(spec, &mut out).run(),
        ScanMode::File => load_into(spec, spec.root, None, FileKind::SkillFile, &mut out),
    }
    out
}

/// Loads `path` and, when it is a candidate, records it with its real path.
///
/// Real paths are built, not resolved: `real_dir` is the real path of the
/// directory holding the file (known from the scan root's, resolved once,
/// and the entry types seen on the way down), and the open says whether the
/// file's own name is a link. Only a link, or an unknown `real_dir`, costs a
/// `realpath`.
fn load_into(
    spec: &ScanSpec<'_>,
    path: &Path,
    real_dir: Option<&Path>,
    kind: FileKind,
    out: &mut Vec<Found>,
) {
    let (loaded, link) = load::load_noting_link(&LoadSpec {
        path,
        kind,
        source: spec.source,
        require_description: spec.require_description,
        honor_enabled: spec.honor_enabled,
        max_file_bytes: spec.limits.max_file_bytes,
    });
    if let Loaded::Candidate(candidate) = loaded {
        let real_path = match (real_dir, path.file_name()) {
            (Some(dir), Some(name)) if !link => dir.join(name),
            _ => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        };
        out.push(Found::Candidate {
            candidate,
            path: path.to_path_buf(),
            real_path,
        });
    }
}

fn one_level(spec: &ScanSpec<'_>, out: &mut Vec<Found>) {
    let root = spec.root;
    let entries = match fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => {
            out.push(Found::Diagnostic(load::read_error_dir(root, &e)));
            return;
        }
    };
    let real_root = fs::canonicalize(root).ok();
    let mut found = Vec::new();
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        if name.as_bytes().starts_with(b".") {
            continue;
        }
        let file_type = entry.file_type();
        if file_type.as_ref().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let dir = root.join(&name);
        // A real directory's real path extends the root's; a link's is resolved.
        let real_dir = match (&real_root, file_type) {
            (Some(real_root), Ok(t)) if t.is_dir() => Some(real_root.join(&name)),
            _ => fs::canonicalize(&dir).ok(),
        };
        let path = dir.join("SKILL.md");
        load_into(
            spec,
            &path,
            real_dir.as_deref(),
            FileKind::SkillFile,
            &mut found,
        );
    }
    // By name lower-cased, then name, then path (stable).
    fn key(f: &Found) -> (&str, &[u8]) {
        match f {
            Found::Candidate {
                candidate, path, ..
            } => (&candidate.filter_name, path.as_os_str().as_bytes()),
            Found::Diagnostic(d) => ("", d.path.as_os_str().as_bytes()),
        }
    }
    let lower: Vec<Cow<'_, str>> = found.iter().map(|f| lowercase(key(f).0)).collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by(|&a, &b| {
        lower[a]
            .cmp(&lower[b])
            .then_with(|| key(&found[a]).cmp(&key(&found[b])))
    });
    drop(lower);
    out.extend(permuted(found, &order));
}

/// A string lower-cased (Unicode), without a copy when it is lower-case
/// ASCII already.
pub(crate) fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| !b.is_ascii() || b.is_ascii_uppercase()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// The items of `v` in the order of the indices `order` (a permutation).
pub(crate) fn permuted<T>(v: Vec<T>, order: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect()
}

/// The ignore files of one directory, by precedence kind.
#[derive(Default)]
struct IgnoreLevel {
    fdignore: Option<Gitignore>,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
}

const IGNORE_FILES: [&str; 3] = [".fdignore", ".ignore", ".gitignore"];

impl IgnoreLevel {
    fn read(dir: &Path, present: [bool; 3]) -> Self {
        let build = |i: usize| -> Option<Gitignore> {
            if !present[i] {
                return None;
            }
            let mut b = GitignoreBuilder::new(dir);
            // A pattern that does not parse is skipped; the rest still apply.
            let _ = b.add(dir.join(IGNORE_FILES[i]));
            b.build().ok().filter(|g| !g.is_empty())
        };
        IgnoreLevel {
            fdignore: build(0),
            ignore: build(1),
            gitignore: build(2),
        }
    }

    fn is_empty(&self) -> bool {
        self.fdignore.is_none() && self.ignore.is_none() && self.gitignore.is_none()
    }
}

struct Dir {
    path: PathBuf,
    /// `(dev, ino)`, looked up only when a symlinked directory needs it.
    id: Option<(u64, u64)>,
}

/// The real path of a directory entry: the parent's extended by the name,
/// or, for a link (or when the parent's is unknown), resolved.
fn real_child(
    real_parent: Option<&Path>,
    name: &OsString,
    path: &Path,
    is_link: bool,
) -> Option<PathBuf> {
    match real_parent {
        Some(parent) if !is_link => Some(parent.join(name)),
        _ => fs::canonicalize(path).ok(),
    }
}

struct Walker<'s, 'o> {
    spec: &'s ScanSpec<'s>,
    out: &'o mut Vec<Found>,
    ignores: Vec<IgnoreLevel>,
    ancestors: Vec<Dir>,
    dirs_read: usize,
    entries_seen: usize,
    depth_reported: bool,
    stopped: bool,
}

impl<'s, 'o> Walker<'s, 'o> {
    fn new(spec: &'s ScanSpec<'s>, out: &'o mut Vec<Found>) -> Self {
        Walker {
            spec,
            out,
            ignores: Vec::new(),
            ancestors: Vec::new(),
            dirs_read: 0,
            entries_seen: 0,
            depth_reported: false,
            stopped: false,
        }
    }

    fn run(mut self) {
        let root = self.spec.root.to_path_buf();
        match fs::metadata(&root) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => self
                .out
                .push(Found::Diagnostic(load::read_error_dir(&root, &e))),
            Ok(m) if !m.is_dir() => {
                let e = io::Error::from(io::ErrorKind::NotADirectory);
                self.out
                    .push(Found::Diagnostic(load::read_error_dir(&root, &e)));
            }
            Ok(_) => {
                let real = fs::canonicalize(&root).ok();
                self.visit(root, real, 0)
            }
        }
    }

    fn truncated(&mut self, bound: &str, limit: usize) {
        self.out.push(Found::Diagnostic(Diagnostic::warning(
            "scan-truncated",
            format!("scan stopped at {bound} ({limit})"),
            self.spec.root,
        )));
    }

    fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        let kinds: [fn(&IgnoreLevel) -> Option<&Gitignore>; 3] = [
            |l| l.fdignore.as_ref(),
            |l| l.ignore.as_ref(),
            |l| l.gitignore.as_ref(),
        ];
        for kind in kinds {
            for level in self.ignores.iter().rev() {
                if let Some(g) = kind(level) {
                    match g.matched(path, is_dir) {
                        Match::None => {}
                        Match::Ignore(_) => return true,
                        Match::Whitelist(_) => return false,
                    }
                }
            }
        }
        false
    }

    fn visit(&mut self, dir: PathBuf, real: Option<PathBuf>, depth: usize) {
        if self.dirs_read >= self.spec.limits.max_dirs {
            self.stopped = true;
            self.truncated("max_dirs", self.spec.limits.max_dirs);
            return;
        }
        self.dirs_read += 1;
        let read = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) => {
                self.out
                    .push(Found::Diagnostic(load::read_error_dir(&dir, &e)));
                return;
            }
        };
        let mut entries: Vec<(OsString, Option<fs::FileType>)> = Vec::new();
        let mut ignore_present = [false; 3];
        for entry in read {
            let Ok(entry) = entry else { continue };
            self.entries_seen += 1;
            if self.entries_seen > self.spec.limits.max_entries {
                self.stopped = true;
                self.truncated("max_entries", self.spec.limits.max_entries);
                return;
            }
            let name = entry.file_name();
            if let Some(i) = IGNORE_FILES
                .iter()
                .position(|f| name.as_bytes() == f.as_bytes())
            {
                ignore_present[i] = true;
            }
            entries.push((name, entry.file_type().ok()));
        }
        let level = if ignore_present.iter().any(|p| *p) {
            IgnoreLevel::read(&dir, ignore_present)
        } else {
            IgnoreLevel::default()
        };
        let pushed_level = !level.is_empty();
        if pushed_level {
            self.ignores.push(level);
        }
        self.ancestors.push(Dir {
            path: dir.clone(),
            id: None,
        });

        let skill_md = dir.join("SKILL.md");
        // A regular file by its entry type; a link only if it leads to one.
        let has_skill = entries.iter().any(|(n, t)| {
            n.as_bytes() == b"SKILL.md"
                && t.is_some_and(|t| {
                    t.is_file()
                        || (t.is_symlink() && fs::metadata(&skill_md).is_ok_and(|m| m.is_file()))
                })
        }) && !self.is_ignored(&skill_md, false);

        if has_skill {
            load_into(
                self.spec,
                &skill_md,
                real.as_deref(),
                FileKind::SkillFile,
                self.out,
            );
        } else {
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            for (name, file_type) in entries {
                if self.stopped {
                    break;
                }
                let bytes = name.as_bytes();
                if bytes.starts_with(b".") || bytes == b"node_modules" {
                    continue;
                }
                let path = dir.join(&name);
                let (is_dir, is_link) = match file_type {
                    Some(t) if t.is_symlink() => match fs::metadata(&path) {
                        Ok(m) => (m.is_dir(), true),
                        Err(_) => continue, // broken link: skipped silently
                    },
                    Some(t) => (t.is_dir(), false),
                    None => continue,
                };
                if self.is_ignored(&path, is_dir) {
                    continue;
                }
                if is_dir {
                    if depth + 1 > self.spec.limits.max_depth {
                        if !self.depth_reported {
                            self.depth_reported = true;
                            self.truncated("max_depth", self.spec.limits.max_depth);
                        }
                        continue;
                    }
                    if is_link && let Some(ancestor) = self.loop_target(&path) {
                        self.out.push(Found::Diagnostic(Diagnostic::warning(
                            "symlink-loop",
                            format!(
                                "symlink loop: {} leads back to {}",
                                path.display(),
                                ancestor.display()
                            ),
                            &path,
                        )));
                        continue;
                    }
                    let real_child = real_child(real.as_deref(), &name, &path, is_link);
                    self.visit(path, real_child, depth + 1);
                } else if depth == 0 && bytes.ends_with(b".md") {
                    load_into(
                        self.spec,
                        &path,
                        real.as_deref(),
                        FileKind::RootMarkdown,
                        self.out,
                    );
                }
            }
        }

        self.ancestors.pop();
        if pushed_level {
            self.ignores.pop();
        }
    }

    /// When the directory a link leads to is one of the directories being
    /// walked, that ancestor's path.
    fn loop_target(&mut self, link: &Path) -> Option<PathBuf> {
        let target = fs::metadata(link).ok().map(|m| (m.dev(), m.ino()))?;
        for dir in self.ancestors.iter_mut() {
            if dir.id.is_none() {
                dir.id = fs::metadata(&dir.path).ok().map(|m| (m.dev(), m.ino()));
            }
            if dir.id == Some(target) {
                return Some(dir.path.clone());
            }
        }
        None
    }
}
