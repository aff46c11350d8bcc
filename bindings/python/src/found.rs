//! What a discovery gives Python: the `Discovered` object, its skills,
//! diagnostics and copies that did not load, and `skill://` reads.
//!
//! A `Skill` is a handle into the discovery it came from (or an event's
//! own list): no field is copied until Python reads it, so a discovery of
//! 10,000 skills hands over 10,000 small objects and nothing else.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::Value;
use skillpipe::{Delivery, ReadTool};

use crate::convert::{internal, json_py, py_str, resolve_error, to_py};

/// Where a [`Skill`] handle's skill lives.
#[derive(Clone)]
pub(crate) enum SkillAt {
    /// The `i`th loaded skill of a discovery.
    Loaded(Arc<skillpipe::Discovered>, usize),
    /// A skill of its own (a copy that did not load, an event's skill).
    Own(Arc<skillpipe::Skill>),
}

impl SkillAt {
    fn get(&self) -> &skillpipe::Skill {
        match self {
            // In range: the handles are made from the discovery's own list.
            SkillAt::Loaded(found, i) => &found.skills()[*i],
            SkillAt::Own(skill) => skill,
        }
    }
}

/// One loaded skill (or a copy's skill).
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Skill {
    at: SkillAt,
}

impl Skill {
    pub(crate) fn own(skill: skillpipe::Skill) -> Self {
        Skill {
            at: SkillAt::Own(Arc::new(skill)),
        }
    }

    fn skill(&self) -> &skillpipe::Skill {
        self.at.get()
    }
}

#[pymethods]
impl Skill {
    /// The skill name (frontmatter `name`, else the folder or file stem).
    #[getter]
    fn name(&self) -> &str {
        &self.skill().name
    }

    /// The description (`""` where the root does not require one).
    #[getter]
    fn description(&self) -> &str {
        &self.skill().description
    }

    /// The skill file as found (absolute, not canonicalised).
    #[getter]
    fn file_path(&self) -> &OsStr {
        self.skill().file_path.as_os_str()
    }

    /// The directory relative references resolve against.
    #[getter]
    fn base_dir(&self) -> &OsStr {
        self.skill().base_dir.as_os_str()
    }

    /// The provider that found it: `claude`, `codex`, `custom`, `path`, …
    #[getter]
    fn provider(&self) -> &str {
        &self.skill().source.provider
    }

    /// `user`, `project` or `path`.
    #[getter]
    fn level(&self) -> &'static str {
        self.skill().source.level.as_str()
    }

    /// The root directory scanned; `None` for a file named as a path.
    #[getter]
    fn root(&self) -> Option<&OsStr> {
        self.skill().source.root.as_deref().map(Path::as_os_str)
    }

    /// `True` keeps it out of the catalogue (it still expands and resolves).
    #[getter]
    fn hidden(&self) -> bool {
        self.skill().hidden
    }

    /// Whether the user may call it as `/skill:<name>`.
    #[getter]
    fn user_invocable(&self) -> bool {
        self.skill().user_invocable()
    }

    /// The frontmatter mapping, keys as written.
    #[getter]
    fn frontmatter<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.skill().frontmatter)
    }

    /// Claude Code's invocation fields (`allowed-tools`, `arguments`, …)
    /// as typed, or `None`.
    #[getter]
    fn invocation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.skill().invocation)
    }

    /// How the settings show it: `on`, `name-only`, `user-only`.
    #[getter]
    fn visibility<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.skill().visibility)
    }

    /// The skill as `skillpipe list --json` writes it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, self.skill())
    }

    fn __repr__(&self) -> String {
        let s = self.skill();
        format!(
            "Skill(name={}, provider={}, level={}, file_path={})",
            py_str(&s.name),
            py_str(&s.source.provider),
            py_str(s.source.level.as_str()),
            py_str(&s.file_path.to_string_lossy())
        )
    }
}

/// A finding about a file: why it is not a skill, or what is odd in it.
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Diagnostic {
    d: skillpipe::Diagnostic,
}

impl Diagnostic {
    pub(crate) fn new(d: skillpipe::Diagnostic) -> Self {
        Diagnostic { d }
    }
}

#[pymethods]
impl Diagnostic {
    /// `error` (the file did not become a skill) or `warning`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.d.severity.as_str()
    }

    /// A stable code: `yaml-error`, `collision`, `missing-description`, …
    #[getter]
    fn code(&self) -> &str {
        self.d.code.as_str()
    }

    /// The text.
    #[getter]
    fn message(&self) -> &str {
        &self.d.message
    }

    /// The file or directory it is about.
    #[getter]
    fn path(&self) -> &OsStr {
        self.d.path.as_os_str()
    }

    /// The 1-based line, where known.
    #[getter]
    fn line(&self) -> Option<u32> {
        self.d.line
    }

    /// The 1-based column, where known.
    #[getter]
    fn column(&self) -> Option<u32> {
        self.d.column
    }

    /// The diagnostic as `skillpipe list --json` writes it (a collision
    /// names its winner and loser).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.d)
    }

    fn __repr__(&self) -> String {
        let at = match (self.d.line, self.d.column) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            (Some(l), None) => format!(":{l}"),
            _ => String::new(),
        };
        format!(
            "Diagnostic({} [{}] {}{at}: {})",
            self.d.severity.as_str(),
            self.d.code.as_str(),
            self.d.path.to_string_lossy(),
            py_str(&self.d.message)
        )
    }
}

/// A copy of a skill that did not load, and why (its fate).
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Copy {
    skill: Py<Skill>,
    copy: skillpipe::ShadowedCopy,
}

#[pymethods]
impl Copy {
    /// The copy, as it would have loaded.
    #[getter]
    fn skill(&self, py: Python<'_>) -> Py<Skill> {
        self.skill.clone_ref(py)
    }

    /// Why it did not load: `{"fate": "shadowed", "by": …}`, `{"fate":
    /// "removed", "setting": …, "reason": …}`, as `list --all --json`.
    #[getter]
    fn fate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &self.copy.fate)
    }

    /// The row of `removed` in `skillpipe list --all --json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &skillpipe::RemovedRow::new(&self.copy))
    }

    fn __repr__(&self) -> String {
        let fate = serde_json::to_value(&self.copy.fate)
            .ok()
            .and_then(|v| v.get("fate").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        format!(
            "Copy(name={}, fate={}, file_path={})",
            py_str(&self.copy.skill.name),
            py_str(&fate),
            py_str(&self.copy.skill.file_path.to_string_lossy())
        )
    }
}

/// A `skill://` read: the bytes and what they are.
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Resource {
    r: skillpipe::Resource,
}

#[pymethods]
impl Resource {
    /// The file or directory read.
    #[getter]
    fn path(&self) -> &OsStr {
        self.r.path.as_os_str()
    }

    /// `text/markdown`, `application/json`, `text/plain`, …
    #[getter]
    fn content_type(&self) -> &str {
        &self.r.content_type
    }

    /// A directory: `content` is its listing.
    #[getter]
    fn is_dir(&self) -> bool {
        self.r.is_dir
    }

    /// The bytes.
    #[getter]
    fn content<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.r.content)
    }

    /// The bytes as UTF-8 text (`UnicodeDecodeError` where they are not).
    #[getter]
    fn text(&self, py: Python<'_>) -> PyResult<String> {
        match std::str::from_utf8(&self.r.content) {
            Ok(text) => Ok(text.to_owned()),
            Err(e) => Err(PyErr::from_value(
                pyo3::exceptions::PyUnicodeDecodeError::new_utf8(py, &self.r.content, e)?
                    .into_any(),
            )),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Resource(path={}, content_type={}, is_dir={}, {} bytes)",
            py_str(&self.r.path.to_string_lossy()),
            py_str(&self.r.content_type),
            if self.r.is_dir { "True" } else { "False" },
            self.r.content.len()
        )
    }
}

/// A discovery: the skills that loaded, the diagnostics, and the runtime
/// calls on them (catalogue, expansion, reads, commands, explain).
#[pyclass(module = "skillpipe", frozen)]
pub(crate) struct Discovered {
    found: Arc<skillpipe::Discovered>,
    /// `discover_all()`: the document has `removed`, as `list --all`.
    all: bool,
}

impl Discovered {
    pub(crate) fn new(found: Arc<skillpipe::Discovered>, all: bool) -> Self {
        Discovered { found, all }
    }
}

/// `read_tool=` as the library says it.
pub(crate) fn read_tool(available: bool) -> ReadTool {
    if available {
        ReadTool::Available
    } else {
        ReadTool::Absent
    }
}

fn copies(py: Python<'_>, list: &[skillpipe::ShadowedCopy]) -> PyResult<Vec<Copy>> {
    list.iter()
        .map(|c| {
            Ok(Copy {
                skill: Py::new(py, Skill::own(c.skill.clone()))?,
                copy: c.clone(),
            })
        })
        .collect()
}

#[pymethods]
impl Discovered {
    /// The skills that loaded, in pipeline order.
    #[getter]
    fn skills(&self) -> Vec<Skill> {
        (0..self.found.skills().len())
            .map(|i| Skill {
                at: SkillAt::Loaded(Arc::clone(&self.found), i),
            })
            .collect()
    }

    /// Every diagnostic, in the order the pipeline met the files.
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.found
            .diagnostics()
            .iter()
            .cloned()
            .map(Diagnostic::new)
            .collect()
    }

    /// The copies that lost a name collision.
    #[getter]
    fn shadowed(&self, py: Python<'_>) -> PyResult<Vec<Copy>> {
        copies(py, self.found.shadowed())
    }

    /// The copies that settings removed (`skills.visibility: off`, ignore
    /// patterns, a switched-off source).
    #[getter]
    fn removed(&self, py: Python<'_>) -> PyResult<Vec<Copy>> {
        copies(py, self.found.removed())
    }

    /// The settings' profile: `musepi` or `pi`.
    #[getter]
    fn profile(&self) -> &str {
        &self.found.skillpipe().settings().profile_name
    }

    fn __len__(&self) -> usize {
        self.found.skills().len()
    }

    fn __contains__(&self, name: &Bound<'_, PyAny>) -> bool {
        let Ok(name) = name.cast::<pyo3::types::PyString>() else {
            return false;
        };
        let Ok(name) = name.to_cow() else {
            return false;
        };
        self.found.skills().iter().any(|s| s.name == *name)
    }

    /// The skill that loaded under `name`, or `None`.
    fn get(&self, name: &str) -> Option<Skill> {
        let i = self.found.skills().iter().position(|s| s.name == name)?;
        Some(Skill {
            at: SkillAt::Loaded(Arc::clone(&self.found), i),
        })
    }

    /// The system-prompt catalogue, in the profile's format, for a model
    /// that can read files (`read_tool`) or not, within `budget`
    /// characters (`None`: the `skills.catalogBudget` setting; `0`: none).
    #[pyo3(signature = (read_tool=true, budget=None))]
    fn catalog(&self, py: Python<'_>, read_tool: bool, budget: Option<usize>) -> String {
        let tool = self::read_tool(read_tool);
        py.detach(|| match budget {
            None => self.found.catalog(tool),
            Some(chars) => self.found.fit_catalog(tool, Some(chars)).text,
        })
    }

    /// `/skill:<name> args` expanded as `skillpipe expand --json` writes it.
    #[pyo3(signature = (text, delivery="prompt"))]
    fn expand<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        delivery: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let delivery = match delivery {
            "prompt" => Delivery::Prompt,
            "steer" => Delivery::Steer,
            "follow-up" | "follow_up" => Delivery::FollowUp,
            other => {
                return Err(PyValueError::new_err(format!(
                    "delivery must be \"prompt\", \"steer\" or \"follow-up\", not {other:?}"
                )));
            }
        };
        let expansion = py.detach(|| serde_json::to_value(self.found.expand(text, delivery)));
        to_py(py, &expansion.map_err(internal)?)
    }

    /// A `skill://<name>/<file>` read, confined to the skill's folder.
    fn resolve(&self, py: Python<'_>, url: &str) -> PyResult<Resource> {
        match py.detach(|| self.found.resolve(url)) {
            Ok(r) => Ok(Resource { r }),
            Err(e) => Err(resolve_error(py, &e)),
        }
    }

    /// The slash commands (`all`: with those hidden from the menu).
    #[pyo3(signature = (all=false))]
    fn commands<'py>(&self, py: Python<'py>, all: bool) -> PyResult<Bound<'py, PyAny>> {
        let list = match all {
            true => self.found.all_commands(),
            false => self.found.commands(),
        };
        json_py(py, &list)
    }

    /// At most `limit` skills ranked by relevance to `query`, best first.
    #[pyo3(signature = (query, limit=10))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &str,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hits = py.detach(|| serde_json::to_value(self.found.search(query, limit)));
        to_py(py, &hits.map_err(internal)?)
    }

    /// What changed in the catalogue since `previous`.
    fn catalog_update<'py>(
        &self,
        py: Python<'py>,
        previous: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let previous = previous
            .cast::<Discovered>()
            .map_err(|_| PyTypeError::new_err("catalog_update: previous must be a Discovered"))?;
        let before = Arc::clone(&previous.get().found);
        json_py(py, &self.found.catalog_update(&before))
    }

    /// Every file that claims `name`, in pipeline order, and what became
    /// of it: the document of `skillpipe explain NAME --json`; `None` when
    /// no file claims it. A discovery from `discover()` keeps no claims:
    /// this one runs `discover_all()` for the answer (as the CLI does).
    fn explain<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let of = |found: &skillpipe::Discovered| {
            let claims = skillpipe::explain::claims_of(found.discovery(), name);
            (!claims.is_empty()).then(|| skillpipe::explain::document(found, name, &claims))
        };
        let doc = py.detach(|| match self.all {
            true => of(&self.found),
            false => of(&self.found.skillpipe().discover_all()),
        });
        to_py(py, &doc.unwrap_or(Value::Null))
    }

    /// The `skillpipe list --json` document (`list --all --json` after
    /// `discover_all()`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_py(py, &skillpipe::ListDocument::new(&self.found, self.all))
    }

    fn __repr__(&self) -> String {
        format!(
            "Discovered(profile={}, {} skills, {} diagnostics)",
            py_str(self.profile()),
            self.found.skills().len(),
            self.found.diagnostics().len()
        )
    }
}
