//! What JavaScript hands the add-on: the options of each call, as the JSON
//! text the loader (`index.js`) writes after checking their types, and the
//! failure every call may end in.
//!
//! The loader checks first, so that a host gets an error naming its own
//! field; this module checks again, so that the add-on called directly
//! with anything at all still answers with an error, never an abort.

#![deny(unsafe_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Why a call failed: a stable code (the JS error's `code` property) and
/// the message the CLI would print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// `SETTINGS`, `INVALID_ARG`, `UNKNOWN_SKILL`, `PATH_TRAVERSAL`, …
    pub code: Cow<'static, str>,
    /// The human text.
    pub message: String,
}

impl Failure {
    /// A bad argument.
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure {
            code: Cow::Borrowed("INVALID_ARG"),
            message: message.into(),
        }
    }

    /// The failure as the text of the error the add-on throws; the loader
    /// turns it back into an `Error` with `code` (see `index.js`).
    pub fn to_json(&self) -> String {
        serde_json::json!({ "code": self.code, "message": self.message }).to_string()
    }
}

/// Parses one call's options.
pub fn parse<T: DeserializeOwned>(what: &str, json: &str) -> Result<T, Failure> {
    serde_json::from_str(json).map_err(|e| Failure::invalid(format!("{what}: {e}")))
}

/// A path from JavaScript: a non-empty string with no NUL byte (Node's
/// own `fs` refuses those too).
pub fn path(what: &str, p: &str) -> Result<PathBuf, Failure> {
    if p.is_empty() {
        return Err(Failure::invalid(format!("{what} must not be empty")));
    }
    if p.contains('\0') {
        return Err(Failure::invalid(format!(
            "{what} must not contain a NUL character: {p:?}"
        )));
    }
    Ok(PathBuf::from(p))
}

/// `discover(...)` and `contextFiles(...)`; home and cwd are absolute
/// (the loader fills in `os.homedir()` and `process.cwd()`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DiscoverArgs {
    /// `musepi` or `pi`.
    pub profile: String,
    /// `--app-dir`.
    #[serde(default)]
    pub app_dir: Option<String>,
    /// The home directory.
    pub home: String,
    /// The project directory.
    pub cwd: String,
    /// The environment snapshot.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `--config` files, absolute.
    #[serde(default)]
    pub config: Vec<String>,
    /// `--set K=V`.
    #[serde(default)]
    pub set: Vec<String>,
    /// `--skill` paths (relative to cwd).
    #[serde(default)]
    pub skill_paths: Vec<String>,
    /// `--no-skills`.
    #[serde(default)]
    pub no_skills: bool,
    /// `--plugin` libraries, absolute.
    #[serde(default)]
    pub plugins: Vec<String>,
    /// `list --all`: keep what did not load, with its fate (`removed`).
    #[serde(default)]
    pub all: bool,
}

/// pi's `loadSkills` options, plus the ones a pi host may add.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadSkillsArgs {
    /// Project directory.
    pub cwd: String,
    /// The agent directory (`<agentDir>/skills`, `<agentDir>/settings.json`).
    #[serde(default)]
    pub agent_dir: Option<String>,
    /// Explicit skill paths (files or directories, relative to cwd).
    #[serde(default)]
    pub skill_paths: Vec<String>,
    /// `false`: only `skillPaths` load.
    pub include_defaults: bool,
    /// The home directory (`~` in paths).
    pub home: String,
    /// Environment snapshot (settings variables).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `--config` files, absolute.
    #[serde(default)]
    pub config: Vec<String>,
    /// `--set K=V`.
    #[serde(default)]
    pub set: Vec<String>,
}

/// pi's `loadSkillsFromDir` options.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadSkillsFromDirArgs {
    /// The directory, scanned as pi scans a root.
    pub dir: String,
    /// pi's source label: `user`, `project`, `path` or any other text.
    pub source: String,
    /// The home directory.
    pub home: String,
}

/// A skill as `formatSkillsForPrompt` reads it (pi's `Skill`, or ours).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptSkill {
    /// The name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The file.
    pub file_path: String,
    /// Kept out of the catalogue when `true`.
    #[serde(default)]
    pub disable_model_invocation: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn options_name_what_is_wrong() {
        let e = parse::<LoadSkillsArgs>("loadSkills", r#"{"cwd": 3}"#).unwrap_err();
        assert_eq!(e.code, "INVALID_ARG");
        assert!(e.message.starts_with("loadSkills: invalid type"), "{e:?}");
        let e = parse::<LoadSkillsArgs>("loadSkills", r#"{"cwd": "/p", "nope": 1}"#).unwrap_err();
        assert!(e.message.contains("unknown field `nope`"), "{e:?}");
        let e = parse::<DiscoverArgs>("discover", "not json").unwrap_err();
        assert!(e.message.starts_with("discover: "), "{e:?}");
    }

    #[test]
    fn a_path_is_a_non_empty_string_without_nul() {
        assert_eq!(path("cwd", "/a b").unwrap(), PathBuf::from("/a b"));
        assert_eq!(path("cwd", "").unwrap_err().code, "INVALID_ARG");
        assert!(path("cwd", "/a\0b").unwrap_err().message.contains("NUL"));
    }

    #[test]
    fn a_failure_travels_as_json() {
        let f = Failure {
            code: Cow::Borrowed("SETTINGS"),
            message: "bad \"x\"".into(),
        };
        let v: serde_json::Value = serde_json::from_str(&f.to_json()).unwrap();
        assert_eq!(v["code"], "SETTINGS");
        assert_eq!(v["message"], "bad \"x\"");
    }
}
