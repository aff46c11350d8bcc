//! Strings and paths that share one buffer: a skill's name, description
//! and frontmatter are cut from one allocation ([`Text`]), its file and
//! the folder it resolves against from another ([`SharedPath`]), so a
//! loaded skill costs two allocations instead of six and copying it (a
//! watcher's published discovery, a binding's hand-over) copies none of
//! its bytes.
//!
//! Both read as what they stand for (`Deref` to `str` and to `Path`),
//! compare, order, hash, print and serialise as it, and are made from the
//! owned values (`String`, `&str`, `PathBuf`, `&Path`) with `into()`.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ffi::OsStr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Debug, equality, order and hash of a shared value as those of the view
/// it reads as (`$as`: `&$view`), and equality with the owned and
/// borrowed forms of that view, both ways round.
macro_rules! as_view {
    ($ty:ty, $view:ty, $as:ident, [$($other:ty),*]) => {
        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.$as(), f)
            }
        }
        impl PartialEq for $ty {
            fn eq(&self, other: &$ty) -> bool {
                self.$as() == other.$as()
            }
        }
        impl Eq for $ty {}
        impl PartialOrd for $ty {
            fn partial_cmp(&self, other: &$ty) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $ty {
            fn cmp(&self, other: &$ty) -> Ordering {
                self.$as().cmp(other.$as())
            }
        }
        impl Hash for $ty {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.$as().hash(state);
            }
        }
        $(
            impl PartialEq<$other> for $ty {
                fn eq(&self, other: &$other) -> bool {
                    self.$as() == AsRef::<$view>::as_ref(other)
                }
            }
            impl PartialEq<$ty> for $other {
                fn eq(&self, other: &$ty) -> bool {
                    AsRef::<$view>::as_ref(self) == other.$as()
                }
            }
        )*
    };
}

/// A string that may share its buffer with others cut from it: cheap to
/// clone, read as a `&str`.
#[derive(Clone, Default)]
pub struct Text {
    /// The buffer; `None` for the empty text, which allocates nothing.
    buf: Option<Arc<str>>,
    /// The byte range of the text in `buf` (on character boundaries).
    start: usize,
    end: usize,
}

impl Text {
    /// The text of `s`, in a buffer of its own.
    pub fn new(s: &str) -> Text {
        if s.is_empty() {
            return Text::default();
        }
        Text {
            buf: Some(Arc::from(s)),
            start: 0,
            end: s.len(),
        }
    }

    /// `whole` and `parts` in one buffer (none when all are empty): a part
    /// that lies inside `whole` (a slice of it, as a field read in place
    /// from its YAML) is read from `whole`'s copy, any other is copied
    /// after it. One allocation when every part lies inside `whole`.
    pub fn cut<const N: usize>(whole: &str, parts: [&str; N]) -> (Text, [Text; N]) {
        let within = |part: &str| {
            let at = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
            (at <= whole.len() && part.len() <= whole.len() - at).then_some(at)
        };
        let outside = parts
            .iter()
            .filter(|p| within(p).is_none())
            .map(|p| p.len())
            .sum::<usize>();
        if whole.len() + outside == 0 {
            return (Text::default(), std::array::from_fn(|_| Text::default()));
        }
        // Parts outside `whole` are copied after it; when there are none
        // (the usual skill: plain values read in place), `whole` itself
        // is the buffer, copied once (an `Arc<str>` made from a `String`
        // copies it again).
        let mut all = (outside > 0).then(|| {
            let mut all = String::with_capacity(whole.len() + outside);
            all.push_str(whole);
            all
        });
        let mut ranges = [(0, 0); N];
        for (part, range) in parts.iter().zip(ranges.iter_mut()) {
            *range = match (within(part), all.as_mut()) {
                (Some(at), _) => (at, at + part.len()),
                (None, Some(all)) => {
                    let start = all.len();
                    all.push_str(part);
                    (start, all.len())
                }
                // Outside `whole` with nothing outside: empty.
                (None, None) => (0, 0),
            };
        }
        let buf: Arc<str> = match all {
            Some(all) => Arc::from(all),
            None => Arc::from(whole),
        };
        let text = |(start, end): (usize, usize)| match start == end {
            true => Text::default(),
            false => Text {
                buf: Some(Arc::clone(&buf)),
                start,
                end,
            },
        };
        (text((0, whole.len())), ranges.map(text))
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        match &self.buf {
            Some(buf) => buf.get(self.start..self.end).unwrap_or_default(),
            None => "",
        }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<OsStr> for Text {
    fn as_ref(&self) -> &OsStr {
        OsStr::new(self.as_str())
    }
}

impl AsRef<Path> for Text {
    fn as_ref(&self) -> &Path {
        Path::new(self.as_str())
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::new(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        if s.is_empty() {
            return Text::default();
        }
        let end = s.len();
        Text {
            buf: Some(Arc::from(s)),
            start: 0,
            end,
        }
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Text {
        String::from(s).into()
    }
}

impl From<std::borrow::Cow<'_, str>> for Text {
    fn from(s: std::borrow::Cow<'_, str>) -> Text {
        match s {
            std::borrow::Cow::Borrowed(s) => Text::new(s),
            std::borrow::Cow::Owned(s) => s.into(),
        }
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.as_str().to_owned()
    }
}

impl From<&Text> for String {
    fn from(t: &Text) -> String {
        t.as_str().to_owned()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

as_view!(Text, str, as_str, [str, &str, String, std::borrow::Cow<'_, str>]);

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

/// A path that may share its buffer: a skill's file, or the folder it
/// lies in read from the same buffer (the usual `base_dir`). Cheap to
/// clone, read as a `&Path`.
#[derive(Clone)]
pub struct SharedPath {
    /// The path, or the file whose folder this is.
    buf: Arc<Path>,
    /// `Some(n)` when this is `buf`'s folder: the byte length of
    /// `buf.parent()`, a prefix of it (`0` when it has none).
    parent: Option<usize>,
}

impl SharedPath {
    /// The path `p`, in a buffer of its own.
    pub fn new(p: &Path) -> SharedPath {
        SharedPath {
            buf: Arc::from(p),
            parent: None,
        }
    }

    /// The folder this path lies in (`""` when it has none), sharing its
    /// buffer.
    pub fn parent_dir(&self) -> SharedPath {
        match self.parent {
            None => SharedPath {
                buf: Arc::clone(&self.buf),
                parent: Some(self.buf.parent().map_or(0, |p| p.as_os_str().len())),
            },
            Some(_) => SharedPath::new(self.as_path().parent().unwrap_or(Path::new(""))),
        }
    }

    /// The path as a `&Path`.
    pub fn as_path(&self) -> &Path {
        match self.parent {
            None => &self.buf,
            // The parent is a prefix of the path: on Unix its bytes, cut
            // without parsing the path again.
            #[cfg(unix)]
            Some(len) => {
                use std::os::unix::ffi::OsStrExt;
                let bytes = self.buf.as_os_str().as_bytes();
                Path::new(OsStr::from_bytes(bytes.get(..len).unwrap_or_default()))
            }
            #[cfg(not(unix))]
            Some(_) => self.buf.parent().unwrap_or(Path::new("")),
        }
    }
}

impl Default for SharedPath {
    fn default() -> SharedPath {
        SharedPath::new(Path::new(""))
    }
}

impl Deref for SharedPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.as_path()
    }
}

impl AsRef<Path> for SharedPath {
    fn as_ref(&self) -> &Path {
        self
    }
}

impl AsRef<OsStr> for SharedPath {
    fn as_ref(&self) -> &OsStr {
        self.as_os_str()
    }
}

impl Borrow<Path> for SharedPath {
    fn borrow(&self) -> &Path {
        self
    }
}

impl From<&Path> for SharedPath {
    fn from(p: &Path) -> SharedPath {
        SharedPath::new(p)
    }
}

impl From<&PathBuf> for SharedPath {
    fn from(p: &PathBuf) -> SharedPath {
        SharedPath::new(p)
    }
}

impl From<PathBuf> for SharedPath {
    fn from(p: PathBuf) -> SharedPath {
        SharedPath {
            buf: Arc::from(p),
            parent: None,
        }
    }
}

impl From<&str> for SharedPath {
    fn from(p: &str) -> SharedPath {
        SharedPath::new(Path::new(p))
    }
}

impl From<String> for SharedPath {
    fn from(p: String) -> SharedPath {
        PathBuf::from(p).into()
    }
}

impl From<SharedPath> for PathBuf {
    fn from(p: SharedPath) -> PathBuf {
        p.to_path_buf()
    }
}

as_view!(SharedPath, Path, as_path, [Path, &Path, PathBuf]);

impl Serialize for SharedPath {
    /// Lossily, as [`crate::lossy::path`].
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::lossy::path(self, s)
    }
}

impl<'de> Deserialize<'de> for SharedPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SharedPath, D::Error> {
        PathBuf::deserialize(d).map(SharedPath::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn parts_cut_from_nothing_read_back_each_from_one_buffer() {
        let (_, [a, b, c, d]) = Text::cut("", ["pdf", "", "Fills forms. ü", "k: v"]);
        assert_eq!(
            (a.as_str(), b.as_str(), &*c, &*d),
            ("pdf", "", "Fills forms. ü", "k: v")
        );
        let (Some(x), Some(y)) = (&a.buf, &d.buf) else {
            panic!("no buffer")
        };
        assert!(Arc::ptr_eq(x, y), "one buffer");
        assert!(b.buf.is_none(), "an empty part holds nothing");
        assert_eq!(
            Text::cut("", ["", ""]).1,
            [Text::default(), Text::default()]
        );
    }

    #[test]
    fn parts_of_the_whole_are_read_from_it_and_others_copied_after_it() {
        let yaml = "name: pdf\ndescription: Fills forms.";
        let (name, description) = (&yaml[6..9], &yaml[23..]);
        let other = String::from("Quoted \" text");
        let (whole, [a, b, c, d]) = Text::cut(yaml, [name, description, &other, ""]);
        assert_eq!(
            (&*whole, &*a, &*b, &*c, &*d),
            (yaml, "pdf", "Fills forms.", other.as_str(), "")
        );
        let buf = whole.buf.as_ref().unwrap();
        assert_eq!(
            buf.len(),
            yaml.len() + other.len(),
            "the parts inside it are not copied"
        );
        assert!(
            [&a, &b, &c]
                .iter()
                .all(|t| Arc::ptr_eq(t.buf.as_ref().unwrap(), buf))
        );
        // Right after the whole is not inside it; nothing at all is none.
        let text = "abcdef";
        let (w, [after]) = Text::cut(&text[..3], [&text[3..]]);
        assert_eq!((&*w, &*after), ("abc", "def"));
        assert_eq!(w.buf.as_ref().unwrap().len(), 6);
        let (w, [e]) = Text::cut("", [""]);
        assert!(w.buf.is_none() && e.buf.is_none());
        // Every part inside: the buffer is the whole's copy alone.
        let (whole, [a, b, e]) = Text::cut(yaml, [name, description, ""]);
        assert_eq!((&*a, &*b, &*e), ("pdf", "Fills forms.", ""));
        assert_eq!(whole.buf.as_ref().unwrap().len(), yaml.len());
        assert!(Arc::ptr_eq(
            a.buf.as_ref().unwrap(),
            b.buf.as_ref().unwrap()
        ));
        assert!(e.buf.is_none());
    }

    proptest::proptest! {
        /// Whatever mix of slices of the whole (on character boundaries)
        /// and other strings: each part reads back as given, all share
        /// one buffer, which holds the whole and the outside parts alone.
        #[test]
        fn cut_parts_read_back_from_one_buffer(
            whole in "\\PC{0,40}",
            picks in proptest::collection::vec((proptest::bool::ANY, 0usize..50, 0usize..50, "\\PC{0,8}"), 0..4),
        ) {
            let bounds: Vec<usize> = whole
                .char_indices()
                .map(|(i, _)| i)
                .chain([whole.len()])
                .collect();
            let parts: Vec<&str> = picks
                .iter()
                .map(|(inside, a, b, other)| {
                    if *inside {
                        let (a, b) = (bounds[a % bounds.len()], bounds[b % bounds.len()]);
                        &whole[a.min(b)..a.max(b)]
                    } else {
                        other.as_str()
                    }
                })
                .collect();
            let mut four = [""; 4];
            four[..parts.len()].copy_from_slice(&parts);
            let (w, cut) = Text::cut(&whole, four);
            proptest::prop_assert_eq!(&*w, whole.as_str());
            for (t, part) in cut.iter().zip(four) {
                proptest::prop_assert_eq!(&**t, part);
                proptest::prop_assert_eq!(t.buf.is_none(), part.is_empty());
            }
            let outside: usize = picks
                .iter()
                .zip(&parts)
                .filter(|((inside, ..), _)| !inside)
                .map(|(_, p)| p.len())
                .sum();
            let bufs: Vec<&Arc<str>> = std::iter::once(&w).chain(&cut).filter_map(|t| t.buf.as_ref()).collect();
            for b in &bufs {
                proptest::prop_assert!(Arc::ptr_eq(b, bufs[0]));
                proptest::prop_assert_eq!(b.len(), whole.len() + outside);
            }
        }
    }

    #[test]
    fn a_text_is_its_string_to_compare_hash_print_and_serialise() {
        let (_, [t, _]) = Text::cut("", ["name", "rest"]);
        assert_eq!(t, "name");
        assert_eq!("name", t);
        assert_eq!(t, String::from("name"));
        assert_ne!(t, "rest");
        assert!(t.cmp(&Text::from("zz")).is_lt() && t.cmp(&Text::from("a")).is_gt());
        assert_eq!(format!("{t} {t:?}"), "name \"name\"");
        let map: HashMap<Text, u8> = [(t.clone(), 1)].into();
        assert_eq!(map.get("name"), Some(&1));
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"name\"");
        let back: Text = serde_json::from_str("\"name\"").unwrap();
        assert_eq!(back, t);
        assert_eq!(String::from(t), "name");
    }

    #[test]
    fn a_shared_folder_reads_as_its_files_parent() {
        let file = SharedPath::from("/s/pdf/SKILL.md");
        let dir = file.parent_dir();
        assert!(Arc::ptr_eq(&file.buf, &dir.buf));
        assert_eq!(dir, Path::new("/s/pdf"));
        assert_eq!(dir.parent_dir(), Path::new("/s"));
        assert_eq!(SharedPath::from("SKILL.md").parent_dir(), Path::new(""));
        assert_eq!(SharedPath::default().parent_dir(), Path::new(""));
        assert_eq!(serde_json::to_string(&dir).unwrap(), "\"/s/pdf\"");
        let back: SharedPath = serde_json::from_str("\"/s/pdf\"").unwrap();
        assert_eq!(back, dir);
        assert_eq!(format!("{dir:?}"), format!("{:?}", Path::new("/s/pdf")));
        assert_eq!(PathBuf::from(dir), PathBuf::from("/s/pdf"));
    }
}
