//! The lower bound: what any scanner of these roots has to do, and no more.
//!
//! It makes the same kind of system calls as the real scanners, each no
//! more than once: a directory is opened once and what lies in it is opened
//! relative to it (`openat`); entries are read with `getdents64` into a
//! reused buffer; a skill file is opened, read once (more only for a
//! frontmatter longer than 4 KiB) and closed, with no `stat` for its size.
//! A recursive walk reads a skill folder as the scanners' walk does,
//! without listing it (its `SKILL.md` opened through its name and its
//! three ignore files looked up), and lists every other folder.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rustix::fs::{self as rfs, FileType, Mode, OFlags, RawDir};

/// The machine's cores.
pub(super) fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// Works through `items` on `threads` threads, each taking the next item
/// in turn with a state of its own (made by `start`), and returns the
/// threads' states. A thread's panic is raised here.
pub(super) fn each_on_threads<T: Sync, S: Send>(
    items: &[T],
    threads: usize,
    start: impl Fn() -> S + Sync,
    each: impl Fn(&mut S, &T) + Sync,
) -> Vec<S> {
    let next = AtomicUsize::new(0);
    let (next, start, each) = (&next, &start, &each);
    thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let mut state = start();
                    while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                        each(&mut state, item);
                    }
                    state
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// Scans every root, on the machine's cores like the pipeline, and
/// returns how many skill files were read.
pub(super) fn scan_all(roots: &[PathBuf], recursive: bool) -> usize {
    let start = || {
        let bufs = Buffers {
            read: Vec::with_capacity(4096),
            dents: Vec::with_capacity(32 * 1024),
            rel: Vec::new(),
        };
        (bufs, 0)
    };
    let threads = cores().min(roots.len());
    each_on_threads(roots, threads, start, |(bufs, n), root| {
        *n += scan_root(root, recursive, bufs, None);
    })
    .into_iter()
    .map(|(_, n)| n)
    .sum()
}

/// The skill files [`scan_all`] reads, in one thread (they are read too).
pub(super) fn skill_files(roots: &[PathBuf], recursive: bool) -> Vec<PathBuf> {
    let mut bufs = Buffers {
        read: Vec::with_capacity(4096),
        dents: Vec::with_capacity(32 * 1024),
        rel: Vec::new(),
    };
    let mut files = Vec::new();
    for root in roots {
        scan_root(root, recursive, &mut bufs, Some(&mut files));
    }
    files
}

/// Reads the head of each file (as [`scan_all`] reads a skill file) on
/// `threads` threads, each taking the next file of the list; returns how
/// many were read.
pub(super) fn read_heads(files: &[PathBuf], threads: usize) -> usize {
    let start = || (Vec::with_capacity(4096), 0);
    each_on_threads(files, threads, start, |(buf, n), file| {
        if read_head(rfs::CWD, file.as_os_str().as_bytes(), buf).is_ok() {
            *n += 1;
        }
    })
    .into_iter()
    .map(|(_, n)| n)
    .sum()
}

/// Scans one root; returns how many skill files were read, and adds their
/// paths to `listed` when given.
fn scan_root(
    root: &Path,
    recursive: bool,
    bufs: &mut Buffers,
    listed: Option<&mut Vec<PathBuf>>,
) -> usize {
    let Ok(dir) = open_dir(rfs::CWD, root.as_os_str().as_bytes()) else {
        return 0;
    };
    let path = root.as_os_str().as_bytes().to_vec();
    if recursive {
        let mut w = Walk {
            bufs,
            path,
            levels: Vec::new(),
            ignores: Vec::new(),
            read: 0,
            listed,
        };
        w.visit(&dir, 0);
        w.read
    } else {
        one_level(&dir, bufs, root, listed)
    }
}

struct Buffers {
    read: Vec<u8>,
    dents: Vec<u8>,
    /// Relative paths.
    rel: Vec<u8>,
}

pub(super) fn flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK
}

pub(super) fn open_dir<Fd: std::os::fd::AsFd>(at: Fd, name: &[u8]) -> io::Result<OwnedFd> {
    Ok(rfs::openat(
        at,
        name,
        flags() | OFlags::DIRECTORY,
        Mode::empty(),
    )?)
}

fn as_path(bytes: &[u8]) -> &Path {
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}

fn push(buf: &mut Vec<u8>, name: &[u8]) {
    if buf.last().is_some_and(|&b| b != b'/') {
        buf.push(b'/');
    }
    buf.extend_from_slice(name);
}

fn one_level(
    dir: &OwnedFd,
    bufs: &mut Buffers,
    root: &Path,
    mut listed: Option<&mut Vec<PathBuf>>,
) -> usize {
    let Buffers { read, dents, .. } = bufs;
    let mut rel = Vec::with_capacity(256);
    let mut n = 0;
    let mut entries = RawDir::new(dir, dents.spare_capacity_mut());
    while let Some(Ok(entry)) = entries.next() {
        let name = entry.file_name().to_bytes();
        if name.starts_with(b".") || entry.file_type() == FileType::RegularFile {
            continue;
        }
        rel.clear();
        rel.extend_from_slice(name);
        rel.extend_from_slice(b"/SKILL.md");
        if read_head(dir, &rel, read).is_ok() {
            n += 1;
            if let Some(files) = listed.as_deref_mut() {
                files.push(root.join(as_path(&rel)));
            }
        }
    }
    n
}

/// A directory's entries: names in one buffer, `(start, end, type)`.
#[derive(Default)]
pub(super) struct Level {
    pub(super) names: Vec<u8>,
    pub(super) items: Vec<(usize, usize, FileType)>,
}

struct Walk<'b> {
    bufs: &'b mut Buffers,
    /// The directory being visited, for the ignore matchers.
    path: Vec<u8>,
    /// Entry lists, one per depth, reused.
    levels: Vec<Level>,
    ignores: Vec<Gitignore>,
    read: usize,
    /// Where the paths of the files read go, when they are wanted.
    listed: Option<&'b mut Vec<PathBuf>>,
}

const IGNORE_FILES: [&str; 3] = [".fdignore", ".ignore", ".gitignore"];

impl Walk<'_> {
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        for g in self.ignores.iter().rev() {
            match g.matched(path, is_dir) {
                Match::None => {}
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
            }
        }
        false
    }

    /// The folder `name` (at `self.path`) read as a skill without listing
    /// it, as the scanners' walk reads one: its `SKILL.md` opened through
    /// the folder's name, none of the ignore files there (each looked up),
    /// no rule above hiding it. Whether it was.
    fn read_unlisted(&mut self, dir: &OwnedFd, name: &[u8]) -> bool {
        let dir_len = self.path.len();
        push(&mut self.path, b"SKILL.md");
        let hidden = self.ignored(as_path(&self.path), false);
        self.path.truncate(dir_len);
        if hidden {
            return false;
        }
        let rel = &mut self.bufs.rel;
        rel.clear();
        rel.extend_from_slice(name);
        rel.extend_from_slice(b"/SKILL.md");
        let Ok(file) = rfs::openat(dir, &rel[..], flags() | OFlags::NOFOLLOW, Mode::empty()) else {
            return false;
        };
        for f in IGNORE_FILES {
            rel.truncate(name.len() + 1);
            rel.extend_from_slice(f.as_bytes());
            if rfs::statat(dir, &rel[..], rfs::AtFlags::SYMLINK_NOFOLLOW).is_ok() {
                return false;
            }
        }
        if read_open(File::from(file), &mut self.bufs.read).is_err() {
            return false;
        }
        let path_len = self.path.len();
        push(&mut self.path, b"SKILL.md");
        self.file_read();
        self.path.truncate(path_len);
        true
    }

    fn visit(&mut self, dir: &OwnedFd, depth: usize) {
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, Level::default);
        }
        let mut level = std::mem::take(&mut self.levels[depth]);
        level.names.clear();
        level.items.clear();
        let mut ignore_files = Vec::new();
        let mut skill = None;
        {
            let mut entries = RawDir::new(dir, self.bufs.dents.spare_capacity_mut());
            while let Some(Ok(entry)) = entries.next() {
                let b = entry.file_name().to_bytes();
                let t = entry.file_type();
                if b == b"SKILL.md" {
                    skill = Some(t);
                } else if IGNORE_FILES.iter().any(|f| f.as_bytes() == b) {
                    let mut p = self.path.clone();
                    push(&mut p, b);
                    ignore_files.push(PathBuf::from(std::ffi::OsString::from_vec(p)));
                }
                if !b.starts_with(b".") && b != b"node_modules" {
                    let start = level.names.len();
                    level.names.extend_from_slice(b);
                    level.items.push((start, level.names.len(), t));
                }
            }
        }
        let pushed = !ignore_files.is_empty();
        if pushed {
            let mut builder = GitignoreBuilder::new(as_path(&self.path));
            for f in &ignore_files {
                let _ = builder.add(f);
            }
            self.ignores
                .push(builder.build().unwrap_or_else(|_| Gitignore::empty()));
        }
        let dir_len = self.path.len();
        push(&mut self.path, b"SKILL.md");
        let is_skill = match skill {
            Some(FileType::RegularFile) => true,
            Some(FileType::Symlink) => rfs::statat(dir, "SKILL.md", rfs::AtFlags::empty())
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::RegularFile),
            _ => false,
        } && !self.ignored(as_path(&self.path), false);
        if is_skill {
            if read_head(dir, b"SKILL.md", &mut self.bufs.read).is_ok() {
                self.file_read();
            }
        } else {
            for &(start, end, t) in &level.items {
                let name = &level.names[start..end];
                self.path.truncate(dir_len);
                push(&mut self.path, name);
                let is_dir = if t == FileType::Symlink {
                    rfs::statat(dir, name, rfs::AtFlags::empty())
                        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory)
                } else {
                    t == FileType::Directory
                };
                if self.ignored(as_path(&self.path), is_dir) {
                    continue;
                }
                if is_dir {
                    let unlisted = t == FileType::Directory && self.read_unlisted(dir, name);
                    if depth < 12
                        && !unlisted
                        && let Ok(child) = open_dir(dir, name)
                    {
                        self.visit(&child, depth + 1);
                    }
                } else if depth == 0
                    && name.ends_with(b".md")
                    && read_head(dir, name, &mut self.bufs.read).is_ok()
                {
                    self.file_read();
                }
            }
        }
        self.path.truncate(dir_len);
        if pushed {
            self.ignores.pop();
        }
        self.levels[depth] = level;
    }

    /// Counts the file at `path` as read (and lists it when asked).
    fn file_read(&mut self) {
        self.read += 1;
        if let Some(files) = self.listed.as_deref_mut() {
            files.push(PathBuf::from(std::ffi::OsString::from_vec(
                self.path.clone(),
            )));
        }
    }
}

/// Reads a file (relative to `dir`) up to its closing `---` line (or
/// its end), into `buf`.
fn read_head<Fd: std::os::fd::AsFd>(dir: Fd, rel: &[u8], buf: &mut Vec<u8>) -> io::Result<()> {
    read_open(
        File::from(rfs::openat(dir, rel, flags(), Mode::empty())?),
        buf,
    )
}

/// [`read_head`] of a file already open.
fn read_open(mut f: File, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.clear();
    let mut chunk = 4096;
    loop {
        let start = buf.len();
        buf.resize(start + chunk, 0);
        let n = f.read(&mut buf[start..])?;
        buf.truncate(start + n);
        if n == 0 || closing(buf) {
            return Ok(());
        }
        chunk *= 2;
    }
}

fn closing(b: &[u8]) -> bool {
    b.len() > 3 && b[3..].windows(4).any(|w| w == b"\n---")
}
