//! Helpers shared by the fuzz targets: one scratch directory per process.
//!
//! A fuzz run feeds millions of inputs, so every target builds its files
//! once, under a directory made on first use, and overwrites them per input.
//! The directory is removed when the process exits normally (libFuzzer's
//! `-max_total_time` ends with `exit`); one left by a crash is swept by the
//! next run of the same target.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

extern "C" fn remove_scratch() {
    if let Some(dir) = SCRATCH.get() {
        let _ = fs::remove_dir_all(dir);
    }
}

/// This process's scratch directory for `target`, made (empty) on first
/// call, canonical (so path comparisons need no further resolving).
pub fn scratch(target: &str) -> &'static Path {
    SCRATCH.get_or_init(|| {
        let tmp = std::env::temp_dir();
        let prefix = format!("skillpipe-fuzz-{target}-");
        // Sweep the directories of earlier runs that are no longer alive.
        if let Ok(entries) = fs::read_dir(&tmp) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
                    continue;
                };
                if !Path::new("/proc").join(pid).exists() {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
        let dir = tmp.join(format!("{prefix}{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // SAFETY: registers a plain `extern "C"` function with no arguments.
        unsafe {
            libc::atexit(remove_scratch);
        }
        dir.canonicalize().unwrap()
    })
}

/// Whether `path`, canonicalised, lies inside `dir` (which is canonical).
/// A path that cannot be canonicalised is judged lexically.
pub fn inside(path: &Path, dir: &Path) -> bool {
    path.canonicalize()
        .unwrap_or_else(|_| path.to_path_buf())
        .starts_with(dir)
}

/// Whether `haystack` contains `needle`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}
