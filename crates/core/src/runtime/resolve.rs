//! `skill://<name>/<rel>` resolution (SPEC §10). A URL is untrusted
//! input, so this file holds the guards that keep a read inside the
//! skill's directory: segment rules (Windows drives, streams and device
//! names), percent decoding, and the containment check on what was opened.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::copies::{Copies, Lookup};
use crate::fsio;
use crate::paths::{Flavor, canonical};

/// A resolved `skill://` URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// The file or directory (not canonicalised).
    #[serde(serialize_with = "skillpipe_types::lossy::path")]
    pub path: PathBuf,
    /// `text/markdown`, `application/json` or `text/plain`.
    pub content_type: String,
    /// Whether it is a directory (then `content` is a listing).
    pub is_dir: bool,
    /// The file's bytes, or the listing.
    #[serde(skip)]
    pub content: Vec<u8>,
}

/// Why a `skill://` URL did not resolve. The display texts are exact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// Not a `skill://` URL.
    #[error("Not a skill:// URL: {0}")]
    NotSkillUrl(String),
    /// `skill://` with no name.
    #[error("skill:// URL requires a skill name: skill://<name>")]
    EmptyName,
    /// No loaded skill has that name (or no copy has that address).
    #[error("Unknown skill: {name}\nAvailable: {}", if available.is_empty() { "none".to_owned() } else { available.join(", ") })]
    UnknownSkill {
        /// The name asked for.
        name: String,
        /// The loaded names (for an address: its name's copies).
        available: Vec<String>,
    },
    /// The relative part is absolute.
    #[error("Absolute paths are not allowed in skill:// URLs")]
    Absolute,
    /// A `..` segment.
    #[error("Path traversal (..) is not allowed in skill:// URLs")]
    DotDot,
    /// A segment no file of a skill can be named by on this platform (on
    /// Windows: a drive, an alternate data stream, a device name).
    #[error("Invalid path segment in skill:// URL: {0}")]
    InvalidSegment(String),
    /// The real path leaves the skill's real base directory.
    #[error("Path traversal is not allowed")]
    Escape,
    /// Nothing there.
    #[error("File not found: {}", .0.display())]
    NotFound(PathBuf),
    /// A FIFO, socket or device: never read.
    #[error("Not a regular file: {}", .0.display())]
    NotRegular(PathBuf),
    /// A file over the read bound.
    #[error("File too large: {} ({size} bytes; the limit is {max})", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The bound.
        max: u64,
    },
    /// It exists but could not be read.
    #[error("Failed to read {} ({reason})", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// The OS error.
        reason: String,
    },
}

impl ResolveError {
    /// The stable kebab-case code of the failure (`unknown-skill`,
    /// `path-traversal`, …): the CLI's `--json` `code`, and, upper-cased
    /// with `_`, the Node binding's error `code`.
    pub fn code(&self) -> &'static str {
        match self {
            ResolveError::NotSkillUrl(_) => "not-skill-url",
            ResolveError::EmptyName => "empty-name",
            ResolveError::UnknownSkill { .. } => "unknown-skill",
            ResolveError::Absolute => "absolute-path",
            ResolveError::DotDot | ResolveError::Escape => "path-traversal",
            ResolveError::InvalidSegment(_) => "invalid-segment",
            ResolveError::NotFound(_) => "not-found",
            ResolveError::NotRegular(_) => "not-regular-file",
            ResolveError::TooLarge { .. } => "file-too-large",
            ResolveError::Read { .. } => "read-error",
        }
    }
}

/// How [`resolve_with`] reads what a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolveOptions {
    /// Largest file read; a larger one is [`ResolveError::TooLarge`].
    pub max_bytes: u64,
    /// Whether to read a file's bytes, or only its path, type and kind
    /// (as `resolve --json` prints).
    pub contents: Contents,
}

/// Whether [`resolve_with`] reads a file's bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Contents {
    /// Read them (at most [`ResolveOptions::max_bytes`]).
    #[default]
    Read,
    /// Leave them: the resource has its path, type and kind only.
    Skip,
}

/// The default bound of a `skill://` read: 16 MiB.
pub const MAX_RESOURCE_BYTES: u64 = 16 << 20;

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            max_bytes: MAX_RESOURCE_BYTES,
            contents: Contents::Read,
        }
    }
}

/// Resolves a `skill://<name>/<rel>` URL against the loaded skills
/// (SPEC §10), reading at most [`MAX_RESOURCE_BYTES`]. `<name>` may be an
/// address, `name@provider[:level]` ([`crate::copies`]); a shadowed copy
/// is read from its own base directory, with the same guards.
pub fn resolve<'a>(skills: impl Into<Copies<'a>>, url: &str) -> Result<Resource, ResolveError> {
    resolve_with(skills, url, ResolveOptions::default())
}

/// [`resolve`] with explicit options. No returned path or byte lies
/// outside the skill's real base directory, except the skill's own file
/// for `skill://<name>`: the file is opened first, and the containment
/// check looks at where that open led, so a name swapped for a link
/// between the check and the read cannot lead the read out. Opens never
/// block; FIFOs, sockets and devices are not read.
pub fn resolve_with<'a>(
    skills: impl Into<Copies<'a>>,
    url: &str,
    opts: ResolveOptions,
) -> Result<Resource, ResolveError> {
    let rest = url
        .strip_prefix("skill://")
        .ok_or_else(|| ResolveError::NotSkillUrl(url.to_owned()))?;
    let rest = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let (raw_name, raw_rel) = rest.split_once('/').unwrap_or((rest, ""));
    let name = percent_decode(raw_name);
    if name.is_empty() {
        return Err(ResolveError::EmptyName);
    }
    let copies = skills.into();
    let skill = match copies.find(&name) {
        Lookup::Found { skill, .. } => skill,
        Lookup::NoSuchCopy { copies, .. } => {
            return Err(ResolveError::UnknownSkill {
                name,
                available: copies,
            });
        }
        Lookup::Unknown => {
            return Err(ResolveError::UnknownSkill {
                name,
                available: copies.skills.iter().map(|s| s.name.to_string()).collect(),
            });
        }
    };
    let rel = percent_decode(raw_rel);
    let segments = rel_segments(&rel, Flavor::HOST)?;
    check_segments(&segments, Flavor::HOST)?;
    if segments.is_empty() {
        let path = skill.file_path.to_path_buf();
        let file = fsio::open_nonblocking(&path).map_err(|e| open_error(path.clone(), &e))?;
        return read_resource(path, file, opts);
    }
    let mut path = skill.base_dir.to_path_buf();
    path.extend(&segments);
    let base = canonical(&skill.base_dir);
    match fsio::open_nonblocking(&path) {
        Ok(file) => {
            let inside = fsio::real_path_of(&file, &path).is_ok_and(|real| real.starts_with(&base));
            if !inside {
                return Err(ResolveError::Escape);
            }
            read_resource(path, file, opts)
        }
        Err(e) => {
            // Nothing opened: the nearest existing ancestor says whether
            // the path leads out (refused first) or is merely missing.
            let existing = nearest_existing(&path);
            if !canonical(&existing).starts_with(&base) {
                return Err(ResolveError::Escape);
            }
            Err(open_error(path, &e))
        }
    }
}

/// `rel`'s segments, split at the platform's separators (`/`; on Windows
/// `\\` too: on Unix a backslash is part of a file's name, so
/// `back\\slash.md` names that file), with empty and `.` segments dropped.
/// An absolute `rel` is refused, and so is a `..` between either kind of
/// slash on every platform (SPEC §10), so a URL that climbs on Windows
/// never means a file on Unix.
pub fn rel_segments(rel: &str, flavor: Flavor) -> Result<Vec<&str>, ResolveError> {
    let absolute = rel.starts_with(|c| flavor.is_separator(c))
        || (flavor == Flavor::HOST && Path::new(rel).is_absolute());
    if absolute {
        return Err(ResolveError::Absolute);
    }
    if rel.split(['/', '\\']).any(|s| s == "..") {
        return Err(ResolveError::DotDot);
    }
    Ok(rel
        .split(|c| flavor.is_separator(c))
        .filter(|s| !s.is_empty() && *s != ".")
        .collect())
}

/// The names Windows reserves for devices, in any directory, with any
/// extension: opening `nul.md` or `COM1.txt` reaches the device.
const WINDOWS_DEVICES: [&str; 24] = [
    "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "COM1", "COM2", "COM3", "COM4", "COM5",
    "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8",
    "LPT9",
];

/// The checks a platform adds to `rel`'s segments (already split at `/`
/// and `\\`, `.` dropped, `..` refused). On Windows: a `:` names a drive
/// (`C:`) or an alternate data stream (`file.md:stream`), so it is never
/// part of a name here; a device name (`CON`, `nul.md`, `COM1.txt`; case,
/// an extension and trailing dots or spaces ignored) is no file of the
/// skill. Unix names may hold either.
pub fn check_segments(segments: &[&str], flavor: Flavor) -> Result<(), ResolveError> {
    if flavor != Flavor::Windows {
        return Ok(());
    }
    for seg in segments {
        if seg.contains(':') {
            return Err(ResolveError::InvalidSegment((*seg).to_owned()));
        }
        let stem = seg
            .split('.')
            .next()
            .unwrap_or("")
            .trim_end_matches([' ', '.']);
        if WINDOWS_DEVICES.iter().any(|d| stem.eq_ignore_ascii_case(d)) {
            return Err(ResolveError::InvalidSegment((*seg).to_owned()));
        }
    }
    Ok(())
}

fn open_error(path: PathBuf, e: &io::Error) -> ResolveError {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ENXIO) {
        return ResolveError::NotRegular(path); // a socket
    }
    if crate::head::is_absent(e) {
        ResolveError::NotFound(path)
    } else {
        ResolveError::Read {
            path,
            reason: e.to_string(),
        }
    }
}

/// The longest path the platform opens, in bytes (Linux 4096, macOS
/// 1024; Windows 32,767 UTF-16 units, at most three bytes each).
#[cfg(unix)]
const MAX_PATH: usize = libc::PATH_MAX as usize;
#[cfg(not(unix))]
const MAX_PATH: usize = 32_767 * 3;

/// The path itself when it exists (following links), else its nearest
/// existing ancestor. A path longer than any the platform opens, or one
/// holding a NUL byte, names nothing: its ancestors are dropped without a
/// look until what is left could be opened, so a URL of 45,000 segments
/// costs one pass, not a lookup of the whole path per segment (a fuzzed
/// input took 4.6 s and 2 GB that way).
fn nearest_existing(path: &Path) -> PathBuf {
    let bytes = path.as_os_str().as_encoded_bytes();
    let openable = bytes
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(bytes.len())
        .min(MAX_PATH);
    let mut p = path.to_path_buf();
    while p.as_os_str().len() > openable {
        if !p.pop() {
            return p;
        }
    }
    loop {
        if fs::metadata(&p).is_ok() {
            return p;
        }
        if !p.pop() {
            return p;
        }
    }
}

/// Reads what was opened: a directory's listing, a regular file's bytes
/// (bounded), never anything else.
fn read_resource(
    path: PathBuf,
    file: fs::File,
    opts: ResolveOptions,
) -> Result<Resource, ResolveError> {
    let read_err = |path: &Path, e: &dyn std::fmt::Display| ResolveError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    match fsio::kind_of(&file).map_err(|e| read_err(&path, &e))? {
        fsio::OpenKind::Dir => {
            let listing = list_dir(file, &path).map_err(|e| read_err(&path, &e))?;
            Ok(Resource {
                path,
                content_type: "text/plain".to_owned(),
                is_dir: true,
                content: listing.into_bytes(),
            })
        }
        fsio::OpenKind::Other => Err(ResolveError::NotRegular(path)),
        fsio::OpenKind::File(_) => {
            let content = if opts.contents == Contents::Read {
                match fsio::read_open_bounded(file, opts.max_bytes) {
                    Ok(bytes) => bytes,
                    Err(fsio::ReadError::TooLarge { size, max }) => {
                        return Err(ResolveError::TooLarge { path, size, max });
                    }
                    Err(e) => return Err(read_err(&path, &e)),
                }
            } else {
                Vec::new()
            };
            Ok(Resource {
                content_type: content_type(&path).to_owned(),
                path,
                is_dir: false,
                content,
            })
        }
    }
}

/// The listing of an open directory (SPEC §10), read through the handle
/// that was checked.
fn list_dir(dir: fs::File, path: &Path) -> io::Result<String> {
    let (mut dirs, mut files): (Vec<_>, Vec<_>) = crate::dirfd::list_kinds(dir, path)?
        .into_iter()
        .partition(|e| e.1);
    dirs.sort();
    files.sort();
    let lines: Vec<String> = dirs
        .iter()
        .map(|(d, _)| format!("{}/", String::from_utf8_lossy(d)))
        .chain(
            files
                .iter()
                .map(|(f, _)| String::from_utf8_lossy(f).into_owned()),
        )
        .collect();
    Ok(if lines.is_empty() {
        "(empty directory)".to_owned()
    } else {
        lines.join("\n")
    })
}

/// The content type of a file by its extension (case ignored).
pub fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" | "mdx" | "mdc" | "mkd" | "mdown" => "text/markdown",
        "json" => "application/json",
        _ => "text/plain",
    }
}

/// Decodes `%XX` escapes; a `%` not followed by two hex digits stays.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resolve_error_has_its_own_kebab_case_code() {
        let p = || PathBuf::from("/s/x");
        let all = [
            (ResolveError::NotSkillUrl("x".into()), "not-skill-url"),
            (ResolveError::EmptyName, "empty-name"),
            (
                ResolveError::UnknownSkill {
                    name: "x".into(),
                    available: Vec::new(),
                },
                "unknown-skill",
            ),
            (ResolveError::Absolute, "absolute-path"),
            (ResolveError::DotDot, "path-traversal"),
            (ResolveError::InvalidSegment("c:".into()), "invalid-segment"),
            (ResolveError::Escape, "path-traversal"),
            (ResolveError::NotFound(p()), "not-found"),
            (ResolveError::NotRegular(p()), "not-regular-file"),
            (
                ResolveError::TooLarge {
                    path: p(),
                    size: 2,
                    max: 1,
                },
                "file-too-large",
            ),
            (
                ResolveError::Read {
                    path: p(),
                    reason: "r".into(),
                },
                "read-error",
            ),
        ];
        for (err, code) in &all {
            assert_eq!(err.code(), *code, "{err:?}");
            assert!(code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'));
        }
        let codes: std::collections::BTreeSet<_> = all.iter().map(|(e, _)| e.code()).collect();
        // `..` and an escape through a link are one failure to a host.
        assert_eq!(codes.len(), all.len() - 1);
    }

    #[test]
    fn percent_decoding_keeps_bad_escapes() {
        assert_eq!(percent_decode("a%2Fb%2e%2E"), "a/b..");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%41"), "A");
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type(Path::new("a.MD")), "text/markdown");
        assert_eq!(content_type(Path::new("a.mdc")), "text/markdown");
        assert_eq!(content_type(Path::new("a.Json")), "application/json");
        assert_eq!(content_type(Path::new("run.sh")), "text/plain");
        assert_eq!(content_type(Path::new("Makefile")), "text/plain");
    }

    #[test]
    fn windows_refuses_drives_streams_and_devices() {
        let w = |rel: &str| check_segments(&rel_segments(rel, Flavor::Windows)?, Flavor::Windows);
        for bad in [
            "C:",
            "C:/Windows/win.ini",
            "ref.md:secret",
            "ref.md::$DATA",
            "CON",
            "nul.md",
            "sub/Com1.txt",
            "LPT9",
            "aux .md",
            "conin$",
            "NUL. .txt",
        ] {
            let refused = match w(bad) {
                Err(ResolveError::InvalidSegment(_)) => true,
                // On Windows `C:/…` is an absolute path before it is names.
                Err(ResolveError::Absolute) => cfg!(windows) && bad.starts_with("C:/"),
                _ => false,
            };
            assert!(refused, "{bad:?} passed");
        }
        for good in [
            "ref.md",
            "console.md",
            "con-tips.md",
            "sub/nul-handling.md",
            "COM10",
            "a b.md",
        ] {
            assert_eq!(w(good), Ok(()), "{good:?}");
        }
        // Unix names may hold a `:` or be called `con`.
        assert_eq!(check_segments(&["a:b", "con"], Flavor::Unix), Ok(()));
    }

    #[test]
    fn the_nearest_existing_ancestor_of_a_huge_or_nul_path() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("skill");
        fs::create_dir_all(base.join("sub")).unwrap();
        let mut huge = base.join("sub");
        for _ in 0..45_000 {
            huge.push("a");
        }
        assert_eq!(nearest_existing(&huge), base.join("sub"));
        let nul = base.join("sub/x\0y/z");
        assert_eq!(nearest_existing(&nul), base.join("sub"));
        assert_eq!(nearest_existing(&base.join("sub")), base.join("sub"));
        assert_eq!(
            nearest_existing(&base.join("sub/missing")),
            base.join("sub")
        );
    }

    #[test]
    fn a_backslash_separates_only_on_windows() {
        assert_eq!(
            rel_segments("sub\\..\\x", Flavor::Windows),
            Err(ResolveError::DotDot)
        );
        assert_eq!(
            rel_segments("\\x", Flavor::Windows),
            Err(ResolveError::Absolute)
        );
        assert_eq!(
            rel_segments("back\\slash.md", Flavor::Windows),
            Ok(vec!["back", "slash.md"])
        );
        // On Unix a backslash is part of a name and `\\x` is relative; a
        // `..` between backslashes is refused all the same (SPEC §10).
        assert_eq!(
            rel_segments("back\\slash.md", Flavor::Unix),
            Ok(vec!["back\\slash.md"])
        );
        assert_eq!(
            rel_segments("a\\b/c\\d", Flavor::Unix),
            Ok(vec!["a\\b", "c\\d"])
        );
        assert_eq!(
            rel_segments("..\\x", Flavor::Unix),
            Err(ResolveError::DotDot)
        );
        assert_eq!(
            rel_segments("a\\..", Flavor::Unix),
            Err(ResolveError::DotDot)
        );
        assert_eq!(rel_segments("\\x", Flavor::Unix), Ok(vec!["\\x"]));
        assert_eq!(rel_segments("..x\\y..", Flavor::Unix), Ok(vec!["..x\\y.."]));
        assert_eq!(
            rel_segments("a/../b", Flavor::Unix),
            Err(ResolveError::DotDot)
        );
        assert_eq!(
            rel_segments("/etc", Flavor::Unix),
            Err(ResolveError::Absolute)
        );
        assert_eq!(rel_segments("./a//b/.", Flavor::Unix), Ok(vec!["a", "b"]));
    }
}
