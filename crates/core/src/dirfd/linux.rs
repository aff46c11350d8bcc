//! Directory handles on Linux: the fast path.
//!
//! A directory is opened once and what lies in it is opened relative to it
//! (`openat`), so the kernel resolves one or two path components instead
//! of the whole absolute path for every skill file. Its entries are read
//! with `getdents64` into a buffer kept per thread and copied into a
//! reusable [`Entries`]: no allocation per entry or per directory (std's
//! `read_dir` allocates a name per entry, and glibc's `opendir` a 32 KiB
//! buffer and an `fstat` per directory).
//!
//! The scanners still build each file's full path, for the skills and the
//! diagnostics; the handles only make the system calls cheaper.

use std::cell::RefCell;
use std::ffi::CStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{self as rfs, Access, AtFlags, FileType, Mode, OFlags, RawDir};
use rustix::io::Errno;

use super::{Entries, FileInfo, Kind};

fn kind_of(t: FileType) -> Option<Kind> {
    Some(match t {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        FileType::Unknown => return None,
        _ => Kind::Other,
    })
}

/// The size of the per-thread `getdents64` buffer: room for a hundred or
/// more entries of the longest names a call.
const DENTS_BUF: usize = 32 * 1024;

thread_local! {
    static DENTS: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(DENTS_BUF));
}

/// An open directory.
#[derive(Debug)]
pub(crate) struct DirFd(OwnedFd);

/// The names in the directory opened as `dir`, each with whether it is a
/// directory (links to directories included); dangling links are left
/// out. Read through the handle, so the listing is of the directory that
/// was opened, whatever its name leads to now.
pub(crate) fn list_kinds(dir: File, _path: &Path) -> io::Result<Vec<(Vec<u8>, bool)>> {
    super::kinds_in(&DirFd(OwnedFd::from(dir)))
}

/// Flags of every open: close on exec, and never block (a FIFO named
/// `SKILL.md` must not hang the scan; for files and directories the flag
/// changes nothing).
fn base_flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK
}

impl DirFd {
    /// Opens the directory at `path` (links followed).
    pub(crate) fn open(path: &Path) -> io::Result<DirFd> {
        rfs::openat(
            rfs::CWD,
            path,
            base_flags() | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .map(DirFd)
        .map_err(io::Error::from)
    }

    /// Opens the directory `name` (one component) in this one, following a
    /// link.
    pub(crate) fn open_dir(&self, name: &CStr) -> io::Result<DirFd> {
        rfs::openat(
            &self.0,
            name,
            base_flags() | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .map(DirFd)
        .map_err(io::Error::from)
    }

    /// Opens the file at `rel` (relative to this directory) for reading,
    /// and says whether its last component was a symbolic link, at no
    /// extra cost when it was not: the first open refuses to follow one
    /// (`O_NOFOLLOW`), the second follows it. The scanners build real paths
    /// from that instead of resolving each file.
    pub(crate) fn open_file_noting_link(&self, rel: &CStr) -> io::Result<(File, bool)> {
        open_noting_link_at(&self.0, rel)
    }

    /// Opens `<name>/SKILL.md` in this directory without listing `name`,
    /// when its listing could not have said otherwise: the file opens as a
    /// regular file (through a link too; the `bool` says whether its name
    /// was one, as [`DirFd::open_file_noting_link`]), `name` may be listed
    /// (read access, as opening it to list it needs), and none of `absent`
    /// is in it (looked up without following links, so a dangling link
    /// counts as there). `None` when any of that fails or cannot be told;
    /// then the caller lists `name`, and the listing decides. `scratch`
    /// holds the relative paths.
    ///
    /// Three lookups of names that are not there cost the kernel less than
    /// opening, listing and closing a directory.
    pub(crate) fn open_unlisted_skill(
        &self,
        name: &[u8],
        absent: &[&str],
        scratch: &mut Vec<u8>,
    ) -> Option<(File, bool, FileInfo)> {
        let (file, link) =
            open_noting_link_at(&self.0, rel_path(scratch, name, b"SKILL.md")?).ok()?;
        let info = file_info(&file).ok().filter(|info| info.regular)?;
        rfs::accessat(
            &self.0,
            rel_path(scratch, name, b"")?,
            Access::READ_OK,
            AtFlags::EACCESS,
        )
        .ok()?;
        for leaf in absent {
            let rel = rel_path(scratch, name, leaf.as_bytes())?;
            match rfs::statat(&self.0, rel, AtFlags::SYMLINK_NOFOLLOW) {
                Err(e) if e == Errno::NOENT => {}
                _ => return None,
            }
        }
        Some((file, link, info))
    }

    /// The kind of `name` in this directory; with `follow`, of what a link
    /// leads to (an error for a broken link).
    pub(crate) fn kind_at(&self, name: &CStr, follow: bool) -> io::Result<Kind> {
        let flags = if follow {
            AtFlags::empty()
        } else {
            AtFlags::SYMLINK_NOFOLLOW
        };
        let st = rfs::statat(&self.0, name, flags)?;
        Ok(kind_of(FileType::from_raw_mode(st.st_mode)).unwrap_or(Kind::Other))
    }

    /// Reads every entry into `out` (cleared first), telling the kind of
    /// each from its directory entry, or with a `stat` on file systems that
    /// do not say.
    pub(crate) fn read_entries(&self, out: &mut Entries) -> io::Result<()> {
        out.clear();
        DENTS.with_borrow_mut(|buf| {
            if buf.capacity() < DENTS_BUF {
                buf.reserve(DENTS_BUF);
            }
            let mut dir = RawDir::new(&self.0, buf.spare_capacity_mut());
            while let Some(entry) = dir.next() {
                let entry = entry?;
                let name = entry.file_name();
                if name == c"." || name == c".." {
                    continue;
                }
                let kind = match kind_of(entry.file_type()) {
                    Some(kind) => Some(kind),
                    None => self.kind_at(name, false).ok(),
                };
                out.push(name.to_bytes(), kind);
            }
            Ok(())
        })
    }
}

/// `<name>/<leaf>` (`name` alone when `leaf` is empty) in `scratch`, as a
/// C string; `None` for a name holding a NUL, which no listing gives.
fn rel_path<'s>(scratch: &'s mut Vec<u8>, name: &[u8], leaf: &[u8]) -> Option<&'s CStr> {
    scratch.clear();
    scratch.extend_from_slice(name);
    if !leaf.is_empty() {
        scratch.push(b'/');
        scratch.extend_from_slice(leaf);
    }
    scratch.push(0);
    CStr::from_bytes_with_nul(scratch).ok()
}

/// Opens the file at `path` (absolute or relative to the process) like
/// [`DirFd::open_file_noting_link`].
pub(crate) fn open_path_noting_link(path: &Path) -> io::Result<(File, bool)> {
    open_noting_link_at(rfs::CWD, path)
}

/// Opens `path` relative to `at` for reading, first refusing to follow a
/// link in its last component (`O_NOFOLLOW`), then following it: the
/// second open happens only for a link, and says so.
fn open_noting_link_at<P: rustix::path::Arg + Copy>(
    at: impl AsFd + Copy,
    path: P,
) -> io::Result<(File, bool)> {
    match rfs::openat(at, path, base_flags() | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok((File::from(fd), false)),
        // ELOOP on Linux, EMLINK on the BSDs: the last component is a link.
        Err(e) if e == Errno::LOOP || e == Errno::MLINK => {
            rfs::openat(at, path, base_flags(), Mode::empty())
                .map(|fd| (File::from(fd), true))
                .map_err(io::Error::from)
        }
        Err(e) => Err(e.into()),
    }
}

/// What an open file is, from a plain `fstat` (std's `metadata` asks
/// `statx` for every field).
pub(crate) fn file_info(file: &File) -> io::Result<FileInfo> {
    let stat = rfs::fstat(file)?;
    Ok(FileInfo {
        regular: FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile,
        size: u64::try_from(stat.st_size).unwrap_or(0),
    })
}
