//! A skill's manifest: every file of the skill with its size and SHA-256
//! digest (SEP-2640 `resources`), found and read through the library's
//! confined `skill://` resolver, within the per-skill limits.
//!
//! The skill's own file comes first (as `SKILL.md`), then every other file
//! in path order (byte order of the names, depth first). Hidden names
//! (`.git`, `.env`) are left out, as they are never served. Directory
//! listings and bytes come from the library's resolver (`skillpipe::core::runtime::resolve_with`, over the one skill): a link that
//! leads out of the skill, a FIFO, a socket or a device is never read and
//! never listed; the skill's root folder, which the resolver reads as the
//! skill's own file, is listed from the file system, its entries then read
//! through the resolver like every other.
//!
//! Digests are cached by file ([`Digests`]): a file whose length,
//! modification and change times and inode (where there is one) are those
//! it had when it was hashed is not read again; any other is read and
//! hashed afresh, so a listing's digests are never stale. A file changed
//! less than [`RACY`] ago is not cached (a write in the same clock tick
//! could leave every stamp as it was).
//!
//! Whole manifests are cached too (on Unix, where a stamp holds the inode
//! and the change time): with each, every folder the walk listed and every
//! file it stamped, with their stamps. A manifest whose folders and files
//! all have those stamps still is the one a new walk would make (a folder's
//! entries cannot come, go or be renamed without changing its stamp, nor a
//! file's bytes without changing its), so a warm listing costs one `stat`
//! a path and no directory read. A manifest whose walk went through the
//! resolver (a link, anything but a plain file or folder), left notes, or
//! saw a stamp too recent to trust is made afresh each time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};
use skillpipe::{Contents, ResolveError, ResolveOptions, Resource, Skill};

use crate::uri;

/// The bounds of one skill's manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Files listed, `SKILL.md` included (SEP-2640: 512).
    pub files: usize,
    /// Bytes listed, summed over the files (SEP-2640: 16 MiB).
    pub bytes: u64,
    /// Directories listed while looking for files.
    pub dirs: usize,
    /// Directories nested below the skill's folder.
    pub depth: usize,
}

impl Default for Limits {
    /// SEP-2640's per-skill limits, and bounds on the walk for them.
    fn default() -> Self {
        Limits {
            files: 512,
            bytes: 16 << 20,
            dirs: 4096,
            depth: 32,
        }
    }
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct File {
    /// Its path in the skill, decoded segments joined by `/` (`SKILL.md`
    /// first); a segment holds no `/`.
    pub rel: String,
    /// Its length in bytes.
    pub size: u64,
    /// The SHA-256 of its bytes.
    pub digest: Sha,
}

/// A SHA-256 digest, kept as its 32 bytes (copied, never allocated, in
/// the caches and manifests) and written out as SEP-2640's
/// `sha256:<64 lowercase hex digits>` only for an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sha([u8; 32]);

impl Sha {
    /// The digest of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> Sha {
        Sha(Sha256::digest(bytes).into())
    }

    /// `sha256:<hex>`.
    pub(crate) fn text(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for byte in self.0 {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 15)]));
        }
        out
    }
}

/// A skill's files, and what was left out and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// The files, `SKILL.md` first.
    pub files: Vec<File>,
    /// What could not be listed: a file over the limits (then it and the
    /// rest are left out), one the resolver refused, a name no URI holds.
    pub notes: Vec<String>,
}

/// A file changed more recently than this is hashed on every listing.
pub(crate) const RACY: Duration = Duration::from_secs(1);

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Files by [`FileKey`]: the stamp each was hashed with, its size and
/// digest.
type Files = Map<FileKey, (Stamp, u64, Sha)>;

/// What the cache knows a file by. On Unix its device and inode, which its
/// stamp holds (so its path adds nothing, and cost an allocation and a
/// hash of its bytes a file); elsewhere, where a stamp holds no inode,
/// its path.
#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(not(unix))]
type FileKey = std::ffi::OsString;

/// The key of the file at `path` stamped `stamp`.
#[cfg(unix)]
fn file_key(_path: &Path, stamp: &Stamp) -> FileKey {
    stamp.inode
}
#[cfg(not(unix))]
fn file_key(path: &Path, _stamp: &Stamp) -> FileKey {
    path.as_os_str().to_owned()
}

/// Manifests by the skill's file and URI root.
type Manifests = Map<ManifestKey, Arc<Cached>>;

/// A copy's file and the URI of its `SKILL.md`, with their hash taken once:
/// the map hashes that number, not the path and URI again on every lookup
/// and every time it grows.
#[derive(Debug, PartialEq, Eq)]
struct ManifestKey {
    hash: u64,
    file: skillpipe::SharedPath,
    uri: String,
}

impl ManifestKey {
    fn of(source: &Source<'_>) -> ManifestKey {
        use std::hash::BuildHasher as _;
        let (file, uri) = (source.skill.file_path.clone(), source.root.skill_md());
        let hash = foldhash::fast::FixedState::default().hash_one((&file, &uri));
        ManifestKey { hash, file, uri }
    }
}

impl std::hash::Hash for ManifestKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// How many maps [`Digests`] keeps its files (and its manifests) in.
const SHARDS: usize = 16;

/// Which of the [`SHARDS`] maps holds `key`.
fn shard_of<K: std::hash::Hash + ?Sized>(key: &K) -> usize {
    use std::hash::BuildHasher as _;
    let hash = foldhash::fast::FixedState::default().hash_one(key);
    (hash as usize) % SHARDS
}

/// The most files [`Digests`] remembers; past it, it starts again empty.
const MAX_CACHED: usize = 1 << 20;

/// What identifies a file's bytes without reading them. On Unix the
/// kernel's own fields (so that a stamp from `std`'s metadata and one from
/// a `stat` relative to an open folder are equal for the same file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    #[cfg(unix)]
    modified: (i64, i64),
    #[cfg(not(unix))]
    modified: Option<SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64),
    #[cfg(unix)]
    changed: (i64, i64),
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|meta| Stamp::from(&meta))
    }

    fn from(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Stamp {
                len: meta.len(),
                modified: (meta.mtime(), meta.mtime_nsec()),
                inode: (meta.dev(), meta.ino()),
                changed: (meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// The stamp of a `stat` (the walk's, relative to an open folder).
    #[cfg(unix)]
    fn from_stat(st: &rustix::fs::Stat) -> Stamp {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Stamp {
            len: u64::try_from(st.st_size).unwrap_or(0),
            modified: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            inode: (st.st_dev as u64, st.st_ino as u64),
            changed: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    /// The stamp discovery took of a file it read.
    #[cfg(unix)]
    fn observed(s: &skillpipe::core::observe::FileStamp) -> Stamp {
        Stamp {
            len: s.len,
            modified: s.modified,
            inode: s.inode,
            changed: s.changed,
        }
    }

    /// Whether the file changed too recently for its stamp to be trusted.
    fn racy(&self) -> bool {
        // One clock read for both times: a first listing stamps every
        // file and folder, and reading the clock twice a stamp was 2% of
        // its time outside the kernel.
        let now = SystemTime::now();
        let recent = |t: SystemTime| now.duration_since(t).map_or(true, |d| d < RACY);
        #[cfg(unix)]
        {
            let time = |(s, ns): (i64, i64)| {
                let s = u64::try_from(s).ok()?;
                Some(SystemTime::UNIX_EPOCH + Duration::new(s, u32::try_from(ns).unwrap_or(0)))
            };
            time(self.changed).is_none_or(recent) || time(self.modified).is_none_or(recent)
        }
        #[cfg(not(unix))]
        self.modified.is_none_or(recent)
    }
}

/// The digests of the files hashed so far, by file (on Unix its device and
/// inode, elsewhere its path) and stamp (size, modification time and, on
/// Unix, change time): shared by every discovery a server serves in turn.
#[derive(Debug, Default)]
pub struct Digests {
    /// By [`FileKey`], in [`SHARDS`] maps by the key's hash, so that the
    /// threads making a page seldom wait on each other (nor on one
    /// growing).
    files: [Mutex<Files>; SHARDS],
    /// Whole manifests, by the skill's file and URI root, in [`SHARDS`]
    /// maps too (one map was a lock that every thread making a page took
    /// twice a skill).
    manifests: [Mutex<Manifests>; SHARDS],
    /// Whether discovery handed it a file it read ([`Digests::hearing`]):
    /// then a skill's `SKILL.md` is stamped before it is opened, as its
    /// digest is likely here. Unix only.
    #[cfg_attr(not(unix), allow(dead_code))]
    heard: AtomicBool,
}

/// A manifest and what it was made from.
#[derive(Debug)]
pub(crate) struct Cached {
    /// The manifest.
    pub manifest: Manifest,
    /// What it was made for: the limits and the skill's folder.
    limits: Limits,
    folder: Option<PathBuf>,
    /// Every path the walk looked at directly, with its stamp then;
    /// `None` for a manifest that is made afresh each time.
    deps: Option<Vec<Dep>>,
}

/// A path a manifest depends on.
#[derive(Debug)]
struct Dep {
    at: At,
    stamp: Stamp,
    /// Stamped through links (the skill's own file and folder, opened by
    /// path as the resolver opens them) or not (what the walk found).
    follow: bool,
}

/// Where a [`Dep`] is.
#[derive(Debug)]
enum At {
    /// The skill's folder itself.
    Folder,
    /// A path in the skill's folder (on Unix a C string, handed to `stat`
    /// as it is, with no copy or check on every warm listing).
    In(Rel),
    /// A path of its own (a skill that is one file).
    Path(PathBuf),
}

#[cfg(unix)]
type Rel = std::ffi::CString;
#[cfg(not(unix))]
type Rel = PathBuf;

impl At {
    /// The path of the segments `rel` in the skill's folder, made in one
    /// allocation; `None` for one holding a NUL, which no listing gives
    /// (then the manifest is not cached).
    fn segments(rel: &[String]) -> Option<At> {
        #[cfg(unix)]
        {
            std::ffi::CString::new(joined(rel)).ok().map(At::In)
        }
        #[cfg(not(unix))]
        Some(At::In(rel.iter().collect()))
    }

    /// `rel` in the skill's folder; `None` for a path holding a NUL, which
    /// no listing gives (then the manifest is not cached).
    fn inside(rel: PathBuf) -> Option<At> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            std::ffi::CString::new(rel.into_os_string().into_vec())
                .ok()
                .map(At::In)
        }
        #[cfg(not(unix))]
        Some(At::In(rel))
    }
}

impl Cached {
    /// Whether the manifest is still the one a new walk would make: it
    /// can be cached, and every path it depends on has the stamp it had,
    /// each looked at as the walk looked at it (on Unix relative to the
    /// skill's folder, opened once).
    pub(crate) fn holds(&self) -> bool {
        let Some(deps) = &self.deps else {
            return false;
        };
        let folder = match &self.folder {
            Some(path) => match Looked::open(path) {
                Ok(open) => Some(open),
                Err(_) => return false,
            },
            None => None,
        };
        deps.iter().all(|dep| {
            let now = match (&dep.at, &folder) {
                (At::Folder, Some(open)) => Some(open.stamp),
                (At::In(rel), Some(open)) => open.stamp_of(rel, dep.follow),
                (At::Path(path), _) => path_stamp(path, dep.follow),
                _ => None,
            };
            now == Some(dep.stamp)
        })
    }
}

/// A skill's folder as a warm listing looks at it: opened by its path,
/// links followed (on Unix `O_PATH`: nothing is read through it), each
/// path a manifest depends on stamped relative to it.
struct Looked {
    stamp: Stamp,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    #[cfg(not(unix))]
    path: PathBuf,
}

impl Looked {
    fn open(path: &Path) -> std::io::Result<Looked> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, Mode, OFlags};
            // `O_PATH` where there is one: the folder is only looked in.
            #[cfg(any(target_os = "linux", target_os = "android"))]
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            let flags = open_flags() | OFlags::DIRECTORY;
            let fd = rfs::openat(rfs::CWD, path, flags, Mode::empty())?;
            let stamp = Stamp::from_stat(&rfs::fstat(&fd)?);
            Ok(Looked { stamp, fd })
        }
        #[cfg(not(unix))]
        {
            let meta = std::fs::metadata(path)?;
            Ok(Looked {
                stamp: Stamp::from(&meta),
                path: path.to_owned(),
            })
        }
    }

    /// The stamp of `rel` in the folder, through links or not.
    fn stamp_of(&self, rel: &Rel, follow: bool) -> Option<Stamp> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, AtFlags};
            let flags = match follow {
                true => AtFlags::empty(),
                false => AtFlags::SYMLINK_NOFOLLOW,
            };
            Some(Stamp::from_stat(
                &rfs::statat(&self.fd, rel.as_c_str(), flags).ok()?,
            ))
        }
        #[cfg(not(unix))]
        path_stamp(&self.path.join(rel), follow)
    }
}

/// The stamp of `path`, through links or not.
fn path_stamp(path: &Path, follow: bool) -> Option<Stamp> {
    let meta = match follow {
        true => std::fs::metadata(path),
        false => std::fs::symlink_metadata(path),
    };
    meta.ok().map(|meta| Stamp::from(&meta))
}

/// A folder the walk lists: on Unix the folder open, its entries looked
/// at and opened relative to it (`openat`, `fstatat`): no path is walked
/// (or made) again for each entry, and a folder below the skill's is
/// opened refusing a link (`O_NOFOLLOW`), so that what is read through it
/// is inside the skill whatever is swapped in meanwhile; elsewhere its
/// path.
struct Folder {
    #[cfg(not(unix))]
    path: PathBuf,
    /// The folder open (read once, by [`read_names`]).
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
}

#[cfg(unix)]
fn open_flags() -> rustix::fs::OFlags {
    use rustix::fs::OFlags;
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK
}

impl Folder {
    /// The skill's folder, by its path, links followed (as the resolver
    /// takes it), and its stamp.
    fn open_root(path: &Path) -> std::io::Result<(Folder, Stamp)> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, Mode, OFlags};
            let fd = rfs::openat(
                rfs::CWD,
                path,
                open_flags() | OFlags::DIRECTORY,
                Mode::empty(),
            )?;
            let stamp = Stamp::from_stat(&rfs::fstat(&fd)?);
            Ok((Folder { fd }, stamp))
        }
        #[cfg(not(unix))]
        {
            let meta = std::fs::metadata(path)?;
            Ok((
                Folder {
                    path: path.to_owned(),
                },
                Stamp::from(&meta),
            ))
        }
    }

    /// The folder `name` in this one, which is no link, and its stamp.
    fn open_child(&self, name: &str) -> std::io::Result<(Folder, Stamp)> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, Mode, OFlags};
            let flags = open_flags() | OFlags::DIRECTORY | OFlags::NOFOLLOW;
            let fd = rfs::openat(&self.fd, name, flags, Mode::empty())?;
            let stamp = Stamp::from_stat(&rfs::fstat(&fd)?);
            Ok((Folder { fd }, stamp))
        }
        #[cfg(not(unix))]
        {
            let path = self.path.join(name);
            let meta = std::fs::symlink_metadata(&path)?;
            Ok((Folder { path }, Stamp::from(&meta)))
        }
    }

    /// What `name` in this folder is (not through a link), with its stamp.
    fn kind_and_stamp(&self, name: &str) -> Option<(Kind, Stamp)> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, AtFlags, FileType};
            let st = rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            let kind = match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                _ => Kind::Other,
            };
            Some((kind, Stamp::from_stat(&st)))
        }
        #[cfg(not(unix))]
        {
            let meta = std::fs::symlink_metadata(self.path.join(name)).ok()?;
            let kind = match meta.file_type() {
                t if t.is_file() => Kind::File,
                t if t.is_dir() => Kind::Dir,
                _ => Kind::Other,
            };
            Some((kind, Stamp::from(&meta)))
        }
    }

    // Read where a stamp holds an inode (Unix) only.
    #[cfg_attr(not(unix), allow(dead_code))]
    /// The plain file `name` in this folder, open for reading (on Unix
    /// refusing a link, never waiting on a FIFO).
    fn open_file(&self, name: &str) -> Option<std::fs::File> {
        #[cfg(unix)]
        {
            use rustix::fs::{self as rfs, Mode, OFlags};
            let flags = open_flags() | OFlags::NOFOLLOW;
            let fd = rfs::openat(&self.fd, name, flags, Mode::empty()).ok()?;
            Some(std::fs::File::from(fd))
        }
        #[cfg(not(unix))]
        skillpipe::core::fsio::open_nonblocking(&self.path.join(name)).ok()
    }
}

impl Digests {
    /// An empty cache.
    pub fn new() -> Digests {
        Digests::default()
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        let count = |shard: &Mutex<Files>| shard.lock().map(|f| f.len()).unwrap_or(0);
        self.files.iter().map(count).sum()
    }

    /// The map that holds `key`.
    fn shard(&self, key: &FileKey) -> &Mutex<Files> {
        &self.files[shard_of(key)]
    }

    /// The map that holds the manifest of `key`.
    fn manifest_shard(&self, key: &ManifestKey) -> &Mutex<Manifests> {
        &self.manifests[shard_of(key)]
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `builder`, its discoveries handing this cache the digest of each
    /// skill file they read (of at most `limits`' bytes a skill), so that
    /// a listing reads no `SKILL.md` a second time: discovery has the file
    /// open and read already (to its end, then, not only its
    /// frontmatter), and a listing stamps it and finds its digest here
    /// while the file is what was read. A file whose digest is here
    /// already, or changed within the last second (its digest would not
    /// be kept), is not read whole. On Unix; elsewhere it changes nothing.
    pub fn hearing(
        self: &Arc<Self>,
        builder: skillpipe::Builder,
        limits: Limits,
    ) -> skillpipe::Builder {
        let (asked, told) = (Arc::clone(self), Arc::clone(self));
        builder.on_file_read(
            move |stamp| asked.wants(stamp, limits),
            move |read| told.hear(read),
        )
    }

    /// Whether the file stamped `stamp` is wanted read whole: within the
    /// limits, old enough to trust, and not here already.
    fn wants(&self, stamp: &skillpipe::core::observe::FileStamp, limits: Limits) -> bool {
        #[cfg(unix)]
        {
            let stamp = Stamp::observed(stamp);
            stamp.len <= limits.bytes && !stamp.racy() && self.get_opened(&stamp).is_none()
        }
        #[cfg(not(unix))]
        {
            let _ = (stamp, limits);
            false
        }
    }

    /// Caches the digest of a file discovery read whole, under the stamp
    /// of the open file it was read from (taken before the read: a write
    /// during it gives the file a later stamp, which never finds this
    /// digest), when that stamp is old enough to trust.
    fn hear(&self, read: &skillpipe::core::observe::FileRead<'_>) {
        #[cfg(unix)]
        {
            let stamp = Stamp::observed(&read.stamp);
            if stamp.len != read.bytes.len() as u64 || stamp.racy() {
                return;
            }
            self.put_opened(stamp, stamp.len, Sha::of(read.bytes));
            self.heard.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        #[cfg(not(unix))]
        let _ = read;
    }

    /// The size and digest of the file at `path` when it was hashed with
    /// `stamp`.
    fn get(&self, path: &Path, stamp: &Stamp) -> Option<(u64, Sha)> {
        self.get_key(file_key(path, stamp), stamp)
    }

    /// [`Digests::get`] of a file whose stamp (its inode) was taken from it
    /// open.
    #[cfg(unix)]
    fn get_opened(&self, stamp: &Stamp) -> Option<(u64, Sha)> {
        self.get_key(stamp.inode, stamp)
    }

    fn get_key(&self, key: FileKey, stamp: &Stamp) -> Option<(u64, Sha)> {
        let files = self.shard(&key).lock().ok()?;
        let (had, size, digest) = files.get(&key)?;
        (had == stamp).then_some((*size, *digest))
    }

    /// The cached manifest of `source` when every path it depends on is
    /// as it was.
    fn manifest(
        &self,
        key: &ManifestKey,
        source: &Source<'_>,
        limits: Limits,
    ) -> Option<Arc<Cached>> {
        let cached = self.manifest_shard(key).lock().ok()?.get(key).cloned()?;
        let same =
            cached.limits == limits && cached.folder.as_deref() == source.folder && cached.holds();
        same.then_some(cached)
    }

    fn put_manifest(&self, key: ManifestKey, cached: Arc<Cached>) {
        if let Ok(mut manifests) = self.manifest_shard(&key).lock() {
            if manifests.len() >= MAX_CACHED / SHARDS {
                manifests.clear();
            }
            manifests.insert(key, cached);
        }
    }

    fn put(&self, path: &Path, stamp: Stamp, size: u64, digest: Sha) {
        self.put_key(file_key(path, &stamp), stamp, size, digest);
    }

    /// [`Digests::put`] of a file whose stamp was taken from it open.
    #[cfg(unix)]
    fn put_opened(&self, stamp: Stamp, size: u64, digest: Sha) {
        self.put_key(stamp.inode, stamp, size, digest);
    }

    fn put_key(&self, key: FileKey, stamp: Stamp, size: u64, digest: Sha) {
        if let Ok(mut files) = self.shard(&key).lock() {
            if files.len() >= MAX_CACHED / SHARDS {
                files.clear();
            }
            files.insert(key, (stamp, size, digest));
        }
    }
}

/// What a URL of a skill is, hashed.
enum Hashed {
    File {
        size: u64,
        digest: Sha,
    },
    /// A directory, with its listing as the resolver writes it.
    Dir(Vec<u8>),
}

/// Reads `rel` (`[]`: the skill's own file) of the copy `skill` through
/// the library's resolver (`skill://<name>/<rel>`) and its guards, the
/// name looked up among this one skill: among every skill it is a linear
/// search, which made a listing of 10,000 skills take seconds.
pub(crate) fn resolve_in(
    skill: &Skill,
    rel: &[String],
    opts: ResolveOptions,
) -> Result<Resource, ResolveError> {
    let url = uri::library_url(&skill.name, rel);
    skillpipe::core::runtime::resolve_with(std::slice::from_ref(skill), &url, opts)
}

/// The size and digest of the file `rel` of `skill` (at most `max`
/// bytes), from `cache` when its stamp is what it was, else read through
/// the resolver and hashed; or a directory's listing. For what the walk
/// could not stamp itself: links, and whatever is not a plain file or
/// folder (the resolver refuses those, with the reason).
fn hash(skill: &Skill, rel: &[String], max: u64, cache: &Digests) -> Result<Hashed, ResolveError> {
    let skip = ResolveOptions {
        max_bytes: max,
        contents: Contents::Skip,
    };
    let looked = resolve_in(skill, rel, skip)?;
    if looked.is_dir {
        return Ok(Hashed::Dir(looked.content));
    }
    match Stamp::of(&looked.path) {
        Some(stamp) => hash_stamped(
            skill,
            rel,
            &looked.path,
            (stamp, Read::Resolver),
            max,
            cache,
        ),
        None => read_and_hash(skill, rel, max, cache, None),
    }
}

/// How a file that is not in the cache is read.
#[derive(Clone, Copy)]
enum Read<'a> {
    /// Opened by its path, nothing more: the skill's own file, stamped by
    /// the same path.
    Direct,
    /// Opened relative to the folder the walk stamped it in (refusing a
    /// link): any file of the skill's folder or below it.
    #[cfg_attr(not(unix), allow(dead_code))]
    At(&'a Folder, &'a str),
    /// Through the resolver, with all its guards.
    Resolver,
}

/// [`hash`] of a file whose stamp was just taken at `path` (where the
/// resolver finds `rel`): the cache's digest when the stamp is the one it
/// was hashed with, without a read (safe at any depth: a digest is only
/// given for the device and inode it was hashed from, a file found inside
/// the skill); else one read, as `how` says.
fn hash_stamped(
    skill: &Skill,
    rel: &[String],
    path: &Path,
    (stamp, how): (Stamp, Read<'_>),
    max: u64,
    cache: &Digests,
) -> Result<Hashed, ResolveError> {
    if stamp.len > max {
        return Err(ResolveError::TooLarge {
            path: path.to_owned(),
            size: stamp.len,
            max,
        });
    }
    if let Some((size, digest)) = cache.get(path, &stamp) {
        return Ok(Hashed::File { size, digest });
    }
    // Where there is no inode to tell the file opened from the one
    // stamped, the resolver reads it.
    #[cfg(unix)]
    {
        let file = match how {
            Read::Direct => skillpipe::core::fsio::open_nonblocking(path).ok(),
            Read::At(folder, name) => folder.open_file(name),
            Read::Resolver => None,
        };
        if let Some(file) = file
            && let Some(hashed) = read_stamped(file, stamp, max, cache)
        {
            return Ok(hashed);
        }
    }
    #[cfg(not(unix))]
    let _ = how;
    read_and_hash(skill, rel, max, cache, Some(stamp))
}

/// Reads and hashes the plain file `file`, opened where the walk stamped
/// it with `stamp`, without the resolver's walk of the skill's
/// folder for each file: the file opened must be the one stamped (the
/// same device and inode, whatever was swapped in since) and still a
/// plain file; it is read up to `max` bytes. `None` where that does not
/// hold (the file changed, it is too large): the resolver reads it then,
/// with its guards and its errors.
///
/// The digest is cached under `stamp` when that stamp is old enough to
/// trust ([`Stamp::racy`]): a write during the read gives the file a new
/// modification time, so a later stamp is another and never finds this
/// digest (no second `stat` is needed to tell).
#[cfg(unix)]
fn read_stamped(file: std::fs::File, stamp: Stamp, max: u64, cache: &Digests) -> Option<Hashed> {
    let (file, opened) = plain_and_stamp(file)?;
    if opened.inode != stamp.inode || opened.len > max {
        return None;
    }
    read_hash(&file, opened, max, cache)
}

/// Reads and hashes the plain file `file` whose stamp, taken from it
/// open, is `stamp`; cached under it when old enough to trust.
#[cfg(unix)]
fn read_hash(file: &std::fs::File, stamp: Stamp, max: u64, cache: &Digests) -> Option<Hashed> {
    // One read of the length stamped and a byte more, which for a plain
    // file is the whole file unless it grew (then the rest is read too).
    let len = usize::try_from(stamp.len).unwrap_or(0);
    READ_BUF.with_borrow_mut(|bytes| {
        let got = read_into(file, bytes, len, max)?;
        let size = got as u64;
        let digest = Sha::of(bytes.get(..got)?);
        if stamp.len == size && !stamp.racy() {
            cache.put_opened(stamp, size, digest);
        }
        Some(Hashed::File { size, digest })
    })
}

/// `file` with its stamp, taken from it open (a plain `fstat`: std's
/// metadata asks `statx` for every field), when it is a plain file.
#[cfg(unix)]
fn plain_and_stamp(file: std::fs::File) -> Option<(std::fs::File, Stamp)> {
    use rustix::fs::FileType;
    let st = rustix::fs::fstat(&file).ok()?;
    let plain = FileType::from_raw_mode(st.st_mode) == FileType::RegularFile;
    plain.then(|| (file, Stamp::from_stat(&st)))
}

/// [`hash`] of the plain file `rel`, open and stamped from the open file:
/// refused over `max` (`path` makes its path, for the error), the cache's
/// digest when the stamp is the one it was hashed with, else read and
/// hashed there; when that read is not the whole file stamped, the
/// resolver reads it.
#[cfg(unix)]
fn hash_opened(
    skill: &Skill,
    rel: &[String],
    (file, stamp): (&std::fs::File, Stamp),
    path: &dyn Fn() -> PathBuf,
    max: u64,
    cache: &Digests,
) -> Result<Hashed, ResolveError> {
    if stamp.len > max {
        return Err(ResolveError::TooLarge {
            path: path(),
            size: stamp.len,
            max,
        });
    }
    if let Some((size, digest)) = cache.get_opened(&stamp) {
        return Ok(Hashed::File { size, digest });
    }
    if let Some(hashed) = read_hash(file, stamp, max, cache) {
        return Ok(hashed);
    }
    read_and_hash(skill, rel, max, cache, Some(stamp))
}

#[cfg(any(target_os = "linux", target_os = "android"))]
thread_local! {
    /// The `getdents64` buffer of [`read_names`], for every folder this
    /// thread lists.
    static DIRENT_BUF: std::cell::RefCell<Vec<u8>> =
        std::cell::RefCell::new(Vec::with_capacity(16 * 1024));
}

#[cfg(unix)]
thread_local! {
    /// The bytes of the file being hashed, kept for the next (no
    /// allocation, no zeroed pages a file).
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads the plain file `file`, stamped `len` bytes long, into `bytes`
/// (its first bytes, however long it was before); how many, or `None`
/// past `max` or on an error.
#[cfg(unix)]
fn read_into(file: &std::fs::File, bytes: &mut Vec<u8>, len: usize, max: u64) -> Option<usize> {
    use std::io::Read as _;
    if bytes.len() < len + 1 {
        bytes.resize(len + 1, 0);
    }
    let mut got = 0;
    loop {
        match (&*file).read(&mut bytes[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
        if got < bytes.len().min(len + 1) && got >= len {
            // A short read of a plain file past its stamped length is its
            // end (short of it, the next read says whether it shrank).
            break;
        }
        if got as u64 > max {
            return None;
        }
        if got == bytes.len() {
            bytes.resize(bytes.len() * 2, 0);
        }
    }
    (got as u64 <= max).then_some(got)
}

/// Reads `rel` through the resolver and hashes it; cached when `before`
/// (its stamp before the read) is still its stamp after it.
fn read_and_hash(
    skill: &Skill,
    rel: &[String],
    max: u64,
    cache: &Digests,
    before: Option<Stamp>,
) -> Result<Hashed, ResolveError> {
    let read = resolve_in(
        skill,
        rel,
        ResolveOptions {
            max_bytes: max,
            contents: Contents::Read,
        },
    )?;
    if read.is_dir {
        return Ok(Hashed::Dir(read.content));
    }
    let size = read.content.len() as u64;
    let digest = Sha::of(&read.content);
    // Cached only when nothing changed while it was read.
    if let Some(stamp) = before
        && stamp.len == size
        && !stamp.racy()
        && Stamp::of(&read.path) == Some(stamp)
    {
        cache.put(&read.path, stamp, size, digest);
    }
    Ok(Hashed::File { size, digest })
}

/// The copy a manifest is made for: how the library addresses it, and
/// where its folder is (`None`: a skill that is one file, such as a pi
/// `name.md` beside other skills).
pub(crate) struct Source<'a> {
    /// The copy.
    pub skill: &'a Skill,
    /// The skill's folder, when the skill is one.
    pub folder: Option<&'a std::path::Path>,
    /// The URI root, for the notes.
    pub root: &'a uri::Root,
}

/// The manifest of `source`, or why its own file cannot be read (then it
/// is no skill the server can serve): the cached one while what it was
/// made from holds (on Unix), else a new walk's.
pub(crate) fn manifest(
    source: &Source<'_>,
    limits: Limits,
    cache: &Digests,
) -> Result<Arc<Cached>, ResolveError> {
    let key = ManifestKey::of(source);
    if cfg!(unix)
        && let Some(cached) = cache.manifest(&key, source, limits)
    {
        return Ok(cached);
    }
    let (manifest, deps) = walk(source, limits, cache)?;
    // Without an inode in a stamp, a file swapped for another of the same
    // size and time would not show: no manifest is cached there.
    let deps = deps.filter(|_| cfg!(unix));
    let cacheable = deps.is_some();
    let cached = Arc::new(Cached {
        manifest,
        limits,
        folder: source.folder.map(Path::to_owned),
        deps,
    });
    if cacheable {
        cache.put_manifest(key, Arc::clone(&cached));
    }
    Ok(cached)
}

/// A new walk's manifest of `source`, and the paths it depends on (`None`:
/// it cannot be cached).
fn walk(
    source: &Source<'_>,
    limits: Limits,
    cache: &Digests,
) -> Result<(Manifest, Option<Vec<Dep>>), ResolveError> {
    // The skill's own file is opened with links followed (as the resolver
    // does), and its stamp is taken the same way.
    let mut deps = Some(Vec::new());
    let path = &source.skill.file_path;
    // The folder is opened first, by its path; a skill that is its
    // `SKILL.md` (the usual case) then has the file opened in it.
    let root = source.folder.map(|at| (at, Folder::open_root(at)));
    let in_folder = match &root {
        Some((at, Ok((folder, _)))) if path.parent() == Some(*at) => Some(folder),
        _ => None,
    };
    let early = in_folder.and_then(|folder| own_in(source.skill, folder, limits.bytes, cache));
    let own = match early {
        Some((stamp, hashed)) => {
            depend(&mut deps, At::inside(uri::SKILL_MD.into()), stamp, true);
            hashed?
        }
        None => own_by_path(source, &mut deps, limits, cache)?,
    };
    let (size, digest) = match own {
        Hashed::File { size, digest } => (size, digest),
        Hashed::Dir(_) => {
            return Err(ResolveError::NotRegular(
                source.skill.file_path.to_path_buf(),
            ));
        }
    };
    let mut walk = Walk {
        source,
        limits,
        cache,
        total: size,
        dirs: 0,
        full: false,
        out: Manifest::default(),
        deps,
    };
    walk.out.files.push(File {
        rel: uri::SKILL_MD.to_owned(),
        size,
        digest,
    });
    if let Some((_, opened)) = root {
        // Stamped before it is read: a change while it is read shows.
        match opened {
            Ok((mut folder, stamp)) => {
                depend(&mut walk.deps, Some(At::Folder), stamp, true);
                let entries = walk.entries(&[], &mut folder);
                walk.visit(&[], entries, &folder);
            }
            Err(e) => walk.note(&[], &format!("the folder could not be listed ({e})")),
        }
    }
    // A manifest with notes is made afresh, so that what it left out is
    // looked at again.
    let deps = walk.deps.filter(|_| walk.out.notes.is_empty());
    Ok((walk.out, deps))
}

/// The skill's `SKILL.md` (`skill`'s file) opened in its open folder
/// (links followed, as the resolver opens it), stamped from the open file
/// and hashed: one open relative to the folder instead of a `stat` and an
/// `open` of its whole path. `None` where it is no plain file there, or
/// not on Unix: its path is taken then, which says why.
fn own_in(
    skill: &Skill,
    folder: &Folder,
    max: u64,
    cache: &Digests,
) -> Option<(Stamp, Result<Hashed, ResolveError>)> {
    #[cfg(not(unix))]
    {
        let _ = (skill, folder, max, cache);
        None
    }
    #[cfg(unix)]
    {
        use rustix::fs::{self as rfs, AtFlags, FileType, Mode};
        // Read by discovery already ([`Digests::hearing`]): its stamp,
        // taken as the open below takes it (links followed), is all the
        // file costs while it is what discovery read.
        if cache.heard.load(std::sync::atomic::Ordering::Relaxed)
            && let Ok(st) = rfs::statat(&folder.fd, uri::SKILL_MD, AtFlags::empty())
            && FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
        {
            let stamp = Stamp::from_stat(&st);
            if stamp.len <= max
                && let Some((size, digest)) = cache.get_opened(&stamp)
            {
                return Some((stamp, Ok(Hashed::File { size, digest })));
            }
        }
        let fd = rfs::openat(&folder.fd, uri::SKILL_MD, open_flags(), Mode::empty()).ok()?;
        let (file, stamp) = plain_and_stamp(std::fs::File::from(fd))?;
        let path = || skill.file_path.to_path_buf();
        Some((
            stamp,
            hash_opened(skill, &[], (&file, stamp), &path, max, cache),
        ))
    }
}

/// The skill's own file by its path, stamped by that path (a skill that
/// is no folder's `SKILL.md`, or one whose folder could not be opened).
fn own_by_path(
    source: &Source<'_>,
    deps: &mut Option<Vec<Dep>>,
    limits: Limits,
    cache: &Digests,
) -> Result<Hashed, ResolveError> {
    match std::fs::metadata(&source.skill.file_path) {
        Ok(meta) if meta.is_file() => {
            let path = &source.skill.file_path;
            let stamp = Stamp::from(&meta);
            // In the folder when the skill is one (its `SKILL.md`), so that
            // a warm listing stamps it relative to the folder it opened.
            let at = match source.folder {
                Some(folder) if path.parent() == Some(folder) => At::inside(uri::SKILL_MD.into()),
                _ => Some(At::Path(path.to_path_buf())),
            };
            depend(deps, at, stamp, true);
            hash_stamped(
                source.skill,
                &[],
                path,
                (stamp, Read::Direct),
                limits.bytes,
                cache,
            )
        }
        _ => {
            *deps = None;
            hash(source.skill, &[], limits.bytes, cache)
        }
    }
}

/// The segments `rel` joined by `/`, with room for one byte more: the NUL
/// that [`At::segments`] adds, which then costs no second allocation
/// (`[String]::join` sizes its string exactly, and `CString::new` grew it).
fn joined(rel: &[String]) -> String {
    let mut out = String::with_capacity(rel.iter().map(|s| s.len() + 1).sum());
    for (i, segment) in rel.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(segment);
    }
    out
}

/// [`depend`] on `rel` in the skill's folder, as the walk found it (not
/// through links).
fn depend_in(deps: &mut Option<Vec<Dep>>, rel: &[String], stamp: Stamp) {
    if deps.is_some() {
        depend(deps, At::segments(rel), stamp, false);
    }
}

/// Adds `at` with `stamp` to what a manifest depends on; a stamp too
/// recent to trust, or no `at` (a path that cannot be stamped), makes it
/// one that is not cached.
fn depend(deps: &mut Option<Vec<Dep>>, at: Option<At>, stamp: Stamp, follow: bool) {
    match (deps.as_mut(), at) {
        (Some(list), Some(at)) if !stamp.racy() => list.push(Dep { at, stamp, follow }),
        _ => *deps = None,
    }
}

/// What a folder's entry is, as its listing says (`Unknown`: the file
/// system does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Other,
    Unknown,
}

/// The names in `folder` (at most `most`; `true` when there were more),
/// each UTF-8 or, when not, in a lossy form, with its kind as listed.
#[allow(clippy::type_complexity)]
fn read_names(
    folder: &mut Folder,
    most: usize,
) -> std::io::Result<(Vec<(Result<String, String>, Kind)>, bool)> {
    let mut names = Vec::new();
    #[cfg(unix)]
    {
        use rustix::fs::FileType;
        let mut add = |raw: &[u8], file_type: FileType| {
            if raw == b"." || raw == b".." {
                return true;
            }
            if names.len() == most {
                return false;
            }
            let name = match std::str::from_utf8(raw) {
                Ok(name) => Ok(name.to_owned()),
                Err(_) => Err(String::from_utf8_lossy(raw).into_owned()),
            };
            let kind = match file_type {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Unknown => Kind::Unknown,
                _ => Kind::Other,
            };
            names.push((name, kind));
            true
        };
        // Linux: `getdents64` into this thread's buffer, kept from folder
        // to folder (rustix's `Dir` allocates and grows one for each).
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let more = DIRENT_BUF.with_borrow_mut(|buf| {
            let mut listing = rustix::fs::RawDir::new(&folder.fd, buf.spare_capacity_mut());
            while let Some(entry) = listing.next() {
                let entry = entry?;
                if !add(entry.file_name().to_bytes(), entry.file_type()) {
                    return Ok::<_, std::io::Error>(true);
                }
            }
            Ok(false)
        })?;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let more = 'listing: {
            for entry in rustix::fs::Dir::read_from(&folder.fd)? {
                let entry = entry?;
                if !add(entry.file_name().to_bytes(), entry.file_type()) {
                    break 'listing true;
                }
            }
            false
        };
        if more {
            return Ok((names, true));
        }
    }
    #[cfg(not(unix))]
    for entry in std::fs::read_dir(&folder.path)? {
        let Ok(entry) = entry else { continue };
        if names.len() == most {
            return Ok((names, true));
        }
        let name = entry
            .file_name()
            .into_string()
            .map_err(|raw| raw.to_string_lossy().into_owned());
        // Windows' listing may hold an old size: each file is looked at
        // by its path ([`Folder::kind_and_stamp`]).
        let kind = match entry.file_type() {
            Ok(t) if t.is_dir() => Kind::Dir,
            Ok(t) if t.is_file() => Kind::File,
            Ok(_) => Kind::Other,
            Err(_) => Kind::Unknown,
        };
        names.push((name, kind));
    }
    Ok((names, false))
}

/// What the walk saw of an entry by itself, without the resolver.
enum Seen {
    /// A folder that is no link: listed directly.
    Dir,
    /// A plain file that is no link, with its stamp (on Unix taken when it
    /// is opened: `None`): its digest comes from the cache when the stamp
    /// is the one it was hashed with.
    File(Option<Stamp>),
    /// Anything else (a link, a FIFO, a socket, a device, an entry below
    /// a linked folder or one that could not be looked at): the resolver
    /// looks at it, with its guards.
    Other,
}

/// Where a folder's entries came from.
enum Below {
    /// A folder reached through folders that are no links: its entries
    /// are looked at directly.
    Plain,
    /// A folder the resolver listed (a link to a folder in the skill):
    /// its entries go through the resolver too.
    Listed(Vec<u8>),
}

struct Walk<'a> {
    source: &'a Source<'a>,
    limits: Limits,
    cache: &'a Digests,
    /// Bytes listed so far.
    total: u64,
    /// Directories listed so far.
    dirs: usize,
    /// A limit was met: nothing more is listed.
    full: bool,
    out: Manifest,
    /// What the manifest depends on, while it can be cached.
    deps: Option<Vec<Dep>>,
}

impl Walk<'_> {
    /// The entries of `folder` (`dir` in the skill), but the skill's own
    /// file: a plain file's stamp is taken here, relative to the folder,
    /// so that a listing whose files did not change costs one `stat` a
    /// file and reads nothing (each file through the resolver cost about
    /// ten system calls, which made a warm `skills/list` of 10,000 skills
    /// take seconds).
    fn entries(&mut self, dir: &[String], folder: &mut Folder) -> Vec<(String, Seen)> {
        let most = self.limits.files.saturating_mul(8).max(4096);
        let mut names = Vec::new();
        match read_names(folder, most) {
            Ok((read, more)) => {
                names = read;
                if more {
                    self.note(
                        dir,
                        &format!("more than {most} entries: only {most} were looked at"),
                    );
                }
            }
            Err(e) => self.note(dir, &format!("the folder could not be listed ({e})")),
        }
        let mut entries = Vec::with_capacity(names.len());
        for (name, kind) in names {
            let name = match name {
                Ok(name) if dir.is_empty() && name == uri::SKILL_MD => continue,
                Ok(name) => name,
                Err(lossy) => {
                    let mut rel = dir.to_vec();
                    rel.push(lossy);
                    self.note(&rel, "left out: its name is not UTF-8");
                    continue;
                }
            };
            let seen = match kind {
                Kind::Dir => Seen::Dir,
                // Stamped when opened, which a read needs anyway (one
                // `stat` a file fewer on a first listing).
                Kind::File if cfg!(unix) => Seen::File(None),
                Kind::File | Kind::Unknown => match folder.kind_and_stamp(&name) {
                    Some((Kind::File, stamp)) => Seen::File(Some(stamp)),
                    Some((Kind::Dir, _)) if kind == Kind::Unknown => Seen::Dir,
                    _ => Seen::Other,
                },
                Kind::Other => Seen::Other,
            };
            entries.push((name, seen));
        }
        entries
    }

    /// Lists `entries` (of the directory `dir`) and what lies below them,
    /// in byte order, depth first.
    fn visit(&mut self, dir: &[String], mut entries: Vec<(String, Seen)>, folder: &Folder) {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        let skill = self.source.skill;
        // The entry's path in the skill: `dir` and its name, which each
        // entry moves in (no path made a file).
        let mut rel = Vec::with_capacity(dir.len() + 1);
        rel.extend_from_slice(dir);
        rel.push(String::new());
        for (name, seen) in entries {
            if self.full {
                return;
            }
            if uri::check_segment(&name).is_err() || name.contains('\u{fffd}') {
                continue;
            }
            if let Some(last) = rel.last_mut() {
                *last = name;
            }
            let budget = self.limits.bytes.saturating_sub(self.total);
            let hashed = match seen {
                Seen::Dir => Ok(None),
                Seen::File(None) => self.open_and_hash(folder, &rel, budget).map(Some),
                Seen::File(Some(stamp)) => {
                    let path = self.path(&rel);
                    depend_in(&mut self.deps, &rel, stamp);
                    let name = rel.last().map_or("", String::as_str);
                    let how = (stamp, Read::At(folder, name));
                    hash_stamped(skill, &rel, &path, how, budget, self.cache).map(Some)
                }
                Seen::Other => {
                    // Through the resolver: made afresh each time.
                    self.deps = None;
                    hash(skill, &rel, budget, self.cache).map(Some)
                }
            };
            let below = match hashed {
                Ok(None) => Below::Plain,
                Ok(Some(Hashed::Dir(listed))) => Below::Listed(listed),
                Ok(Some(Hashed::File { size, digest })) => {
                    if self.out.files.len() >= self.limits.files {
                        self.stop(&rel, &format!("more than {} files", self.limits.files));
                        return;
                    }
                    self.total += size;
                    let rel = joined(&rel);
                    self.out.files.push(File { rel, size, digest });
                    continue;
                }
                Err(ResolveError::TooLarge { size, .. }) => {
                    self.stop(
                        &rel,
                        &format!(
                            "{size} bytes would bring the skill over {} bytes",
                            self.limits.bytes
                        ),
                    );
                    return;
                }
                Err(e) => {
                    self.note(&rel, &format!("left out: {}", first_line(&e.to_string())));
                    continue;
                }
            };
            if rel.len() > self.limits.depth {
                self.note(&rel, "left out: nested too deep");
                continue;
            }
            if self.dirs >= self.limits.dirs {
                self.stop(&rel, &format!("more than {} folders", self.limits.dirs));
                return;
            }
            self.dirs += 1;
            match below {
                Below::Plain => {
                    let name = rel.last().map_or("", String::as_str);
                    match folder.open_child(name) {
                        Ok((mut child, stamp)) => {
                            depend_in(&mut self.deps, &rel, stamp);
                            let children = self.entries(&rel, &mut child);
                            self.visit(&rel, children, &child);
                        }
                        Err(e) => self.note(&rel, &format!("the folder could not be listed ({e})")),
                    }
                }
                Below::Listed(listed) => {
                    let children = listing(&listed)
                        .into_iter()
                        .map(|(name, _)| (name, Seen::Other))
                        .collect();
                    self.visit(&rel, children, folder);
                }
            }
        }
    }

    /// The size and digest of the plain file `rel` of `folder` (at
    /// `path`): opened (refusing a link), stamped open, from the cache
    /// when that stamp is the one it was hashed with, else read; anything
    /// but a plain file opened goes to the resolver, which says what it is.
    fn open_and_hash(
        &mut self,
        folder: &Folder,
        rel: &[String],
        max: u64,
    ) -> Result<Hashed, ResolveError> {
        let skill = self.source.skill;
        #[cfg(unix)]
        {
            let name = rel.last().map_or("", String::as_str);
            if let Some((file, stamp)) = folder.open_file(name).and_then(plain_and_stamp) {
                depend_in(&mut self.deps, rel, stamp);
                let path = || self.path(rel);
                return hash_opened(skill, rel, (&file, stamp), &path, max, self.cache);
            }
        }
        #[cfg(not(unix))]
        let _ = folder;
        self.deps = None;
        hash(skill, rel, max, self.cache)
    }

    /// Where `rel` is, as the resolver finds it: the skill's folder and
    /// the segments.
    fn path(&self, rel: &[String]) -> PathBuf {
        let mut path = self.source.skill.base_dir.to_path_buf();
        path.extend(rel);
        path
    }

    /// A limit was met at `rel`: it and everything after it are left out.
    fn stop(&mut self, rel: &[String], why: &str) {
        self.full = true;
        let listed = self.out.files.len();
        self.out.notes.push(format!(
            "over the per-skill limits ({why}): listed the first {listed} files ({} bytes); {} and the files after it in path order are left out",
            self.total,
            self.source.root.file_uri(rel),
        ));
    }

    fn note(&mut self, rel: &[String], what: &str) {
        // Bounded: a folder of a million unreadable entries is one note
        // per entry up to the file limit, then one more.
        if self.out.notes.len() < self.limits.files {
            self.out
                .notes
                .push(format!("{}: {what}", self.source.root.file_uri(rel)));
        }
    }
}

/// The entries of a directory listing as the resolver writes it (SPEC
/// §10: `name/` for a directory, then files, one per line; `(empty
/// directory)`), each with whether it is a directory.
pub(crate) fn listing(content: &[u8]) -> Vec<(String, bool)> {
    let text = String::from_utf8_lossy(content);
    if text == "(empty directory)" {
        return Vec::new();
    }
    text.lines()
        .map(|line| match line.strip_suffix('/') {
            Some(dir) => (dir.to_owned(), true),
            None => (line.to_owned(), false),
        })
        .filter(|(name, _)| !name.is_empty())
        .collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct read gives the bytes of the file the walk stamped, and
    /// nothing for another file put there since: a different file, a FIFO
    /// (without waiting on it), or one grown past the bound.
    #[cfg(unix)]
    #[test]
    fn a_direct_read_is_of_the_file_stamped_or_none() {
        let tree = skillpipe_testkit::Tree::new();
        tree.file("a.md", "alpha").file("b.md", "beta");
        let (a, b) = (tree.path("a.md"), tree.path("b.md"));
        let stamp =
            |p: &Path| Stamp::from(&std::fs::symlink_metadata(p).unwrap_or_else(|e| panic!("{e}")));
        let open =
            |p: &Path| skillpipe::core::fsio::open_nonblocking(p).unwrap_or_else(|e| panic!("{e}"));
        let cache = Digests::new();
        match read_stamped(open(&a), stamp(&a), 1024, &cache) {
            Some(Hashed::File { size, digest: d }) => {
                assert_eq!((size, d), (5, Sha::of(b"alpha")));
            }
            _ => panic!("the file stamped is read"),
        }
        assert!(
            read_stamped(open(&b), stamp(&a), 1024, &cache).is_none(),
            "another file"
        );
        assert!(
            read_stamped(open(&a), stamp(&a), 4, &cache).is_none(),
            "past the bound"
        );
        let was = stamp(&a);
        std::fs::remove_file(&a).unwrap_or_else(|e| panic!("{e}"));
        let made = std::process::Command::new("mkfifo").arg(&a).status();
        assert!(made.is_ok_and(|s| s.success()));
        assert!(
            read_stamped(open(&a), was, 1024, &cache).is_none(),
            "a FIFO now"
        );
    }

    /// A file read longer or shorter than its stamp said is read whole.
    #[cfg(unix)]
    #[test]
    fn a_read_takes_the_whole_file_whatever_its_stamp_said() {
        let tree = skillpipe_testkit::Tree::new();
        let body = "x".repeat(5000);
        tree.file("a.md", &body);
        let a = tree.path("a.md");
        let file = || skillpipe::core::fsio::open_nonblocking(&a).unwrap_or_else(|e| panic!("{e}"));
        let mut buf = Vec::new();
        for len in [0, 1, 4999, 5000, 5001, 9000] {
            assert_eq!(
                read_into(&file(), &mut buf, len, 1 << 20),
                Some(5000),
                "{len}"
            );
            assert_eq!(&buf[..5000], body.as_bytes());
        }
        assert_eq!(
            read_into(&file(), &mut buf, 10, 4999),
            None,
            "past the bound"
        );
    }

    /// The walk and a warm listing stamp the same file the same way,
    /// whether through `std` or a `stat` relative to a folder.
    #[cfg(unix)]
    #[test]
    fn a_stamp_is_the_same_from_std_and_from_a_stat() {
        let tree = skillpipe_testkit::Tree::new();
        tree.file("dir/a.md", "alpha");
        for rel in ["dir", "dir/a.md"] {
            let path = tree.path(rel);
            let std =
                Stamp::from(&std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{e}")));
            let st = rustix::fs::lstat(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(std, Stamp::from_stat(&st), "{rel}");
            let looked = Looked::open(&tree.path("")).unwrap_or_else(|e| panic!("{e}"));
            let Some(At::In(c_rel)) = At::inside(PathBuf::from(rel)) else {
                panic!("{rel} is a path in the folder")
            };
            assert_eq!(looked.stamp_of(&c_rel, false), Some(std), "{rel}");
        }
    }

    /// Below the skill's folder nothing is opened through a link: a
    /// folder or a file swapped for one is refused, not followed out.
    #[cfg(unix)]
    #[test]
    fn nothing_below_the_folder_is_opened_through_a_link() {
        let tree = skillpipe_testkit::Tree::new();
        tree.file("skill/sub/x.md", "x").file("outside/y.md", "y");
        std::os::unix::fs::symlink(tree.path("outside"), tree.path("skill/linked"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(tree.path("outside/y.md"), tree.path("skill/y.md"))
            .unwrap_or_else(|e| panic!("{e}"));
        let (root, _) = Folder::open_root(&tree.path("skill")).unwrap_or_else(|e| panic!("{e}"));
        assert!(root.open_child("sub").is_ok());
        assert!(root.open_child("linked").is_err(), "a link to a folder");
        assert!(root.open_file("y.md").is_none(), "a link to a file");
        assert_eq!(
            root.kind_and_stamp("linked").map(|k| k.0),
            Some(Kind::Other)
        );
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            Sha::of(b"").text(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            Sha::of(b"abc").text(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn listings_are_read_as_the_resolver_writes_them() {
        assert_eq!(listing(b"(empty directory)"), []);
        let entries = [
            ("refs".into(), true),
            ("SKILL.md".into(), false),
            ("run.sh".into(), false),
        ];
        assert_eq!(listing(b"refs/\nSKILL.md\nrun.sh"), entries);
    }
}
