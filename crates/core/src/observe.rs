//! A host's view of the skill files a discovery reads: each file the
//! loader reads whole is handed, with the stamp of the open file it was
//! read from, to the [`FileObserver`] of the run's context, so that a host
//! that needs the files' bytes (the MCP server hashes every `SKILL.md` it
//! lists) does not open and read them a second time.
//!
//! Observing costs a discovery the rest of each file past its frontmatter
//! (the loader reads only the head otherwise); without an observer (the
//! default) nothing changes.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// What a file's `fstat` said when it was read: enough to tell, by a later
/// `stat`, whether it is still the same file with the same content (on
/// Unix; elsewhere no file is observed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Its length in bytes (that of the bytes read).
    pub len: u64,
    /// Its device and inode.
    pub inode: (u64, u64),
    /// Its modification time: seconds and nanoseconds.
    pub modified: (i64, i64),
    /// Its status change time: seconds and nanoseconds.
    pub changed: (i64, i64),
}

/// One skill file a scan read whole.
#[derive(Debug, Clone, Copy)]
pub struct FileRead<'a> {
    /// The file, as the scan found it.
    pub path: &'a Path,
    /// Every byte of it.
    pub bytes: &'a [u8],
    /// The stamp of the open file the bytes were read from, taken before
    /// the read (a write during it gives the file a later stamp).
    pub stamp: FileStamp,
}

/// Who hears of the skill files a discovery reads whole: none by default.
/// Asked of each skill file, once it is open and stamped, whether it wants
/// it (a host that has its digest already does not: then only the head is
/// read); told of each it wanted, read whole. Both are called on the
/// scanning threads, in no set order, at most once a file a scan (a file
/// may be read by more than one scan).
#[derive(Clone, Default)]
pub struct FileObserver(Option<Observer>);

/// What a [`FileObserver`] is asked whether it wants a file.
pub type Wants = Arc<dyn Fn(&FileStamp) -> bool + Send + Sync>;

/// What a [`FileObserver`] is told of a file it wanted.
pub type Hear = Arc<dyn Fn(&FileRead<'_>) + Send + Sync>;

#[derive(Clone)]
#[cfg_attr(not(unix), allow(dead_code))]
struct Observer {
    wants: Wants,
    hear: Hear,
}

impl FileObserver {
    /// An observer of the skill files `wants` wants (by their stamp: their
    /// length, to bound what is read whole, and their identity), told of
    /// each read whole by `hear`.
    pub fn new(
        wants: impl Fn(&FileStamp) -> bool + Send + Sync + 'static,
        hear: impl Fn(&FileRead<'_>) + Send + Sync + 'static,
    ) -> Self {
        FileObserver(Some(Observer {
            wants: Arc::new(wants),
            hear: Arc::new(hear),
        }))
    }

    /// Whether there is one.
    #[cfg(unix)]
    pub(crate) fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Whether the file stamped `stamp` is to be read whole and heard of
    /// (never an empty one: a length of 0 may be a file of /proc's).
    #[cfg(unix)]
    pub(crate) fn wants(&self, stamp: &FileStamp) -> bool {
        self.0
            .as_ref()
            .is_some_and(|o| stamp.len > 0 && (o.wants)(stamp))
    }

    /// Hands `read` to the observer.
    #[cfg(unix)]
    pub(crate) fn hear(&self, read: &FileRead<'_>) {
        if let Some(o) = &self.0 {
            (o.hear)(read);
        }
    }
}

impl fmt::Debug for FileObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match &self.0 {
            Some(_) => "FileObserver(some)",
            None => "FileObserver(none)",
        })
    }
}

/// Equal to any other, as the context's [`Schedule`](crate::schedule::Schedule)
/// is: it changes nothing a discovery finds.
impl PartialEq for FileObserver {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
