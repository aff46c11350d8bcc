//! Reading one settings file: bounded, regular files only, never blocking,
//! parsed once into the value figment sees under the file's name.

use std::path::{Path, PathBuf};

use figment::{Metadata, Provider};
use serde_json::Value;

use crate::SettingsError;
use crate::provenance::{LayerKind, Origin};

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
    pub(crate) fn origin(&self) -> Origin {
        Origin {
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
