//! Rust values as Python's: JSON values as dicts and lists, the library's
//! errors as the package's exceptions (`skillpipe._errors`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;

/// A JSON value as Python's own: `dict` (keys in order), `list`, `str`,
/// `int`, `float`, `bool`, `None`.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Any serialisable value as Python's (through its JSON value).
pub(crate) fn json_py<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &serde_json::to_value(value).map_err(internal)?)
}

/// A failure that is a bug of ours, never of the caller's input.
pub(crate) fn internal(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("skillpipe: internal error: {e}"))
}

/// An instance of the exception class `name` of `skillpipe._errors`,
/// made with `args`.
fn raise<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    let made = py
        .import("skillpipe._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|class| class.call1(args));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// Why a `Skillpipe` could not be built, as `SettingsError(message, code,
/// key, origin)`, `PluginError(message, code)` or
/// `SkillpipeError(message, code)`.
pub(crate) fn build_error(py: Python<'_>, e: &skillpipe::Error) -> PyErr {
    let message = e.to_string();
    match e {
        skillpipe::Error::Settings(s) => {
            let (key, origin) = setting_of(s);
            raise(py, "SettingsError", (message, "settings", key, origin))
        }
        skillpipe::Error::Plugin(_) => raise(py, "PluginError", (message, "plugin")),
        skillpipe::Error::NoHome => raise(py, "SkillpipeError", (message, "no-home")),
        skillpipe::Error::CurrentDir(_) => raise(py, "SkillpipeError", (message, "current-dir")),
        _ => raise(py, "SkillpipeError", (message, "configuration")),
    }
}

/// The key and the source a settings error names, where it names them.
fn setting_of(e: &skillpipe::SettingsError) -> (Option<String>, Option<String>) {
    use skillpipe::SettingsError as S;
    match e {
        S::Value { key, origin, .. } | S::TooLarge { key, origin, .. } => {
            (Some(key.clone()), Some(origin.clone()))
        }
        S::File { path, .. } => (None, Some(path.to_string_lossy().into_owned())),
        _ => (None, None),
    }
}

/// A `skill://` URL that did not resolve, as `ResolveError(message,
/// code)`; the code is the library's (`path-traversal`, `unknown-skill`, …).
pub(crate) fn resolve_error(py: Python<'_>, e: &skillpipe::ResolveError) -> PyErr {
    raise(py, "ResolveError", (e.to_string(), e.code()))
}

/// A string as Python's `repr` writes it: `'text'`, with `\\`, `'` and
/// control characters escaped.
pub(crate) fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
