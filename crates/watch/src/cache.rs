//! The caching decorator: each provider's `scan_root` answered from the
//! last scan of that root until a change marks it stale, so a discovery
//! after a change reads only the roots it touched while the pipeline's
//! passes (filters, dedup, order) run again on every root's findings; and
//! a skill file changed in place loaded again alone, its finding replaced
//! in its root's ([`Cache::reload`]), for the watcher to patch the last
//! discovery with.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use skillpipe::core::Found;
use skillpipe::core::provider::Pass;
use skillpipe::{DiscoveryContext, ProviderInfo, Root, RootItem, SkillProvider};

/// One root's last findings.
struct Entry {
    provider: String,
    root: Root,
    found: Arc<Vec<Found>>,
    /// For each finding, the [`key`] of its file's path and of its real
    /// path (0 for a diagnostic): a compact list to look a changed file up
    /// in, instead of ten thousand findings scattered over the heap.
    keys: Vec<(u64, u64)>,
    /// The provider that scanned it and the context it scanned with (its
    /// run's idle cores left out), to load one of its files again.
    scanner: Arc<dyn SkillProvider>,
    cx: Arc<DiscoveryContext>,
    /// The real directories its findings came from: the root's, and the
    /// folder of each skill file found outside it (through a link), so a
    /// change seen through another path to the same place marks it stale.
    real_dirs: Vec<PathBuf>,
    /// The run that last used it.
    used: u64,
}

/// The findings of every root, shared by the wrapped providers of one
/// pipeline and the watcher that marks them stale.
pub(crate) struct Cache {
    entries: Mutex<Vec<Entry>>,
    run: AtomicU64,
    /// Roots scanned (not answered from the cache), counted where the
    /// watcher keeps its figures.
    scans: Arc<AtomicU64>,
}

impl Cache {
    pub(crate) fn new(scans: Arc<AtomicU64>) -> Self {
        Cache {
            entries: Mutex::default(),
            run: AtomicU64::new(0),
            scans,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the start of a discovery; [`Cache::end_run`] drops the roots
    /// it did not use (gone from the plan), so memory follows the plan.
    pub(crate) fn begin_run(&self) {
        self.run.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn end_run(&self) {
        let run = self.run.load(Ordering::Relaxed);
        self.lock().retain(|e| e.used == run);
    }

    #[cfg(test)]
    fn scans(&self) -> u64 {
        self.scans.load(Ordering::Relaxed)
    }

    /// Forgets every root.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// Marks stale every root that `changed` (a path as an event named
    /// it) lies in, or that lies in it; `real` is where that path really
    /// is (its resolved parent joined with its name when it is gone).
    /// Returns how many roots it marked.
    pub(crate) fn invalidate(&self, changed: &Path, real: Option<&Path>) -> usize {
        let related = |a: &Path, b: &Path| a.starts_with(b) || b.starts_with(a);
        let mut entries = self.lock();
        let before = entries.len();
        entries.retain(|e| {
            let hit = related(changed, &e.root.path)
                || real.is_some_and(|r| e.real_dirs.iter().any(|d| related(r, d)));
            !hit
        });
        before - entries.len()
    }

    /// Loads again the skill files that `changed` names (each a path as an
    /// event named it, and where it really is): every cached finding of
    /// that file, by either path, is replaced in its root's findings by
    /// what its provider's [`SkillProvider::reload_file`] makes of it now.
    /// Returns each file's root, its provider's pass, and its old and new
    /// findings; `None` when some path is no finding's file, or its
    /// provider cannot load it alone (or it is no longer a candidate):
    /// then only scanning its root says what changed.
    pub(crate) fn reload(&self, changed: &[(&Path, Option<PathBuf>)]) -> Option<Vec<Reload>> {
        let mut entries = self.lock();
        let mut out = Vec::new();
        for (path, real) in changed {
            let before = out.len();
            let (by_path, by_real) = (key(path), real.as_deref().map_or(0, key));
            for e in entries.iter_mut() {
                let at: Vec<usize> = (e.keys.iter().enumerate())
                    .filter(|(_, (p, r))| *p == by_path || (by_real != 0 && *r == by_real))
                    .map(|(i, _)| i)
                    .filter(|&i| match &e.found[i] {
                        // As bytes: both paths were built the same way.
                        Found::Candidate {
                            path: p, real_path, ..
                        } => {
                            p.as_os_str() == path.as_os_str()
                                || real
                                    .as_ref()
                                    .is_some_and(|r| r.as_os_str() == real_path.as_os_str())
                        }
                        _ => false,
                    })
                    .collect();
                for i in at {
                    let Found::Candidate { path: found, .. } = &e.found[i] else {
                        continue;
                    };
                    let new = e.scanner.reload_file(&e.cx, &e.root, found)?;
                    // The cache holds the only reference between runs.
                    e.keys[i] = keys_of(&new);
                    let old = std::mem::replace(&mut Arc::make_mut(&mut e.found)[i], new.clone());
                    out.push(Reload {
                        pass: e.scanner.info().pass,
                        root: e.root.clone(),
                        old,
                        new,
                    });
                }
            }
            if out.len() == before {
                return None;
            }
        }
        Some(out)
    }

    fn get(&self, provider: &str, root: &Root) -> Option<Arc<Vec<Found>>> {
        let run = self.run.load(Ordering::Relaxed);
        let mut entries = self.lock();
        let e = entries
            .iter_mut()
            .find(|e| e.provider == provider && e.root == *root)?;
        e.used = run;
        Some(Arc::clone(&e.found))
    }

    fn put(
        &self,
        scanner: &Arc<dyn SkillProvider>,
        cx: &DiscoveryContext,
        root: &Root,
        found: Arc<Vec<Found>>,
    ) {
        let provider = &scanner.info().id;
        let real_root = std::fs::canonicalize(&root.path).unwrap_or_else(|_| root.path.clone());
        let mut real_dirs = vec![real_root];
        for f in found.iter() {
            if let Found::Candidate { real_path, .. } = f
                && let Some(dir) = real_path.parent()
                && !real_dirs.iter().any(|d| dir.starts_with(d))
            {
                real_dirs.push(dir.to_path_buf());
            }
        }
        let keys = found.iter().map(keys_of).collect();
        let entry = Entry {
            provider: provider.to_owned(),
            root: root.clone(),
            found,
            keys,
            scanner: Arc::clone(scanner),
            cx: Arc::new(DiscoveryContext {
                schedule: Default::default(),
                ..cx.clone()
            }),
            real_dirs,
            used: self.run.load(Ordering::Relaxed),
        };
        let mut entries = self.lock();
        entries.retain(|e| !(e.provider == *provider && e.root == *root));
        entries.push(entry);
    }
}

/// A path's key in [`Entry::keys`]: its length and its last bytes (where
/// the paths of one root differ), hashed; never 0.
fn key(path: &Path) -> u64 {
    let bytes = path.as_os_str().as_encoded_bytes();
    let tail = &bytes[bytes.len().saturating_sub(32)..];
    let hash = tail.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash ^ bytes.len() as u64) | 1
}

/// A finding's keys in [`Entry::keys`]: its file's path's and real path's.
fn keys_of(found: &Found) -> (u64, u64) {
    match found {
        Found::Candidate {
            path, real_path, ..
        } => (key(path), key(real_path)),
        _ => (0, 0),
    }
}

/// One skill file loaded again ([`Cache::reload`]).
pub(crate) struct Reload {
    pub(crate) pass: Pass,
    pub(crate) root: Root,
    pub(crate) old: Found,
    pub(crate) new: Found,
}

/// A provider whose `scan_root` answers from the [`Cache`] when it can.
#[derive(Debug)]
pub(crate) struct Cached {
    inner: Arc<dyn SkillProvider>,
    cache: Arc<Cache>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("roots", &self.lock().len())
            .finish_non_exhaustive()
    }
}

impl Cached {
    pub(crate) fn wrap(inner: Box<dyn SkillProvider>, cache: Arc<Cache>) -> Box<dyn SkillProvider> {
        Box::new(Cached {
            inner: Arc::from(inner),
            cache,
        })
    }
}

impl SkillProvider for Cached {
    fn info(&self) -> &ProviderInfo {
        self.inner.info()
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        self.inner.roots(cx)
    }

    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        let id = &self.inner.info().id;
        if let Some(found) = self.cache.get(id, root) {
            return found.as_ref().clone();
        }
        let found = self.inner.scan_root(cx, root);
        self.cache.scans.fetch_add(1, Ordering::Relaxed);
        // A failed call (a plugin's) is asked again next time.
        if !found.iter().any(|f| matches!(f, Found::Failed(_))) {
            let kept = Arc::new(found);
            self.cache.put(&self.inner, cx, root, Arc::clone(&kept));
            return Arc::try_unwrap(kept).unwrap_or_else(|shared| shared.as_ref().clone());
        }
        found
    }

    /// What it hands out from the cache never holds a failure.
    fn may_fail(&self) -> bool {
        self.inner.may_fail()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpipe::Level;

    #[derive(Debug)]
    struct Plain(ProviderInfo);

    impl SkillProvider for Plain {
        fn info(&self) -> &ProviderInfo {
            &self.0
        }
        fn roots(&self, _cx: &DiscoveryContext) -> Vec<RootItem> {
            Vec::new()
        }
    }

    fn skill(dir: &Path, name: &str, description: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n"),
        )
        .unwrap();
    }

    fn descriptions(found: &[Found]) -> Vec<String> {
        found
            .iter()
            .filter_map(|f| match f {
                Found::Candidate { candidate, .. } => {
                    candidate.skill.as_ref().map(|s| s.description.to_string())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_root_is_read_again_only_once_marked_stale() {
        let t = tempfile::tempdir().unwrap();
        let root_a = t.path().join("a");
        let root_b = t.path().join("b");
        skill(&root_a.join("x"), "x", "one");
        skill(&root_b.join("y"), "y", "one");
        let cache = Arc::new(Cache::new(Arc::default()));
        let p = Cached::wrap(
            Box::new(Plain(ProviderInfo::builtin("t", "T", 0))),
            Arc::clone(&cache),
        );
        let cx = DiscoveryContext::default();
        let (ra, rb) = (
            Root::new(&root_a, Level::User),
            Root::new(&root_b, Level::User),
        );
        cache.begin_run();
        assert_eq!(descriptions(&p.scan_root(&cx, &ra)), ["one"]);
        assert_eq!(descriptions(&p.scan_root(&cx, &rb)), ["one"]);
        assert_eq!(cache.scans(), 2);
        skill(&root_a.join("x"), "x", "two");
        skill(&root_b.join("y"), "y", "two");
        // Unmarked: the cached findings, no read.
        assert_eq!(descriptions(&p.scan_root(&cx, &ra)), ["one"]);
        assert_eq!(cache.scans(), 2);
        // A change inside a; b stays cached.
        assert_eq!(cache.invalidate(&root_a.join("x/SKILL.md"), None), 1);
        assert_eq!(descriptions(&p.scan_root(&cx, &ra)), ["two"]);
        assert_eq!(descriptions(&p.scan_root(&cx, &rb)), ["one"]);
        assert_eq!(cache.scans(), 3);
        // A change above a root (its parent renamed) marks it too.
        assert_eq!(cache.invalidate(t.path(), None), 2);
        // A root a run does not use is dropped at its end.
        cache.begin_run();
        assert_eq!(descriptions(&p.scan_root(&cx, &rb)), ["two"]);
        cache.end_run();
        assert_eq!(cache.lock().len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_change_seen_through_another_path_marks_the_root_that_links_there() {
        let t = tempfile::tempdir().unwrap();
        let shared = t.path().join("shared/x");
        skill(&shared, "x", "one");
        let root = t.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(&shared, root.join("x")).unwrap();
        let cache = Arc::new(Cache::new(Arc::default()));
        let p = Cached::wrap(
            Box::new(Plain(ProviderInfo::builtin("t", "T", 0))),
            Arc::clone(&cache),
        );
        let r = Root::new(&root, Level::User);
        p.scan_root(&DiscoveryContext::default(), &r);
        let other = t.path().join("elsewhere/x/SKILL.md");
        let real = shared.canonicalize().unwrap().join("SKILL.md");
        assert_eq!(cache.invalidate(&other, None), 0);
        assert_eq!(cache.invalidate(&other, Some(&real)), 1);
    }
}
