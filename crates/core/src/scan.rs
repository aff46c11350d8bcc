//! The two scan modes of SPEC §3: `one-level` for provider roots and
//! custom directories, `recursive` (with `.gitignore`/`.ignore`/`.fdignore`)
//! for pi roots and explicit paths, plus a single explicit file.
//!
//! A scan yields [`Found`] items in visit order: candidates (each with its
//! real path) and root-level diagnostics. It never fails as a whole.

use std::borrow::Cow;
use std::ffi::CStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, DiagnosticCode, Source};

use crate::dirfd::{DirFd, Entries, Entry, FileId, Kind};
use crate::load::{self, Candidate, FileKind, LoadSpec, Loaded};
use crate::paths::{self, bytes_of, into_bytes, path_of as as_path, push_name};
use crate::schedule::{self, Steps, Workers};
use crate::{fsio, head};

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
/// `workers` belongs to (see [`schedule`]).
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

/// The deepest walk run on the calling thread's stack.
const INLINE_DEPTH: usize = 32;

/// Stack a walk needs per level, with room to spare: a level takes under
/// 2 KiB in a release build and under 5 KiB in a debug build.
const STACK_PER_LEVEL: usize = 16 * 1024;

/// The recursive walk. Its depth is bounded by `max_depth` (itself capped
/// at [`ScanLimits::HARD`]); a walk allowed deeper than [`INLINE_DEPTH`]
/// runs on a thread of its own whose stack is sized for that depth, so no
/// setting and no caller's small stack can make it overflow.
fn walk(spec: &ScanSpec<'_>, workers: Option<&Workers>, out: &mut Vec<Found>) {
    let depth = spec.limits.max_depth;
    if depth <= INLINE_DEPTH {
        return Walker::new(spec, workers, out).run();
    }
    let stack = (depth + 16) * STACK_PER_LEVEL;
    let walked = thread::scope(|s| {
        let mut theirs = Vec::new();
        let spawned = thread::Builder::new()
            .name("skillpipe-walk".into())
            .stack_size(stack)
            .spawn_scoped(s, || {
                Walker::new(spec, workers, &mut theirs).run();
                theirs
            });
        spawned.map(|handle| handle.join())
    });
    match walked {
        Ok(Ok(found)) => out.extend(found),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread to be had: walk here, no deeper than is safe.
        Err(_) => {
            let shallow = ScanSpec {
                limits: ScanLimits {
                    max_depth: INLINE_DEPTH,
                    ..spec.limits
                },
                ..spec.clone()
            };
            Walker::new(&shallow, workers, out).run();
        }
    }
}

/// Loads the file at `path` (opened by the caller: `opened` is the open's
/// outcome and whether its name was a link) and, when it is a candidate,
/// records it with its real path.
///
/// Real paths are built, not resolved: `real_dir` is the real path of the
/// directory holding the file (known from the scan root's, resolved once,
/// and the entry types seen on the way down), and the open says whether the
/// file's own name is a link. Only a link, or an unknown `real_dir`, costs a
/// `realpath`.
fn load_into(
    spec: &ScanSpec<'_>,
    opened: io::Result<(fs::File, bool)>,
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
        },
        opened,
    );
    if let Loaded::Candidate(candidate) = loaded {
        let real_path = match (real_dir, paths::parent_and_name(path).1) {
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
    load_into(spec, opened, spec.root, None, FileKind::SkillFile, out);
}

/// One one-level root being loaded: the entries' files are opened relative
/// to the open root.
struct OneLevel<'a> {
    spec: &'a ScanSpec<'a>,
    dir: &'a DirFd,
    /// The root's path, as given.
    root: &'a [u8],
    real_root: Option<&'a Path>,
}

impl OneLevel<'_> {
    /// Loads `<root>/<entry>/SKILL.md` for each entry into `found`.
    fn load(&self, entries: &[Entry<'_>], found: &mut Vec<Found>) {
        // `<root>/<entry>/SKILL.md`, the same relative to the root, and the
        // entry's real path, built in three reused buffers.
        let mut path = self.root.to_vec();
        let root_len = path.len();
        let mut rel = Vec::new();
        let mut real = Vec::new();
        for entry in entries {
            let (name, kind) = (entry.name(), entry.kind);
            path.truncate(root_len);
            push_name(&mut path, name);
            // A real directory's real path extends the root's; a link's is
            // resolved.
            let real_known = match (self.real_root, kind) {
                (Some(real_root), Some(Kind::Dir)) => {
                    real.clear();
                    real.extend_from_slice(bytes_of(real_root));
                    push_name(&mut real, name);
                    true
                }
                _ => match fs::canonicalize(as_path(&path)) {
                    Ok(r) => {
                        real = into_bytes(r);
                        true
                    }
                    Err(_) => false,
                },
            };
            push_name(&mut path, b"SKILL.md");
            rel.clear();
            rel.extend_from_slice(name);
            rel.extend_from_slice(b"/SKILL.md\0");
            let real_dir = real_known.then(|| as_path(&real));
            let opened = match CStr::from_bytes_with_nul(&rel) {
                Ok(rel) => self.dir.open_file_noting_link(rel),
                Err(_) => Err(io::ErrorKind::InvalidInput.into()), // a name holds no NUL
            };
            load_into(
                self.spec,
                opened,
                as_path(&path),
                real_dir,
                FileKind::SkillFile,
                found,
            );
        }
    }
}

/// A share of a one-level root's entries and what loading them gave.
struct Loading<'c, 'a> {
    ctx: &'c OneLevel<'a>,
    found: Vec<Found>,
}

impl<'e> Steps<Entry<'e>> for Loading<'_, '_> {
    type Part = Vec<Found>;
    fn step(&mut self, entries: &[Entry<'e>]) {
        self.ctx.load(entries, &mut self.found);
    }
    fn one_read_per_item(&self) -> bool {
        true
    }
    fn join(&mut self, part: Vec<Found>) {
        self.found.extend(part);
    }
}

impl OneLevel<'_> {
    /// Loads `entries`, sharing them with idle cores (or, on a cold disk,
    /// extra readers) in steps.
    fn load_shared(&self, workers: Option<&Workers>, entries: &[Entry<'_>]) -> Vec<Found> {
        /// Entries loaded between two looks for an idle core.
        const STEP: usize = 32;
        let mut loading = Loading {
            ctx: self,
            found: Vec::with_capacity(entries.len()),
        };
        schedule::in_steps(workers, entries, STEP, &mut loading, &|back| {
            self.load_shared(workers, back)
        });
        loading.found
    }
}

fn one_level(spec: &ScanSpec<'_>, workers: Option<&Workers>, out: &mut Vec<Found>) {
    let root = spec.root;
    let mut entries = Entries::default();
    let dir = match DirFd::open(root).and_then(|dir| {
        dir.read_entries(&mut entries)?;
        Ok(dir)
    }) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => {
            out.push(Found::Diagnostic(head::read_error_dir(root, &e)));
            return;
        }
    };
    let real_root = fs::canonicalize(root).ok();
    let todo: Vec<Entry<'_>> = entries
        .iter()
        .filter(|e| !e.name().starts_with(b".") && e.kind != Some(Kind::File))
        .collect();
    let ctx = OneLevel {
        spec,
        dir: &dir,
        root: bytes_of(root),
        real_root: real_root.as_deref(),
    };
    let found = ctx.load_shared(workers, &todo);
    // By name lower-cased, then name, then path (stable).
    fn key(f: &Found) -> (&str, &[u8]) {
        match f {
            Found::Candidate {
                candidate, path, ..
            } => (&candidate.filter_name, bytes_of(path)),
            Found::Diagnostic(d) | Found::Failed(d) => ("", bytes_of(&d.path)),
        }
    }
    let lower: Vec<Cow<'_, str>> = found.iter().map(|f| lowercase(key(f).0)).collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    // Unstable, with the index last: as stable, and faster.
    order.sort_unstable_by(|&a, &b| {
        lower[a]
            .cmp(&lower[b])
            .then_with(|| key(&found[a]).cmp(&key(&found[b])))
            .then(a.cmp(&b))
    });
    drop(lower);
    let sorted = permuted(found, &order);
    if out.is_empty() {
        *out = sorted;
    } else {
        out.extend(sorted);
    }
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

/// The items of `v` in the order of the indices `order` (a permutation of
/// `0..v.len()`), rearranged in place: item `order[k]` moves to `k`.
pub(crate) fn permuted<T>(mut v: Vec<T>, order: &[usize]) -> Vec<T> {
    // `pos[i]`: where the item that belongs at `i` is now.
    let mut pos: Vec<usize> = order.to_vec();
    // `at[j]`: which final slot the item now at `j` belongs to.
    let mut at: Vec<usize> = vec![0; order.len()];
    for (k, &i) in order.iter().enumerate() {
        if let Some(a) = at.get_mut(i) {
            *a = k;
        }
    }
    for k in 0..v.len() {
        let j = pos[k];
        if j != k {
            v.swap(k, j);
            // The item that was at `k` is now at `j`.
            let moved = at[k];
            pos[moved] = j;
            at[j] = moved;
        }
    }
    v
}

/// The ignore files of one directory, by precedence kind.
#[derive(Default, Clone)]
struct IgnoreLevel {
    fdignore: Option<Gitignore>,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
}

const IGNORE_FILES: [&str; 3] = [".fdignore", ".ignore", ".gitignore"];

impl IgnoreLevel {
    /// The ignore files of `dir` (`present`: which of [`IGNORE_FILES`] it
    /// lists), each read as an index file ([`fsio::read_index`]: a regular
    /// file, bounded, never blocking, a BOM dropped) and parsed line by line
    /// as the `ignore` crate parses one (whose own reader would block on a
    /// FIFO and read a link to `/dev/zero` for ever). One that cannot be
    /// read is a `read-error` in `out` (a directory of that name, or one
    /// gone since the listing, is no ignore file and says nothing).
    fn read(dir: &Path, present: [bool; 3], out: &mut Vec<Found>) -> Self {
        let mut build = |i: usize| -> Option<Gitignore> {
            if !present[i] {
                return None;
            }
            let path = dir.join(IGNORE_FILES[i]);
            let bytes = match fsio::read_index(&path, fsio::MAX_INDEX_BYTES) {
                Ok(bytes) => bytes,
                Err(e) if e.is_not_found() || matches!(e, fsio::ReadError::Directory) => {
                    return None;
                }
                Err(e) => {
                    out.push(Found::Diagnostic(head::read_error_file(&path, &e)));
                    return None;
                }
            };
            let mut b = GitignoreBuilder::new(dir);
            for line in bytes.split(|&b| b == b'\n') {
                // As `BufRead::lines`: without the `\r` of a `\r\n`; a line
                // that is not UTF-8 is skipped, and so is a pattern that
                // does not parse: the rest still apply.
                let Ok(line) = std::str::from_utf8(line) else {
                    continue;
                };
                let line = line.strip_suffix('\r').unwrap_or(line);
                let _ = b.add_line(Some(path.clone()), line);
            }
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

#[derive(Clone)]
struct Dir {
    /// The length of its path: a prefix of the walker's current path.
    len: usize,
    /// Its identity, looked up only when a symlinked directory needs it.
    id: Option<FileId>,
}

/// The recursive scan. The current path and its real path live in two
/// buffers that grow and shrink as the walk goes down and up, and the
/// entries of each depth in a reused [`Entries`], so visiting a directory
/// allocates nothing in the steady state. Each directory is held open while
/// it is visited, and what lies in it is opened relative to it.
struct Walker<'s, 'o> {
    /// The pipeline run's workers, for sharing the root's entries.
    workers: Option<&'s Workers>,
    spec: &'s ScanSpec<'s>,
    out: &'o mut Vec<Found>,
    ignores: Vec<IgnoreLevel>,
    ancestors: Vec<Dir>,
    /// The path being visited, as walked.
    cur: Vec<u8>,
    /// Its real path, when `real_known`.
    real: Vec<u8>,
    real_known: bool,
    /// Entry lists, one per depth, reused.
    pool: Vec<Entries>,
    dirs_read: usize,
    entries_seen: usize,
    depth_reported: bool,
    stopped: bool,
    /// Whether a `scan-truncated` was reported.
    truncated_any: bool,
    /// Whether the root's entries may be shared with an idle core.
    may_split: bool,
    /// A shared scan met a bound: the root is scanned again, alone.
    redo: bool,
}

/// A walker working through its root's entries, shared in steps.
struct RootShare<'w, 's, 'o> {
    walker: &'w mut Walker<'s, 'o>,
    dir: &'w DirFd,
    dir_len: usize,
    real_len: usize,
}

impl<'e> Steps<Entry<'e>> for RootShare<'_, '_, '_> {
    /// A second walker's findings and counts (directories read, entries
    /// seen, whether it reported a bound).
    type Part = (Vec<Found>, (usize, usize, bool));

    fn step(&mut self, entries: &[Entry<'e>]) {
        for &entry in entries {
            if self.walker.stopped {
                return;
            }
            self.walker
                .visit_child(self.dir, entry, 0, self.dir_len, self.real_len);
        }
    }

    fn stopped(&self) -> bool {
        self.walker.stopped
    }

    fn may_split(&self) -> bool {
        !self.walker.truncated_any
    }

    fn join(&mut self, (out, (dirs, entries, truncated)): Self::Part) {
        let w = &mut *self.walker;
        w.dirs_read += dirs;
        w.entries_seen += entries;
        let limits = w.spec.limits;
        if truncated
            || w.truncated_any
            || w.dirs_read > limits.max_dirs
            || w.entries_seen > limits.max_entries
        {
            w.redo = true;
        }
        w.out.extend(out);
    }
}

/// What a second walker starts from: the walk's state at the scan root.
struct Seed {
    ignores: Vec<IgnoreLevel>,
    ancestors: Vec<Dir>,
    cur: Vec<u8>,
    real: Vec<u8>,
    real_known: bool,
}

impl<'s, 'o> Walker<'s, 'o> {
    fn new(spec: &'s ScanSpec<'s>, workers: Option<&'s Workers>, out: &'o mut Vec<Found>) -> Self {
        Walker {
            workers,
            spec,
            out,
            ignores: Vec::new(),
            ancestors: Vec::new(),
            cur: Vec::new(),
            real: Vec::new(),
            real_known: false,
            pool: Vec::new(),
            dirs_read: 0,
            entries_seen: 0,
            depth_reported: false,
            stopped: false,
            truncated_any: false,
            may_split: true,
            redo: false,
        }
    }

    fn run(mut self) {
        let root = self.spec.root;
        match fs::metadata(root) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => self
                .out
                .push(Found::Diagnostic(head::read_error_dir(root, &e))),
            Ok(m) if !m.is_dir() => {
                let e = io::Error::from(io::ErrorKind::NotADirectory);
                self.out
                    .push(Found::Diagnostic(head::read_error_dir(root, &e)));
            }
            Ok(_) => {
                let start = self.out.len();
                self.walk_root();
                if self.redo {
                    // A shared scan met a bound: again, alone, so that what
                    // the bound cuts is what one walk in order cuts.
                    self.out.truncate(start);
                    self.dirs_read = 0;
                    self.entries_seen = 0;
                    self.depth_reported = false;
                    self.stopped = false;
                    self.truncated_any = false;
                    self.may_split = false;
                    self.walk_root();
                }
            }
        }
    }

    /// Walks from the scan root.
    fn walk_root(&mut self) {
        let root = self.spec.root;
        self.cur = bytes_of(root).to_vec();
        self.real.clear();
        self.real_known = false;
        if let Ok(real) = fs::canonicalize(root) {
            self.real = into_bytes(real);
            self.real_known = true;
        }
        self.visit(DirFd::open(root), 0)
    }

    fn truncated(&mut self, bound: &str, limit: usize) {
        self.truncated_any = true;
        self.out.push(Found::Diagnostic(Diagnostic::warning(
            DiagnosticCode::ScanTruncated,
            format!("scan stopped at {bound} ({limit})"),
            self.spec.root,
        )));
    }

    /// A bound that stops the walk (`max_dirs`, `max_entries`) was met at
    /// `self.cur`, the first path the walk did not visit: everything
    /// before it in walk order was, and what it found is kept. The
    /// diagnostic is SPEC §2.3's, at the root; `-v` says where the walk
    /// ended.
    fn stopped_at(&mut self, bound: &str, limit: usize) {
        self.stopped = true;
        tracing::info!(
            root = %self.spec.root.display(),
            "{bound} ({limit}) met: the walk stopped before {}",
            as_path(&self.cur).display()
        );
        self.truncated(bound, limit);
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

    /// Visits the directory at `self.cur` (`dir`: its opening), at `depth`.
    fn visit(&mut self, dir: io::Result<DirFd>, depth: usize) {
        if self.dirs_read >= self.spec.limits.max_dirs {
            self.stopped_at("max_dirs", self.spec.limits.max_dirs);
            return;
        }
        self.dirs_read += 1;
        if self.pool.len() <= depth {
            self.pool.resize_with(depth + 1, Entries::default);
        }
        let mut entries = std::mem::take(&mut self.pool[depth]);
        let read = dir.and_then(|dir| {
            dir.read_entries(&mut entries)?;
            Ok(dir)
        });
        match read {
            Ok(dir) => self.visit_entries(&dir, &mut entries, depth),
            Err(e) => self.out.push(Found::Diagnostic(head::read_error_dir(
                as_path(&self.cur),
                &e,
            ))),
        }
        self.pool[depth] = entries;
    }

    /// The entries of a directory, read whole: a `SKILL.md` among them
    /// makes it a skill whatever else it holds (its other entries are not
    /// visited, nor counted against `max_entries`); else each is visited in
    /// byte order of names, and counted as it is ([`Walker::visit_child`]).
    fn visit_entries(&mut self, dir: &DirFd, entries: &mut Entries, depth: usize) {
        let mut ignore_present = [false; 3];
        let mut skill_kind = None;
        for entry in entries.iter() {
            let name = entry.name();
            if name == b"SKILL.md" {
                skill_kind = entry.kind;
            } else if let Some(i) = IGNORE_FILES.iter().position(|f| name == f.as_bytes()) {
                ignore_present[i] = true;
            }
        }
        let level = if ignore_present.iter().any(|p| *p) {
            IgnoreLevel::read(as_path(&self.cur), ignore_present, self.out)
        } else {
            IgnoreLevel::default()
        };
        let pushed_level = !level.is_empty();
        if pushed_level {
            self.ignores.push(level);
        }
        let dir_len = self.cur.len();
        let real_len = self.real.len();
        self.ancestors.push(Dir {
            len: dir_len,
            id: None,
        });

        push_name(&mut self.cur, b"SKILL.md");
        // A regular file by its entry type; a link only if it leads to one.
        let has_skill = match skill_kind {
            Some(Kind::File) => true,
            Some(Kind::Symlink) => dir
                .kind_at(c"SKILL.md", true)
                .is_ok_and(|k| k == Kind::File),
            _ => false,
        } && !self.is_ignored(as_path(&self.cur), false);

        if has_skill {
            let real = self.real_known.then(|| as_path(&self.real));
            load_into(
                self.spec,
                dir.open_file_noting_link(c"SKILL.md"),
                as_path(&self.cur),
                real,
                FileKind::SkillFile,
                self.out,
            );
        } else {
            entries.sort_by_name();
            if depth == 0 && self.may_split {
                let list: Vec<Entry<'_>> = entries.iter().collect();
                self.visit_root_entries(dir, &list, dir_len, real_len);
            } else {
                for entry in entries.iter() {
                    if self.stopped {
                        break;
                    }
                    self.visit_child(dir, entry, depth, dir_len, real_len);
                }
            }
        }

        self.cur.truncate(dir_len);
        self.ancestors.pop();
        if pushed_level {
            self.ignores.pop();
        }
    }

    /// Visits one entry of the directory `dir` (at `self.cur[..dir_len]`,
    /// real path `self.real[..real_len]`, at `depth`), skipping what SPEC
    /// §3.2 skips.
    fn visit_child(
        &mut self,
        dir: &DirFd,
        entry: Entry<'_>,
        depth: usize,
        dir_len: usize,
        real_len: usize,
    ) {
        let (name, kind) = (entry.name(), entry.kind);
        self.cur.truncate(dir_len);
        push_name(&mut self.cur, name);
        // Each entry examined counts, skipped or not; the first past the
        // bound stops the walk, before it.
        if self.entries_seen >= self.spec.limits.max_entries {
            self.stopped_at("max_entries", self.spec.limits.max_entries);
            return;
        }
        self.entries_seen += 1;
        if name.starts_with(b".") || name == b"node_modules" {
            return;
        }
        let (is_dir, is_link) = match kind {
            Some(Kind::Symlink) => match dir.kind_at(entry.c_name, true) {
                Ok(k) => (k == Kind::Dir, true),
                Err(_) => return, // broken link: skipped silently
            },
            Some(k) => (k == Kind::Dir, false),
            None => return,
        };
        if self.is_ignored(as_path(&self.cur), is_dir) {
            return;
        }
        if is_dir {
            if depth + 1 > self.spec.limits.max_depth {
                if !self.depth_reported {
                    self.depth_reported = true;
                    self.truncated("max_depth", self.spec.limits.max_depth);
                }
                return;
            }
            if is_link && let Some(ancestor) = self.loop_target() {
                let path = as_path(&self.cur);
                self.out.push(Found::Diagnostic(Diagnostic::warning(
                    DiagnosticCode::SymlinkLoop,
                    format!(
                        "symlink loop: {} leads back to {}",
                        path.display(),
                        ancestor.display()
                    ),
                    path,
                )));
                return;
            }
            // The child's real path: the parent's extended by the name, or,
            // for a link, resolved (and the parent's put back afterwards).
            let saved = if is_link || !self.real_known {
                let saved = (std::mem::take(&mut self.real), self.real_known);
                match fs::canonicalize(as_path(&self.cur)) {
                    Ok(real) => {
                        self.real = into_bytes(real);
                        self.real_known = true;
                    }
                    Err(_) => self.real_known = false,
                }
                Some(saved)
            } else {
                push_name(&mut self.real, name);
                None
            };
            self.visit(dir.open_dir(entry.c_name), depth + 1);
            match saved {
                Some((real, known)) => {
                    self.real = real;
                    self.real_known = known;
                }
                None => self.real.truncate(real_len),
            }
        } else if depth == 0 && name.ends_with(b".md") {
            let real = self.real_known.then(|| as_path(&self.real));
            load_into(
                self.spec,
                dir.open_file_noting_link(entry.c_name),
                as_path(&self.cur),
                real,
                FileKind::RootMarkdown,
                self.out,
            );
        }
    }

    /// The scan root's entries, like [`Walker::visit_child`] on each, in
    /// steps; when a pipeline worker's core is idle (see [`schedule`]), a
    /// second walker takes the second half of what is left on it, and its
    /// findings are appended after this walker's, in walk order. The walkers
    /// count the bounds apart; should any stop at a bound, or all together
    /// pass one, the root is scanned again in one go (`redo`), so that where
    /// a bound cuts never depends on timing.
    fn visit_root_entries(
        &mut self,
        dir: &DirFd,
        list: &[Entry<'_>],
        dir_len: usize,
        real_len: usize,
    ) {
        /// Entries visited between two looks for an idle core.
        const STEP: usize = 16;
        let seed = Seed {
            ignores: self.ignores.clone(),
            ancestors: self.ancestors.clone(),
            cur: self.cur[..dir_len].to_vec(),
            real: self.real[..real_len].to_vec(),
            real_known: self.real_known,
        };
        let (spec, workers) = (self.spec, self.workers);
        let helper = |back: &[Entry<'_>]| {
            let mut out = Vec::new();
            let mut w = Walker::new(spec, None, &mut out);
            w.may_split = false;
            w.ignores = seed.ignores.clone();
            w.ancestors = seed.ancestors.clone();
            w.cur = seed.cur.clone();
            w.real = seed.real.clone();
            w.real_known = seed.real_known;
            for &entry in back {
                if w.stopped {
                    break;
                }
                w.visit_child(dir, entry, 0, dir_len, real_len);
            }
            let counts = (w.dirs_read, w.entries_seen, w.truncated_any);
            drop(w);
            (out, counts)
        };
        let mut share = RootShare {
            walker: self,
            dir,
            dir_len,
            real_len,
        };
        schedule::in_steps(workers, list, STEP, &mut share, &helper);
    }

    /// When the directory the link at `self.cur` leads to is one of the
    /// directories being walked, that ancestor's path.
    fn loop_target(&mut self) -> Option<PathBuf> {
        let target = FileId::of(as_path(&self.cur))?;
        for dir in self.ancestors.iter_mut() {
            let path = as_path(&self.cur[..dir.len]);
            if dir.id.is_none() {
                dir.id = FileId::of(path);
            }
            if dir.id.as_ref() == Some(&target) {
                return Some(path.to_path_buf());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn permuted_puts_each_item_where_the_order_says(
            order in (0usize..40).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        ) {
            let items: Vec<String> = (0..order.len()).map(|i| format!("item-{i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
            prop_assert_eq!(permuted(items, &order), want);
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
        let source = Arc::new(Source {
            provider: "pi".into(),
            level: skillpipe_types::Level::User,
            root: None,
        });
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
                let spec = ScanSpec {
                    root: tmp.path(),
                    mode,
                    source: &source,
                    require_description: true,
                    honor_enabled: true,
                    limits,
                };
                let alone = scan(&spec);
                let (shared, lent) = scan_shared(&spec, 1);
                assert!(lent > 0, "{mode:?} {limits:?}: no core was borrowed");
                assert_eq!(shared, alone, "{mode:?} {limits:?}");
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

    #[test]
    fn where_max_entries_cuts_a_shared_walk_is_where_it_cuts_one_walk() -> io::Result<()> {
        let tmp = busy_root(100)?;
        let source = Arc::new(Source {
            provider: "pi".into(),
            level: skillpipe_types::Level::User,
            root: None,
        });
        // Cuts in the root's listing, in the category folder near its end,
        // and past the end (no cut).
        let mut lent = 0;
        for max_entries in [0, 1, 17, 40, 64, 99, 100, 101, 110, 125, 128, 140, 1000] {
            let spec = ScanSpec {
                root: tmp.path(),
                mode: ScanMode::Recursive,
                source: &source,
                require_description: true,
                honor_enabled: true,
                limits: ScanLimits {
                    max_entries,
                    ..ScanLimits::default()
                },
            };
            let alone = scan(&spec);
            // A few rounds, each with a core to borrow from the start.
            for _ in 0..3 {
                let (shared, times) = scan_shared(&spec, 1);
                lent += times;
                assert_eq!(shared, alone, "max_entries {max_entries}");
            }
        }
        assert!(lent > 0, "no core was ever borrowed");
        Ok(())
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

    #[test]
    fn lowercase_copies_only_when_needed() {
        assert!(matches!(lowercase("pdf-2"), Cow::Borrowed("pdf-2")));
        assert_eq!(lowercase("PDF"), "pdf");
        assert_eq!(lowercase("Ǆemal"), "ǆemal");
    }
}
