//! The `skill://` URIs the server hands out and takes, and their mapping
//! onto the library's `skill://` URLs.
//!
//! A copy of a skill has a root: the loaded copy of `review` is
//! `skill://review`, a shadowed copy is `skill://<provider>/<level>/review`
//! (SEP-2640's organisational prefix; the last segment is always the name).
//! A file of it is `<root>/<path>`, its instructions `<root>/SKILL.md`.
//! Every segment is percent-encoded (all but RFC 3986's unreserved
//! characters), so each URI has one spelling the server writes; on the way
//! in, segments are decoded before they are compared.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// The scheme and its slashes.
pub(crate) const SCHEME: &str = "skill://";

/// The file every skill has, whatever its own file is called on disk.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// What a segment keeps as written: RFC 3986's unreserved characters.
const KEPT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One segment, percent-encoded.
pub(crate) fn encode(segment: &str) -> String {
    utf8_percent_encode(segment, KEPT).to_string()
}

/// [`encode`] onto the end of `out`.
fn push_encoded(out: &mut String, segment: &str) {
    out.extend(utf8_percent_encode(segment, KEPT));
}

/// One segment (or a run of them), percent-decoded; bytes that are not
/// UTF-8 become U+FFFD, and a `%` not followed by two hex digits stays.
pub(crate) fn decode(raw: &str) -> String {
    percent_decode_str(raw).decode_utf8_lossy().into_owned()
}

/// Where a copy of a skill lives in the URI space.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Root {
    /// The organisational prefix: empty for the loaded copy, `[provider,
    /// level]` for a shadowed one.
    pub prefix: Vec<String>,
    /// The skill's name: the last segment.
    pub name: String,
}

impl Root {
    /// The root of a loaded skill.
    pub(crate) fn loaded(name: &str) -> Root {
        Root {
            prefix: Vec::new(),
            name: name.to_owned(),
        }
    }

    /// The root of a shadowed copy.
    pub(crate) fn shadowed(provider: &str, level: &str, name: &str) -> Root {
        Root {
            prefix: vec![provider.to_owned(), level.to_owned()],
            name: name.to_owned(),
        }
    }

    /// The decoded segments, the key the server looks roots up by.
    pub(crate) fn key(&self) -> Vec<String> {
        let mut key = self.prefix.clone();
        key.push(self.name.clone());
        key
    }

    /// `skill://<prefix…>/<name>`: the skill's directory resource.
    pub(crate) fn uri(&self) -> String {
        let mut uri = String::with_capacity(SCHEME.len() + self.name.len() + 48);
        uri.push_str(SCHEME);
        for segment in &self.prefix {
            push_encoded(&mut uri, segment);
            uri.push('/');
        }
        push_encoded(&mut uri, &self.name);
        uri
    }

    /// The URI of the file (or directory) at `rel`, a path of decoded
    /// segments inside the skill (`[]`: the root).
    pub(crate) fn file_uri<S: AsRef<str>>(&self, rel: impl IntoIterator<Item = S>) -> String {
        let mut uri = self.uri();
        for segment in rel {
            uri.push('/');
            push_encoded(&mut uri, segment.as_ref());
        }
        uri
    }

    /// [`Root::file_uri`] of the segments `rel` joined by `/` (a
    /// manifest's path).
    pub(crate) fn joined_uri(&self, rel: &str) -> String {
        self.file_uri(rel.split('/'))
    }

    /// `<root>/SKILL.md`.
    pub(crate) fn skill_md(&self) -> String {
        self.file_uri([SKILL_MD])
    }
}

/// Why a URI names nothing the server serves, before any file is looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UriError {
    /// Not `skill://…`.
    NotSkill,
    /// A query or a fragment: the server's URIs have neither.
    QueryOrFragment,
    /// No skill (or copy) has that root.
    UnknownSkill(String),
    /// A `..` segment, literal or encoded.
    DotDot,
    /// A segment naming a hidden file (`.git`, `.env`): never served.
    Hidden(String),
    /// Longer than any file of a skill could be named ([`MAX_URI`]).
    TooLong(usize),
}

/// The longest URI taken, in bytes: far past the longest path a platform
/// opens, so that no real file is out of reach.
pub(crate) const MAX_URI: usize = 64 * 1024;

impl std::fmt::Display for UriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UriError::NotSkill => f.write_str("not a skill:// URI"),
            UriError::QueryOrFragment => {
                f.write_str("skill:// URIs of this server carry no query or fragment")
            }
            UriError::UnknownSkill(name) => write!(
                f,
                "unknown skill `{name}` (skills/list and resources/list show the skills)"
            ),
            UriError::DotDot => f.write_str("path traversal (..) is not allowed in skill:// URIs"),
            UriError::TooLong(len) => write!(
                f,
                "a URI of {len} bytes: longer than any file of a skill ({MAX_URI} bytes at most)"
            ),
            UriError::Hidden(segment) => write!(
                f,
                "hidden files (`{segment}`) are not served: a skill's files are those skills/list lists"
            ),
        }
    }
}

/// A URI taken apart: the root it names (by index, as `lookup` returned
/// it), and the path inside, decoded (no `..`, no hidden segment; empty
/// and `.` segments dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// What `lookup` returned for the root.
    pub copy: usize,
    /// The path inside the skill, decoded segments (`[]`: the root).
    pub rel: Vec<String>,
}

/// Takes `uri` apart. `lookup` answers which copy a root key (decoded
/// segments) is; a shadowed copy's three-segment root is tried before the
/// loaded skill's one-segment root, so `skill://claude/project/review/…`
/// is the claude project copy of `review` when there is one, else a file
/// of a loaded skill called `claude`.
pub(crate) fn parse(
    uri: &str,
    lookup: &dyn Fn(&[String]) -> Option<usize>,
) -> Result<Parsed, UriError> {
    if uri.len() > MAX_URI {
        return Err(UriError::TooLong(uri.len()));
    }
    let path = uri.strip_prefix(SCHEME).ok_or(UriError::NotSkill)?;
    if path.contains(['?', '#']) {
        return Err(UriError::QueryOrFragment);
    }
    let raw: Vec<&str> = path.split('/').collect();
    for width in [3, 1] {
        if raw.len() < width {
            continue;
        }
        let key: Vec<String> = raw[..width].iter().map(|s| decode(s)).collect();
        if let Some(copy) = lookup(&key) {
            let rel = rel_segments(&raw[width..].join("/"))?;
            return Ok(Parsed { copy, rel });
        }
    }
    Err(UriError::UnknownSkill(decode(
        raw.first().copied().unwrap_or(""),
    )))
}

/// The path inside a skill, decoded then split at `/` (an encoded slash
/// separates as a literal one does, as the library's resolver reads it),
/// with empty and `.` segments dropped; each segment checked by
/// [`check_segment`].
fn rel_segments(raw: &str) -> Result<Vec<String>, UriError> {
    let decoded = decode(raw);
    let mut out = Vec::new();
    for segment in decoded.split('/') {
        if segment.is_empty() || segment == "." {
            continue;
        }
        check_segment(segment)?;
        out.push(segment.to_owned());
    }
    Ok(out)
}

/// Whether a file or directory name may be served: not `..` and not
/// hidden, also between backslashes (a separator on Windows; on Unix part
/// of a name, refused all the same, so a URI means one thing everywhere).
pub(crate) fn check_segment(segment: &str) -> Result<(), UriError> {
    for piece in segment.split('\\') {
        if piece == ".." {
            return Err(UriError::DotDot);
        }
        if piece.starts_with('.') && piece != "." {
            return Err(UriError::Hidden(piece.to_owned()));
        }
    }
    Ok(())
}

/// The library's URL for `rel` in the copy the library knows by `address`
/// (a name, or `name@provider:level`): the address as one encoded segment
/// (the resolver decodes it before it looks it up), then the path. An
/// empty path is the skill's own file.
pub(crate) fn library_url<S: AsRef<str>>(address: &str, rel: &[S]) -> String {
    let mut url = String::from(SCHEME);
    url.push_str(&encode(address));
    for segment in rel {
        url.push('/');
        url.push_str(&encode(segment.as_ref()));
    }
    url
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lookup(key: &[String]) -> Option<usize> {
        match key.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["review"] => Some(0),
            ["claude"] => Some(1),
            ["a b"] => Some(2),
            ["claude", "project", "review"] => Some(3),
            _ => None,
        }
    }

    fn parsed(uri: &str) -> Result<(usize, Vec<String>), UriError> {
        parse(uri, &lookup).map(|p| (p.copy, p.rel))
    }

    fn rel(segments: &[&str]) -> Vec<String> {
        segments.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn roots_and_files_are_written_with_every_segment_encoded() {
        let root = Root::loaded("review");
        assert_eq!(root.uri(), "skill://review");
        assert_eq!(root.skill_md(), "skill://review/SKILL.md");
        assert_eq!(
            root.file_uri(["refs", "my notes.md"]),
            "skill://review/refs/my%20notes.md"
        );
        let shadowed = Root::shadowed("claude", "project", "review");
        assert_eq!(
            shadowed.skill_md(),
            "skill://claude/project/review/SKILL.md"
        );
        assert_eq!(
            Root::loaded("a/b?#%").uri(),
            "skill://a%2Fb%3F%23%25",
            "a name holding URI delimiters stays one segment"
        );
        assert_eq!(Root::loaded("résumé").uri(), "skill://r%C3%A9sum%C3%A9");
    }

    #[test]
    fn a_joined_path_is_written_as_its_segments() {
        let root = Root::shadowed("claude", "project", "review");
        for segments in [
            &["SKILL.md"][..],
            &["refs", "my notes.md"],
            &["a%b", "c?d", "é#f", "g"],
        ] {
            assert_eq!(
                root.joined_uri(&segments.join("/")),
                root.file_uri(segments),
                "{segments:?}"
            );
        }
    }

    #[test]
    fn what_is_written_parses_back() {
        for (root, copy) in [
            (Root::loaded("review"), 0),
            (Root::loaded("a b"), 2),
            (Root::shadowed("claude", "project", "review"), 3),
        ] {
            let uri = root.file_uri(["scripts", "run me.sh"]);
            assert_eq!(parsed(&uri), Ok((copy, rel(&["scripts", "run me.sh"]))));
            assert_eq!(parsed(&root.skill_md()), Ok((copy, rel(&["SKILL.md"]))));
            assert_eq!(parsed(&root.uri()), Ok((copy, vec![])));
        }
    }

    #[test]
    fn a_shadowed_prefix_wins_over_a_loaded_skill_of_the_providers_name() {
        assert_eq!(
            parsed("skill://claude/project/review/SKILL.md"),
            Ok((3, rel(&["SKILL.md"])))
        );
        assert_eq!(
            parsed("skill://claude/user/review/SKILL.md"),
            Ok((1, rel(&["user", "review", "SKILL.md"]))),
            "no such copy: a file of the loaded `claude`"
        );
    }

    #[test]
    fn segments_are_decoded_before_they_are_compared() {
        assert_eq!(
            parsed("skill://revie%77/SKILL.md"),
            Ok((0, rel(&["SKILL.md"])))
        );
        assert_eq!(parsed("skill://a%20b/x"), Ok((2, rel(&["x"]))));
        assert_eq!(
            parsed("skill://review/refs%2Fguide.md"),
            Ok((0, rel(&["refs", "guide.md"])))
        );
        assert_eq!(
            parsed("skill://review/back%5Cslash.md"),
            Ok((0, rel(&["back\\slash.md"]))),
            "a backslash is part of a name, as the resolver reads it on Unix"
        );
        assert_eq!(
            parsed("skill://review//./refs/"),
            Ok((0, rel(&["refs"]))),
            "empty and . segments are dropped"
        );
    }

    #[test]
    fn hostile_uris_are_refused_before_any_file_is_looked_at() {
        assert_eq!(parsed("file:///etc/passwd"), Err(UriError::NotSkill));
        assert_eq!(parsed("skill:/review/SKILL.md"), Err(UriError::NotSkill));
        assert_eq!(parsed("skill://review/../claude/x"), Err(UriError::DotDot));
        assert_eq!(parsed("skill://review/%2e%2E/x"), Err(UriError::DotDot));
        assert_eq!(parsed("skill://review/a%5C..%5Cb"), Err(UriError::DotDot));
        assert_eq!(
            parsed("skill://review/.git/config"),
            Err(UriError::Hidden(".git".into()))
        );
        assert_eq!(
            parsed("skill://review/a%5C.git%5Cconfig"),
            Err(UriError::Hidden(".git".into()))
        );
        assert_eq!(
            parsed("skill://review/refs/%2Eenv"),
            Err(UriError::Hidden(".env".into()))
        );
        assert_eq!(
            parsed("skill://review/SKILL.md?x=1"),
            Err(UriError::QueryOrFragment)
        );
        assert_eq!(
            parsed("skill://review/SKILL.md#top"),
            Err(UriError::QueryOrFragment)
        );
        assert_eq!(
            parsed("skill://nope/SKILL.md"),
            Err(UriError::UnknownSkill("nope".into()))
        );
        assert_eq!(
            parsed("skill://"),
            Err(UriError::UnknownSkill(String::new()))
        );
        assert_eq!(
            parsed("skill:///etc/passwd"),
            Err(UriError::UnknownSkill(String::new()))
        );
        let long = format!("skill://review/{}", "a/".repeat(30_000));
        assert_eq!(parsed(&long).map(|(c, r)| (c, r.len())), Ok((0, 30_000)));
        let longer = format!("skill://review/{}", "a/".repeat(MAX_URI));
        assert_eq!(parsed(&longer), Err(UriError::TooLong(longer.len())));
    }

    #[test]
    fn the_library_url_keeps_an_address_one_segment() {
        assert_eq!(library_url::<&str>("review", &[]), "skill://review");
        assert_eq!(
            library_url("review@claude:project", &["refs", "a b.md"]),
            "skill://review%40claude%3Aproject/refs/a%20b.md"
        );
        assert_eq!(library_url("a/b", &["SKILL.md"]), "skill://a%2Fb/SKILL.md");
    }
}
