//! Directory handles on every target but Linux (and on Linux with the
//! `portable-scan` feature): `std::fs`, a directory known by its path.
//!
//! Names are bytes to the scanners. On Unix they are the bytes the system
//! gives; on Windows a name is its UTF-8 spelling, and a name that is not
//! valid Unicode (an unpaired surrogate) cannot be a skill's folder or file
//! and is left out of listings.

use std::ffi::CStr;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::{Entries, FileInfo, Kind};
use crate::paths::path_of;

fn kind_of(t: fs::FileType) -> Kind {
    if t.is_symlink() {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// An open directory: its path.
#[derive(Debug)]
pub(crate) struct DirFd(PathBuf);

impl DirFd {
    /// Opens the directory at `path` (links followed).
    pub(crate) fn open(path: &Path) -> io::Result<DirFd> {
        if fs::metadata(path)?.is_dir() {
            Ok(DirFd(path.to_path_buf()))
        } else {
            Err(io::ErrorKind::NotADirectory.into())
        }
    }

    fn join(&self, rel: &CStr) -> PathBuf {
        self.0.join(path_of(rel.to_bytes()))
    }

    /// Opens the directory `name` (one component) in this one, following a
    /// link.
    pub(crate) fn open_dir(&self, name: &CStr) -> io::Result<DirFd> {
        DirFd::open(&self.join(name))
    }

    /// Opens `<name>/SKILL.md` without listing `name`, as the Linux
    /// path's does (see there), on Unix file systems that match names as
    /// spelt. Where names may be folded (macOS, Windows), only a listing
    /// tells `SKILL.md` from `skill.md`: `None`, and the caller lists.
    pub(crate) fn open_unlisted_skill(
        &self,
        name: &[u8],
        absent: &[&str],
        _scratch: &mut Vec<u8>,
    ) -> Option<(File, bool, FileInfo)> {
        #[cfg(unix)]
        if !CASE_INSENSITIVE {
            use rustix::fs::{Access, AtFlags, CWD};
            let dir = self.0.join(path_of(name));
            let (file, link) = open_path_noting_link(&dir.join("SKILL.md")).ok()?;
            let info = file_info(&file).ok().filter(|info| info.regular)?;
            rustix::fs::accessat(CWD, &dir, Access::READ_OK, AtFlags::EACCESS).ok()?;
            for leaf in absent {
                match fs::symlink_metadata(dir.join(leaf)) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    _ => return None,
                }
            }
            return Some((file, link, info));
        }
        let _ = (name, absent);
        None
    }

    /// Opens the file at `rel` (relative to this directory) for reading,
    /// and says whether its last component was a symbolic link.
    pub(crate) fn open_file_noting_link(&self, rel: &CStr) -> io::Result<(File, bool)> {
        let path = self.join(rel);
        // A name not taken from a listing (`<entry>/SKILL.md`) must be
        // there as spelt: a case-insensitive file system would open
        // `skill.md` for it.
        if CASE_INSENSITIVE && rel.to_bytes().contains(&b'/') && !exact_name_present(&path)? {
            return Err(io::ErrorKind::NotFound.into());
        }
        open_path_noting_link(&path)
    }

    /// The kind of `name` in this directory; with `follow`, of what a link
    /// leads to (an error for a broken link).
    pub(crate) fn kind_at(&self, name: &CStr, follow: bool) -> io::Result<Kind> {
        let path = self.join(name);
        let meta = if follow {
            fs::metadata(path)?
        } else {
            fs::symlink_metadata(path)?
        };
        Ok(kind_of(meta.file_type()))
    }

    /// Reads every entry into `out` (cleared first).
    pub(crate) fn read_entries(&self, out: &mut Entries) -> io::Result<()> {
        out.clear();
        for entry in fs::read_dir(&self.0)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(bytes) = name_bytes(&name) else {
                continue;
            };
            let kind = entry.file_type().ok().map(kind_of);
            out.push(bytes, kind);
        }
        Ok(())
    }
}

/// A name's bytes: as the system gives them on Unix, UTF-8 elsewhere
/// (`None` for a name that is not valid Unicode).
fn name_bytes(name: &std::ffi::OsStr) -> Option<&[u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(name.as_bytes())
    }
    #[cfg(not(unix))]
    {
        name.to_str().map(str::as_bytes)
    }
}

/// Whether names are matched without regard to case here (macOS, iOS
/// and Windows file systems usually are).
const CASE_INSENSITIVE: bool = cfg!(any(target_os = "macos", target_os = "ios", windows));

/// Whether the last component of `path` is listed in its directory byte
/// for byte (not merely a name the file system folds to it).
pub(crate) fn exact_name_present(path: &Path) -> io::Result<bool> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(false);
    };
    for entry in fs::read_dir(dir)? {
        if entry?.file_name() == name {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The names in the directory opened as `dir` (at `path`), each with
/// whether it is a directory (links to directories included); dangling
/// links are left out. The listing must be of the directory that was
/// opened: should `path` lead elsewhere by now, it is refused.
pub(crate) fn list_kinds(dir: File, path: &Path) -> io::Result<Vec<(Vec<u8>, bool)>> {
    let out = super::kinds_in(&DirFd(path.to_path_buf()))?;
    if same_file::Handle::from_file(dir)? != same_file::Handle::from_path(path)? {
        return Err(io::Error::other(
            "the directory changed while it was listed",
        ));
    }
    Ok(out)
}

/// Opens the file at `path` for reading, never blocking, and says whether
/// its last component was a symbolic link.
pub(crate) fn open_path_noting_link(path: &Path) -> io::Result<(File, bool)> {
    let link = fs::symlink_metadata(path)?.file_type().is_symlink();
    crate::fsio::open_nonblocking(path).map(|f| (f, link))
}

/// What an open file is.
pub(crate) fn file_info(file: &File) -> io::Result<FileInfo> {
    let meta = file.metadata()?;
    Ok(FileInfo {
        regular: meta.is_file(),
        size: meta.len(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_the_listed_spelling_is_present() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pdf");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("skill.md"), "x").unwrap();
        // What a case-insensitive file system would open for `SKILL.md`
        // is not there as spelt: not a skill file.
        assert!(!exact_name_present(&dir.join("SKILL.md")).unwrap());
        assert!(exact_name_present(&dir.join("skill.md")).unwrap());
        assert!(exact_name_present(&tmp.path().join("gone/SKILL.md")).is_err());
    }
}
