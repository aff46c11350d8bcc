//! The `recursive` scan (SPEC §3.2): an own walker with the `ignore`
//! crate's gitignore matchers, held to the scan bounds. A root's entries
//! may be shared with an idle core (`RootShare`, `Seed`), and the findings
//! are still a single walk's, whatever the timing.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::thread;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use skillpipe_types::{Diagnostic, DiagnosticCode};

use super::{Found, ScanLimits, ScanSpec, load_into};
use crate::dirfd::{DirFd, Entries, Entry, FileId, Kind};
use crate::load::FileKind;
use crate::paths::{bytes_of, into_bytes, path_of as as_path, push_name};
use crate::schedule::{self, Steps, Workers};
use crate::{fsio, head};

/// The deepest walk run on the calling thread's stack.
const INLINE_DEPTH: usize = 32;

/// Stack a walk needs per level, with room to spare: a level takes under
/// 2 KiB in a release build and under 5 KiB in a debug build.
const STACK_PER_LEVEL: usize = 16 * 1024;

/// The recursive walk. Its depth is bounded by `max_depth` (itself capped
/// at [`ScanLimits::HARD`]); a walk allowed deeper than [`INLINE_DEPTH`]
/// runs on a thread of its own whose stack is sized for that depth, so no
/// setting and no caller's small stack can make it overflow.
pub(super) fn walk(spec: &ScanSpec<'_>, workers: Option<&Workers>, out: &mut Vec<Found>) {
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
    /// Files opened to be loaded (the reads a cold disk makes slow, with
    /// the directories read).
    loads: usize,
    depth_reported: bool,
    stopped: bool,
    /// Whether a `scan-truncated` was reported.
    truncated_any: bool,
    /// Whether the root's entries may be shared with an idle core.
    may_split: bool,
    /// A shared scan met a bound: the root is scanned again, alone.
    redo: bool,
    /// Relative paths for [`DirFd::open_unlisted_skill`].
    scratch: Vec<u8>,
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
    /// seen, whether it or a walker it shared with reported a bound).
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

    /// Directories read and files opened; a long listing's entries count
    /// a little too (64 a read), so that a warm walk through one huge
    /// folder is not taken for a cold disk.
    fn reads(&self) -> Option<usize> {
        let w = &self.walker;
        Some(w.dirs_read + w.loads + w.entries_seen / 64)
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
            loads: 0,
            depth_reported: false,
            stopped: false,
            truncated_any: false,
            may_split: true,
            redo: false,
            scratch: Vec::new(),
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
            self.loads += 1;
            let real = self.real_known.then(|| as_path(&self.real));
            load_into(
                self.spec,
                dir.open_file_noting_link(c"SKILL.md"),
                None,
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
            if is_link || !self.load_unlisted(dir, name) {
                self.visit(dir.open_dir(entry.c_name), depth + 1);
            }
            match saved {
                Some((real, known)) => {
                    self.real = real;
                    self.real_known = known;
                }
                None => self.real.truncate(real_len),
            }
        } else if depth == 0 && name.ends_with(b".md") {
            self.loads += 1;
            let real = self.real_known.then(|| as_path(&self.real));
            load_into(
                self.spec,
                dir.open_file_noting_link(entry.c_name),
                None,
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
    /// findings are appended after this walker's, in walk order. A second
    /// walker shares its half the same way, so on a cold disk, where the
    /// run lends readers, the root's entries are spread over all of them
    /// (not half to one, a quarter to the next). The walkers count the
    /// bounds apart; should any stop at a bound, or all together pass one,
    /// the root is scanned again in one go (`redo`), so that where a bound
    /// cuts never depends on timing.
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
            let mut w = Walker::new(spec, workers, &mut out);
            w.ignores = seed.ignores.clone();
            w.ancestors = seed.ancestors.clone();
            w.cur = seed.cur.clone();
            w.real = seed.real.clone();
            w.real_known = seed.real_known;
            w.visit_root_entries(dir, back, dir_len, real_len);
            let counts = (w.dirs_read, w.entries_seen, w.truncated_any || w.redo);
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

    /// The directory at `self.cur` (not a link), loaded as a skill without
    /// listing it, when the listing could only have led there: its
    /// `SKILL.md` is a regular file that no ignore rule above it matches,
    /// and it holds no ignore file of its own (which could have matched
    /// it). It counts as a directory read, as its visit would. Whether it
    /// was; when not, nothing was done and the caller visits it.
    ///
    /// Most directories a recursive root holds are skills, and listing each
    /// was most of a warm walk's system time (opening, listing and closing
    /// one costs the kernel more than a few failed lookups).
    fn load_unlisted(&mut self, dir: &DirFd, name: &[u8]) -> bool {
        if self.dirs_read >= self.spec.limits.max_dirs {
            return false; // the visit reports the bound
        }
        let dir_len = self.cur.len();
        push_name(&mut self.cur, b"SKILL.md");
        let opened = match self.is_ignored(as_path(&self.cur), false) {
            true => None,
            false => dir.open_unlisted_skill(name, &IGNORE_FILES, &mut self.scratch),
        };
        let Some((file, link, info)) = opened else {
            self.cur.truncate(dir_len);
            return false;
        };
        self.dirs_read += 1;
        self.loads += 1;
        let real = self.real_known.then(|| as_path(&self.real));
        load_into(
            self.spec,
            Ok((file, link)),
            Some(info),
            as_path(&self.cur),
            real,
            FileKind::SkillFile,
            self.out,
        );
        self.cur.truncate(dir_len);
        true
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
