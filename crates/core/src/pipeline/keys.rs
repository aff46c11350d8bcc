//! The pipeline's table keys: names and real paths hashed once, where
//! they are made, and the tables that hash that `u64`.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::fast::FixedState;
use std::path::PathBuf;

use skillpipe_types::{SharedPath, Text};

/// A name as a table key, hashed once, where it is made (on the scanning
/// thread), so that taking a skill rarely reads its name again.
#[derive(Clone)]
pub(super) struct Name {
    pub(super) hash: u64,
    pub(super) text: Text,
}

impl Name {
    pub(super) fn new(text: Text) -> Self {
        Name {
            hash: Name::hash_of(&text),
            text,
        }
    }

    /// The hash a [`Name`] of `text` has.
    pub(super) fn hash_of(text: &Text) -> u64 {
        hash_bytes(text.as_bytes())
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A real path as a table key: its bytes, in the one spelling its
/// components have (as `Path` compares them: `a//b`, `a/./b` and `a/b/` are
/// `a/b`), hashed once, as bytes, where it is made.
pub(super) struct RealPath {
    pub(super) hash: u64,
    /// The path, in that spelling (the finding's own, shared, when it is).
    pub(super) path: SharedPath,
}

impl PartialEq for RealPath {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.bytes() == other.bytes()
    }
}

impl Eq for RealPath {}

impl Hash for RealPath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl RealPath {
    #[cfg(test)]
    pub(super) fn new(path: SharedPath) -> Self {
        let (hash, respelt) = RealPath::hash_of(&path);
        RealPath {
            hash,
            path: respelt.unwrap_or(path),
        }
    }

    /// The hash a [`RealPath`] of `path` has, and the path in its one
    /// spelling when that is not `path`'s own.
    pub(super) fn hash_of(path: &SharedPath) -> (u64, Option<SharedPath>) {
        // The fast look knows `/` only; elsewhere the components decide.
        if cfg!(unix) && is_clean(crate::paths::bytes_of(path)) {
            return (hash_bytes(crate::paths::bytes_of(path)), None);
        }
        let respelt: SharedPath = path.components().collect::<PathBuf>().into();
        (hash_bytes(crate::paths::bytes_of(&respelt)), Some(respelt))
    }

    fn bytes(&self) -> &[u8] {
        crate::paths::bytes_of(&self.path)
    }
}

/// Whether a path's bytes are the one spelling of its components: no `//`,
/// no `/./`, no trailing `/` (but `/` itself) or `/.`.
pub(crate) fn is_clean(b: &[u8]) -> bool {
    !b.is_empty()
        && (b == b"/" || !b.ends_with(b"/"))
        && !b.ends_with(b"/.")
        && memchr::memchr_iter(b'/', b).all(|i| {
            let next = &b[i + 1..];
            !next.starts_with(b"/") && !next.starts_with(b"./")
        })
}

/// The pipeline's tables: their keys are hashed once, where they are made
/// ([`hash_bytes`]), and the tables hash that `u64` with foldhash. SipHash
/// takes many rounds per word; the keys here are file paths and skill names
/// found on the user's own disk, so its resistance to chosen collisions
/// buys nothing. (A unit test guards the spread on similar paths.)
pub(super) type FastMap<K, V> = HashMap<K, V, FixedState>;
pub(super) type FastSet<K> = HashSet<K, FixedState>;

/// A fixed seed: the same key hashes alike on every thread of a run.
pub(super) const HASH_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

pub(super) fn hash_bytes(bytes: &[u8]) -> u64 {
    FixedState::with_seed(HASH_SEED).hash_one(bytes)
}
