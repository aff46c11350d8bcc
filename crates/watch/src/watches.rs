//! The watches themselves: native (inotify, FSEvents, ReadDirectoryChanges)
//! where the system allows, polling where it does not, each change of plan
//! applied as the difference from what is watched.
//!
//! A path the native watcher cannot take (the inotify watch limit reached,
//! or the host's budget [`crate::WatchOptions::max_native_watches`]) is
//! polled instead, with one `watch-degraded` warning for it: the watcher
//! never stops watching silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::{
    Config, ErrorKind, EventKindMask, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher as _,
};
use skillpipe::{Diagnostic, DiagnosticCode};

use crate::msg::Msg;
use crate::plan::Mode;

/// Which watcher holds a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Native,
    Poll,
}

#[derive(Debug)]
struct Held {
    mode: Mode,
    via: Via,
    /// Native watches it takes (directories), for the budget.
    cost: usize,
}

pub(crate) struct Watches {
    native: Option<RecommendedWatcher>,
    poll: Option<PollWatcher>,
    tx: Sender<Msg>,
    poll_interval: Duration,
    /// At most this many native watches (directories), when set.
    budget: Option<usize>,
    used: usize,
    held: BTreeMap<PathBuf, Held>,
    /// Paths that went to polling, with their warning; they stay polled.
    degraded: BTreeMap<PathBuf, Diagnostic>,
    /// Why there is no native watcher at all, when there is none.
    no_native: Option<Diagnostic>,
}

/// What a change of plan did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// Directories now watched recursively that were not before (or were
    /// watched again): what lies in them may have changed unseen.
    pub(crate) fresh: Vec<PathBuf>,
}

fn handler(tx: Sender<Msg>) -> impl Fn(notify::Result<notify::Event>) + Send + 'static {
    move |event: notify::Result<notify::Event>| {
        let keep = match &event {
            // Reads change nothing (the native watcher is not even asked
            // for them where it can be told); a write's close does.
            Ok(e) => match e.kind {
                notify::EventKind::Access(notify::event::AccessKind::Close(
                    notify::event::AccessMode::Write,
                )) => true,
                notify::EventKind::Access(_) => false,
                _ => true,
            },
            Err(_) => true,
        };
        if keep {
            let _ = tx.send(Msg::Fs(event));
        }
    }
}

impl Watches {
    pub(crate) fn new(tx: Sender<Msg>, poll_interval: Duration, budget: Option<usize>) -> Self {
        // Reads are no changes: asked for at all, every scan (which opens
        // the files it watches) would fill the kernel's queue.
        let config = Config::default().with_event_kinds(EventKindMask::CORE);
        let (native, no_native) = match RecommendedWatcher::new(handler(tx.clone()), config) {
            Ok(w) => (Some(w), None),
            Err(e) => {
                tracing::warn!("no native file watcher ({e}): polling every path");
                let d = Diagnostic::warning(
                    DiagnosticCode::WatchDegraded,
                    format!(
                        "no native file watcher ({e}): every path is polled every {} ms",
                        poll_interval.as_millis()
                    ),
                    PathBuf::new(),
                );
                (None, Some(d))
            }
        };
        Watches {
            native,
            poll: None,
            tx,
            poll_interval,
            budget,
            used: 0,
            held: BTreeMap::new(),
            degraded: BTreeMap::new(),
            no_native,
        }
    }

    /// The `watch-degraded` warnings in force.
    pub(crate) fn warnings(&self) -> Vec<Diagnostic> {
        self.no_native
            .iter()
            .chain(self.degraded.values())
            .cloned()
            .collect()
    }

    /// Applies the plan `want`; `stale` says which held paths must be
    /// watched afresh (they, or a directory above them, were deleted,
    /// created or renamed, or a link in them now points elsewhere).
    pub(crate) fn apply(
        &mut self,
        want: &BTreeMap<PathBuf, Mode>,
        stale: &dyn Fn(&Path) -> bool,
    ) -> Applied {
        let mut applied = Applied::default();
        let drop: Vec<PathBuf> = self
            .held
            .iter()
            .filter(|(p, h)| want.get(*p) != Some(&h.mode) || stale(p))
            .map(|(p, _)| p.clone())
            .collect();
        for p in drop {
            self.unwatch(&p);
        }
        for (path, mode) in want {
            if self.held.contains_key(path) {
                continue;
            }
            if self.watch(path, *mode) && *mode == Mode::Recursive {
                applied.fresh.push(path.clone());
            }
        }
        // A polled path no longer in the plan takes its warning along.
        self.degraded.retain(|p, _| want.contains_key(p));
        applied
    }

    /// Moves the native watches under `paths` (every recursive one when
    /// `paths` is empty) to polling: the system refused a watch for a
    /// directory created in them.
    pub(crate) fn degrade(&mut self, paths: &[PathBuf], reason: &str) -> Vec<PathBuf> {
        let hit: Vec<(PathBuf, Mode)> = self
            .held
            .iter()
            .filter(|(p, h)| {
                h.via == Via::Native
                    && if paths.is_empty() {
                        h.mode == Mode::Recursive
                    } else {
                        paths.iter().any(|q| q.starts_with(p))
                    }
            })
            .map(|(p, h)| (p.clone(), h.mode))
            .collect();
        for (p, mode) in &hit {
            self.unwatch(p);
            self.mark_degraded(p, reason);
            self.watch(p, *mode);
        }
        hit.into_iter().map(|(p, _)| p).collect()
    }

    fn mark_degraded(&mut self, path: &Path, reason: &str) {
        tracing::warn!("{}: {reason}; polling it", path.display());
        self.degraded.insert(
            path.to_path_buf(),
            Diagnostic::warning(
                DiagnosticCode::WatchDegraded,
                format!(
                    "{}: {reason}: polled every {} ms instead",
                    path.display(),
                    self.poll_interval.as_millis()
                ),
                path,
            ),
        );
    }

    /// Watches `path`; `false` when it could not be watched at all (it
    /// went away meanwhile: the plan after the next change has it right).
    fn watch(&mut self, path: &Path, mode: Mode) -> bool {
        let recursive = match mode {
            Mode::Flat => RecursiveMode::NonRecursive,
            Mode::Recursive => RecursiveMode::Recursive,
        };
        if self.native.is_some() && !self.degraded.contains_key(path) {
            let cost = match (self.budget, mode) {
                (None, _) => 0,
                (Some(_), Mode::Flat) => 1,
                (Some(_), Mode::Recursive) => count_dirs(path),
            };
            let over = self.budget.is_some_and(|b| self.used + cost > b);
            if over {
                self.mark_degraded(path, "over the native watch budget");
            } else if let Some(native) = self.native.as_mut() {
                match native.watch(path, recursive) {
                    Ok(()) => {
                        self.used += cost;
                        self.held.insert(
                            path.to_path_buf(),
                            Held {
                                mode,
                                via: Via::Native,
                                cost,
                            },
                        );
                        return true;
                    }
                    Err(e) if matches!(e.kind, ErrorKind::MaxFilesWatch) => {
                        // What it took before the refusal is given back.
                        let _ = native.unwatch(path);
                        self.mark_degraded(
                            path,
                            "the system's limit of watches is reached (fs.inotify.max_user_watches)",
                        );
                    }
                    Err(e) => {
                        tracing::debug!("cannot watch {}: {e}", path.display());
                        let _ = native.unwatch(path);
                        return false;
                    }
                }
            }
        }
        self.watch_polled(path, mode, recursive)
    }

    fn watch_polled(&mut self, path: &Path, mode: Mode, recursive: RecursiveMode) -> bool {
        if self.poll.is_none() {
            let config = Config::default().with_poll_interval(self.poll_interval);
            match PollWatcher::new(handler(self.tx.clone()), config) {
                Ok(p) => self.poll = Some(p),
                Err(e) => {
                    tracing::warn!("cannot poll: {e}");
                    return false;
                }
            }
        }
        let Some(poll) = self.poll.as_mut() else {
            return false;
        };
        match poll.watch(path, recursive) {
            Ok(()) => {
                self.held.insert(
                    path.to_path_buf(),
                    Held {
                        mode,
                        via: Via::Poll,
                        cost: 0,
                    },
                );
                true
            }
            Err(e) => {
                tracing::debug!("cannot poll {}: {e}", path.display());
                false
            }
        }
    }

    fn unwatch(&mut self, path: &Path) {
        let Some(h) = self.held.remove(path) else {
            return;
        };
        self.used = self.used.saturating_sub(h.cost);
        // Gone already (the directory was deleted): nothing to give back.
        let _ = match h.via {
            Via::Native => self.native.as_mut().map(|w| w.unwatch(path)),
            Via::Poll => self.poll.as_mut().map(|w| w.unwatch(path)),
        };
    }
}

/// The directories a recursive native watch of `path` takes (one watch
/// each on inotify): `path` and every directory under it, links followed
/// as the watcher follows them, loops cut.
fn count_dirs(path: &Path) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![path.to_path_buf()];
    let mut n = 0;
    while let Some(dir) = stack.pop() {
        let Ok(real) = std::fs::canonicalize(&dir) else {
            continue;
        };
        if !seen.insert(real) {
            continue;
        }
        n += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    n
}
