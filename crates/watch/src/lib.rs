//! Live reload: a watcher that keeps a host's skill discovery current.
//!
//! ```no_run
//! use skillpipe::{Profile, Skillpipe};
//! use skillpipe_watch::{WatchOptions, Watcher};
//! # fn main() -> Result<(), skillpipe::Error> {
//! let skillpipe = Skillpipe::builder(Profile::Musepi).build()?;
//! let (watcher, events) = Watcher::channel(&skillpipe, WatchOptions::default())?;
//! let mut prompt = watcher.catalog();
//! for event in events {
//!     for skill in &event.added {
//!         println!("+{} ({})", skill.name, skill.file_path.display());
//!     }
//!     if let Some(catalog) = event.catalog {
//!         prompt = catalog; // the system prompt changed: rebuild the cache
//!     }
//! }
//! # let _ = prompt;
//! # Ok(()) }
//! ```
//!
//! The watcher watches everything discovery depends on: every root the
//! providers list (recursively), including roots that do not exist yet
//! (through their nearest existing ancestor, so `~/.claude/skills` created
//! after the start is picked up), the ignore files inside recursive roots,
//! the settings files of every layer, the Claude plugin index, the managed
//! skills, and the `.git` entries of the working directory and its
//! ancestors (one created, moved or removed moves the repository root: the
//! settings are read again and the project's roots follow). Events are gathered into bursts (a burst ends after
//! [`WatchOptions::debounce`] without an event); for each burst only the
//! roots it touched are read again, the pipeline's passes run again on
//! the cached findings of the others, and one [`Event`] goes out when the
//! skills, the diagnostics or the catalogue changed. A settings change
//! builds the pipeline again (the settings are read afresh and every root
//! is read again).
//!
//! Faults: a root deleted and created again, a folder renamed, a link
//! swapped, a file saved through a temporary file and a rename, a file
//! half-written when its event arrives (the next event fixes it), the
//! system's watch limit reached (the path is polled instead, with a
//! `watch-degraded` warning in every event's diagnostics): the watcher
//! keeps going, and its memory is bounded (a burst of more than 10,000
//! paths reads everything again instead of listing them).

/// The Rust examples of the README and of the user guide (`docs/src`),
/// compiled (and run, but for the watcher's endless loop) as doctests of
/// the crate that sees both the library and the watcher; `tests/readme.rs`
/// checks that every chapter with a Rust block is here.
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../../docs/src/library.md")]
    pub struct Library;
    #[doc = include_str!("../../../docs/src/live-reload.md")]
    pub struct LiveReload;
    #[doc = include_str!("../../../docs/src/providers.md")]
    pub struct Providers;
}

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;
use skillpipe::{CatalogUpdate, Diagnostic, Discovered, ReadTool, Skill, Skillpipe};

mod cache;
mod diff;
mod msg;
mod plan;
mod watches;
mod worker;

use msg::Msg;
use worker::{Request, Shared};

/// How a [`Watcher`] watches.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WatchOptions {
    /// A burst ends after this long without an event (default 100 ms).
    pub debounce: Duration,
    /// A burst that goes on longer than this is taken anyway (default 5 s).
    pub max_delay: Duration,
    /// How often a path that cannot be watched natively is polled (default
    /// 1 s).
    pub poll_interval: Duration,
    /// At most this many native watches (directories, on inotify) for this
    /// watcher; paths beyond are polled with a `watch-degraded` warning.
    /// Default: no budget of its own (the system's limit still applies, and
    /// is handled the same way).
    pub max_native_watches: Option<usize>,
    /// What the catalogue is rendered for (default: the model can read
    /// files).
    pub read_tool: ReadTool,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            poll_interval: Duration::from_secs(1),
            max_native_watches: None,
            read_tool: ReadTool::Available,
        }
    }
}

impl WatchOptions {
    /// [`WatchOptions::debounce`].
    #[must_use]
    pub fn debounce(mut self, quiet: Duration) -> Self {
        self.debounce = quiet;
        self
    }

    /// [`WatchOptions::max_delay`].
    #[must_use]
    pub fn max_delay(mut self, longest: Duration) -> Self {
        self.max_delay = longest;
        self
    }

    /// [`WatchOptions::poll_interval`].
    #[must_use]
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll_interval = every;
        self
    }

    /// [`WatchOptions::max_native_watches`].
    #[must_use]
    pub fn max_native_watches(mut self, watches: usize) -> Self {
        self.max_native_watches = Some(watches);
        self
    }

    /// [`WatchOptions::read_tool`].
    #[must_use]
    pub fn read_tool(mut self, read_tool: ReadTool) -> Self {
        self.read_tool = read_tool;
        self
    }
}

/// What one burst of changes did to discovery. Serialises as
/// `{"added": [skill…], "changed": [skill…], "removed": [skill…],
/// "diagnostics": [diagnostic…], "catalog": "…", "catalog_update": {…}}`
/// (skills and diagnostics as in `skillpipe list --json`; `catalog` and
/// `catalog_update` only when the catalogue changed).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Event {
    /// Names that were not there, with their skill.
    pub added: Vec<Skill>,
    /// Names whose winner changed: another file, provider, level or root,
    /// other fields, or its file was written (its body may differ).
    pub changed: Vec<Skill>,
    /// Names that are gone, with the skill they had.
    pub removed: Vec<Skill>,
    /// Every diagnostic of the discovery after the burst (not only new
    /// ones), then the watcher's own warnings (`watch-degraded`; settings
    /// that did not load, the previous ones staying in force).
    pub diagnostics: Vec<Diagnostic>,
    /// The catalogue ([`Discovered::catalog`]) when it changed: a host that
    /// caches its system prompt rebuilds it only then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// What changed in the catalogue, as a message a host appends to the
    /// conversation instead of rebuilding its system prompt
    /// ([`Discovered::catalog_update`], from the previous discovery), when
    /// the catalogue changed; its `rerender` says when rebuilding is
    /// better. `None` when the watcher renders for a host without a read
    /// tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog_update: Option<CatalogUpdate>,
}

/// A watcher's figures so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Discoveries run (the first included).
    pub runs: u64,
    /// Events sent.
    pub events: u64,
    /// Roots read from disk (the others were answered from the cache).
    pub roots_scanned: u64,
    /// How long the last update took, from the burst's end to the
    /// discovery published (marking, planning, discovery, comparing).
    pub last_update: Duration,
    /// Of which the discovery itself (the pipeline over the cached and the
    /// re-read roots).
    pub last_discovery: Duration,
    /// Requests waiting for a scan now.
    pub waiting: usize,
}

/// Keeps a discovery current. Stops when dropped (or with
/// [`Watcher::stop`]).
pub struct Watcher {
    shared: Arc<Shared>,
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// Starts watching what `skillpipe`'s discovery depends on; each event
    /// goes to `on_event`, on the watcher's thread (or on the thread of a
    /// [`Watcher::reload`] that found a change). The first discovery runs
    /// before this returns: [`Watcher::current`] has it. Fails only when
    /// the settings no longer load.
    pub fn start(
        skillpipe: &Skillpipe,
        options: WatchOptions,
        on_event: impl Fn(Event) + Send + Sync + 'static,
    ) -> Result<Watcher, skillpipe::Error> {
        let (tx, rx) = mpsc::channel();
        let watches = watches::Watches::new(
            tx.clone(),
            options.poll_interval,
            options.max_native_watches,
        );
        let shared = Arc::new(Shared::new(
            skillpipe.clone(),
            options,
            Box::new(on_event),
            watches,
        ));
        if let Err(e) = shared.request(Request::everything()) {
            shared.stop_watching();
            return Err(e);
        }
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("skillpipe-watch".into())
            .spawn(move || worker::run(worker, rx))
            .map_err(|e| {
                skillpipe::Error::Settings(skillpipe::SettingsError::Other(format!(
                    "cannot start the watcher's thread: {e}"
                )))
            })?;
        Ok(Watcher {
            shared,
            tx,
            thread: Some(thread),
        })
    }

    /// [`Watcher::start`] with the events on a channel.
    pub fn channel(
        skillpipe: &Skillpipe,
        options: WatchOptions,
    ) -> Result<(Watcher, Receiver<Event>), skillpipe::Error> {
        let (tx, rx) = mpsc::channel();
        let watcher = Watcher::start(skillpipe, options, move |e| {
            let _ = tx.send(e);
        })?;
        Ok((watcher, rx))
    }

    /// The current discovery (the last one published; no disk access).
    pub fn current(&self) -> Arc<Discovered> {
        self.shared.current_or_build()
    }

    /// The current catalogue ([`Discovered::catalog`] for
    /// [`WatchOptions::read_tool`]).
    pub fn catalog(&self) -> String {
        self.shared
            .published(|p| p.catalog.to_string())
            .unwrap_or_default()
    }

    /// The watcher's own warnings in force (`watch-degraded`, settings that
    /// did not load); every event's diagnostics end with them.
    pub fn warnings(&self) -> Vec<Diagnostic> {
        self.shared
            .published(|p| p.warnings.clone())
            .unwrap_or_default()
    }

    /// Reads everything again now (settings included), without waiting
    /// for an event, and sends an event if that changed anything. Calls
    /// made while a scan runs wait for the next one and share it: any
    /// number of concurrent calls cost at most two scans.
    pub fn reload(&self) -> Arc<Discovered> {
        self.shared
            .request(Request::everything())
            .unwrap_or_else(|_| self.shared.current_or_build())
    }

    /// The figures so far.
    pub fn stats(&self) -> Stats {
        let s = &self.shared;
        Stats {
            runs: s.runs.load(Ordering::Relaxed),
            events: s.events.load(Ordering::Relaxed),
            roots_scanned: s.roots_scanned.load(Ordering::Relaxed),
            last_update: Duration::from_micros(s.last_update_us.load(Ordering::Relaxed)),
            last_discovery: Duration::from_micros(s.last_discovery_us.load(Ordering::Relaxed)),
            waiting: s.waiting.load(Ordering::Relaxed),
        }
    }

    /// Stops watching and waits for the watcher's thread to end.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.shared.stop_watching();
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}
