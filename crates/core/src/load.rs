//! Turning one skill file into a [`Candidate`]: read the frontmatter bytes
//! only, decode, parse (with repair), read the known fields and run the
//! checks of SPEC §2.2. Bad input becomes diagnostics, never a panic.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use skillpipe_types::{Diagnostic, DiagnosticCode, Frontmatter, Severity, Skill, Source};

use crate::checks::{self, Finding, NameAnchor};
use crate::frontmatter::{self, Mapping, Parsed, Scalar, Simple};
use crate::{paths, text};

/// Bytes read at first; most frontmatters end well before.
const FIRST_READ: usize = 4096;

/// What kind of file this is, which sets the default name and how a
/// file that is not a skill is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `<dir>/SKILL.md` (or a `.md` named as an explicit path): the default
    /// name is the parent directory's name.
    SkillFile,
    /// A root-level `*.md` of a recursive root: a skill only when its
    /// frontmatter parses and has a `description` key; named after the stem.
    RootMarkdown,
}

/// How to load one file.
#[derive(Debug, Clone)]
pub struct LoadSpec<'a> {
    /// The file, as found.
    pub path: &'a Path,
    /// Which kind of file.
    pub kind: FileKind,
    /// Where the skill came from.
    pub source: &'a Arc<Source>,
    /// Whether a missing description stops the skill.
    pub require_description: bool,
    /// Whether `enabled: false` skips the file (musepi).
    pub honor_enabled: bool,
    /// Files larger than this are `file-too-large`.
    pub max_file_bytes: u64,
}

/// One file read during discovery.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The name the name filters use: frontmatter name when it could be
    /// read, else the default name.
    pub filter_name: String,
    /// The skill, when the file became one.
    pub skill: Option<Skill>,
    /// The file's own diagnostics, in SPEC order.
    pub diagnostics: Vec<Diagnostic>,
}

/// The outcome of loading one file.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // built once per file and moved, never stored in bulk
pub enum Loaded {
    /// The file was read: a skill or diagnostics (or both).
    Candidate(Candidate),
    /// `enabled: false` (musepi), or a root `.md` that is not a skill file:
    /// skipped without a word.
    Skipped,
    /// No file at that path (or not a regular file).
    Absent,
}

/// What reading a file's head found.
enum HeadRef<'a> {
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
fn with_head<R>(mut file: File, max: u64, f: impl FnOnce(io::Result<HeadRef<'_>>) -> R) -> R {
    let info = match crate::dirfd::file_info(&file) {
        Ok(info) => info,
        Err(e) => return f(Err(e)),
    };
    if !info.regular {
        return f(Ok(HeadRef::Absent));
    }
    let size = info.size;
    if size > max {
        return f(Ok(HeadRef::TooLarge(size)));
    }
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
fn read_on(file: &mut File, mut bytes: Vec<u8>, max: u64) -> io::Result<Vec<u8>> {
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

/// [`text::decode`] without a copy in the usual case: valid UTF-8 without
/// a BOM or `\r` is the text as it is, and `true` says so (the text is
/// the bytes as read).
fn decode_borrowed(bytes: &[u8]) -> (Cow<'_, str>, bool, bool) {
    if !bytes.starts_with(b"\xEF\xBB\xBF")
        && !bytes.contains(&b'\r')
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return (Cow::Borrowed(text), false, true);
    }
    let decoded = text::decode(bytes);
    (Cow::Owned(decoded.text), decoded.invalid_utf8, false)
}

/// The YAML of a head read by [`with_head`]: when the text is the
/// bytes as read and ends with the closing marker, the read stopped at the
/// first marker, so the YAML is what lies between the opening line and
/// the end; otherwise [`text::split`] finds it.
fn head_yaml(text: &str, as_read: bool) -> Option<&str> {
    if as_read
        && text.starts_with("---")
        && text.ends_with("\n---")
        && let Some(opening_end) = text.find('\n')
    {
        let marker = text.len() - 4;
        return text.get((opening_end + 1).min(marker)..marker);
    }
    text::split(text).yaml
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

/// Loads one skill file for discovery.
pub fn load(spec: &LoadSpec<'_>) -> Loaded {
    load_opened(spec, crate::dirfd::open_path_noting_link(spec.path)).0
}

/// [`load`] of a file the caller opened (relative to a directory it holds
/// open): `opened` is the open's outcome and whether the file's name was a
/// link, which is handed back (`false` when nothing could be opened).
pub(crate) fn load_opened(spec: &LoadSpec<'_>, opened: io::Result<(File, bool)>) -> (Loaded, bool) {
    match opened {
        Ok((file, link)) => (
            with_head(file, spec.max_file_bytes, |head| load_head(spec, head)),
            link,
        ),
        Err(e) if is_absent(&e) => (Loaded::Absent, false),
        Err(e) => (load_head(spec, Err(e)), false),
    }
}

fn load_head(spec: &LoadSpec<'_>, head: io::Result<HeadRef<'_>>) -> Loaded {
    let path = spec.path;
    if let Ok(HeadRef::Absent) = head {
        return Loaded::Absent;
    }
    let default_name = default_name_of(path, spec.kind);
    let mut diags = Vec::new();

    let bytes = match head {
        Ok(HeadRef::Bytes(bytes)) => bytes,
        Ok(HeadRef::Absent) => return Loaded::Absent,
        Ok(HeadRef::TooLarge(size)) => {
            if spec.kind == FileKind::RootMarkdown {
                return Loaded::Skipped;
            }
            diags.push(Diagnostic::error(
                DiagnosticCode::FileTooLarge,
                format!("file exceeds {} bytes ({size})", spec.max_file_bytes),
                path,
            ));
            return candidate(default_name.into_owned(), None, diags);
        }
        Err(err) => {
            diags.push(read_error_file(path, &err));
            return candidate(default_name.into_owned(), None, diags);
        }
    };

    let (text, invalid_utf8_found, as_read) = decode_borrowed(bytes);
    let yaml = head_yaml(&text, as_read);
    let invalid_utf8 = || {
        Diagnostic::warning(
            DiagnosticCode::InvalidUtf8,
            "file is not valid UTF-8; invalid bytes were replaced",
            path,
        )
    };

    // The usual flat frontmatter is read in place, its fields borrowed from
    // the YAML, and its mapping built only when a host asks for it; any
    // other goes through the YAML parser (with the repair) now.
    let mut known = Known::default();
    let simple = yaml.filter(|yaml| {
        let mut fields = Known::default();
        let ok = frontmatter::walk_simple(yaml, |key, value| {
            fields.note(
                key,
                match value {
                    Simple::Scalar(Scalar::Str(s)) => FieldValue::Str(s),
                    Simple::Scalar(Scalar::Bool(b)) => FieldValue::Bool(b),
                    Simple::Block(_) => FieldValue::Other,
                },
            );
        });
        if ok.is_some() {
            known = fields;
        }
        ok.is_some()
    });
    let mut duplicates = Vec::new();
    let (map, yaml_issue) = match (simple, yaml) {
        (Some(_), _) | (None, None) => (None, None),
        (None, Some(yaml)) => match frontmatter::parse_noting(yaml, &mut duplicates) {
            Parsed::Clean(map) => (Some(map), None),
            Parsed::Repaired(map, err) => {
                let d = Diagnostic::warning(
                    DiagnosticCode::YamlRepaired,
                    format!(
                        "frontmatter is not valid YAML (line {}, column {}: {}); loaded after quoting values",
                        err.line, err.column, err.reason
                    ),
                    path,
                )
                .at(err.line, err.column);
                (Some(map), Some(d))
            }
            Parsed::Failed(err) => {
                if spec.kind == FileKind::RootMarkdown {
                    return Loaded::Skipped;
                }
                if invalid_utf8_found {
                    diags.push(invalid_utf8());
                }
                diags.push(
                    Diagnostic::error(
                        DiagnosticCode::YamlError,
                        format!(
                            "invalid YAML frontmatter at line {}, column {}: {}",
                            err.line, err.column, err.reason
                        ),
                        path,
                    )
                    .at(err.line, err.column),
                );
                return candidate(default_name.into_owned(), None, diags);
            }
        },
    };
    if let Some(map) = &map {
        for (key, value) in map {
            known.note(key, FieldValue::of(value));
        }
    }
    if spec.kind == FileKind::RootMarkdown && known.description.is_none() {
        return Loaded::Skipped;
    }
    // An empty file is no skill even where a description is not required
    // (where it is, the missing description says why).
    if !spec.require_description && yaml.is_none() && text::is_blank(bytes) {
        diags.push(Diagnostic::warning(
            DiagnosticCode::EmptyFile,
            "skill file is empty",
            path,
        ));
        return candidate(default_name.into_owned(), None, diags);
    }
    if spec.honor_enabled && known.enabled == Some(FieldValue::Bool(false)) {
        return Loaded::Skipped;
    }
    if invalid_utf8_found {
        diags.push(invalid_utf8());
    }
    diags.extend(yaml_issue);
    diags.extend(duplicates.into_iter().map(|dup| {
        Diagnostic::warning(
            DiagnosticCode::DuplicateKey,
            format!(
                "duplicate key \"{}\" in frontmatter; the last value is used",
                dup.key
            ),
            path,
        )
        .at(dup.line, dup.column)
    }));

    let description = field(known.description);
    let name = field(known.name);
    let mut bad_field = false;
    for (value, what) in [(&description, "description"), (&name, "name")] {
        if let Field::NotString = value {
            bad_field = true;
            diags.push(Diagnostic::error(
                DiagnosticCode::InvalidField,
                format!("{what} must be a string"),
                path,
            ));
        }
    }
    let filter_name = match name {
        Field::Text(n) if !n.trim().is_empty() => n.trim().to_owned(),
        _ => default_name.to_string(),
    };
    if bad_field {
        return candidate(filter_name, None, diags);
    }

    let description = match description {
        Field::Text(d) if !d.trim().is_empty() => Some(d),
        _ => None,
    };
    let mut findings: Vec<Finding> = Vec::new();
    checks::check_description(description, spec.require_description, &mut findings);
    let anchor = match spec.kind {
        FileKind::SkillFile => NameAnchor::Directory(&default_name),
        FileKind::RootMarkdown => NameAnchor::FileStem(&default_name),
    };
    checks::check_name(&filter_name, anchor, &mut findings);
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    diags.extend(
        findings
            .into_iter()
            .map(|f| Diagnostic::new(f.severity, f.code, f.message, path)),
    );
    if failed {
        return candidate(filter_name, None, diags);
    }

    let hidden = known.hidden;
    let description = description.map(str::to_owned).unwrap_or_default();
    let base_dir = paths::parent_and_name(path)
        .0
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let skill = Skill {
        name: filter_name.clone(),
        description,
        file_path: path.to_path_buf(),
        base_dir,
        source: Arc::clone(spec.source),
        hidden,
        frontmatter: match (map, simple) {
            (Some(map), _) => Frontmatter::new(map),
            (None, Some(yaml)) => Frontmatter::lazy(yaml, mapping_of),
            (None, None) => Frontmatter::default(),
        },
    };
    candidate(filter_name, Some(skill), diags)
}

fn candidate(filter_name: String, skill: Option<Skill>, diagnostics: Vec<Diagnostic>) -> Loaded {
    Loaded::Candidate(Candidate {
        filter_name,
        skill,
        diagnostics,
    })
}

/// The mapping of a frontmatter that [`frontmatter::walk_simple`]
/// accepted, built when a host first asks for it: what the YAML parser
/// gives (the fast reader's mapping, as its property test holds).
fn mapping_of(yaml: &str) -> Mapping {
    match frontmatter::parse(yaml) {
        Parsed::Clean(map) | Parsed::Repaired(map, _) => map,
        Parsed::Failed(_) => Mapping::new(),
    }
}

enum Field<'a> {
    Missing,
    Text(&'a str),
    NotString,
}

/// A frontmatter value as discovery sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldValue<'a> {
    Null,
    Str(&'a str),
    Bool(bool),
    /// A number, sequence or mapping.
    Other,
}

impl<'a> FieldValue<'a> {
    fn of(value: &'a Value) -> Self {
        match value {
            Value::Null => FieldValue::Null,
            Value::String(s) => FieldValue::Str(s),
            Value::Bool(b) => FieldValue::Bool(*b),
            _ => FieldValue::Other,
        }
    }
}

/// The frontmatter fields discovery reads.
#[derive(Default)]
struct Known<'a> {
    name: Option<FieldValue<'a>>,
    description: Option<FieldValue<'a>>,
    enabled: Option<FieldValue<'a>>,
    hidden: bool,
}

impl<'a> Known<'a> {
    /// Takes one top-level entry; other keys are left alone.
    fn note(&mut self, key: &str, value: FieldValue<'a>) {
        match key {
            "name" => self.name = Some(value),
            "description" => self.description = Some(value),
            "enabled" => self.enabled = Some(value),
            "hide" | "disable-model-invocation" | "disableModelInvocation" => {
                self.hidden |= value == FieldValue::Bool(true);
            }
            _ => {}
        }
    }
}

fn field(value: Option<FieldValue<'_>>) -> Field<'_> {
    match value {
        None | Some(FieldValue::Null) => Field::Missing,
        Some(FieldValue::Str(s)) => Field::Text(s),
        Some(_) => Field::NotString,
    }
}

/// The default name of a file: its parent directory's name, or for a root
/// markdown file its stem.
pub fn default_name(path: &Path, kind: FileKind) -> String {
    default_name_of(path, kind).into_owned()
}

/// [`default_name`], borrowed from the path when it is UTF-8.
fn default_name_of(path: &Path, kind: FileKind) -> Cow<'_, str> {
    let part = match kind {
        FileKind::SkillFile => paths::parent_and_name(path)
            .0
            .and_then(|dir| paths::parent_and_name(dir).1),
        FileKind::RootMarkdown => path.file_stem(),
    };
    part.map_or(Cow::Borrowed(""), |s| {
        s.to_str()
            .map_or_else(|| s.to_string_lossy(), Cow::Borrowed)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_yaml_agrees_with_split_on_heads() {
        for raw in [
            "---\nname: a\n---",
            "---\n---",
            "----\n---",
            "---x\nname: a\nb: c\n---",
            "---\n\n---",
            "---\nname: a\n---\n",
            "# no frontmatter\n---",
            "---\nname: a\nno closing",
        ] {
            let (text, _, as_read) = decode_borrowed(raw.as_bytes());
            assert_eq!(
                head_yaml(&text, as_read),
                text::split(&text).yaml,
                "{raw:?}"
            );
        }
    }
}
