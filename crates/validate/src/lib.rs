//! The Agent Skills spec check of the reference validator `skills-ref`
//! (`agentskills validate`, PyPI `skills-ref` 0.1.1): the same rules, in the
//! same order, with the same messages (SPEC §12, reference peers.md §1.3).
//!
//! This is not the loader's check (SPEC §2.2, [`skillpipe_core::checks`]):
//! it reads the file the way `skills-ref` does, not the way discovery does.
//! Only the read itself is discovery's (`skillpipe_core::fsio`: bounded,
//! never from a FIFO or device). The file must be UTF-8 and start with
//! `---` (a BOM is not removed), the frontmatter ends at the next `---`
//! anywhere in the text, and the YAML is read with strictyaml's rules
//! (`strictyaml.rs`): every scalar is text, so `name: 123` is the name
//! `"123"`.
//!
//! Where this differs from `skills-ref`:
//! - a SKILL.md that is not UTF-8, cannot be read, or holds characters
//!   ruamel's reader refuses is an error here (`skills-ref` dies with a
//!   Python traceback);
//! - for `.`, `..` or a path ending in `..` the directory name compared
//!   with the skill name is the real directory's name (`skills-ref` compares
//!   with `''` or `'..'`, so `validate .` in a skill folder always failed);
//! - YAML syntax errors that are not in the list of `strictyaml.rs` carry
//!   this parser's reason instead of ruamel's (the verdict is the same).

mod strictyaml;

use std::fs;
use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

pub use strictyaml::Node;

/// Longest name.
pub const MAX_SKILL_NAME_LENGTH: usize = 64;
/// Longest description.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;
/// Longest compatibility text.
pub const MAX_COMPATIBILITY_LENGTH: usize = 500;
/// The frontmatter fields the spec allows, sorted.
pub const ALLOWED_FIELDS: [&str; 6] = [
    "allowed-tools",
    "compatibility",
    "description",
    "license",
    "metadata",
    "name",
];

/// The verdict on one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    /// The skill folder that was checked, as `skills-ref` prints it: the
    /// path given (`.` parts and trailing slashes dropped), or the folder
    /// of a `SKILL.md` path.
    pub path: PathBuf,
    /// The errors, in `skills-ref`'s order and words; empty when valid.
    pub errors: Vec<String>,
}

impl Validation {
    /// Whether the skill passed.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks a skill folder, or the folder of a `SKILL.md` file path, as
/// `agentskills validate <path>` does.
pub fn validate(path: &Path) -> Validation {
    let mut dir = python_path(path);
    let is_skill_md = dir.is_file()
        && dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().to_lowercase() == "skill.md");
    if is_skill_md {
        dir = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
    }
    let errors = validate_dir(&dir);
    Validation { path: dir, errors }
}

fn validate_dir(dir: &Path) -> Vec<String> {
    match fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return vec![format!("Path does not exist: {}", dir.display())];
        }
        Err(e) => return vec![format!("Cannot read {}: {e}", dir.display())],
        Ok(_) => {}
    }
    if !dir.is_dir() {
        return vec![format!("Not a directory: {}", dir.display())];
    }
    let mut file = None;
    for candidate in ["SKILL.md", "skill.md"].map(|n| dir.join(n)) {
        match fs::metadata(&candidate) {
            Ok(_) => {
                file = Some(candidate);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            // Not "missing": a folder we may not look into says why.
            Err(e) => return vec![format!("Cannot read {}: {e}", candidate.display())],
        }
    }
    let Some(file) = file else {
        return vec!["Missing required file: SKILL.md".to_owned()];
    };
    let content = match read_text(&file) {
        Ok(text) => text,
        Err(err) => return vec![err],
    };
    match parse_frontmatter(&content) {
        Ok(metadata) => validate_metadata(&metadata, Some(&dir_name(dir))),
        Err(err) => vec![err],
    }
}

/// `Path.read_text(encoding="utf-8")`: strict UTF-8, universal newlines.
fn read_text(file: &Path) -> Result<String, String> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Bounded like discovery's reads, and never from a FIFO or device.
    let max = skillpipe_core::ScanLimits::default().max_file_bytes;
    let bytes = skillpipe_core::fsio::read_bounded(file, max)
        .map_err(|e| format!("Failed to read {name}: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("Failed to read {name}: {}", utf8_reason(&e)))?;
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    })
}

/// Python's `UnicodeDecodeError` text for the first bad sequence.
fn utf8_reason(err: &std::string::FromUtf8Error) -> String {
    let bytes = err.as_bytes();
    let e = err.utf8_error();
    let at = e.valid_up_to();
    let first = bytes.get(at).copied().unwrap_or_default();
    match e.error_len() {
        None => {
            let end = bytes.len() - 1;
            if end > at {
                format!(
                    "'utf-8' codec can't decode bytes in position {at}-{end}: unexpected end of data"
                )
            } else {
                format!(
                    "'utf-8' codec can't decode byte 0x{first:02x} in position {at}: unexpected end of data"
                )
            }
        }
        Some(_) => {
            let reason = if matches!(first, 0x80..=0xC1 | 0xF5..=0xFF) {
                "invalid start byte"
            } else {
                "invalid continuation byte"
            };
            format!("'utf-8' codec can't decode byte 0x{first:02x} in position {at}: {reason}")
        }
    }
}

/// `skills-ref`'s `parse_frontmatter`: the mapping between the first two
/// `---`, or the error text.
pub fn parse_frontmatter(content: &str) -> Result<Vec<(String, Node)>, String> {
    let Some(rest) = content.strip_prefix("---") else {
        return Err("SKILL.md must start with YAML frontmatter (---)".to_owned());
    };
    let Some(end) = rest.find("---") else {
        return Err("SKILL.md frontmatter not properly closed with ---".to_owned());
    };
    match strictyaml::load(&rest[..end]) {
        Ok(Some(Node::Map(map))) => Ok(map),
        Ok(_) => Err("SKILL.md frontmatter must be a YAML mapping".to_owned()),
        Err(e) => Err(format!("Invalid YAML in frontmatter: {e}")),
    }
}

/// `skills-ref`'s `validate_metadata`: every field rule, all errors
/// collected. `dir_name` is the skill folder's name, when there is one.
pub fn validate_metadata(metadata: &[(String, Node)], dir_name: Option<&str>) -> Vec<String> {
    let mut errors = Vec::new();
    let get = |key: &str| metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v);

    let mut extra: Vec<&str> = metadata
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !ALLOWED_FIELDS.contains(k))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    if !extra.is_empty() {
        let allowed: Vec<String> = ALLOWED_FIELDS.iter().map(|f| format!("'{f}'")).collect();
        errors.push(format!(
            "Unexpected fields in frontmatter: {}. Only [{}] are allowed.",
            extra.join(", "),
            allowed.join(", ")
        ));
    }

    match get("name") {
        None => errors.push("Missing required field in frontmatter: name".to_owned()),
        Some(name) => validate_name(name, dir_name, &mut errors),
    }
    match get("description") {
        None => errors.push("Missing required field in frontmatter: description".to_owned()),
        Some(description) => validate_description(description, &mut errors),
    }
    if let Some(compatibility) = get("compatibility") {
        match compatibility {
            Node::Str(c) => {
                let n = c.chars().count();
                if n > MAX_COMPATIBILITY_LENGTH {
                    errors.push(format!(
                        "Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit ({n} chars)"
                    ));
                }
            }
            _ => errors.push("Field 'compatibility' must be a string".to_owned()),
        }
    }
    errors
}

fn validate_name(name: &Node, dir_name: Option<&str>, errors: &mut Vec<String>) {
    let name = match name {
        Node::Str(s) if !py_strip(s).is_empty() => py_strip(s),
        _ => {
            errors.push("Field 'name' must be a non-empty string".to_owned());
            return;
        }
    };
    let name: String = name.nfkc().collect();
    let n = name.chars().count();
    if n > MAX_SKILL_NAME_LENGTH {
        errors.push(format!(
            "Skill name '{name}' exceeds {MAX_SKILL_NAME_LENGTH} character limit ({n} chars)"
        ));
    }
    if name != name.to_lowercase() {
        errors.push(format!("Skill name '{name}' must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("Skill name cannot start or end with a hyphen".to_owned());
    }
    if name.contains("--") {
        errors.push("Skill name cannot contain consecutive hyphens".to_owned());
    }
    if !name.chars().all(|c| py_isalnum(c) || c == '-') {
        errors.push(format!(
            "Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."
        ));
    }
    if let Some(dir) = dir_name {
        let normalized: String = dir.nfkc().collect();
        if normalized != name {
            errors.push(format!(
                "Directory name '{dir}' must match skill name '{name}'"
            ));
        }
    }
}

fn validate_description(description: &Node, errors: &mut Vec<String>) {
    match description {
        Node::Str(d) if !py_strip(d).is_empty() => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION_LENGTH {
                errors.push(format!(
                    "Description exceeds {MAX_DESCRIPTION_LENGTH} character limit ({n} chars)"
                ));
            }
        }
        _ => errors.push("Field 'description' must be a non-empty string".to_owned()),
    }
}

/// Python's `str.strip()` (its whitespace includes U+001C..U+001F).
fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c))
}

/// Python's `str.isalnum()` for one character: a letter (category L*) or a
/// number (N*). Marks count as letters for Rust's `is_alphabetic` but not
/// for Python, nor do the negative circled and squared capitals.
fn py_isalnum(c: char) -> bool {
    if c.is_numeric() {
        return true;
    }
    c.is_alphabetic()
        && !unicode_normalization::char::is_combining_mark(c)
        && !matches!(c, '\u{1F150}'..='\u{1F169}' | '\u{1F170}'..='\u{1F189}')
}

/// A path as Python's `pathlib.Path` spells it: `.` parts, repeated and
/// trailing separators dropped; `.` when nothing is left.
fn python_path(path: &Path) -> PathBuf {
    let out: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

/// The skill folder's name. For `.`, `..` or a path ending in `..` (no
/// name of its own), the real directory's name.
fn dir_name(dir: &Path) -> String {
    match dir.components().next_back() {
        Some(Component::Normal(name)) => name.to_string_lossy().into_owned(),
        _ => fs::canonicalize(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(root: &Path, dir: &str, content: &str) -> PathBuf {
        let d = root.join(dir);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), content).unwrap();
        d
    }

    fn errors(content: &str, dir: &str) -> Vec<String> {
        let t = tempfile::tempdir().unwrap();
        let d = skill(t.path(), dir, content);
        validate(&d).errors
    }

    const ALLOWED: &str = "Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.";

    #[test]
    fn a_valid_skill() {
        let e = errors(
            "---\nname: pdf\ndescription: Reads PDFs.\nlicense: MIT\nallowed-tools: Read Bash(git:*)\nmetadata:\n  author: me\n  version: 1.0\ncompatibility: needs python\n---\n# Body\n",
            "pdf",
        );
        assert_eq!(e, Vec::<String>::new());
    }

    #[test]
    fn directory_level_errors() {
        let t = tempfile::tempdir().unwrap();
        let missing = t.path().join("nope");
        assert_eq!(
            validate(&missing).errors,
            [format!("Path does not exist: {}", missing.display())]
        );
        let file = t.path().join("file.txt");
        fs::write(&file, "x").unwrap();
        assert_eq!(
            validate(&file).errors,
            [format!("Not a directory: {}", file.display())]
        );
        let empty = t.path().join("empty");
        fs::create_dir(&empty).unwrap();
        assert_eq!(validate(&empty).errors, ["Missing required file: SKILL.md"]);
    }

    #[test]
    fn a_skill_md_path_checks_its_folder() {
        let t = tempfile::tempdir().unwrap();
        let d = skill(t.path(), "pdf", "---\nname: pdf\ndescription: d\n---\n");
        let v = validate(&d.join("SKILL.md"));
        assert_eq!(v.path, d);
        assert!(v.is_valid());
    }

    #[test]
    fn lowercase_skill_md_is_accepted() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("pdf");
        fs::create_dir(&d).unwrap();
        fs::write(d.join("skill.md"), "---\nname: pdf\ndescription: d\n---\n").unwrap();
        assert!(validate(&d).is_valid());
    }

    #[test]
    fn frontmatter_errors() {
        assert_eq!(
            errors("# no frontmatter\n", "x"),
            ["SKILL.md must start with YAML frontmatter (---)"]
        );
        assert_eq!(
            errors("\u{FEFF}---\nname: x\ndescription: d\n---\n", "x"),
            ["SKILL.md must start with YAML frontmatter (---)"]
        );
        assert_eq!(
            errors("---\nname: x\ndescription: d\n", "x"),
            ["SKILL.md frontmatter not properly closed with ---"]
        );
        assert_eq!(
            errors("---\n---\nbody", "x"),
            ["SKILL.md frontmatter must be a YAML mapping"]
        );
        assert_eq!(
            errors("---\n- a\n---\n", "x"),
            ["SKILL.md frontmatter must be a YAML mapping"]
        );
        let e = errors("---\nname: x\ndescription: Use: this\n---\n", "x");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("Invalid YAML in frontmatter: mapping values are not allowed here\n  in \"<unicode string>\", line 3, column 17:"));
    }

    #[test]
    fn a_dashes_run_inside_a_value_ends_the_frontmatter() {
        assert_eq!(
            errors("---\nname: x\ndescription: a---b\n---\n", "x"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("---\nname: x\ndescription: a --- b\n---\n", "x"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("---\nname: x\n---\ndescription: d\n---\n", "x"),
            ["Missing required field in frontmatter: description"]
        );
    }

    #[test]
    fn crlf_is_read_as_lf() {
        assert_eq!(
            errors("---\r\nname: x\r\ndescription: d\r\n---\r\n", "x"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("x");
        fs::create_dir(&d).unwrap();
        fs::write(
            d.join("SKILL.md"),
            b"---\nname: x\ndescription: caf\xe9\n---\n",
        )
        .unwrap();
        assert_eq!(
            validate(&d).errors,
            [
                "Failed to read SKILL.md: 'utf-8' codec can't decode byte 0xe9 in position 28: invalid continuation byte"
            ]
        );
    }

    #[test]
    fn field_rules_in_order() {
        assert_eq!(
            errors("---\nauthor: me\nversion: 1\n---\n", "x"),
            [
                format!("Unexpected fields in frontmatter: author, version. {ALLOWED}"),
                "Missing required field in frontmatter: name".to_owned(),
                "Missing required field in frontmatter: description".to_owned(),
            ]
        );
        assert_eq!(
            errors("---\nname:\ndescription: '  '\n---\n", "x"),
            [
                "Field 'name' must be a non-empty string",
                "Field 'description' must be a non-empty string"
            ]
        );
        assert_eq!(
            errors(
                "---\nname:\n  - a\ndescription:\n  k: v\ncompatibility:\n  - c\n---\n",
                "x"
            ),
            [
                "Field 'name' must be a non-empty string",
                "Field 'description' must be a non-empty string",
                "Field 'compatibility' must be a string"
            ]
        );
    }

    #[test]
    fn scalars_are_text() {
        assert_eq!(
            errors("---\nname: 123\ndescription: true\n---\n", "123"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn name_rules() {
        assert_eq!(
            errors("---\nname: Bad_Name\ndescription: d\n---\n", "Bad_Name"),
            [
                "Skill name 'Bad_Name' must be lowercase",
                "Skill name 'Bad_Name' contains invalid characters. Only letters, digits, and hyphens are allowed."
            ]
        );
        assert_eq!(
            errors("---\nname: -a--b-\ndescription: d\n---\n", "-a--b-"),
            [
                "Skill name cannot start or end with a hyphen",
                "Skill name cannot contain consecutive hyphens"
            ]
        );
        let long = "a".repeat(65);
        assert_eq!(
            errors(&format!("---\nname: {long}\ndescription: d\n---\n"), &long),
            [format!(
                "Skill name '{long}' exceeds 64 character limit (65 chars)"
            )]
        );
        assert_eq!(
            errors("---\nname: other\ndescription: d\n---\n", "x"),
            ["Directory name 'x' must match skill name 'other'"]
        );
        assert_eq!(
            errors("---\nname: '  x  '\ndescription: d\n---\n", "x"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn i18n_names() {
        assert_eq!(
            errors("---\nname: 技能\ndescription: d\n---\n", "技能"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("---\nname: навык\ndescription: d\n---\n", "навык"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("---\nname: Навык\ndescription: d\n---\n", "Навык"),
            ["Skill name 'Навык' must be lowercase"]
        );
        // NFKC: the full-width name equals the ASCII folder name.
        assert_eq!(
            errors("---\nname: ｐｄｆ\ndescription: d\n---\n", "pdf"),
            Vec::<String>::new()
        );
        // A combining mark is not a letter to Python.
        assert_eq!(
            errors("---\nname: हिन्दी\ndescription: d\n---\n", "हिन्दी"),
            [
                "Skill name 'हिन्दी' contains invalid characters. Only letters, digits, and hyphens are allowed."
            ]
        );
    }

    #[test]
    fn lengths_count_characters_of_the_raw_value() {
        let d = "é".repeat(1025);
        assert_eq!(
            errors(&format!("---\nname: x\ndescription: {d}\n---\n"), "x"),
            ["Description exceeds 1024 character limit (1025 chars)"]
        );
        let c = "c".repeat(501);
        assert_eq!(
            errors(
                &format!("---\nname: x\ndescription: d\ncompatibility: {c}\n---\n"),
                "x"
            ),
            ["Compatibility exceeds 500 character limit (501 chars)"]
        );
    }

    #[test]
    fn python_paths() {
        assert_eq!(python_path(Path::new("./a//b/")), PathBuf::from("a/b"));
        assert_eq!(python_path(Path::new("./")), PathBuf::from("."));
        assert_eq!(python_path(Path::new("a/./..")), PathBuf::from("a/.."));
    }

    #[test]
    fn dot_uses_the_real_folder_name() {
        let t = tempfile::tempdir().unwrap();
        let d = skill(t.path(), "pdf", "---\nname: pdf\ndescription: d\n---\n");
        fs::create_dir(d.join("sub")).unwrap();
        assert_eq!(dir_name(&d.join("sub/..")), "pdf");
        assert_eq!(dir_name(&d), "pdf");
    }
}
