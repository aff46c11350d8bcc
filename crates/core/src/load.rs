//! Turning one skill file into a [`Candidate`]: its head (read by
//! `head.rs`, the I/O) decoded, parsed (with repair), its known fields read
//! and the checks of SPEC §2.2 run. Bad input becomes diagnostics, never a
//! panic.

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use skillpipe_types::{
    Diagnostic, DiagnosticCode, Frontmatter, Severity, SharedPath, Skill, Source, Text,
};

use crate::checks::{self, Finding, NameAnchor};
use crate::dirfd::FileInfo;
use crate::frontmatter::{self, Mapping, Parsed, Scalar, Simple};
use crate::head::{HeadRef, is_absent, read_error_file, with_head};
use crate::{invocation, paths, text};

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
    /// Who hears of the file when it is read whole (see
    /// [`crate::observe`]).
    pub observer: Option<&'a crate::observe::FileObserver>,
}

/// One file read during discovery.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The name the name filters use: frontmatter name when it could be
    /// read, else the default name.
    pub filter_name: Text,
    /// The skill, when the file became one.
    pub skill: Option<Skill>,
    /// The file's own diagnostics, in SPEC order.
    pub diagnostics: Vec<Diagnostic>,
    /// The file's length when it was opened (its metadata's), so that two
    /// copies of a name are told apart without reading them again when
    /// their lengths differ; `None` when unknown (a plugin's finding).
    pub file_len: Option<u64>,
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

/// Loads one skill file for discovery.
pub fn load(spec: &LoadSpec<'_>) -> Loaded {
    load_opened(spec, crate::dirfd::open_path_noting_link(spec.path), None).0
}

/// [`load`] of a file the caller opened (relative to a directory it holds
/// open): `opened` is the open's outcome and whether the file's name was a
/// link, which is handed back (`false` when nothing could be opened);
/// `known`, the open file's metadata when the caller has it.
pub(crate) fn load_opened(
    spec: &LoadSpec<'_>,
    opened: io::Result<(File, bool)>,
    known: Option<FileInfo>,
) -> (Loaded, bool) {
    match opened {
        Ok((file, link)) => {
            let (mut loaded, len) = with_head(
                file,
                known,
                spec.max_file_bytes,
                spec.observer.map(|o| (o, spec.path)),
                |head| load_head(spec, head),
            );
            if let Loaded::Candidate(c) = &mut loaded {
                c.file_len = len;
            }
            (loaded, link)
        }
        Err(e) if is_absent(&e) => (Loaded::Absent, false),
        Err(e) => (load_head(spec, Err(e)), false),
    }
}

/// Loads a file from its head, in the steps of SPEC §2.2: the read's
/// outcome, the frontmatter's fields, the rules about the file as a whole,
/// the field types, the checks, then the skill. Each step hands on or ends
/// with what the file is.
fn load_head(spec: &LoadSpec<'_>, head: io::Result<HeadRef<'_>>) -> Loaded {
    let default_name = default_name_of(spec.path, spec.kind);
    let bytes = match head_bytes(spec, head, &default_name) {
        Ok(bytes) => bytes,
        Err(loaded) => return *loaded,
    };
    let (text, invalid_utf8, as_read) = decode_borrowed(bytes);
    let yaml = head_yaml(&text, as_read);
    let mut diags = Vec::new();
    let fields = match read_fields(spec, yaml) {
        Ok(fields) => fields,
        Err(Ended::Skipped) => return Loaded::Skipped,
        Err(Ended::NoSkill(d)) => {
            if invalid_utf8 {
                diags.push(invalid_utf8_warning(spec.path));
            }
            diags.push(*d);
            return candidate(default_name.into(), None, diags);
        }
    };
    let mut known = fields.known;
    if let Some(map) = &fields.map {
        for (key, value) in map {
            known.note(key, FieldValue::of(value));
        }
    }
    match file_rules(spec, &known, yaml, bytes) {
        Some(Ended::Skipped) => return Loaded::Skipped,
        Some(Ended::NoSkill(d)) => return candidate(default_name.into(), None, vec![*d]),
        None => {}
    }
    if invalid_utf8 {
        diags.push(invalid_utf8_warning(spec.path));
    }
    diags.extend(fields.notes);
    let Some((name, description)) = typed_fields(spec.path, &known, &mut diags) else {
        let filter_name = field_text(&known.name).map_or_else(|| default_name.into(), Text::from);
        return candidate(filter_name, None, diags);
    };
    let filter_name = name.unwrap_or(&default_name);
    if !checks_pass(spec, filter_name, &default_name, description, &mut diags) {
        return candidate(filter_name.into(), None, diags);
    }
    // The invocation fields, when the frontmatter has any (the flat
    // reader kept theirs; any other frontmatter has its mapping).
    let invocation = fields
        .map
        .as_ref()
        .or(fields.invocation.as_ref())
        .and_then(|map| {
            let cx = invocation::Context {
                yaml: yaml.unwrap_or(""),
                path: spec.path,
                description: description.unwrap_or(""),
                hidden: known.hidden,
            };
            invocation::read(map, &cx, &mut diags)
        });
    // The skill's strings in one buffer: the YAML kept for its mapping,
    // with the name and description read from it when they are slices of
    // it (plain values), else copied after it; its folder read from its
    // path's buffer.
    let kept = match (&fields.map, fields.simple) {
        (None, Some(yaml)) => yaml,
        _ => "",
    };
    let (yaml, [name, description]) = Text::cut(kept, [filter_name, description.unwrap_or("")]);
    let file_path = SharedPath::from(spec.path);
    let skill = Skill {
        name: name.clone(),
        description,
        base_dir: file_path.parent_dir(),
        file_path,
        source: Arc::clone(spec.source),
        hidden: known.hidden,
        frontmatter: match fields.map {
            Some(map) => Frontmatter::new(map),
            None if fields.simple.is_some() => Frontmatter::lazy(yaml, mapping_of),
            None => Frontmatter::default(),
        },
        invocation,
        visibility: Default::default(),
    };
    candidate(name, Some(skill), diags)
}

/// How loading ended before a skill could be made.
enum Ended {
    /// The file is no skill and says nothing (`enabled: false`, a root
    /// markdown file that is not a skill).
    Skipped,
    /// The file is a candidate without a skill, for this reason.
    NoSkill(Box<Diagnostic>),
}

/// The bytes read, or what the file is when there are none: absent, too
/// large, unreadable.
fn head_bytes<'h>(
    spec: &LoadSpec<'_>,
    head: io::Result<HeadRef<'h>>,
    default_name: &str,
) -> Result<&'h [u8], Box<Loaded>> {
    let path = spec.path;
    let no_skill = |d| Box::new(candidate(default_name.into(), None, vec![d]));
    match head {
        Ok(HeadRef::Bytes(bytes)) => Ok(bytes),
        Ok(HeadRef::Absent) => Err(Box::new(Loaded::Absent)),
        Ok(HeadRef::TooLarge(_)) if spec.kind == FileKind::RootMarkdown => {
            Err(Box::new(Loaded::Skipped))
        }
        Ok(HeadRef::TooLarge(size)) => Err(no_skill(Diagnostic::error(
            DiagnosticCode::FileTooLarge,
            format!("file exceeds {} bytes ({size})", spec.max_file_bytes),
            path,
        ))),
        Err(err) => Err(no_skill(read_error_file(path, &err))),
    }
}

fn invalid_utf8_warning(path: &Path) -> Diagnostic {
    Diagnostic::warning(
        DiagnosticCode::InvalidUtf8,
        "file is not valid UTF-8; invalid bytes were replaced",
        path,
    )
}

/// A frontmatter's fields: the known ones of a flat frontmatter (read in
/// place), else the mapping the YAML parser built; the flat YAML, for a
/// mapping built on demand; the parser's notes (repair, duplicate keys).
struct Fields<'y> {
    known: Known<'y>,
    map: Option<Mapping>,
    simple: Option<&'y str>,
    notes: Vec<Diagnostic>,
    /// A flat frontmatter's invocation fields, when it has any.
    invocation: Option<Mapping>,
}

/// Reads the frontmatter's fields. The usual flat frontmatter is read in
/// place, its fields borrowed from the YAML, and its mapping left to build
/// when a host asks for it; any other goes through the YAML parser (with
/// the repair) now. A frontmatter no repair saves ends the load.
fn read_fields<'y>(spec: &LoadSpec<'_>, yaml: Option<&'y str>) -> Result<Fields<'y>, Ended> {
    let path = spec.path;
    let mut fields = Fields {
        known: Known::default(),
        map: None,
        simple: None,
        notes: Vec::new(),
        invocation: None,
    };
    let Some(yaml) = yaml else {
        return Ok(fields);
    };
    let mut flat = Known::default();
    let mut flat_invocation = None;
    let walked = frontmatter::walk_simple(yaml, |key, value| {
        if invocation::is_key(key) {
            invocation::note_simple(&mut flat_invocation, key, &value);
        }
        flat.note(
            key,
            match value {
                Simple::Scalar(Scalar::Str(s)) => FieldValue::Str(s),
                Simple::Scalar(Scalar::Bool(b)) => FieldValue::Bool(b),
                Simple::Block(_) => FieldValue::Other,
            },
        );
    });
    if walked.is_some() {
        fields.known = flat;
        fields.simple = Some(yaml);
        fields.invocation = flat_invocation;
        return Ok(fields);
    }
    let mut duplicates = Vec::new();
    let map = match frontmatter::parse_noting(yaml, &mut duplicates) {
        Parsed::Clean(map) => map,
        Parsed::Repaired(map, err) => {
            fields.notes.push(
                Diagnostic::warning(
                    DiagnosticCode::YamlRepaired,
                    format!(
                        "frontmatter is not valid YAML (line {}, column {}: {}); loaded after quoting values",
                        err.line, err.column, err.reason
                    ),
                    path,
                )
                .at(err.line, err.column),
            );
            map
        }
        Parsed::Failed(_) if spec.kind == FileKind::RootMarkdown => return Err(Ended::Skipped),
        Parsed::Failed(err) => {
            return Err(Ended::NoSkill(Box::new(
                Diagnostic::error(
                    DiagnosticCode::YamlError,
                    format!(
                        "invalid YAML frontmatter at line {}, column {}: {}",
                        err.line, err.column, err.reason
                    ),
                    path,
                )
                .at(err.line, err.column),
            )));
        }
    };
    fields.notes.extend(duplicates.into_iter().map(|dup| {
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
    fields.map = Some(map);
    Ok(fields)
}

/// The rules about the file as a whole: a root markdown file is a skill
/// only with a description; an empty file is none even where a description
/// is not required (where it is, the missing description says why); and
/// `enabled: false` skips it where the profile honours that.
fn file_rules(
    spec: &LoadSpec<'_>,
    known: &Known<'_>,
    yaml: Option<&str>,
    bytes: &[u8],
) -> Option<Ended> {
    if spec.kind == FileKind::RootMarkdown && known.description.is_none() {
        return Some(Ended::Skipped);
    }
    if !spec.require_description && yaml.is_none() && text::is_blank(bytes) {
        return Some(Ended::NoSkill(Box::new(Diagnostic::warning(
            DiagnosticCode::EmptyFile,
            "skill file is empty",
            spec.path,
        ))));
    }
    if spec.honor_enabled && known.enabled == Some(FieldValue::Bool(false)) {
        return Some(Ended::Skipped);
    }
    None
}

/// `name` and `description` as strings (each trimmed-empty one absent);
/// `None`, with an `invalid-field` error for each, when either is of
/// another type.
fn typed_fields<'k>(
    path: &Path,
    known: &Known<'k>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Option<&'k str>, Option<&'k str>)> {
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
    if bad_field {
        return None;
    }
    let text = |f: Field<'k>| match f {
        Field::Text(t) if !t.trim().is_empty() => Some(t),
        _ => None,
    };
    Some((text(name).map(str::trim), text(description)))
}

/// The name to filter by when the fields are of the wrong types: a string
/// name, trimmed, when there is one.
fn field_text<'k>(value: &Option<FieldValue<'k>>) -> Option<&'k str> {
    match field(*value) {
        Field::Text(t) if !t.trim().is_empty() => Some(t.trim()),
        _ => None,
    }
}

/// The description and name checks of SPEC §2.2; whether the skill loads.
fn checks_pass(
    spec: &LoadSpec<'_>,
    name: &str,
    default_name: &str,
    description: Option<&str>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut findings: Vec<Finding> = Vec::new();
    checks::check_description(description, spec.require_description, &mut findings);
    let anchor = match spec.kind {
        FileKind::SkillFile => NameAnchor::Directory(default_name),
        FileKind::RootMarkdown => NameAnchor::FileStem(default_name),
    };
    checks::check_name(name, anchor, &mut findings);
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    diags.extend(
        findings
            .into_iter()
            .map(|f| Diagnostic::new(f.severity, f.code, f.message, spec.path)),
    );
    !failed
}

fn candidate(filter_name: Text, skill: Option<Skill>, diagnostics: Vec<Diagnostic>) -> Loaded {
    Loaded::Candidate(Candidate {
        filter_name,
        skill,
        diagnostics,
        file_len: None,
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
