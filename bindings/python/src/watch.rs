//! Live reload for Python: a watcher whose events are read by iterating
//! (`for event in watcher`), with a timeout (`next_event`), or from
//! `asyncio` (the package's `watch_async`, over `next_event`).
//!
//! Waiting releases the interpreter and wakes every 100 ms to let Python
//! handle signals (Ctrl+C raises `KeyboardInterrupt` in the waiting
//! thread) and to see `close()` from another thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use skillpipe_watch::WatchOptions;

use crate::convert::{build_error, json_py};
use crate::found::{Diagnostic, Discovered, Skill};

/// How long one wait lasts before Python gets a look in.
const SLICE: Duration = Duration::from_millis(100);

/// A watcher over everything the discovery depends on.
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Watcher {
    watcher: Mutex<Option<skillpipe_watch::Watcher>>,
    events: Mutex<Receiver<skillpipe_watch::Event>>,
    closed: AtomicBool,
}

impl Watcher {
    pub(crate) fn start(
        py: Python<'_>,
        skillpipe: &skillpipe::Skillpipe,
        debounce: f64,
        read_tool: bool,
    ) -> PyResult<Watcher> {
        let quiet = Duration::try_from_secs_f64(debounce).map_err(|_| {
            PyValueError::new_err(format!(
                "debounce must be a number of seconds, 0 or more, not {debounce}"
            ))
        })?;
        let options = WatchOptions::default()
            .debounce(quiet)
            .read_tool(crate::found::read_tool(read_tool));
        let started = py.detach(|| skillpipe_watch::Watcher::channel(skillpipe, options));
        let (watcher, events) = started.map_err(|e| build_error(py, &e))?;
        Ok(Watcher {
            watcher: Mutex::new(Some(watcher)),
            events: Mutex::new(events),
            closed: AtomicBool::new(false),
        })
    }

    /// The watcher, unless closed.
    fn with<T>(&self, f: impl FnOnce(&skillpipe_watch::Watcher) -> T) -> PyResult<T> {
        let guard = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        match guard.as_ref() {
            Some(w) => Ok(f(w)),
            None => Err(PyValueError::new_err("the watcher is closed")),
        }
    }
}

#[pymethods]
impl Watcher {
    /// The next event, waiting at most `timeout` seconds (`None`: until
    /// one comes); `None` on timeout or once the watcher is closed.
    #[pyo3(signature = (timeout=None))]
    fn next_event(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Event>> {
        let deadline = match timeout {
            None => None,
            Some(t) => Some(
                Instant::now()
                    + Duration::try_from_secs_f64(t).map_err(|_| {
                        PyValueError::new_err(format!(
                            "timeout must be a number of seconds, 0 or more, not {t}"
                        ))
                    })?,
            ),
        };
        loop {
            if self.closed.load(Ordering::Acquire) {
                return Ok(None);
            }
            let wait = match deadline {
                None => SLICE,
                Some(d) => d.saturating_duration_since(Instant::now()).min(SLICE),
            };
            let got = py.detach(|| {
                let rx = self.events.lock().unwrap_or_else(PoisonError::into_inner);
                rx.recv_timeout(wait)
            });
            match got {
                Ok(event) => return Ok(Some(Event { e: event })),
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
                Err(RecvTimeoutError::Timeout) => {
                    py.check_signals()?;
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(None);
                    }
                }
            }
        }
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Event>> {
        self.next_event(py, None)
    }

    /// Stops watching; iteration ends. Closing twice is fine.
    fn close(&self, py: Python<'_>) {
        self.closed.store(true, Ordering::Release);
        let taken = self
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(w) = taken {
            py.detach(|| w.stop());
        }
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    /// The current discovery (the last one published; no disk access).
    fn current(&self) -> PyResult<Discovered> {
        self.with(|w| Discovered::new(w.current(), false))
    }

    /// Reads everything again now and returns the discovery.
    fn reload(&self, py: Python<'_>) -> PyResult<Discovered> {
        let found = py.detach(|| self.with(|w| w.reload()))?;
        Ok(Discovered::new(found, false))
    }

    /// The current catalogue.
    #[getter]
    fn catalog(&self) -> PyResult<String> {
        self.with(skillpipe_watch::Watcher::catalog)
    }
}

/// What one burst of file changes changed.
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Event {
    e: skillpipe_watch::Event,
}

#[pymethods]
impl Event {
    /// Names that were not there, with their skill.
    #[getter]
    fn added(&self) -> Vec<Skill> {
        self.e.added.iter().cloned().map(Skill::own).collect()
    }

    /// Names whose winner changed, or whose file was written.
    #[getter]
    fn changed(&self) -> Vec<Skill> {
        self.e.changed.iter().cloned().map(Skill::own).collect()
    }

    /// Names that are gone, with the skill they had.
    #[getter]
    fn removed(&self) -> Vec<Skill> {
        self.e.removed.iter().cloned().map(Skill::own).collect()
    }

    /// Every diagnostic of the discovery after the burst, then the
    /// watcher's own warnings.
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.e
            .diagnostics
            .iter()
            .cloned()
            .map(Diagnostic::new)
            .collect()
    }

    /// The new catalogue when it changed, else `None`.
    #[getter]
    fn catalog(&self) -> Option<String> {
        self.e.catalog.clone()
    }

    /// What changed in the catalogue, as a message a host can append
    /// instead of rebuilding its system prompt; `None` when it did not.
    #[getter]
    fn catalog_update<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.e.catalog_update)
    }

    /// The event as `skillpipe watch --json` writes it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.e)
    }

    fn __repr__(&self) -> String {
        let names = |list: &[skillpipe::Skill]| {
            list.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "Event(added=[{}], changed=[{}], removed=[{}], {} diagnostics, catalog {})",
            names(&self.e.added),
            names(&self.e.changed),
            names(&self.e.removed),
            self.e.diagnostics.len(),
            if self.e.catalog.is_some() {
                "changed"
            } else {
                "unchanged"
            }
        )
    }
}
