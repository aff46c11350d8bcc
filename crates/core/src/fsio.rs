//! Reading the files a host asks for after discovery (`skill://`
//! resources, `/skill:` bodies, AGENTS.md, files under `validate`), and the
//! small files discovery consults besides skill files (a pi package's
//! `package.json`, Claude Code's plugin index, ignore files: [`read_index`]),
//! the way discovery reads skill files: an open never blocks (a FIFO cannot
//! hang the host), only regular files are read, every read is bounded, and
//! what a containment check looks at is the file that was opened, not a name
//! that may since lead elsewhere.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a bounded read gave no bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The open or the read failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A FIFO, socket or device: never read.
    #[error("not a regular file")]
    NotRegular,
    /// A directory where a file was wanted.
    #[error("is a directory")]
    Directory,
    /// Larger than the bound.
    #[error("file exceeds {max} bytes ({size})")]
    TooLarge {
        /// Its size (at least `max + 1` for a file that does not say).
        size: u64,
        /// The bound.
        max: u64,
    },
}

impl ReadError {
    /// Whether nothing was there to open (a missing file or a dangling link).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// The bound on an index file discovery reads ([`read_index`]): that of a
/// settings file.
pub const MAX_INDEX_BYTES: u64 = 16 << 20;

/// Reads a whole index file (a pi package's `package.json`, Claude Code's
/// `installed_plugins.json`, an ignore file) as settings files are read: a
/// regular file only (a directory, FIFO, socket or device is refused, and
/// the open never blocks, should the name lead to a FIFO), at most `max`
/// bytes, a leading UTF-8 byte order mark dropped. Every provider reads
/// what it consults through this, and reports an error (other than
/// [`ReadError::is_not_found`]) as a `read-error` naming the file
/// ([`crate::head::read_error_file`]).
pub fn read_index(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = read_bounded(path, max)?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    Ok(bytes)
}

/// Opens `path` for reading (links followed) without blocking, whatever
/// lies there.
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut options = File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(windows)]
    {
        // FILE_FLAG_BACKUP_SEMANTICS: without it a directory cannot be
        // opened at all.
        use std::os::windows::fs::OpenOptionsExt;
        options.custom_flags(0x0200_0000);
    }
    options.open(path)
}

/// What an open file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenKind {
    /// A regular file of this size.
    File(u64),
    /// A directory.
    Dir,
    /// Anything else.
    Other,
}

/// The kind of an open file, from the handle (never from its name).
pub fn kind_of(file: &File) -> io::Result<OpenKind> {
    let meta = file.metadata()?;
    Ok(if meta.is_file() {
        OpenKind::File(meta.len())
    } else if meta.is_dir() {
        OpenKind::Dir
    } else {
        OpenKind::Other
    })
}

/// Reads a whole regular file of at most `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    read_open_bounded(open_nonblocking(path)?, max)
}

/// [`read_bounded`] of a file already open. A file that says its size is
/// refused before any read when it is too large; one that does not (a file
/// of `/proc`) is read to `max + 1` bytes at most.
pub fn read_open_bounded(file: File, max: u64) -> Result<Vec<u8>, ReadError> {
    let size = match kind_of(&file)? {
        OpenKind::File(size) => size,
        OpenKind::Dir => return Err(ReadError::Directory),
        OpenKind::Other => return Err(ReadError::NotRegular),
    };
    if size > max {
        return Err(ReadError::TooLarge { size, max });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

/// Whether the regular file at `path` holds any text besides whitespace,
/// reading no further than the first text (at most `max` bytes).
pub fn has_text(path: &Path, max: u64) -> bool {
    let Ok(mut file) = open_nonblocking(path) else {
        return false;
    };
    matches!(kind_of(&file), Ok(OpenKind::File(_)))
        && read_while_blank(&mut file, Vec::new(), max)
            .is_ok_and(|bytes| !crate::text::is_blank(&bytes))
}

/// Reads on from `reader` into `bytes` (blank so far), a buffer at a time,
/// until a read brings text, the reader ends or `bytes` hold `max`. Each
/// read is looked at from the start of the character the one before may
/// have cut, so no byte is looked at twice.
pub(crate) fn read_while_blank(
    reader: &mut impl Read,
    mut bytes: Vec<u8>,
    max: u64,
) -> io::Result<Vec<u8>> {
    const STEP: u64 = 4096;
    while (bytes.len() as u64) < max {
        let before = bytes.len();
        reader
            .take((max - before as u64).min(STEP))
            .read_to_end(&mut bytes)?;
        if bytes.len() == before {
            break;
        }
        let mut start = before;
        while start + 3 > before && start > 0 && bytes[start] & 0xC0 == 0x80 {
            start -= 1;
        }
        if !crate::text::is_blank(&bytes[start..]) {
            break;
        }
    }
    Ok(bytes)
}

/// The real path of the file `file`, opened from `path`: where the open
/// actually led, not where `path` leads now. On Linux the kernel says it;
/// elsewhere the path is resolved and must name the very file that was
/// opened (same device and inode), else the file changed under us and
/// this is an error.
pub fn real_path_of(file: &File, path: &Path) -> io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = format!("/proc/self/fd/{}", file.as_raw_fd());
        if let Ok(real) = std::fs::read_link(link) {
            // A file deleted since the open reads " (deleted)": no path.
            if real.is_absolute() && std::fs::symlink_metadata(&real).is_ok() {
                return same_file(file, &real).map(|()| real);
            }
            return Err(changed());
        }
    }
    let real = std::fs::canonicalize(path)?;
    same_file(file, &real)?;
    Ok(real)
}

/// `Ok` when `real` names the open `file`.
fn same_file(file: &File, real: &Path) -> io::Result<()> {
    use crate::dirfd::FileId;
    match (FileId::of_file(file), FileId::of(real)) {
        (Some(opened), Some(named)) if opened == named => Ok(()),
        _ => Err(changed()),
    }
}

fn changed() -> io::Error {
    io::Error::other("the file changed while it was opened")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bounded_reads_refuse_large_files_and_non_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_bounded(&f, 5).unwrap(), b"12345");
        assert!(matches!(
            read_bounded(&f, 4),
            Err(ReadError::TooLarge { size: 5, max: 4 })
        ));
        assert!(matches!(
            read_bounded(dir.path(), 4),
            Err(ReadError::Directory)
        ));
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            // Returns at once: the open does not wait for a writer.
            assert!(matches!(read_bounded(&fifo, 4), Err(ReadError::NotRegular)));
            assert!(!has_text(&fifo, 4));
        }
    }

    #[test]
    fn index_files_are_bounded_regular_files_and_lose_their_bom() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("index.json");
        std::fs::write(&f, b"\xEF\xBB\xBF{}").unwrap();
        assert_eq!(read_index(&f, 16).unwrap(), b"{}");
        std::fs::write(&f, b"{}\xEF\xBB\xBF").unwrap();
        assert_eq!(
            read_index(&f, 16).unwrap(),
            b"{}\xEF\xBB\xBF",
            "only a leading one"
        );
        assert!(matches!(
            read_index(&f, 4),
            Err(ReadError::TooLarge { size: 5, max: 4 })
        ));
        let missing = read_index(&dir.path().join("none"), 16).unwrap_err();
        assert!(missing.is_not_found());
        assert!(!read_index(dir.path(), 16).unwrap_err().is_not_found());
        #[cfg(unix)]
        {
            // A link to a device (git stores links) and a FIFO: refused at
            // once, nothing read.
            let zero = dir.path().join("zero.json");
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            assert!(matches!(read_index(&zero, 16), Err(ReadError::NotRegular)));
            let fifo = dir.path().join("fifo.json");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            assert!(matches!(read_index(&fifo, 16), Err(ReadError::NotRegular)));
        }
    }

    #[test]
    fn text_is_found_past_a_long_blank_start() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, format!("{}x", " \n".repeat(10_000))).unwrap();
        assert!(has_text(&f, 1 << 20));
        assert!(!has_text(&f, 100), "the text lies past the bound");
        std::fs::write(&f, "\u{3000}".repeat(5000)).unwrap();
        assert!(!has_text(&f, 1 << 20));
    }

    #[test]
    fn the_real_path_is_the_opened_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a"), "a").unwrap();
        std::fs::write(root.join("b"), "b").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
            let file = open_nonblocking(&root.join("link")).unwrap();
            // The link now leads elsewhere: the open file is still `a`.
            std::fs::remove_file(root.join("link")).unwrap();
            std::os::unix::fs::symlink(root.join("b"), root.join("link")).unwrap();
            let real = real_path_of(&file, &root.join("link"));
            assert!(
                real.as_ref().is_ok_and(|r| *r == root.join("a")) || real.is_err(),
                "{real:?}"
            );
        }
    }
}
