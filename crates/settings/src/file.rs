//! Reading one settings file: bounded, regular files only, never blocking,
//! parsed once into the value figment sees under the file's name.

use std::path::{Path, PathBuf};

use figment::{Metadata, Provider};
use serde_json::Value;

use crate::error::SettingsError;
use crate::layer::{LayerKind, LayerOrigin};

/// The largest settings file read (a larger one is an error naming it).
pub const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// Reads a settings file: a regular file (a directory, FIFO, socket or
/// device is an error saying which; a FIFO is never opened, and the open
/// is non-blocking should the file be swapped for one), at most
/// [`MAX_SETTINGS_BYTES`], UTF-8, a leading byte order mark dropped.
pub fn read_settings_file(path: &Path) -> Result<String, SettingsError> {
    use std::io::Read;
    let fail = |reason: String| SettingsError::File {
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(io_reason(&e)))?;
    check_file_type(&meta).map_err(fail)?;
    let mut file = skillpipe_core::fsio::open_nonblocking(path).map_err(|e| fail(io_reason(&e)))?;
    // The path may have changed between the two looks: check what was opened.
    let meta = file.metadata().map_err(|e| fail(io_reason(&e)))?;
    check_file_type(&meta).map_err(fail)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(io_reason(&e)))?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(fail(too_large(bytes.len() as u64)));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

fn check_file_type(meta: &std::fs::Metadata) -> Result<(), String> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err("is a directory".to_owned());
    }
    if !t.is_file() {
        return Err(format!("is not a regular file (it is {})", kind_name(t)));
    }
    if meta.len() > MAX_SETTINGS_BYTES {
        return Err(too_large(meta.len()));
    }
    Ok(())
}

/// What a file that is neither a regular file nor a directory is.
fn kind_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = t;
    "of another type"
}

fn too_large(len: u64) -> String {
    format!(
        "is {len} bytes; a settings file may have at most {} MiB",
        MAX_SETTINGS_BYTES >> 20
    )
}

pub(crate) fn io_reason(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "no such file".to_owned()
    } else {
        e.to_string()
    }
}

/// Whether something is at `path` (a dangling link or a path through a
/// non-directory counts as nothing, as a missing file does).
pub(crate) fn exists(path: &Path) -> Result<bool, SettingsError> {
    match std::fs::metadata(path) {
        Ok(_) => Ok(true),
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.kind() == std::io::ErrorKind::NotADirectory =>
        {
            Ok(false)
        }
        Err(e) => Err(SettingsError::File {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

/// A settings file layer: read and parsed once; figment sees the parsed
/// value under the file's name (so relative paths resolve against it).
#[derive(Debug, Clone)]
pub(crate) struct FileLayer {
    pub(crate) path: PathBuf,
    /// User, project or `--config`.
    pub(crate) layer: LayerKind,
    value: Value,
}

impl FileLayer {
    pub(crate) fn read(path: PathBuf, layer: LayerKind) -> Result<Self, SettingsError> {
        let text = read_settings_file(&path)?;
        let parsed = if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str::<Value>(&text).map_err(|e| e.to_string())
        } else {
            serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())
        };
        let value = parsed.map_err(|reason| SettingsError::File {
            path: path.clone(),
            reason,
        })?;
        if !value.is_object() {
            return Err(SettingsError::File {
                path,
                reason: "expected a table of settings at the top level".to_owned(),
            });
        }
        Ok(FileLayer { path, layer, value })
    }

    /// Whether it is a project settings file (untrusted).
    pub(crate) fn project(&self) -> bool {
        self.layer == LayerKind::Project
    }

    /// The file as a value's origin.
    pub(crate) fn origin(&self) -> LayerOrigin {
        LayerOrigin {
            layer: self.layer,
            name: self.path.display().to_string(),
            file: Some(self.path.clone()),
        }
    }

    pub(crate) fn json(&self) -> &Value {
        &self.value
    }

    /// The value at a dotted key, if the file sets it.
    pub(crate) fn get(&self, dotted: &str) -> Option<&Value> {
        dotted
            .split('.')
            .try_fold(&self.value, |v, part| v.get(part))
    }
}

impl Provider for FileLayer {
    fn metadata(&self) -> Metadata {
        Metadata::from(self.layer.label(), self.path.as_path())
    }
    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        figment::providers::Serialized::defaults(&self.value).data()
    }
}

/// How long an edit waits for another process's edit of the same file.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Where a settings path leads: each symbolic link followed, a link to
/// nothing yet included (it leads to where the file will be). An edit
/// replaces that file, so a settings file linked from a dotfiles
/// repository stays a link.
pub(crate) fn link_target(path: &Path) -> Result<PathBuf, SettingsError> {
    let mut at = path.to_path_buf();
    // As many as the kernel follows (Linux: 40) before ELOOP.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at).map_err(|e| SettingsError::File {
                    path: path.to_path_buf(),
                    reason: format!("cannot read the link {}: {e}", at.display()),
                })?;
                // A relative link is relative to the link's directory (an
                // absolute one replaces it).
                at = match at.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(SettingsError::File {
        path: path.to_path_buf(),
        reason: "too many levels of symbolic links".to_owned(),
    })
}

/// An advisory lock held for one read-modify-write of a settings file;
/// released when dropped (the lock file is closed).
#[derive(Debug)]
pub(crate) struct EditLock {
    _file: Option<std::fs::File>,
}

/// Takes the edit lock of `target` (a settings file, links resolved): an
/// exclusive lock on the sidecar `<name>.lock` beside it, waiting up to
/// [`LOCK_WAIT`] for another edit to finish.
///
/// The sidecar, not the file itself: an edit replaces the file by a rename,
/// so a lock on the file's inode would be a lock on the old file, which a
/// second editor opening the path after the rename would not see. The
/// sidecar stays (removing it would let two editors lock two different
/// files of the same name). Readers take no lock: they see the old file or
/// the new one, whole. A file system without locks gets the edit without
/// one (the file is still replaced whole).
pub(crate) fn lock_for_edit(target: &Path) -> Result<EditLock, SettingsError> {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let lock_path = target.with_file_name(name);
    let fail = |reason: String| SettingsError::File {
        path: lock_path.clone(),
        reason,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| fail(format!("cannot open the lock file: {}", io_reason(&e))))?;
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(EditLock { _file: Some(file) }),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(fail(format!(
                    "another process has held this lock for {} s while editing {}; try again",
                    LOCK_WAIT.as_secs(),
                    target.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
                return Ok(EditLock { _file: None });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(fail(format!("cannot lock: {e}")));
            }
        }
    }
}

/// Replaces `target` (links resolved) with `text`: written to a temporary
/// file beside it, flushed to disk, then renamed over it, so that a reader
/// sees the old file or the new one and never a part. An existing file's
/// permissions are kept (Unix); a new one gets those of a file the process
/// creates.
pub(crate) fn replace_file(target: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(target).ok().map(|m| m.permissions());
    let (mut file, tmp) = create_temporary(target)
        .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.0.display()))?;
    #[cfg(unix)]
    if let Some(permissions) = existing {
        file.set_permissions(permissions)
            .map_err(|e| format!("cannot keep the file's permissions: {e}"))?;
    }
    #[cfg(not(unix))]
    let _ = existing;
    drop(file);
    rename_over(&tmp.0, target)?;
    tmp.kept();
    // The rename itself made durable (best effort: not every system lets
    // a directory be opened and synced).
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// How long an edit retries replacing a file that another process has open
/// (Windows only, see [`rename_over`]).
const REPLACE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Renames `from` over `to`. On Windows a file that another process has
/// open (an agent reading its settings, an indexer, a virus scanner) cannot
/// always be replaced: Windows before 10, file systems without POSIX
/// rename semantics, and Wine refuse with "access denied" or a sharing
/// violation until it is closed. Such an open is short, so those errors
/// are retried for up to [`REPLACE_WAIT`]; any other error, and every
/// error on other systems, is returned at once.
fn rename_over(from: &Path, to: &Path) -> Result<(), String> {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match std::fs::rename(from, to) {
            Ok(()) => return Ok(()),
            Err(e) if held_open(&e) && start.elapsed() < REPLACE_WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(50));
            }
            Err(e) if held_open(&e) => {
                return Err(format!(
                    "cannot replace the file (tried for {} s; is another program holding it open?): {e}",
                    REPLACE_WAIT.as_secs()
                ));
            }
            Err(e) => return Err(format!("cannot replace the file: {e}")),
        }
    }
}

/// Whether a rename failed, on Windows, because the file is open elsewhere:
/// ERROR_ACCESS_DENIED (5), ERROR_SHARING_VIOLATION (32) or
/// ERROR_LOCK_VIOLATION (33).
fn held_open(e: &std::io::Error) -> bool {
    cfg!(windows) && matches!(e.raw_os_error(), Some(5 | 32 | 33))
}

/// A temporary file, removed when dropped unless [`Temporary::kept`].
struct Temporary(PathBuf);

impl Temporary {
    fn kept(self) {
        std::mem::forget(self);
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A new file `.<name>.<random>.tmp` beside `target`, created (never an
/// existing one opened), readable as a file the process creates would be.
fn create_temporary(target: &Path) -> std::io::Result<(std::fs::File, Temporary)> {
    use std::hash::{BuildHasher, RandomState};
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let mut last = None;
    for attempt in 0u32..100 {
        // std's hasher keys are random per `RandomState`.
        let random = RandomState::new().hash_one((std::process::id(), attempt));
        let path = target.with_file_name(format!(".{name}.{random:016x}.tmp"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // As `std::fs::write` creates a file: 0o666 less the umask.
            options.mode(0o666);
        }
        match options.open(&path) {
            Ok(file) => return Ok((file, Temporary(path))),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}
