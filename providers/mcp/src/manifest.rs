//! One `skills/list` entry (SEP-2640), read and checked before anything of
//! it is used: its URI and name, its frontmatter mapping, and the manifest
//! of its files (each with a `sha256:` digest and a size), within the
//! SEP's recommended bounds.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// At most this many files in one skill (the SEP's recommendation).
pub(crate) const MAX_FILES: usize = 512;
/// At most this many bytes in one skill (the SEP's recommendation).
pub(crate) const MAX_SKILL_BYTES: u64 = 16 << 20;
/// The longest URI taken.
const MAX_URI: usize = 2048;

/// A checked entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// `skill://…/<name>/SKILL.md`, as listed.
    pub(crate) uri: String,
    /// The URI's last segment before `SKILL.md`, decoded: the name.
    pub(crate) name: String,
    /// The frontmatter mapping, as listed.
    pub(crate) frontmatter: Map<String, Value>,
    /// Its files, `SKILL.md` among them, in the order listed.
    pub(crate) files: Vec<File>,
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct File {
    /// Its URI, as listed.
    pub(crate) uri: String,
    /// Its path in the skill's folder, segments decoded and checked.
    pub(crate) rel: Vec<String>,
    /// `sha256:<64 lowercase hex>`.
    pub(crate) digest: String,
    /// Bytes.
    pub(crate) size: u64,
}

impl File {
    /// Whether it is the skill's `SKILL.md`.
    pub(crate) fn is_skill_md(&self) -> bool {
        self.rel.len() == 1 && self.rel[0] == "SKILL.md"
    }

    /// Where it lives below a skill's folder.
    pub(crate) fn path_in(&self, dir: &Path) -> PathBuf {
        self.rel.iter().fold(dir.to_path_buf(), |p, s| p.join(s))
    }
}

impl Entry {
    /// The folder of the verified copy: below the server's cache folder,
    /// under a key of the whole manifest (so a changed file is a new
    /// folder, never an edit of one in use), named as the skill (its
    /// default name is its folder's).
    pub(crate) fn key(&self) -> String {
        let mut text = String::new();
        let _ = write!(text, "{}\n{}\n", self.uri, self.name);
        for f in &self.files {
            let _ = writeln!(text, "{}\0{}\0{}", f.rel.join("/"), f.digest, f.size);
        }
        hex(&Sha256::digest(text.as_bytes()))[..24].to_owned()
    }
}

/// Lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `sha256:<hex>` of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

/// Reads one entry of `skills/list` (or the result of `skills/get`); the
/// error says what is wrong, for a diagnostic naming the entry.
pub(crate) fn entry(value: &Value) -> Result<Entry, String> {
    let uri = value
        .get("uri")
        .and_then(Value::as_str)
        .ok_or("an entry without a uri")?;
    if uri.len() > MAX_URI {
        return Err(format!("a uri over {MAX_URI} bytes"));
    }
    let base = uri
        .strip_suffix("SKILL.md")
        .filter(|b| b.starts_with("skill://") && b.ends_with('/') && !uri.contains(['?', '#']))
        .ok_or_else(|| format!("{uri}: not a skill:// URI ending in /SKILL.md"))?;
    let encoded = base
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty() && base.len() > "skill://".len() + 1)
        .ok_or_else(|| format!("{uri}: no name before SKILL.md"))?;
    let name = segment(encoded).map_err(|why| format!("{uri}: its name {why}"))?;
    let frontmatter = value
        .get("frontmatter")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{uri}: no frontmatter mapping"))?
        .clone();
    match frontmatter.get("name").and_then(Value::as_str) {
        Some(n) if n == name => {}
        Some(n) => {
            return Err(format!(
                "{uri}: its frontmatter's name {:?} is not the URI's last segment {name:?}",
                crate::client::clip(n)
            ));
        }
        None => return Err(format!("{uri}: its frontmatter has no name")),
    }
    let listed = match value.get("resources") {
        Some(Value::Array(files)) => files,
        Some(Value::String(s)) if s == "dynamic" => {
            return Err(format!(
                "{uri}: its files are \"dynamic\" (not listed with digests), so none can be verified"
            ));
        }
        _ => return Err(format!("{uri}: no resources list")),
    };
    if listed.len() > MAX_FILES {
        return Err(format!(
            "{uri}: {} files, over the {MAX_FILES} a skill may have",
            listed.len()
        ));
    }
    let mut files: Vec<File> = Vec::with_capacity(listed.len());
    let mut total: u64 = 0;
    for f in listed {
        let file = file(base, f).map_err(|why| format!("{uri}: {why}"))?;
        if files.iter().any(|seen| seen.rel == file.rel) {
            return Err(format!("{uri}: {} is listed twice", file.uri));
        }
        total = total.saturating_add(file.size);
        files.push(file);
    }
    if total > MAX_SKILL_BYTES {
        return Err(format!(
            "{uri}: {total} bytes, over the {} MiB a skill may have",
            MAX_SKILL_BYTES >> 20
        ));
    }
    if !files.iter().any(File::is_skill_md) {
        return Err(format!("{uri}: its manifest does not list SKILL.md"));
    }
    Ok(Entry {
        uri: uri.to_owned(),
        name,
        frontmatter,
        files,
    })
}

fn file(base: &str, value: &Value) -> Result<File, String> {
    let uri = value
        .get("uri")
        .and_then(Value::as_str)
        .ok_or("a resource without a uri")?;
    if uri.len() > MAX_URI {
        return Err(format!("a resource uri over {MAX_URI} bytes"));
    }
    let rest = uri
        .strip_prefix(base)
        .filter(|r| !r.is_empty() && !uri.contains(['?', '#']))
        .ok_or_else(|| format!("{uri} is not inside the skill ({base})"))?;
    let rel = rest
        .split('/')
        .map(|s| segment(s).map_err(|why| format!("{uri}: a segment {why}")))
        .collect::<Result<Vec<_>, _>>()?;
    let digest = value
        .get("digest")
        .and_then(Value::as_str)
        .filter(|d| {
            d.strip_prefix("sha256:").is_some_and(|h| {
                h.len() == 64
                    && h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            })
        })
        .ok_or_else(|| format!("{uri}: no sha256:<64 hex> digest"))?;
    let size = value
        .get("size")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{uri}: no size"))?;
    Ok(File {
        uri: uri.to_owned(),
        rel,
        digest: digest.to_owned(),
        size,
    })
}

/// One path segment, percent-decoded, checked to be a plain file or
/// folder name on every platform (no separators, no `.`/`..`, no control
/// characters, nothing Windows refuses).
fn segment(encoded: &str) -> Result<String, &'static str> {
    let bytes = percent_decode(encoded).ok_or("has a bad %-escape")?;
    let text = String::from_utf8(bytes).map_err(|_| "is not UTF-8")?;
    if text.is_empty() || text == "." || text == ".." {
        return Err("is empty, . or ..");
    }
    if text.len() > 255 {
        return Err("is over 255 bytes");
    }
    if text.chars().any(|c| {
        c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
    }) {
        return Err("holds a character no file name may hold");
    }
    if text.ends_with(['.', ' ']) {
        return Err("ends with a dot or a space");
    }
    Ok(text)
}

fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn d(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    fn good() -> Value {
        json!({
            "uri": "skill://review/SKILL.md",
            "frontmatter": {"name": "review", "description": "Reviews."},
            "resources": [
                {"uri": "skill://review/SKILL.md", "digest": d('a'), "size": 10},
                {"uri": "skill://review/docs/my%20notes.md", "digest": d('b'), "size": 3}
            ]
        })
    }

    #[test]
    fn a_good_entry_is_read_with_its_paths_decoded() {
        let e = entry(&good()).unwrap();
        assert_eq!(e.name, "review");
        assert_eq!(e.files[1].rel, ["docs", "my notes.md"]);
        assert!(e.files[0].is_skill_md());
        assert_eq!(e.key().len(), 24);
        let prefixed = json!({
            "uri": "skill://claude/project/review/SKILL.md",
            "frontmatter": {"name": "review", "description": "x"},
            "resources": [{"uri": "skill://claude/project/review/SKILL.md", "digest": d('c'), "size": 1}]
        });
        assert_eq!(entry(&prefixed).unwrap().name, "review");
    }

    #[test]
    fn a_changed_file_changes_the_key() {
        let a = entry(&good()).unwrap();
        let mut v = good();
        v["resources"][1]["digest"] = json!(d('c'));
        assert_ne!(a.key(), entry(&v).unwrap().key());
    }

    #[test]
    fn bad_entries_are_refused_with_the_reason() {
        let cases: Vec<(Value, &str)> = vec![
            (json!({"uri": "https://x/SKILL.md"}), "not a skill://"),
            (json!({"uri": "skill://SKILL.md"}), "no name"),
            (
                json!({"uri": "skill://review/SKILL.md?x=1"}),
                "not a skill://",
            ),
            (
                json!({"uri": "skill://review/SKILL.md", "frontmatter": {"name": "other", "description": ""}}),
                "not the URI's last segment",
            ),
            (
                json!({"uri": "skill://re%2fview/SKILL.md", "frontmatter": {"name": "re/view"}}),
                "character",
            ),
            (
                json!({"uri": "skill://%2e%2e/SKILL.md", "frontmatter": {"name": ".."}}),
                "empty, . or ..",
            ),
            (
                json!({"uri": "skill://review/SKILL.md", "frontmatter": {"name": "review"}, "resources": "dynamic"}),
                "dynamic",
            ),
        ];
        for (v, why) in cases {
            let err = entry(&v).unwrap_err();
            assert!(err.contains(why), "{v}: {err}");
        }
        let mut v = good();
        v["resources"][1]["uri"] = json!("skill://review/../../etc/passwd");
        assert!(entry(&v).unwrap_err().contains("empty, . or .."));
        let mut v = good();
        v["resources"][1]["uri"] = json!("skill://reviewer/x.md");
        assert!(entry(&v).unwrap_err().contains("not inside the skill"));
        let mut v = good();
        v["resources"][1]["digest"] = json!("sha256:XYZ");
        assert!(entry(&v).unwrap_err().contains("digest"));
        let mut v = good();
        v["resources"][1]["uri"] = json!("skill://review/SKILL.md");
        assert!(entry(&v).unwrap_err().contains("twice"));
        let mut v = good();
        v["resources"].as_array_mut().unwrap().remove(0);
        assert!(entry(&v).unwrap_err().contains("does not list SKILL.md"));
        let mut v = good();
        v["resources"][1]["size"] = json!(MAX_SKILL_BYTES);
        assert!(entry(&v).unwrap_err().contains("MiB"));
        let mut v = good();
        let many: Vec<Value> = (0..=MAX_FILES)
            .map(|i| json!({"uri": format!("skill://review/f{i}"), "digest": d('a'), "size": 1}))
            .collect();
        v["resources"] = Value::Array(many);
        assert!(entry(&v).unwrap_err().contains("512"));
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
