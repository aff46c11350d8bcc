//! The watcher's engine: bursts of file events gathered on its thread,
//! requests for a discovery served one scan at a time (requests that come
//! while one runs share the next), and the update itself: mark stale,
//! re-plan the watches, discover, compare, publish.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;
use std::time::Instant;

use notify::EventKind;
use notify::event::ModifyKind;
use skillpipe::core::pipeline::Reloaded;
use skillpipe::{
    CatalogUpdate, Diagnostic, DiagnosticCode, Discovered, ReadTool, RootItem, Skillpipe,
};

use crate::cache::{Cache, Cached, Reload};
use crate::diff::{Changes, changes};
use crate::msg::Msg;
use crate::plan::{self, Interest, Kind};
use crate::watches::Watches;
use crate::{Event, WatchOptions};

/// More changed paths than this in one burst: everything is read again
/// (memory stays bounded whatever the burst).
const MAX_PATHS: usize = 10_000;

/// What one discovery must take into account, merged over the requests it
/// serves.
#[derive(Debug, Default)]
pub(crate) struct Request {
    /// Paths events named.
    paths: BTreeSet<PathBuf>,
    /// Paths created, deleted or renamed (a watch on or under them may be
    /// stale).
    structural: BTreeSet<PathBuf>,
    /// Read everything again, settings included.
    all: bool,
    /// Paths (empty: every recursive watch) the system refused watches in.
    degrade: Option<Vec<PathBuf>>,
}

impl Request {
    pub(crate) fn everything() -> Self {
        Request {
            all: true,
            ..Request::default()
        }
    }

    fn add(&mut self, msg: notify::Result<notify::Event>) {
        match msg {
            Ok(event) => {
                if event.need_rescan() {
                    self.all = true;
                }
                let structural = matches!(
                    event.kind,
                    EventKind::Create(_)
                        | EventKind::Remove(_)
                        | EventKind::Modify(ModifyKind::Name(_))
                );
                for p in event.paths {
                    if self.paths.len() >= MAX_PATHS {
                        self.all = true;
                        break;
                    }
                    if structural {
                        self.structural.insert(p.clone());
                    }
                    self.paths.insert(p);
                }
            }
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                self.degrade.get_or_insert_with(Vec::new).extend(e.paths);
            }
            Err(e) => {
                // A lost watch or an unreadable queue: nothing is known for
                // sure any more.
                tracing::debug!("watcher error: {e}");
                self.all = true;
            }
        }
        if self.all {
            self.paths.clear();
            self.structural.clear();
        }
    }

    fn merge(&mut self, other: Request) {
        self.all |= other.all;
        if let Some(d) = other.degrade {
            self.degrade.get_or_insert_with(Vec::new).extend(d);
        }
        if self.all {
            self.paths.clear();
            self.structural.clear();
            return;
        }
        self.paths.extend(other.paths);
        self.structural.extend(other.structural);
        if self.paths.len() > MAX_PATHS {
            self.all = true;
            self.paths.clear();
            self.structural.clear();
        }
    }
}

/// What hosts read: the last discovery and its catalogue.
pub(crate) struct Published {
    pub(crate) discovered: Arc<Discovered>,
    pub(crate) catalog: Arc<str>,
    /// The watcher's own warnings (`watch-degraded`, settings that did not
    /// load), after the discovery's diagnostics in every event.
    pub(crate) warnings: Vec<Diagnostic>,
}

/// What only the updating thread touches.
struct State {
    /// The host's configuration, built again after a settings change.
    base: Skillpipe,
    /// It, with every provider cached.
    skillpipe: Skillpipe,
    cache: Arc<Cache>,
    interests: Vec<Interest>,
    /// The roots the providers listed for the last update.
    listed: Vec<(String, Vec<RootItem>)>,
    watches: Option<Watches>,
    /// Settings that did not load: the previous ones stay in force.
    settings_error: Option<Diagnostic>,
}

#[derive(Default)]
struct Flight {
    running: bool,
    /// The thread running it (a callback asking for a scan from inside
    /// one gets the current discovery instead of waiting on itself).
    runner: Option<ThreadId>,
    /// The requests waiting for the next scan, merged.
    pending: Option<Request>,
    /// The number of the next scan, and of the last one finished.
    next: u64,
    done: u64,
    waiting: usize,
}

pub(crate) struct Shared {
    options: WatchOptions,
    on_event: Box<dyn Fn(Event) + Send + Sync>,
    state: Mutex<State>,
    flight: Mutex<Flight>,
    finished: Condvar,
    published: Mutex<Option<Published>>,
    pub(crate) runs: AtomicU64,
    pub(crate) events: AtomicU64,
    pub(crate) roots_scanned: Arc<AtomicU64>,
    pub(crate) last_update_us: AtomicU64,
    pub(crate) last_discovery_us: AtomicU64,
    pub(crate) waiting: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn new(
        base: Skillpipe,
        options: WatchOptions,
        on_event: Box<dyn Fn(Event) + Send + Sync>,
        watches: Watches,
    ) -> Self {
        let roots_scanned = Arc::new(AtomicU64::new(0));
        let cache = Arc::new(Cache::new(Arc::clone(&roots_scanned)));
        Shared {
            options,
            on_event,
            state: Mutex::new(State {
                skillpipe: base.clone(),
                base,
                cache,
                interests: Vec::new(),
                listed: Vec::new(),
                watches: Some(watches),
                settings_error: None,
            }),
            flight: Mutex::new(Flight::default()),
            finished: Condvar::new(),
            published: Mutex::new(None),
            runs: AtomicU64::new(0),
            events: AtomicU64::new(0),
            roots_scanned,
            last_update_us: AtomicU64::new(0),
            last_discovery_us: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
        }
    }

    pub(crate) fn published<R>(&self, read: impl FnOnce(&Published) -> R) -> Option<R> {
        lock(&self.published).as_ref().map(read)
    }

    /// Stops every watch (the watchers' threads end with them).
    pub(crate) fn stop_watching(&self) {
        let watches = lock(&self.state).watches.take();
        drop(watches);
    }

    /// Serves `req` with one scan: that scan is shared by every request
    /// that arrives while another runs. Returns the discovery that took it
    /// into account, or an error from building the first one.
    pub(crate) fn request(&self, req: Request) -> Result<Arc<Discovered>, skillpipe::Error> {
        let mut f = lock(&self.flight);
        if f.runner == Some(std::thread::current().id()) {
            // Asked from an event callback: the scan is this thread's own.
            drop(f);
            return Ok(self.current_or_build());
        }
        match f.pending.as_mut() {
            Some(p) => p.merge(req),
            None => f.pending = Some(req),
        }
        let mine = f.next;
        f.waiting += 1;
        self.waiting.store(f.waiting, Ordering::Relaxed);
        let mut error = None;
        while f.done < mine + 1 {
            if f.running {
                f = self
                    .finished
                    .wait(f)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            // Ours is the next: run it, for every request merged into it.
            let batch = f.pending.take().unwrap_or_default();
            let number = f.next;
            f.next += 1;
            f.running = true;
            f.runner = Some(std::thread::current().id());
            drop(f);
            let outcome = self.update(batch);
            f = lock(&self.flight);
            f.running = false;
            f.runner = None;
            f.done = number + 1;
            self.finished.notify_all();
            if let Err(e) = outcome {
                error = Some(e);
            }
        }
        f.waiting -= 1;
        self.waiting.store(f.waiting, Ordering::Relaxed);
        drop(f);
        match error {
            Some(e) if lock(&self.published).is_none() => Err(e),
            _ => Ok(self.current_or_build()),
        }
    }

    /// The published discovery; before the first, one made now.
    pub(crate) fn current_or_build(&self) -> Arc<Discovered> {
        match self.published(|p| Arc::clone(&p.discovered)) {
            Some(d) => d,
            None => Arc::new(lock(&self.state).skillpipe.discover()),
        }
    }

    /// One update: what the changes touched is read again, the watches
    /// follow the plan, discovery runs, and an event goes out when the
    /// skills, the diagnostics or the catalogue changed.
    fn update(&self, req: Request) -> Result<(), skillpipe::Error> {
        let started = Instant::now();
        let mut st = lock(&self.state);
        let st = &mut *st;
        let first = lock(&self.published).is_none();
        tracing::trace!(paths = ?req.paths, all = req.all, "update");
        let mut rebuild = req.all;
        let mut relist = false;
        let mut stale = Vec::new();
        for p in &req.paths {
            match plan::classify(&st.interests, p) {
                Some(Kind::Settings) => rebuild = true,
                Some(Kind::Root) => stale.push(p.as_path()),
                Some(Kind::Input) => relist = true,
                None => {}
            }
        }
        let mut degraded = Vec::new();
        if let (Some(paths), Some(w)) = (&req.degrade, st.watches.as_mut()) {
            degraded = w.degrade(paths, "the system's limit of watches is reached");
        }
        if !(first || rebuild || relist || !stale.is_empty() || !degraded.is_empty()) {
            // Nothing discovery depends on.
            return Ok(());
        }

        if rebuild {
            let cache = Arc::new(Cache::new(Arc::clone(&self.roots_scanned)));
            let wrapped = {
                let c = Arc::clone(&cache);
                st.base
                    .rebuild_wrapped(&mut |p| Cached::wrap(p, Arc::clone(&c)))
            };
            match wrapped {
                Ok(sp) => {
                    st.skillpipe = sp;
                    st.cache = cache;
                    st.settings_error = None;
                }
                Err(e) if first => return Err(e),
                Err(e) => {
                    tracing::warn!("settings not reloaded: {e}");
                    let path = match &e {
                        skillpipe::Error::Settings(skillpipe::SettingsError::File {
                            path, ..
                        }) => path.clone(),
                        _ => PathBuf::new(),
                    };
                    st.settings_error = Some(Diagnostic::error(
                        DiagnosticCode::ReadError,
                        format!("settings not reloaded, the previous ones stay in force: {e}"),
                        path,
                    ));
                    // The roots are read again all the same.
                    st.cache.clear();
                }
            }
        }
        // Skill files changed in place, and nothing else: each is loaded
        // again alone, and the last discovery patched when that is what
        // discovery would give (`Discovered::patched`); else their roots
        // are read again.
        let in_place = !(first || rebuild || relist || stale.is_empty() || !degraded.is_empty())
            && stale.iter().all(|p| !req.structural.contains(*p));
        let mut real = RealPaths::default();
        let reloads = match in_place {
            true => {
                let changed: Vec<(&Path, Option<PathBuf>)> =
                    stale.iter().map(|p| (*p, real.of(p))).collect();
                st.cache.reload(&changed)
            }
            false => None,
        };
        let invalidate_stale = |st: &State, real: &mut RealPaths| {
            for p in &stale {
                st.cache.invalidate(p, real.of(p).as_deref());
            }
        };
        if reloads.is_none() {
            invalidate_stale(st, &mut real);
        }
        for p in &degraded {
            st.cache.invalidate(p, None);
        }

        // The plan: roots listed now, watched before they are read, so a
        // change after the read is seen.
        let listed = st.skillpipe.list_roots();
        let same_roots = listed == st.listed;
        st.interests = plan::interests(&listed, &st.skillpipe.watched_files());
        st.listed = listed;
        let want = plan::watches(&st.interests);
        tracing::debug!(?want, "watch plan");
        let mut fresh = false;
        if let Some(w) = st.watches.as_mut() {
            let structural = &req.structural;
            let applied = w.apply(&want, &|held| watch_is_stale(held, structural));
            for p in &applied.fresh {
                st.cache.invalidate(p, None);
            }
            fresh = !applied.fresh.is_empty();
        }

        let discovering = Instant::now();
        if let Some(reloads) = reloads {
            let warnings = self.warnings(st);
            let times = (started, discovering);
            if same_roots && !fresh && self.publish_patch(&reloads, &req.paths, warnings, times) {
                return Ok(());
            }
            // Read their roots, as a discovery without the cache would.
            invalidate_stale(st, &mut real);
        }
        st.cache.begin_run();
        let discovered = st.skillpipe.discover();
        st.cache.end_run();
        self.runs.fetch_add(1, Ordering::Relaxed);
        self.last_discovery_us
            .store(micros(discovering), Ordering::Relaxed);

        let catalog: Arc<str> = discovered.catalog(self.options.read_tool).into();
        let warnings = self.warnings(st);
        let discovered = Arc::new(discovered);
        let previous = lock(&self.published).replace(Published {
            discovered: Arc::clone(&discovered),
            catalog: Arc::clone(&catalog),
            warnings: warnings.clone(),
        });
        self.last_update_us
            .store(micros(started), Ordering::Relaxed);
        let Some(previous) = previous else {
            return Ok(());
        };
        let touched = |p: &Path| req.paths.contains(p);
        let c = changes(previous.discovered.skills(), discovered.skills(), &touched);
        let diagnostics_changed = previous.discovered.diagnostics() != discovered.diagnostics()
            || previous.warnings != warnings;
        let catalog_changed = previous.catalog != catalog;
        self.emit(
            c,
            &discovered,
            warnings,
            diagnostics_changed,
            catalog_changed.then_some(&catalog),
            || discovered.catalog_update(&previous.discovered),
        );
        Ok(())
    }

    /// The watcher's own warnings, after the discovery's in every event.
    fn warnings(&self, st: &State) -> Vec<Diagnostic> {
        let mut warnings = st
            .watches
            .as_ref()
            .map(Watches::warnings)
            .unwrap_or_default();
        warnings.extend(st.settings_error.clone());
        warnings
    }

    /// Publishes the last discovery with the files of `reloads` loaded
    /// again, when that is what a discovery would give (`false`: it is
    /// not, and nothing was published). The discovery is patched in place
    /// when no host holds it (else a copy), and the event's changes,
    /// catalogue and catalogue update come from the replaced skills alone.
    fn publish_patch(
        &self,
        reloads: &[Reload],
        paths: &BTreeSet<PathBuf>,
        warnings: Vec<Diagnostic>,
        (started, discovering): (Instant, Instant),
    ) -> bool {
        let files = || {
            reloads
                .iter()
                .map(|r| Reloaded {
                    pass: r.pass,
                    root: &r.root,
                    old: &r.old,
                    new: r.new.clone(),
                })
                .collect()
        };
        let mut published = lock(&self.published);
        let Some(p) = published.as_mut() else {
            return false;
        };
        let old_diagnostics = p.discovered.diagnostics().to_vec();
        let replaced = match Arc::get_mut(&mut p.discovered) {
            Some(mine) => mine.patch_in_place(files()),
            None => p.discovered.patched(files()).map(|(copy, replaced)| {
                p.discovered = Arc::new(copy);
                replaced
            }),
        };
        let Some(replaced) = replaced else {
            return false;
        };
        self.last_discovery_us
            .store(micros(discovering), Ordering::Relaxed);
        let discovered = Arc::clone(&p.discovered);
        let read_tool = self.options.read_tool;
        let catalog: Arc<str> = discovered
            .catalog_after(&p.catalog, &replaced, read_tool)
            .into();
        let catalog_changed = p.catalog != catalog;
        p.catalog = Arc::clone(&catalog);
        let warnings_changed = p.warnings != warnings;
        p.warnings.clone_from(&warnings);
        drop(published);
        self.last_update_us
            .store(micros(started), Ordering::Relaxed);

        // Only the files' skills can differ.
        let c = Changes {
            changed: (replaced.iter())
                .filter_map(|(i, old)| {
                    let new = discovered.skills().get(*i)?;
                    (old != new || paths.contains(new.file_path.as_path())).then(|| new.clone())
                })
                .collect(),
            ..Changes::default()
        };
        let diagnostics_changed = warnings_changed || old_diagnostics != discovered.diagnostics();
        self.emit(
            c,
            &discovered,
            warnings,
            diagnostics_changed,
            catalog_changed.then_some(&catalog),
            || discovered.catalog_update_after(&replaced),
        );
        true
    }

    /// Sends the event of an update, when anything changed; `catalog` is
    /// the new catalogue when it changed, and then, with a read tool,
    /// `catalog_update` makes the message a host appends instead.
    fn emit(
        &self,
        c: Changes,
        discovered: &Discovered,
        warnings: Vec<Diagnostic>,
        diagnostics_changed: bool,
        catalog: Option<&Arc<str>>,
        catalog_update: impl FnOnce() -> CatalogUpdate,
    ) {
        if c.added.is_empty()
            && c.changed.is_empty()
            && c.removed.is_empty()
            && !diagnostics_changed
            && catalog.is_none()
        {
            return;
        }
        let catalog_update = (catalog.is_some() && self.options.read_tool == ReadTool::Available)
            .then(catalog_update);
        let mut diagnostics = discovered.diagnostics().to_vec();
        diagnostics.extend(warnings);
        self.events.fetch_add(1, Ordering::Relaxed);
        (self.on_event)(Event {
            added: c.added,
            changed: c.changed,
            removed: c.removed,
            diagnostics,
            catalog: catalog.map(|c| c.to_string()),
            catalog_update,
        });
    }
}

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Whether the watch of `held` must be set up afresh: it, or a directory
/// above it, was created, deleted or renamed, or a link created in it may
/// lead somewhere the watch does not reach.
fn watch_is_stale(held: &Path, structural: &BTreeSet<PathBuf>) -> bool {
    structural.iter().any(|e| {
        held.starts_with(e)
            || (e.starts_with(held)
                && std::fs::symlink_metadata(e).is_ok_and(|m| m.file_type().is_symlink()))
    })
}

/// Where changed paths really are, each parent directory resolved once.
#[derive(Default)]
struct RealPaths {
    parents: HashMap<PathBuf, Option<PathBuf>>,
}

impl RealPaths {
    fn of(&mut self, path: &Path) -> Option<PathBuf> {
        let (parent, name) = (path.parent()?, path.file_name()?);
        let real = self
            .parents
            .entry(parent.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(parent).ok());
        real.as_ref().map(|r| r.join(name))
    }
}

/// The watcher's thread: gathers events into bursts (a burst ends after
/// `debounce` without an event, or `max_delay` after it began) and asks
/// for one update a burst.
pub(crate) fn run(shared: Arc<Shared>, rx: Receiver<Msg>) {
    let debounce = shared.options.debounce;
    let max_delay = shared.options.max_delay.max(debounce);
    loop {
        let mut req = Request::default();
        match rx.recv() {
            Ok(Msg::Fs(m)) => req.add(m),
            Ok(Msg::Stop) | Err(_) => return,
        }
        let began = Instant::now();
        loop {
            let left = max_delay.saturating_sub(began.elapsed());
            if left.is_zero() {
                break;
            }
            match rx.recv_timeout(debounce.min(left)) {
                Ok(Msg::Fs(m)) => req.add(m),
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => break,
            }
        }
        // The first update cannot fail after the start; later ones keep
        // the previous settings on an error.
        let _ = shared.request(req);
    }
}
