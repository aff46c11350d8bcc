//! The Python extension `skillpipe._native`: skillpipe in process for
//! Python host agents.
//!
//! The public Python API is the package around it (`python/skillpipe`),
//! which checks and converts the arguments, defines the exceptions and the
//! `asyncio` variants; its types are in `_native.pyi` and `__init__.py`.
//! This crate holds the objects a discovery gives (`found.rs`), the
//! watcher (`watch.rs`) and the conversions (`convert.rs`), over the
//! facade only. Every blocking call releases the interpreter (PyO3's
//! `Python::detach`) while Rust works; every failure is a Python
//! exception, never an abort.

mod convert;
mod found;
mod watch;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use skillpipe::{Profile, Skillpipe};

use crate::convert::{build_error, to_py};
use crate::found::{Discovered, Skill};

/// Settings, plugins and the pipeline, ready to discover (`Skillpipe` in
/// Python wraps it).
#[pyclass(module = "skillpipe._native", name = "Host", frozen)]
struct Host {
    inner: Skillpipe,
}

#[pymethods]
impl Host {
    /// Reads the settings and loads the plugins; `None` for `home`, `cwd`
    /// or `env` is the process's own.
    #[new]
    #[pyo3(signature = (profile, home, cwd, app_dir, config, set, env, skill_paths, no_skills, plugins))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        profile: &str,
        home: Option<PathBuf>,
        cwd: Option<PathBuf>,
        app_dir: Option<String>,
        config: Vec<PathBuf>,
        set: Vec<String>,
        env: Option<BTreeMap<String, String>>,
        skill_paths: Vec<PathBuf>,
        no_skills: bool,
        plugins: Vec<PathBuf>,
    ) -> PyResult<Self> {
        let profile: Profile = profile.parse().map_err(|e| build_error(py, &e))?;
        let built = py.detach(move || {
            let mut b = Skillpipe::builder(profile);
            if let Some(home) = home {
                b = b.home(home);
            }
            if let Some(cwd) = cwd {
                b = b.cwd(cwd);
            }
            if let Some(env) = env {
                b = b.env(env);
            }
            if let Some(dir) = app_dir {
                b = b.app_dir(dir);
            }
            for file in config {
                b = b.config(file);
            }
            for assignment in set {
                b = b.set(assignment);
            }
            b = b.skill_paths(skill_paths);
            if no_skills {
                b = b.no_skills();
            }
            for lib in plugins {
                b = b.plugin(lib);
            }
            b.build()
        });
        let inner = built.map_err(|e| build_error(py, &e))?;
        Ok(Host { inner })
    }

    /// `musepi` or `pi`.
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.profile().as_str()
    }

    /// The home directory the settings were read with.
    #[getter]
    fn home(&self) -> &OsStr {
        self.inner.home().as_os_str()
    }

    /// The project directory.
    #[getter]
    fn cwd(&self) -> &OsStr {
        self.inner.cwd().as_os_str()
    }

    /// The settings warnings, as `(code, message)` pairs.
    #[getter]
    fn warnings(&self) -> Vec<(String, String)> {
        self.inner
            .warnings()
            .iter()
            .map(|w| (w.code.to_owned(), w.message.clone()))
            .collect()
    }

    /// The skills that load (`all`: keeping every copy that did not, with
    /// its fate, as `list --all`).
    fn discover(&self, py: Python<'_>, all: bool) -> Discovered {
        let found = py.detach(|| match all {
            true => self.inner.discover_all(),
            false => self.inner.discover(),
        });
        Discovered::new(Arc::new(found), all)
    }

    /// The AGENTS.md files, nearest first (`context --json`).
    fn context_files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let files = py.detach(|| serde_json::to_value(self.inner.context_files()));
        to_py(py, &files.map_err(convert::internal)?)
    }

    /// A watcher over what discovery depends on.
    #[pyo3(signature = (debounce, read_tool))]
    fn watch(&self, py: Python<'_>, debounce: f64, read_tool: bool) -> PyResult<watch::Watcher> {
        watch::Watcher::start(py, &self.inner, debounce, read_tool)
    }
}

/// `validate PATH`: the Agent Skills check of one skill folder or
/// `SKILL.md`, with `skills-ref`'s rules and words: `(path, errors)`.
#[pyfunction]
fn validate(py: Python<'_>, path: PathBuf) -> (std::ffi::OsString, Vec<String>) {
    let v = py.detach(|| skillpipe::validate(&path));
    (v.path.into_os_string(), v.errors)
}

/// The ids of the built-in providers, sorted.
#[pyfunction]
fn builtin_providers() -> Vec<String> {
    skillpipe::builtin_provider_ids()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Host>()?;
    m.add_class::<Discovered>()?;
    m.add_class::<Skill>()?;
    m.add_class::<found::Diagnostic>()?;
    m.add_class::<found::Copy>()?;
    m.add_class::<found::Resource>()?;
    m.add_class::<watch::Watcher>()?;
    m.add_class::<watch::Event>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_providers, m)?)?;
    Ok(())
}
