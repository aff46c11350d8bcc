//! Reading a skill file's head: the I/O of loading, apart from the
//! parsing (`load.rs`). Only the frontmatter bytes are read (up to the
//! closing `---`), the first read into a per-thread buffer that the parser
//! borrows, so the usual file costs one `read` and no allocation. Also the
//! `read-error` diagnostics every scanner reports.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use skillpipe_types::{Diagnostic, DiagnosticCode};

use crate::dirfd::FileInfo;
use crate::observe::FileObserver;
use crate::text;

/// Bytes read at first; most frontmatters end well before.
const FIRST_READ: usize = 4096;

/// What reading a file's head found.
pub(crate) enum HeadRef<'a> {
    /// The frontmatter bytes (or the whole file, when it has no closing
    /// marker).
    Bytes(&'a [u8]),
    /// The file is larger than the bound (nothing was read); its size.
    TooLarge(u64),
    /// No regular file there.
    Absent,
}

/// Reads the frontmatter bytes of an open file (up to the closing marker,
/// or the whole file when it has none) and hands them to `f`. Most
/// frontmatters end inside the first read, which goes to a buffer kept per
/// thread: then `f` sees them there, and nothing is allocated or copied.
/// Returns what `f` made, and the file's length from its metadata (`None`
/// when unknown: not a regular file, or a length of 0). `known`: the
/// file's metadata when the caller already asked for it.
pub(crate) fn with_head<R>(
    file: File,
    known: Option<FileInfo>,
    max: u64,
    observer: Option<(&FileObserver, &Path)>,
    f: impl FnOnce(io::Result<HeadRef<'_>>) -> R,
) -> (R, Option<u64>) {
    // A host that hears of whole files ([`FileObserver`]) is asked with
    // the stamp of this descriptor, whatever the caller knew of the file:
    // the stamp must be the read file's.
    #[cfg(unix)]
    let observer = observer.filter(|(o, _)| o.is_on());
    #[cfg(unix)]
    let (known, stamp) = match observer {
        Some(_) => match stamped(&file) {
            Ok((info, stamp)) => (Some(info), Some(stamp)),
            Err(e) => return (f(Err(e)), None),
        },
        None => (known, None),
    };
    #[cfg(not(unix))]
    let _ = observer;
    let info = match known.map_or_else(|| crate::dirfd::file_info(&file), Ok) {
        Ok(info) => info,
        Err(e) => return (f(Err(e)), None),
    };
    if !info.regular {
        return (f(Ok(HeadRef::Absent)), None);
    }
    let size = info.size;
    if size > max {
        return (f(Ok(HeadRef::TooLarge(size))), Some(size));
    }
    // A length of 0 may be a file of /proc's, whose length is unknown.
    let len = (size > 0).then_some(size);
    #[cfg(unix)]
    if let (Some((observer, path)), Some(stamp)) = (observer, stamp)
        && observer.wants(&stamp)
    {
        return (read_observed(file, observer, path, stamp, max, f), len);
    }
    (read_head(file, size, max, f), len)
}

/// The metadata and stamp of an open file, from one `fstat`.
#[cfg(unix)]
fn stamped(file: &File) -> io::Result<(FileInfo, crate::observe::FileStamp)> {
    use rustix::fs::FileType;
    let st = rustix::fs::fstat(file)?;
    let stamp = stamp_of(&st);
    let info = FileInfo {
        regular: FileType::from_raw_mode(st.st_mode) == FileType::RegularFile,
        size: stamp.len,
    };
    Ok((info, stamp))
}

/// [`read_head`] of a file its observer wants: read to its end into a
/// per-thread buffer, heard of when the bytes are all its stamped length,
/// and its head then taken from those bytes exactly as [`read_head`]
/// takes it from the file.
#[cfg(unix)]
fn read_observed<R>(
    file: File,
    observer: &FileObserver,
    path: &Path,
    stamp: crate::observe::FileStamp,
    max: u64,
    f: impl FnOnce(io::Result<HeadRef<'_>>) -> R,
) -> R {
    let size = stamp.len;
    WHOLE.with_borrow_mut(|whole| {
        if let Err(e) = fill_whole(&file, whole, size) {
            return f(Err(e));
        }
        if whole.len() as u64 == size {
            observer.hear(&crate::observe::FileRead {
                path,
                bytes: whole,
                stamp,
            });
        }
        let made = read_head(&whole[..], size, max, f);
        // A large file's buffer is not kept for the thread's next.
        if whole.capacity() > KEPT_WHOLE {
            *whole = Vec::new();
        }
        made
    })
}

/// The largest buffer of [`WHOLE`] kept between files.
#[cfg(unix)]
const KEPT_WHOLE: usize = 1 << 20;

/// Reads the plain file `file`, stamped `size` bytes long, into `whole`:
/// one `read` of a byte more than that, which a file that did not grow
/// answers short; on until its end otherwise (at most a byte more than
/// stamped: a file that grew is not heard of).
#[cfg(unix)]
fn fill_whole(mut file: &File, whole: &mut Vec<u8>, size: u64) -> io::Result<()> {
    let size = usize::try_from(size).unwrap_or(usize::MAX - 1);
    let want = size + 1;
    whole.clear();
    whole.resize(want, 0);
    let mut got = 0;
    while got < want {
        match file.read(&mut whole[got..]) {
            Ok(0) => break,
            // Short of the byte past its length: the end of a plain file.
            Ok(n) if got + n >= size && got + n < want => {
                got += n;
                break;
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                whole.clear();
                return Err(e);
            }
        }
    }
    whole.truncate(got);
    Ok(())
}

/// The stamp of a file's `fstat`.
#[cfg(unix)]
#[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
fn stamp_of(st: &rustix::fs::Stat) -> crate::observe::FileStamp {
    crate::observe::FileStamp {
        len: u64::try_from(st.st_size).unwrap_or(0),
        inode: (st.st_dev as u64, st.st_ino as u64),
        modified: (st.st_mtime as i64, st.st_mtime_nsec as i64),
        changed: (st.st_ctime as i64, st.st_ctime_nsec as i64),
    }
}

/// [`with_head`] of a regular file of `size` bytes (0: unknown).
fn read_head<R>(
    mut file: impl Read,
    size: u64,
    max: u64,
    f: impl FnOnce(io::Result<HeadRef<'_>>) -> R,
) -> R {
    // A file smaller than the buffer is read to its size and no further (a
    // size of 0 may be a file of /proc: read to its end).
    let limit = match usize::try_from(size) {
        Ok(n) if n > 0 && n < FIRST_READ => n,
        _ => FIRST_READ,
    };
    FIRST.with_borrow_mut(|first| {
        let mut got = 0;
        while got < limit {
            match file.read(&mut first[got..limit]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return f(Err(e)),
            }
        }
        let first = &first[..got];
        // The file may go on past this read.
        let cut = got == limit && (size == 0 || (got as u64) < size);
        // The same three exits as `read_on`'s loop, for the first read.
        if !text::has_opening(first) && got >= 6 {
            // No frontmatter: only whether there is any text matters, so a
            // blank head is read on until the text starts (an empty file is
            // no skill), and a character cut by the read is left out.
            if cut && text::is_blank(first) {
                match crate::fsio::read_while_blank(&mut file, first.to_vec(), max) {
                    Ok(bytes) => f(Ok(HeadRef::Bytes(text::complete_utf8(&bytes)))),
                    Err(e) => f(Err(e)),
                }
            } else if cut {
                f(Ok(HeadRef::Bytes(text::complete_utf8(first))))
            } else {
                f(Ok(HeadRef::Bytes(first)))
            }
        } else if let Some(n) = text::raw_frontmatter_len(first) {
            f(Ok(HeadRef::Bytes(&first[..n])))
        } else if got < FIRST_READ || got as u64 >= max {
            f(Ok(HeadRef::Bytes(first)))
        } else {
            match read_on(&mut file, first.to_vec(), max) {
                Ok(bytes) => f(Ok(HeadRef::Bytes(&bytes))),
                Err(e) => f(Err(e)),
            }
        }
    })
}

/// Reads on after a first read that ended inside the frontmatter, in
/// growing steps, until the closing marker, the end of the file or `max`.
fn read_on(file: &mut impl Read, mut bytes: Vec<u8>, max: u64) -> io::Result<Vec<u8>> {
    let mut want = FIRST_READ.saturating_mul(4);
    loop {
        let before = bytes.len();
        file.take((want - before) as u64).read_to_end(&mut bytes)?;
        let got_all = bytes.len() < want;
        if !text::has_opening(&bytes) && bytes.len() >= 6 {
            break;
        }
        if let Some(n) = text::raw_frontmatter_len(&bytes) {
            bytes.truncate(n);
            break;
        }
        if got_all || bytes.len() as u64 >= max {
            break;
        }
        want = want.saturating_mul(4);
    }
    Ok(bytes)
}

thread_local! {
    /// The buffer of first reads, one per scanning thread.
    static FIRST: RefCell<Vec<u8>> = RefCell::new(vec![0; FIRST_READ]);
}

#[cfg(unix)]
thread_local! {
    /// The buffer of files read whole for a [`FileObserver`], one per
    /// scanning thread.
    static WHOLE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Whether an open error means "no file there" rather than a failure: a
/// missing entry, a directory, or a socket (which cannot be opened; FIFOs
/// and devices can, and are told apart by their type after the open).
pub fn is_absent(err: &io::Error) -> bool {
    #[cfg(unix)]
    if err.raw_os_error() == Some(libc::ENXIO) {
        return true;
    }
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::IsADirectory
    )
}

/// `read-error` for a file: `Failed to read <file> (<reason>)`.
pub fn read_error_file(path: &Path, err: &impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        DiagnosticCode::ReadError,
        format!("Failed to read {} ({err})", path.display()),
        path,
    )
}

/// `read-error` for a directory: `Failed to read skills directory: <dir> (<reason>)`.
pub fn read_error_dir(dir: &Path, err: &io::Error) -> Diagnostic {
    Diagnostic::error(
        DiagnosticCode::ReadError,
        format!("Failed to read skills directory: {} ({err})", dir.display()),
        dir,
    )
}

/// Reads a whole skill file for expansion, refusing files over `max` bytes
/// the way discovery does, and anything but a regular file, without ever
/// blocking.
pub fn read_whole(path: &Path, max: u64) -> Result<Vec<u8>, Box<Diagnostic>> {
    crate::fsio::read_bounded(path, max).map_err(|e| {
        Box::new(match e {
            crate::fsio::ReadError::TooLarge { size, max } => Diagnostic::error(
                DiagnosticCode::FileTooLarge,
                format!("file exceeds {max} bytes ({size})"),
                path,
            ),
            other => read_error_file(path, &other),
        })
    })
}
