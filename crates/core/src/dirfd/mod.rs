//! The one module that lists directories and opens the files under them
//! for the scanners. Nothing above it knows which of its two paths runs:
//!
//! - `linux.rs`, the fast path: each directory is opened once and what
//!   lies in it is opened relative to it (`openat`), entries are read with
//!   `getdents64` into a buffer kept per thread, no allocation per entry.
//! - `portable.rs`, every other target (macOS and the BSDs, Windows), and
//!   Linux with the `portable-scan` feature, which is how CI runs the
//!   whole test suite and the shared corpus through it: `std::fs`, a
//!   directory known by its path.
//!
//! Both give the same entries, kinds and errors. Every open is
//! non-blocking where the platform has the notion (a FIFO named
//! `SKILL.md` cannot hang a scan), and a `SKILL.md` is matched by its
//! listed name, byte for byte, also on case-insensitive file systems.

use std::ffi::CStr;

#[cfg(all(target_os = "linux", not(feature = "portable-scan")))]
#[path = "linux.rs"]
mod imp;
#[cfg(not(all(target_os = "linux", not(feature = "portable-scan"))))]
#[path = "portable.rs"]
mod imp;

pub(crate) use imp::{DirFd, file_info, list_kinds, open_path_noting_link};

/// The names in `dir`, each with whether it is a directory (links to
/// directories included); dangling links are left out. Both paths'
/// `list_kinds` list through this.
fn kinds_in(dir: &DirFd) -> std::io::Result<Vec<(Vec<u8>, bool)>> {
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

/// What [`file_info`] says of an open file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileInfo {
    /// A regular file (not a directory, FIFO, socket or device).
    pub(crate) regular: bool,
    /// Its size in bytes (0 when the file system does not say).
    pub(crate) size: u64,
}

/// The identity of a directory, for symlink loops: device and inode on
/// Unix, the file's handle identity elsewhere.
#[cfg(unix)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileId(u64, u64);

#[cfg(not(unix))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileId(std::sync::Arc<same_file::Handle>);

impl FileId {
    /// The identity of what `path` leads to.
    pub(crate) fn of(path: &std::path::Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            same_file::Handle::from_path(path)
                .ok()
                .map(|h| FileId(std::sync::Arc::new(h)))
        }
    }

    /// The identity of an open file.
    pub(crate) fn of_file(file: &std::fs::File) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = file.metadata().ok()?;
            Some(FileId(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            let file = file.try_clone().ok()?;
            same_file::Handle::from_file(file)
                .ok()
                .map(|h| FileId(std::sync::Arc::new(h)))
        }
    }
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

    pub(super) fn clear(&mut self) {
        self.names.clear();
        self.items.clear();
    }

    /// Adds an entry (a name holds no NUL on any platform).
    pub(super) fn push(&mut self, name: &[u8], kind: Option<Kind>) {
        let start = self.names.len();
        self.names.extend_from_slice(name);
        self.names.push(0);
        self.items.push((start, self.names.len() - 1, kind));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::fs;
    use std::io;

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
