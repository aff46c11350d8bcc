//! Path helpers shared by providers and settings: lexical normalisation,
//! tilde expansion, the repository root, ancestor walks and canonical
//! comparisons. Nothing here reads the process environment.

use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The separator the scanners put between names of the paths they build.
pub(crate) const SEP: u8 = std::path::MAIN_SEPARATOR as u8;

/// Whether a byte separates names in a path here (`/`, and on Windows `\`
/// too).
pub(crate) fn is_sep(b: u8) -> bool {
    b == b'/' || (cfg!(windows) && b == b'\\')
}

/// A path's bytes: the bytes themselves on Unix, their UTF-8 (WTF-8 for a
/// name that is not valid Unicode) spelling elsewhere.
pub(crate) fn bytes_of(path: &Path) -> &[u8] {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes()
    }
    #[cfg(not(unix))]
    {
        path.as_os_str().as_encoded_bytes()
    }
}

/// The path of bytes made by [`bytes_of`] and names pushed to them. On
/// Unix any bytes; elsewhere the scanners only ever make UTF-8 (names that
/// are not valid Unicode are left out of their listings), and other bytes
/// give an empty path, which names nothing.
pub(crate) fn path_of(bytes: &[u8]) -> &Path {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Path::new(OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        Path::new(std::str::from_utf8(bytes).unwrap_or(""))
    }
}

/// [`bytes_of`] an owned path, without a copy on Unix.
pub(crate) fn into_bytes(path: PathBuf) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        path.into_os_string().into_vec()
    }
    #[cfg(not(unix))]
    {
        path.into_os_string().into_encoded_bytes()
    }
}

/// Appends a name to a path in bytes, as [`PathBuf::push`] does.
pub(crate) fn push_name(buf: &mut Vec<u8>, name: &[u8]) {
    if buf.last().is_some_and(|&b| !is_sep(b)) {
        buf.push(SEP);
    }
    buf.extend_from_slice(name);
}

/// Removes `.` components, applies `..` to the text and drops a trailing
/// `/`, without touching the file system. A `..` above a root is dropped
/// (`/..` is `/`), on Windows above a root without a drive too (`\..`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(if path.is_absolute() { "/" } else { "." });
    }
    out
}

/// `(path.parent(), path.file_name())`, split at the last `/` when the end
/// of the path is plain (`<parent>/<name>`, the parent not ending in `/`
/// or `/.`, the name not `.` or `..`): the scanners' paths always are, and
/// this looks at their last bytes only instead of parsing every component.
/// Anything else goes to [`Path`].
pub fn parent_and_name(path: &Path) -> (Option<&Path>, Option<&OsStr>) {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let b = path.as_os_str().as_bytes();
        if let Some(i) = memchr::memrchr(b'/', b) {
            let name = &b[i + 1..];
            let parent = if i == 0 { &b[..1] } else { &b[..i] };
            let plain_name = !name.is_empty() && name != b"." && name != b"..";
            let plain_parent =
                parent == b"/" || !(parent.ends_with(b"/") || parent.ends_with(b"/."));
            if plain_name && plain_parent {
                return (
                    Some(Path::new(OsStr::from_bytes(parent))),
                    Some(OsStr::from_bytes(name)),
                );
            }
        }
    }
    (path.parent(), path.file_name())
}

/// Which platform's rules a path written in settings or on the command
/// line is read by. [`Flavor::HOST`] in use; the other is there so that
/// the Windows rules are tested on every machine, not through `std::path`
/// of a Unix host (which takes `\\` for an ordinary character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `/` separates; `/…` is absolute.
    Unix,
    /// `\\` and `/` separate; `C:\\…`, `C:/…`, `\\\\server\\share\\…` (UNC) and
    /// `\\\\?\\…` (verbatim) are absolute.
    Windows,
}

impl Flavor {
    /// The rules of the platform this runs on.
    pub const HOST: Flavor = if cfg!(windows) {
        Flavor::Windows
    } else {
        Flavor::Unix
    };

    /// Whether `c` separates names.
    pub fn is_separator(self, c: char) -> bool {
        c == '/' || (self == Flavor::Windows && c == '\\')
    }
}

/// How a path entry is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryForm<'a> {
    /// A full path: used as written.
    Absolute,
    /// `~`, `~/rest` (`~\\rest` on Windows) or `~rest`: under the home.
    Home(&'a str),
    /// Anything else: against the declaring file's directory or the cwd.
    Relative,
}

/// Reads an entry by `flavor`'s rules. On Windows a drive-relative `C:x`
/// or a rooted `\\x` (the current drive) is neither full nor home: it is
/// relative, and joining it to the base keeps the base's drive.
pub fn entry_form(entry: &str, flavor: Flavor) -> EntryForm<'_> {
    if let Some(rest) = entry.strip_prefix('~') {
        return EntryForm::Home(rest.trim_start_matches(|c| flavor.is_separator(c)));
    }
    let absolute = match flavor {
        Flavor::Unix => entry.starts_with('/'),
        Flavor::Windows => {
            let b = entry.as_bytes();
            // `\\server\\share`, `\\?\\C:\\`, `//server/share`
            let unc = b.len() > 2
                && flavor.is_separator(char::from(b[0]))
                && flavor.is_separator(char::from(b[1]));
            let drive = b.len() >= 3
                && b[0].is_ascii_alphabetic()
                && b[1] == b':'
                && flavor.is_separator(char::from(b[2]));
            unc || drive
        }
    };
    if absolute {
        EntryForm::Absolute
    } else {
        EntryForm::Relative
    }
}

/// Expands `~`, `~/x` and `~x` under `home` (SPEC §6.3; on Windows also
/// `~\\x`).
pub fn expand_tilde(entry: &str, home: &Path) -> PathBuf {
    match entry_form(entry, Flavor::HOST) {
        EntryForm::Home("") => home.to_path_buf(),
        EntryForm::Home(rest) => home.join(rest),
        _ => PathBuf::from(entry),
    }
}

/// Expands the tilde, then resolves a relative entry against `base`, and
/// normalises the result lexically.
pub fn resolve_entry(entry: &str, base: &Path, home: &Path) -> PathBuf {
    match entry_form(entry, Flavor::HOST) {
        EntryForm::Absolute => normalize(Path::new(entry)),
        EntryForm::Home(_) => normalize(&expand_tilde(entry, home)),
        EntryForm::Relative => normalize(&base.join(entry)),
    }
}

/// The nearest ancestor of `cwd` (itself included) holding a `.git` entry.
pub fn find_repo_root(cwd: &Path) -> Option<PathBuf> {
    repo_root_markers(cwd)
        .find(|marker| fs::symlink_metadata(marker).is_ok())
        .and_then(|marker| marker.parent().map(Path::to_path_buf))
}

/// Where [`find_repo_root`] looks, nearest first: the `.git` entry of
/// `cwd` and of each of its ancestors (a watcher watches them all, so that
/// a repository created, moved or removed moves the root it follows).
/// Ancestors longer than [`LONGEST_PATH`] are skipped: no system opens
/// them, and joining onto each of a huge path's ancestors would take time
/// quadratic in its length (a 10 MB `cwd` from a host took hours).
pub fn repo_root_markers(cwd: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    cwd.ancestors()
        .filter(|dir| dir.as_os_str().len() <= LONGEST_PATH)
        .map(|dir| dir.join(".git"))
}

/// The longest path any system here opens, in bytes: Windows' 32,767
/// UTF-16 units with the `\\?\` prefix, beyond Linux's 4,096 and macOS's
/// 1,024; a longer path can only fail with "name too long".
pub const LONGEST_PATH: usize = 32 * 1024;

/// The canonical form of a path, or the path itself when it cannot be
/// resolved.
pub fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A canonical path in the form people write and other tools store, for
/// what is shown or saved (a trusted project, say): on Windows,
/// `canonicalize` gives the verbatim `\\?\C:\x` (or `\\?\UNC\server\x`),
/// which names the same file as `C:\x` (`\\server\x`) whenever that plain
/// form means the same (short enough, no component Windows would rewrite
/// such as `CON` or a trailing dot); otherwise, and elsewhere, the path
/// as it is. Compare paths through [`canonical`], never through this.
pub fn plain(path: PathBuf) -> PathBuf {
    if cfg!(windows)
        && let Some(text) = path.to_str()
        && let Some(short) = plain_windows(text)
    {
        return PathBuf::from(short);
    }
    path
}

/// The plain form of a verbatim Windows path, when it has one.
fn plain_windows(text: &str) -> Option<String> {
    // The length Win32 takes without the prefix (MAX_PATH, with its NUL).
    const MAX_PATH: usize = 260;
    let rest = text.strip_prefix(r"\\?\")?;
    let (plain, components) = if let Some(unc) = rest.strip_prefix(r"UNC\") {
        (format!(r"\\{unc}"), unc)
    } else {
        let bytes = rest.as_bytes();
        if bytes.len() < 3 || !bytes[0].is_ascii_alphabetic() || &bytes[1..3] != b":\\" {
            return None;
        }
        (rest.to_owned(), &rest[3..])
    };
    let ordinary = |c: &str| {
        let stem = c
            .split('.')
            .next()
            .unwrap_or(c)
            .trim_end()
            .to_ascii_uppercase();
        let device = matches!(
            stem.as_str(),
            "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
        ) || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
        !c.is_empty()
            && c != "."
            && c != ".."
            && !c.ends_with(['.', ' '])
            && !c.contains('/')
            && !device
    };
    let fits = plain.encode_utf16().count() < MAX_PATH;
    (fits
        && components
            .split('\\')
            .filter(|c| !c.is_empty())
            .all(ordinary)
        && !components.contains(r"\\"))
    .then_some(plain)
}

/// [`Path::starts_with`] (by whole names), answered from the bytes when
/// `path` spells `base` and then a separator (or ends there): then its
/// names begin with `base`'s, whatever either holds. Otherwise, names by
/// names. Ten times faster in the usual case, where both were built by
/// joining names onto the same directory.
///
/// On Windows a path that begins with two separators (`\\server\share`,
/// `\\?\`, `\\.\`) opens with a prefix whose extent depends on what
/// follows: `//a` is a root and a name, `//a/b` the share `b` of server
/// `a`, so a longer spelling can change the first component. Such paths
/// are compared by names.
pub fn starts_with(path: &Path, base: &Path) -> bool {
    let (p, b) = (bytes_of(path), bytes_of(base));
    let two_seps = |s: &[u8]| s.len() >= 2 && is_sep(s[0]) && is_sep(s[1]);
    if cfg!(windows) && (two_seps(p) || two_seps(b)) {
        return path.starts_with(base);
    }
    let at_boundary = p.len() == b.len()
        || p.get(b.len()).copied().is_some_and(is_sep)
        || b.last().copied().is_some_and(is_sep);
    (p.starts_with(b) && at_boundary) || path.starts_with(base)
}

/// Whether `inner` lies under `outer` or is it (canonical comparison).
pub fn is_within(inner: &Path, outer: &Path) -> bool {
    canonical(inner).starts_with(canonical(outer))
}

/// Whether two paths name the same directory (canonical comparison).
pub fn same_dir(a: &Path, b: &Path) -> bool {
    canonical(a) == canonical(b)
}

/// The ancestors of `cwd`, nearest first, up to and including the first one
/// for which `is_stop` holds (or the filesystem root).
pub fn ancestors_until(cwd: &Path, mut is_stop: impl FnMut(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in cwd.ancestors() {
        out.push(dir.to_path_buf());
        if is_stop(dir) {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Paths of `/`, names, `.`, `..` and doubled separators, spelt in
    /// ways that name the same components differently (`\\` is a
    /// separator on Windows and a name's byte elsewhere; two separators
    /// first open a UNC prefix on Windows, and `C:` or `c:` first a drive,
    /// one drive whichever the case).
    fn spelt() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("/"),
                Just("//"),
                Just("\\"),
                Just("\\\\"),
                Just("C:"),
                Just("c:"),
                Just("a"),
                Just("ab"),
                Just("."),
                Just(".."),
                Just("a."),
            ],
            0..7,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// The bytes' answer is the names' answer, whatever the spelling.
        #[test]
        fn starts_with_by_bytes_is_starts_with_by_names(path in spelt(), base in spelt()) {
            let (p, b) = (Path::new(&path), Path::new(&base));
            prop_assert_eq!(starts_with(p, b), p.starts_with(b), "{:?} {:?}", path, base);
        }
    }

    /// The spellings that once answered differently on Windows, where two
    /// separators first make a UNC prefix whose share is the next name (CI
    /// under Wine found the first by chance): asked on every platform.
    #[test]
    fn a_unc_spelling_is_compared_by_names() {
        for (path, base) in [
            ("//a/b", "//a"),
            ("//a/b", "//a/"),
            ("//a/b", "/"),
            ("//a/b/c", "//a/b"),
            ("\\\\a\\b", "\\\\a"),
            ("//?/UNC/a/b", "//?/UNC/a"),
        ] {
            let (p, b) = (Path::new(path), Path::new(base));
            assert_eq!(starts_with(p, b), p.starts_with(b), "{path} {base}");
        }
    }

    #[test]
    fn starts_with_is_by_whole_names() {
        let yes = [
            ("/p/a/SKILL.md", "/p"),
            ("/p/a", "/p/"),
            ("/p", "/p"),
            ("/p//a", "/p"),
        ];
        let no = [("/pa/SKILL.md", "/p"), ("/p", "/p/a"), ("p/a", "/p")];
        for (path, base) in yes {
            assert!(
                starts_with(Path::new(path), Path::new(base)),
                "{path} {base}"
            );
        }
        for (path, base) in no {
            assert!(
                !starts_with(Path::new(path), Path::new(base)),
                "{path} {base}"
            );
        }
    }

    #[test]
    fn a_huge_cwd_is_walked_in_linear_time() {
        // 4 MiB of `d/`: with a join onto each of its two million
        // ancestors this took hours; only the short ones are looked at.
        let huge = PathBuf::from(format!("/{}", "d/".repeat(2 << 20)));
        assert_eq!(find_repo_root(&huge), None);
        let markers: Vec<PathBuf> = repo_root_markers(&huge).collect();
        assert_eq!(markers.len(), LONGEST_PATH / 2 + 1);
        assert!(
            markers
                .iter()
                .all(|m| m.as_os_str().len() <= LONGEST_PATH + 5)
        );
        assert_eq!(markers.last(), Some(&PathBuf::from("/.git")));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn parent_and_name_agree_with_path(
            parts in proptest::collection::vec(prop_oneof![
                Just(String::new()), Just(".".to_owned()), Just("..".to_owned()),
                "[a-zA-Z0-9_.-]{1,8}",
            ], 0..6),
            absolute in any::<bool>(),
            trailing in any::<bool>(),
        ) {
            let mut text = if absolute { "/".to_owned() } else { String::new() };
            text.push_str(&parts.join("/"));
            if trailing {
                text.push('/');
            }
            let path = Path::new(&text);
            prop_assert_eq!(parent_and_name(path), (path.parent(), path.file_name()), "{:?}", text);
        }
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c/")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/..")), PathBuf::from("/"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
        // Windows: `\..` has a root but no drive, so it is not absolute.
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
    }

    #[test]
    fn tilde_forms() {
        let home = Path::new("/h");
        assert_eq!(expand_tilde("~", home), PathBuf::from("/h"));
        assert_eq!(expand_tilde("~/x", home), PathBuf::from("/h/x"));
        assert_eq!(expand_tilde("~x", home), PathBuf::from("/h/x"));
        assert_eq!(expand_tilde("x/~", home), PathBuf::from("x/~"));
    }

    #[test]
    fn windows_entries_are_read_by_windows_rules() {
        use EntryForm::{Absolute, Home, Relative};
        let w = |e| entry_form(e, Flavor::Windows);
        assert_eq!(w(r"C:\Users\me\skills"), Absolute);
        assert_eq!(w("c:/Users/me/skills"), Absolute);
        assert_eq!(w(r"\\server\share\skills"), Absolute, "UNC");
        assert_eq!(w(r"\\?\C:\very\long\path"), Absolute, "verbatim");
        assert_eq!(w(r"\\?\UNC\server\share"), Absolute, "verbatim UNC");
        assert_eq!(w(r"~\skills"), Home("skills"));
        assert_eq!(w(r"~/skills"), Home("skills"));
        assert_eq!(w("~"), Home(""));
        assert_eq!(w(r"skills\pdf"), Relative);
        assert_eq!(w(r"..\shared"), Relative);
        assert_eq!(
            w("C:relative"),
            Relative,
            "drive-relative: the base's drive"
        );
        assert_eq!(w(r"\rooted"), Relative, "rooted: the base's drive");
        // The same text read by Unix rules.
        let u = |e| entry_form(e, Flavor::Unix);
        assert_eq!(u(r"C:\Users\me"), Relative);
        assert_eq!(u(r"\\server\share"), Relative);
        assert_eq!(u("/abs"), Absolute);
        assert_eq!(u(r"~\x"), Home(r"\x"), "a backslash is a name character");
        assert!(Flavor::Windows.is_separator('\\') && !Flavor::Unix.is_separator('\\'));
    }

    #[test]
    fn a_verbatim_windows_path_is_shown_plain_when_that_means_the_same() {
        let plain = |t: &str| plain_windows(t);
        assert_eq!(
            plain(r"\\?\C:\Users\ana\proj").as_deref(),
            Some(r"C:\Users\ana\proj")
        );
        assert_eq!(plain(r"\\?\C:\").as_deref(), Some(r"C:\"));
        assert_eq!(
            plain(r"\\?\UNC\server\share\x").as_deref(),
            Some(r"\\server\share\x")
        );
        // Already plain, or no drive: nothing to strip.
        assert_eq!(plain(r"C:\proj"), None);
        assert_eq!(plain(r"\\?\Volume{0b1e}\proj"), None);
        // What Win32 would rewrite or refuse in the plain form.
        for kept in [
            r"\\?\C:\proj\con",
            r"\\?\C:\proj\LPT1.txt",
            r"\\?\C:\proj\trailing.",
            r"\\?\C:\proj\space ",
            r"\\?\C:\a\..\b",
            r"\\?\C:\a\\b",
        ] {
            assert_eq!(plain(kept), None, "{kept}");
        }
        let long = format!(r"\\?\C:\{}", "d".repeat(300));
        assert_eq!(plain(&long), None, "longer than MAX_PATH");
        // COM10 is no device; "console" neither.
        assert!(plain(r"\\?\C:\COM10\console").is_some());
    }

    #[test]
    fn resolve_relative_against_base() {
        let p = resolve_entry("../s", Path::new("/p/.pi"), Path::new("/h"));
        assert_eq!(p, PathBuf::from("/p/s"));
    }

    #[test]
    fn the_repository_root_is_the_nearest_marker_of_those_watched() {
        let t = tempfile::tempdir().unwrap();
        let cwd = t.path().join("a/b");
        std::fs::create_dir_all(&cwd).unwrap();
        let markers: Vec<PathBuf> = repo_root_markers(&cwd).collect();
        assert_eq!(markers[..2], [cwd.join(".git"), t.path().join("a/.git")]);
        assert_eq!(
            markers.last(),
            cwd.ancestors().last().map(|r| r.join(".git")).as_ref()
        );
        std::fs::write(t.path().join("a/.git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(find_repo_root(&cwd), Some(t.path().join("a")));
        std::fs::create_dir(cwd.join(".git")).unwrap();
        assert_eq!(find_repo_root(&cwd), Some(cwd.clone()));
    }

    #[test]
    fn ancestors_stop_inclusive() {
        let v = ancestors_until(Path::new("/a/b/c"), |d| d == Path::new("/a/b"));
        assert_eq!(v, [PathBuf::from("/a/b/c"), PathBuf::from("/a/b")]);
        let v = ancestors_until(Path::new("/a"), |_| false);
        assert_eq!(v, [PathBuf::from("/a"), PathBuf::from("/")]);
    }
}
