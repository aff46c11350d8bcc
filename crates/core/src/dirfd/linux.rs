//! Directory handles for the scanners.
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
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags, RawDir};
use rustix::io::Errno;

/// The size of the per-thread `getdents64` buffer: room for a hundred or
/// more entries of the longest names a call.
const DENTS_BUF: usize = 32 * 1024;

thread_local! {
    static DENTS: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(DENTS_BUF));
}

/// What a directory entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    /// A device, FIFO or socket: never a skill.
    Other,
}

impl Kind {
    fn of(t: FileType) -> Option<Kind> {
        Some(match t {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            FileType::Unknown => return None,
            _ => Kind::Other,
        })
    }
}

/// The entries of one directory (without `.` and `..`), their names in
/// one buffer, each followed by a NUL so it can be passed to the kernel as
/// it is. Kept and reused by the scanners, one per depth.
#[derive(Debug, Default)]
pub(crate) struct Entries {
    names: Vec<u8>,
    /// `(start, end)` of the name in `names` (the NUL at `end`), and its
    /// kind (`None` when it could not be told).
    items: Vec<(usize, usize, Option<Kind>)>,
}

/// One entry of [`Entries`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<'a> {
    /// The name, NUL-terminated.
    pub(crate) c_name: &'a CStr,
    pub(crate) kind: Option<Kind>,
}

impl<'a> Entry<'a> {
    /// The name's bytes.
    pub(crate) fn name(&self) -> &'a [u8] {
        self.c_name.to_bytes()
    }
}

impl Entries {
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Entry<'_>> {
        self.items.iter().filter_map(|&(start, end, kind)| {
            // Every name was stored with its NUL: this never fails.
            let c_name = CStr::from_bytes_with_nul(self.names.get(start..=end)?).ok()?;
            Some(Entry { c_name, kind })
        })
    }

    /// The entries in byte order of their names.
    pub(crate) fn sort_by_name(&mut self) {
        let names = &self.names;
        self.items
            .sort_unstable_by(|a, b| names[a.0..a.1].cmp(&names[b.0..b.1]));
    }

    fn clear(&mut self) {
        self.names.clear();
        self.items.clear();
    }
}

/// An open directory.
#[derive(Debug)]
pub(crate) struct DirFd(OwnedFd);

/// The names in the directory opened as `dir`, each with whether it is a
/// directory (links to directories included); dangling links are left
/// out. Read through the handle, so the listing is of the directory that
/// was opened, whatever its name leads to now.
pub(crate) fn list_kinds(dir: File) -> io::Result<Vec<(Vec<u8>, bool)>> {
    let dir = DirFd(OwnedFd::from(dir));
    let mut entries = Entries::default();
    dir.read_entries(&mut entries)?;
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries.iter() {
        let kind = match entry.kind {
            Some(Kind::Symlink) | None => match dir.kind_at(entry.c_name, true) {
                Ok(kind) => kind,
                Err(_) => continue, // a dangling link
            },
            Some(kind) => kind,
        };
        out.push((entry.name().to_vec(), kind == Kind::Dir));
    }
    Ok(out)
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
        match rfs::openat(&self.0, rel, base_flags() | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok((File::from(fd), false)),
            // ELOOP on Linux, EMLINK on the BSDs: the last component is a link.
            Err(e) if e == Errno::LOOP || e == Errno::MLINK => {
                rfs::openat(&self.0, rel, base_flags(), Mode::empty())
                    .map(|fd| (File::from(fd), true))
                    .map_err(io::Error::from)
            }
            Err(e) => Err(e.into()),
        }
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
        Ok(Kind::of(FileType::from_raw_mode(st.st_mode)).unwrap_or(Kind::Other))
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
                let kind = match Kind::of(entry.file_type()) {
                    Some(kind) => Some(kind),
                    None => self.kind_at(name, false).ok(),
                };
                let start = out.names.len();
                out.names
                    .extend_from_slice(entry.file_name().to_bytes_with_nul());
                out.items.push((start, out.names.len() - 1, kind));
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn entries_name_every_kind_and_skip_dot_entries() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        fs::create_dir(tmp.path().join("dir"))?;
        fs::write(tmp.path().join("file.md"), "x")?;
        std::os::unix::fs::symlink("dir", tmp.path().join("link"))?;
        std::os::unix::fs::symlink("nowhere", tmp.path().join("broken"))?;
        let dir = DirFd::open(tmp.path())?;
        let mut entries = Entries::default();
        dir.read_entries(&mut entries)?;
        entries.sort_by_name();
        let got: Vec<(String, Option<Kind>)> = entries
            .iter()
            .map(|e| (String::from_utf8_lossy(e.name()).into_owned(), e.kind))
            .collect();
        assert_eq!(
            got,
            [
                ("broken".to_owned(), Some(Kind::Symlink)),
                ("dir".to_owned(), Some(Kind::Dir)),
                ("file.md".to_owned(), Some(Kind::File)),
                ("link".to_owned(), Some(Kind::Symlink)),
            ]
        );
        assert_eq!(dir.kind_at(c"link", true)?, Kind::Dir);
        assert!(dir.kind_at(c"broken", true).is_err());
        Ok(())
    }

    #[test]
    fn many_entries_span_several_reads() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        // Long names, so the entries need more than one 32 KiB buffer.
        for i in 0..400 {
            fs::write(tmp.path().join(format!("{i:0>200}")), "")?;
        }
        let dir = DirFd::open(tmp.path())?;
        let mut entries = Entries::default();
        dir.read_entries(&mut entries)?;
        assert_eq!(entries.len(), 400);
        Ok(())
    }

    #[test]
    fn files_open_relative_and_links_are_noted() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        fs::create_dir(tmp.path().join("a"))?;
        fs::write(tmp.path().join("a/SKILL.md"), "x")?;
        std::os::unix::fs::symlink("a/SKILL.md", tmp.path().join("link.md"))?;
        let dir = DirFd::open(tmp.path())?;
        assert!(!dir.open_file_noting_link(c"a/SKILL.md")?.1);
        assert!(dir.open_file_noting_link(c"link.md")?.1);
        assert_eq!(
            dir.open_file_noting_link(c"b/SKILL.md")
                .map(|_| ())
                .map_err(|e| e.kind()),
            Err(io::ErrorKind::NotFound)
        );
        let sub = dir.open_dir(c"a")?;
        assert!(!sub.open_file_noting_link(c"SKILL.md")?.1);
        Ok(())
    }

    #[test]
    fn a_fifo_does_not_block_the_open() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let fifo = tmp.path().join("SKILL.md");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status()?;
        if !status.success() {
            return Ok(()); // no mkfifo here: nothing to check
        }
        let dir = DirFd::open(tmp.path())?;
        let (file, _) = dir.open_file_noting_link(c"SKILL.md")?;
        assert!(!file.metadata()?.is_file());
        Ok(())
    }
}
