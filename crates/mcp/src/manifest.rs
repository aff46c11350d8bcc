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

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
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
    /// Its path in the skill, decoded segments (`["SKILL.md"]` first).
    pub rel: Vec<String>,
    /// Its length in bytes.
    pub size: u64,
    /// `sha256:<64 lowercase hex digits>` of its bytes.
    pub digest: String,
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

/// The most files [`Digests`] remembers; past it, it starts again empty.
const MAX_CACHED: usize = 1 << 20;

/// What identifies a file's bytes without reading them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
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
        use std::os::unix::fs::MetadataExt as _;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: (meta.dev(), meta.ino()),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the file changed too recently for its stamp to be trusted.
    fn racy(&self) -> bool {
        let recent = |t: SystemTime| {
            SystemTime::now()
                .duration_since(t)
                .map_or(true, |d| d < RACY)
        };
        #[cfg(unix)]
        {
            let changed = u64::try_from(self.changed.0).ok().map(|s| {
                SystemTime::UNIX_EPOCH
                    + Duration::new(s, u32::try_from(self.changed.1).unwrap_or(0))
            });
            if changed.is_none_or(recent) {
                return true;
            }
        }
        self.modified.is_none_or(recent)
    }
}

/// The digests of the files hashed so far, by path and file stamp (size,
/// modification time and, on Unix, device, inode and change time): shared
/// by every discovery a server serves in turn.
#[derive(Debug, Default)]
pub struct Digests {
    files: Mutex<HashMap<PathBuf, (Stamp, u64, String)>>,
}

impl Digests {
    /// An empty cache.
    pub fn new() -> Digests {
        Digests::default()
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.lock().map(|f| f.len()).unwrap_or(0)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, path: &Path, stamp: &Stamp) -> Option<(u64, String)> {
        let files = self.files.lock().ok()?;
        let (had, size, digest) = files.get(path)?;
        (had == stamp).then(|| (*size, digest.clone()))
    }

    fn put(&self, path: PathBuf, stamp: Stamp, size: u64, digest: String) {
        if let Ok(mut files) = self.files.lock() {
            if files.len() >= MAX_CACHED {
                files.clear();
            }
            files.insert(path, (stamp, size, digest));
        }
    }
}

/// What a URL of a skill is, hashed.
enum Hashed {
    File {
        size: u64,
        digest: String,
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
    /// [`read_stamped`], nothing more: for the skill's own file and the
    /// plain files in its folder, stamped relative to what the resolver
    /// takes as the skill's folder at that moment.
    Direct,
    /// [`read_stamped`], where the file opened must also really be inside
    /// this folder (the skill's, canonical): for a file deeper down,
    /// stamped in a folder opened by path, which a link swapped in could
    /// have led out of the skill.
    Inside(&'a Path),
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
    let inside = match how {
        Read::Direct => None,
        Read::Inside(base) => Some(base),
        Read::Resolver => return read_and_hash(skill, rel, max, cache, Some(stamp)),
    };
    #[cfg(unix)]
    if let Some(hashed) = read_stamped(path, stamp, inside, max, cache) {
        return Ok(hashed);
    }
    #[cfg(not(unix))]
    let _ = inside;
    read_and_hash(skill, rel, max, cache, Some(stamp))
}

/// An entry's own metadata (a link's, not its target's): on Unix relative
/// to the folder being read (`fstatat`, no walk of the whole path); on
/// Windows by path, since a directory entry may hold an old size.
fn plain_metadata(entry: &std::fs::DirEntry) -> std::io::Result<std::fs::Metadata> {
    #[cfg(unix)]
    return entry.metadata();
    #[cfg(not(unix))]
    return std::fs::symlink_metadata(entry.path());
}

/// Reads and hashes the plain file at `path` that the walk stamped with
/// `stamp`, without the resolver's walk of the skill's folder for each
/// file: the file opened must be the one stamped (the same device and
/// inode, whatever was swapped in since), still a plain file and, with
/// `inside`, really in that folder; it is read up to `max` bytes. `None`
/// where that does not hold or cannot be told (the file changed, it could
/// not be opened, it is too large): the resolver reads it then, with its
/// guards and its errors.
#[cfg(unix)]
fn read_stamped(
    path: &Path,
    stamp: Stamp,
    inside: Option<&Path>,
    max: u64,
    cache: &Digests,
) -> Option<Hashed> {
    use std::io::Read as _;
    let file = skillpipe::core::fsio::open_nonblocking(path).ok()?;
    let meta = file.metadata().ok()?;
    let opened = Stamp::from(&meta);
    if opened.inode != stamp.inode || !meta.is_file() || opened.len > max {
        return None;
    }
    if let Some(base) = inside {
        let real = skillpipe::core::fsio::real_path_of(&file, path).ok()?;
        if !real.starts_with(base) {
            return None;
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len).unwrap_or(0));
    (&file)
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    let size = bytes.len() as u64;
    if size > max {
        return None;
    }
    let digest = digest(&bytes);
    let after = file.metadata().ok().map(|meta| Stamp::from(&meta));
    // Cached only when nothing changed since the walk stamped it.
    if after == Some(stamp) && stamp.len == size && !stamp.racy() {
        cache.put(path.to_owned(), stamp, size, digest.clone());
    }
    Some(Hashed::File { size, digest })
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
    let digest = digest(&read.content);
    // Cached only when nothing changed while it was read.
    if let Some(stamp) = before
        && stamp.len == size
        && !stamp.racy()
        && Stamp::of(&read.path) == Some(stamp)
    {
        cache.put(read.path, stamp, size, digest.clone());
    }
    Ok(Hashed::File { size, digest })
}

/// `sha256:<hex>` of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        let _ = write!(out, "{byte:02x}");
    }
    out
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
/// is no skill the server can serve).
pub(crate) fn manifest(
    source: &Source<'_>,
    limits: Limits,
    cache: &Digests,
) -> Result<Manifest, ResolveError> {
    // The skill's own file is opened by its path, links followed (as the
    // resolver does), so its stamp is taken the same way.
    let own = match std::fs::metadata(&source.skill.file_path) {
        Ok(meta) if meta.is_file() => {
            let path = &source.skill.file_path;
            hash_stamped(
                source.skill,
                &[],
                path,
                (Stamp::from(&meta), Read::Direct),
                limits.bytes,
                cache,
            )?
        }
        _ => hash(source.skill, &[], limits.bytes, cache)?,
    };
    let (size, digest) = match own {
        Hashed::File { size, digest } => (size, digest),
        Hashed::Dir(_) => {
            return Err(ResolveError::NotRegular(source.skill.file_path.clone()));
        }
    };
    let mut walk = Walk {
        source,
        limits,
        cache,
        total: size,
        dirs: 0,
        full: false,
        base: std::cell::OnceCell::new(),
        out: Manifest::default(),
    };
    walk.out.files.push(File {
        rel: vec![uri::SKILL_MD.to_owned()],
        size,
        digest,
    });
    if let Some(folder) = source.folder {
        let entries = walk.entries(&[], folder);
        walk.visit(&[], entries);
    }
    Ok(walk.out)
}

/// What the walk saw of an entry by itself, without the resolver.
enum Seen {
    /// A folder that is no link: listed directly.
    Dir,
    /// A plain file that is no link, with its stamp: its digest comes from
    /// the cache when the stamp is the one it was hashed with.
    File(Stamp),
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
    /// The skill's folder, canonical, once a file below it is read.
    base: std::cell::OnceCell<PathBuf>,
    out: Manifest,
}

impl Walk<'_> {
    /// The entries of the folder `path` (`dir` in the skill), but the
    /// skill's own file: a plain file's stamp is taken here, so that a
    /// listing whose files did not change costs one `lstat` a file and
    /// reads nothing (each file through the resolver cost about ten
    /// system calls, which made a warm `skills/list` of 10,000 skills
    /// take seconds).
    fn entries(&mut self, dir: &[String], path: &Path) -> Vec<(String, Seen)> {
        let read = match std::fs::read_dir(path) {
            Ok(read) => read,
            Err(e) => {
                self.note(dir, &format!("the folder could not be listed ({e})"));
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        let most = self.limits.files.saturating_mul(8).max(4096);
        for (i, entry) in read.enumerate() {
            if i == most {
                self.note(
                    dir,
                    &format!("more than {most} entries: only {most} were looked at"),
                );
                break;
            }
            let Ok(entry) = entry else { continue };
            let name = match entry.file_name().into_string() {
                Ok(name) if dir.is_empty() && name == uri::SKILL_MD => continue,
                Ok(name) => name,
                Err(raw) => {
                    let mut rel = dir.to_vec();
                    rel.push(raw.to_string_lossy().into_owned());
                    self.note(&rel, "left out: its name is not UTF-8");
                    continue;
                }
            };
            let seen = match entry.file_type() {
                Ok(kind) if kind.is_dir() => Seen::Dir,
                Ok(kind) if kind.is_file() => match plain_metadata(&entry) {
                    Ok(meta) if meta.is_file() => Seen::File(Stamp::from(&meta)),
                    _ => Seen::Other,
                },
                _ => Seen::Other,
            };
            entries.push((name, seen));
        }
        entries
    }

    /// Lists `entries` (of the directory `dir`) and what lies below them,
    /// in byte order, depth first.
    fn visit(&mut self, dir: &[String], mut entries: Vec<(String, Seen)>) {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        let skill = self.source.skill;
        for (name, seen) in entries {
            if self.full {
                return;
            }
            if uri::check_segment(&name).is_err() || name.contains('\u{fffd}') {
                continue;
            }
            let mut rel = dir.to_vec();
            rel.push(name);
            let budget = self.limits.bytes.saturating_sub(self.total);
            let hashed = match seen {
                Seen::Dir => Ok(None),
                Seen::File(stamp) => {
                    let path = self.path(&rel);
                    let how = if dir.is_empty() {
                        Read::Direct
                    } else {
                        let base = &skill.base_dir;
                        Read::Inside(
                            self.base
                                .get_or_init(|| skillpipe::core::paths::canonical(base)),
                        )
                    };
                    hash_stamped(skill, &rel, &path, (stamp, how), budget, self.cache).map(Some)
                }
                Seen::Other => hash(skill, &rel, budget, self.cache).map(Some),
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
            let children = match below {
                Below::Plain => {
                    let path = self.path(&rel);
                    self.entries(&rel, &path)
                }
                Below::Listed(listed) => listing(&listed)
                    .into_iter()
                    .map(|(name, _)| (name, Seen::Other))
                    .collect(),
            };
            self.visit(&rel, children);
        }
    }

    /// Where `rel` is, as the resolver finds it: the skill's folder and
    /// the segments.
    fn path(&self, rel: &[String]) -> PathBuf {
        let mut path = self.source.skill.base_dir.clone();
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
        let cache = Digests::new();
        match read_stamped(&a, stamp(&a), None, 1024, &cache) {
            Some(Hashed::File { size, digest: d }) => {
                assert_eq!((size, d), (5, digest(b"alpha")));
            }
            _ => panic!("the file stamped is read"),
        }
        assert!(
            read_stamped(&b, stamp(&a), None, 1024, &cache).is_none(),
            "another file"
        );
        assert!(
            read_stamped(&a, stamp(&a), None, 4, &cache).is_none(),
            "past the bound"
        );
        let root = skillpipe::core::paths::canonical(&tree.path(""));
        assert!(
            read_stamped(&a, stamp(&a), Some(&root), 1024, &cache).is_some(),
            "really inside the folder"
        );
        let elsewhere = root.join("elsewhere");
        assert!(
            read_stamped(&a, stamp(&a), Some(&elsewhere), 1024, &cache).is_none(),
            "not inside the folder"
        );
        let was = stamp(&a);
        std::fs::remove_file(&a).unwrap_or_else(|e| panic!("{e}"));
        let made = std::process::Command::new("mkfifo").arg(&a).status();
        assert!(made.is_ok_and(|s| s.success()));
        assert!(
            read_stamped(&a, was, None, 1024, &cache).is_none(),
            "a FIFO now"
        );
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            digest(b"abc"),
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
