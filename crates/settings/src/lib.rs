//! Profiles and settings (SPEC §7).
//!
//! Layers, later wins, each key merged separately:
//! 1. the embedded `config/defaults.toml` and the profile's `[settings]`;
//! 2. user settings: `<agentDir>/settings.json`, then `<agentDir>/settings.toml`;
//! 3. project settings (where the profile says; never trusted with plugins);
//! 4. each `--config FILE`, in order;
//! 5. `SKILLPIPE_*` environment variables (`__` between key parts, parts
//!    matched case-insensitively);
//! 6. `--set key.path=VALUE` flags.
//!
//! Every error names the key and the file, variable or flag its value came
//! from. Relative paths resolve against the declaring file's directory, or
//! the project directory for the environment and flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use figment::providers::{Format, Json, Toml};
use figment::value::magic::RelativePathBuf;
use figment::{Figment, Metadata, Provider, Source};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skillpipe_core::paths::{find_repo_root, normalize, resolve_entry};
use skillpipe_core::{PipelineProfile, ScanLimits};

const DEFAULTS: &str = include_str!("../../../config/defaults.toml");
const PROFILE_FILES: [(&str, &str); 2] = [
    (
        "musepi",
        include_str!("../../../config/profiles/musepi.toml"),
    ),
    ("pi", include_str!("../../../config/profiles/pi.toml")),
];

/// The names of the built-in profiles.
pub const PROFILES: [&str; 2] = ["musepi", "pi"];

/// A profile preset: everything that makes `musepi` and `pi` differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// The app directory name (`.musepi`, `.pi`).
    pub app_dir: String,
    /// The variable that moves the agent directory.
    pub agent_dir_env: String,
    /// Provider ids in list order (ties in priority keep it).
    pub providers: Vec<String>,
    /// Catalogue format: `musepi` or `pi`.
    pub catalog: String,
    /// Expansion format: `musepi` or `pi`.
    pub expansion: String,
    /// Settings key layout: `musepi` or `pi`.
    pub settings_shape: String,
    /// Project settings: `nearest` ancestor or `cwd` only.
    pub project_settings: String,
    /// Project settings file names, in layer order.
    pub project_settings_files: Vec<String>,
    /// The pipeline's part.
    pub pipeline: PipelineProfile,
}

#[derive(Deserialize)]
struct ProfileFile {
    profile: Profile,
    settings: toml::Table,
}

/// Loads a built-in profile by name.
pub fn profile(name: &str) -> Result<Profile, SettingsError> {
    profile_file(name).map(|p| p.profile)
}

fn profile_file(name: &str) -> Result<ProfileFile, SettingsError> {
    let text = PROFILE_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| SettingsError::UnknownProfile(name.to_owned()))?;
    toml::from_str(text).map_err(|e| SettingsError::File {
        path: PathBuf::from(format!("config/profiles/{name}.toml")),
        reason: e.to_string(),
    })
}

/// A settings error: the run stops with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// `--profile` or `SKILLPIPE_PROFILE` named no built-in profile.
    #[error("unknown profile `{0}` (expected one of: musepi, pi)")]
    UnknownProfile(String),
    /// A settings file could not be read or parsed.
    #[error("settings file {}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong (with line and column where the parser gives them).
        reason: String,
    },
    /// A value of the wrong type (checked on the merged value only).
    #[error("setting `{key}` from {origin}: expected {expected}, found {found}")]
    Value {
        /// The dotted key.
        key: String,
        /// Where the value came from: a file, an environment variable or a flag.
        origin: String,
        /// What was expected.
        expected: String,
        /// What was found.
        found: String,
    },
    /// A `--set` flag without `=`.
    #[error("--set {0}: expected KEY=VALUE")]
    BadSet(String),
    /// Any other settings problem.
    #[error("{0}")]
    Other(String),
}

/// A warning about settings, printed on stderr as `warning: <code>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Stable code, e.g. `untrusted-setting`.
    pub code: &'static str,
    /// The text.
    pub message: String,
}

/// A pi `skills` or `packages` entry, as written, with where it resolves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// As written.
    pub entry: String,
    /// The directory relative entries resolve against.
    pub base: PathBuf,
    /// The settings file that declared it.
    pub file: PathBuf,
}

/// What to load settings for: the injected world plus the flags.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Profile name.
    pub profile: String,
    /// Override of the profile's app directory (`--app-dir`).
    pub app_dir: Option<String>,
    /// The user's home.
    pub home: PathBuf,
    /// The project directory (absolute).
    pub cwd: PathBuf,
    /// Environment snapshot.
    pub env: BTreeMap<String, String>,
    /// `--config` files, absolute, in order.
    pub config_files: Vec<PathBuf>,
    /// `--set` flags, `key.path=VALUE`, in order.
    pub sets: Vec<String>,
}

/// Typed, merged settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Profile name.
    pub profile_name: String,
    /// The profile preset (with `app_dir` overridden when asked).
    pub profile: Profile,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// The repository root, if any.
    pub repo_root: Option<PathBuf>,
    /// `skills.enabled`.
    pub enabled: bool,
    /// `skills.enableSkillCommands` (pi: top-level `enableSkillCommands`).
    pub enable_skill_commands: bool,
    /// The `skills.enable*` toggles.
    pub toggles: BTreeMap<String, bool>,
    /// `skills.customDirectories`, resolved.
    pub custom_directories: Vec<PathBuf>,
    /// `skills.ignoredSkills`.
    pub ignored_skills: Vec<String>,
    /// `skills.includeSkills`.
    pub include_skills: Vec<String>,
    /// `disabledExtensions`.
    pub disabled_extensions: Vec<String>,
    /// `disabledProviders`.
    pub disabled_providers: Vec<String>,
    /// `noSkills`.
    pub no_skills: bool,
    /// `extensions`, resolved.
    pub extensions: Vec<PathBuf>,
    /// `plugins.paths`, resolved, from trusted layers only.
    pub plugin_paths: Vec<PathBuf>,
    /// `scan.*`.
    pub limits: ScanLimits,
    /// pi: `skills` entries from every file, in file order.
    pub pi_skills: Vec<Entry>,
    /// pi: `packages` entries from every file, in file order.
    pub pi_packages: Vec<Entry>,
    /// `providers.*`: free-form per-provider settings (plugins read theirs).
    pub providers: Value,
    /// Warnings to print on stderr.
    pub warnings: Vec<Warning>,
}

const TOGGLES: [&str; 7] = [
    "enableCodexUser",
    "enableClaudeUser",
    "enableClaudeProject",
    "enablePiUser",
    "enablePiProject",
    "enableAgentsUser",
    "enableAgentsProject",
];

const SKILLS_KEYS: [&str; 12] = [
    "enabled",
    "enableSkillCommands",
    "enableCodexUser",
    "enableClaudeUser",
    "enableClaudeProject",
    "enablePiUser",
    "enablePiProject",
    "enableAgentsUser",
    "enableAgentsProject",
    "customDirectories",
    "ignoredSkills",
    "includeSkills",
];
const SCAN_KEYS: [&str; 4] = ["max_depth", "max_dirs", "max_entries", "max_file_bytes"];
const PLUGINS_KEYS: [&str; 1] = ["paths"];
const TOP_KEYS: [&str; 10] = [
    "skills",
    "disabledExtensions",
    "disabledProviders",
    "noSkills",
    "extensions",
    "plugins",
    "scan",
    "enableSkillCommands",
    "packages",
    "providers",
];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MusepiSkills {
    enabled: bool,
    enable_skill_commands: bool,
    enable_codex_user: bool,
    enable_claude_user: bool,
    enable_claude_project: bool,
    enable_pi_user: bool,
    enable_pi_project: bool,
    enable_agents_user: bool,
    enable_agents_project: bool,
    custom_directories: Vec<RelativePathBuf>,
    ignored_skills: Vec<String>,
    include_skills: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MusepiRaw {
    skills: MusepiSkills,
    disabled_extensions: Vec<String>,
    disabled_providers: Vec<String>,
    no_skills: bool,
    extensions: Vec<RelativePathBuf>,
    scan: ScanLimits,
    #[serde(default)]
    providers: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PiRaw {
    enable_skill_commands: bool,
    disabled_providers: Vec<String>,
    no_skills: bool,
    scan: ScanLimits,
    #[serde(default)]
    providers: Value,
}

#[derive(Deserialize)]
struct PluginsRaw {
    plugins: Plugins,
}

#[derive(Deserialize)]
struct Plugins {
    paths: Vec<RelativePathBuf>,
}

/// One in-memory layer (profile defaults, an environment variable, a flag)
/// with a name that errors can show.
struct Layer {
    name: String,
    data: Value,
}

impl Provider for Layer {
    fn metadata(&self) -> Metadata {
        Metadata::named(self.name.clone())
    }
    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        figment::providers::Serialized::defaults(&self.data).data()
    }
}

/// A settings file layer.
#[derive(Debug, Clone)]
struct FileLayer {
    path: PathBuf,
    project: bool,
}

impl FileLayer {
    fn provider(&self) -> Result<Figment, SettingsError> {
        let is_toml = self.path.extension().is_some_and(|e| e == "toml");
        let text = std::fs::read_to_string(&self.path).map_err(|e| SettingsError::File {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        // Parse once here so that a syntax error names the file and line
        // before figment sees it.
        let parsed: Result<(), String> = if is_toml {
            toml::from_str::<toml::Table>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else {
            serde_json::from_str::<Value>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        parsed.map_err(|reason| SettingsError::File {
            path: self.path.clone(),
            reason,
        })?;
        Ok(if is_toml {
            Figment::from(Toml::file_exact(&self.path))
        } else {
            Figment::from(Json::file_exact(&self.path))
        })
    }

    fn json(&self) -> Result<Value, SettingsError> {
        let text = std::fs::read_to_string(&self.path).map_err(|e| SettingsError::File {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        let result = if self.path.extension().is_some_and(|e| e == "toml") {
            toml::from_str::<Value>(&text).map_err(|e| e.to_string())
        } else {
            serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())
        };
        result.map_err(|reason| SettingsError::File {
            path: self.path.clone(),
            reason,
        })
    }
}

/// Loads settings for a request.
pub fn load(req: &Request) -> Result<Settings, SettingsError> {
    let ProfileFile {
        mut profile,
        settings: profile_settings,
    } = profile_file(&req.profile)?;
    if let Some(app) = &req.app_dir {
        profile.app_dir.clone_from(app);
    }
    let home = &req.home;
    let cwd = &normalize(&req.cwd);
    let agent_dir = match req
        .env
        .get(&profile.agent_dir_env)
        .filter(|v| !v.trim().is_empty())
    {
        Some(dir) => resolve_entry(dir, cwd, home),
        None => home.join(&profile.app_dir).join("agent"),
    };
    let repo_root = find_repo_root(cwd);

    let mut files = Vec::new();
    for name in ["settings.json", "settings.toml"] {
        let path = agent_dir.join(name);
        if path.is_file() {
            files.push(FileLayer {
                path,
                project: false,
            });
        }
    }
    files.extend(project_files(&profile, cwd, repo_root.as_deref()));
    for path in &req.config_files {
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("json" | "toml")) {
            return Err(SettingsError::File {
                path: path.clone(),
                reason: "a settings file must end in .json or .toml".to_owned(),
            });
        }
        if !path.is_file() {
            return Err(SettingsError::File {
                path: path.clone(),
                reason: "no such file".to_owned(),
            });
        }
        files.push(FileLayer {
            path: path.clone(),
            project: false,
        });
    }

    let defaults: Value = toml::from_str(DEFAULTS).map_err(|e| SettingsError::File {
        path: "config/defaults.toml".into(),
        reason: e.to_string(),
    })?;
    let preset =
        serde_json::to_value(&profile_settings).map_err(|e| SettingsError::Other(e.to_string()))?;
    let mut full = Figment::new()
        .merge(Layer {
            name: "built-in defaults".into(),
            data: defaults,
        })
        .merge(Layer {
            name: format!("the {} profile's defaults", req.profile),
            data: preset,
        });
    let mut trusted = full.clone();
    let mut warnings = Vec::new();
    for f in &files {
        let provider = f.provider()?;
        if f.project {
            if provider.find_value("plugins.paths").is_ok() {
                warnings.push(Warning {
                    code: "untrusted-setting",
                    message: format!(
                        "plugins.paths in {} is ignored (project settings cannot load plugins)",
                        f.path.display()
                    ),
                });
            }
        } else {
            trusted = trusted.merge(provider.clone());
        }
        full = full.merge(provider);
    }
    let known = known_keys();
    for (name, value) in &req.env {
        let Some(rest) = name.strip_prefix("SKILLPIPE_") else {
            continue;
        };
        if rest == "PROFILE" || rest.is_empty() {
            continue;
        }
        let dotted = rest.split("__").collect::<Vec<_>>().join(".");
        let key = known
            .iter()
            .find(|k| k.eq_ignore_ascii_case(&dotted))
            .map_or_else(|| dotted.to_lowercase(), |k| (*k).to_owned());
        let layer = Layer {
            name: format!("environment variable {name}"),
            data: nest(&key, parse_value(value)),
        };
        trusted = trusted.merge(Layer {
            name: layer.name.clone(),
            data: layer.data.clone(),
        });
        full = full.merge(layer);
    }
    for set in &req.sets {
        let (key, value) = set
            .split_once('=')
            .ok_or_else(|| SettingsError::BadSet(set.clone()))?;
        let layer = Layer {
            name: format!("--set {set}"),
            data: nest(key.trim(), parse_value(value)),
        };
        trusted = trusted.merge(Layer {
            name: layer.name.clone(),
            data: layer.data.clone(),
        });
        full = full.merge(layer);
    }

    let pi_shape = profile.settings_shape == "pi";
    warnings.extend(unknown_key_warnings(&full, pi_shape));
    let resolve = |p: &RelativePathBuf| resolve_relative(p, cwd, home);

    let plugin_paths = trusted
        .extract::<PluginsRaw>()
        .map_err(|e| figment_error(&trusted, e))?
        .plugins
        .paths
        .iter()
        .map(resolve)
        .collect();

    let mut settings = Settings {
        profile_name: req.profile.clone(),
        profile,
        agent_dir,
        repo_root,
        enabled: true,
        enable_skill_commands: true,
        toggles: BTreeMap::new(),
        custom_directories: Vec::new(),
        ignored_skills: Vec::new(),
        include_skills: Vec::new(),
        disabled_extensions: Vec::new(),
        disabled_providers: Vec::new(),
        no_skills: false,
        extensions: Vec::new(),
        plugin_paths,
        limits: ScanLimits::default(),
        pi_skills: Vec::new(),
        pi_packages: Vec::new(),
        providers: Value::Null,
        warnings,
    };
    if pi_shape {
        let raw: PiRaw = full.extract().map_err(|e| figment_error(&full, e))?;
        settings.enable_skill_commands = raw.enable_skill_commands;
        settings.disabled_providers = raw.disabled_providers;
        settings.no_skills = raw.no_skills;
        settings.limits = raw.scan;
        settings.providers = raw.providers;
        for f in &files {
            read_pi_entries(f, &mut settings)?;
        }
    } else {
        let raw: MusepiRaw = full.extract().map_err(|e| figment_error(&full, e))?;
        let s = raw.skills;
        settings.enabled = s.enabled;
        settings.enable_skill_commands = s.enable_skill_commands;
        let values = [
            s.enable_codex_user,
            s.enable_claude_user,
            s.enable_claude_project,
            s.enable_pi_user,
            s.enable_pi_project,
            s.enable_agents_user,
            s.enable_agents_project,
        ];
        settings.toggles = TOGGLES
            .iter()
            .map(|k| (*k).to_owned())
            .zip(values)
            .collect();
        settings.custom_directories = s.custom_directories.iter().map(resolve).collect();
        settings.ignored_skills = s.ignored_skills;
        settings.include_skills = s.include_skills;
        settings.disabled_extensions = raw.disabled_extensions;
        settings.disabled_providers = raw.disabled_providers;
        settings.no_skills = raw.no_skills;
        settings.extensions = raw.extensions.iter().map(resolve).collect();
        settings.limits = raw.scan;
        settings.providers = raw.providers;
    }
    Ok(settings)
}

fn project_files(profile: &Profile, cwd: &Path, repo_root: Option<&Path>) -> Vec<FileLayer> {
    let layers_in = |dir: &Path| -> Vec<FileLayer> {
        profile
            .project_settings_files
            .iter()
            .map(|n| dir.join(&profile.app_dir).join(n))
            .filter(|p| p.is_file())
            .map(|path| FileLayer {
                path,
                project: true,
            })
            .collect()
    };
    if profile.project_settings == "cwd" {
        return layers_in(cwd);
    }
    let Some(repo) = repo_root else {
        return layers_in(cwd);
    };
    for dir in cwd.ancestors() {
        let found = layers_in(dir);
        if !found.is_empty() {
            return found;
        }
        if dir == repo {
            break;
        }
    }
    Vec::new()
}

fn read_pi_entries(f: &FileLayer, settings: &mut Settings) -> Result<(), SettingsError> {
    let doc = f.json()?;
    let base = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let bad = |key: &str, expected: &str| SettingsError::Value {
        key: key.to_owned(),
        origin: f.path.display().to_string(),
        expected: expected.to_owned(),
        found: "another type".to_owned(),
    };
    let entry = |s: &str| Entry {
        entry: s.to_owned(),
        base: base.clone(),
        file: f.path.clone(),
    };
    let skills = match doc.get("skills") {
        None | Some(Value::Null) => None,
        Some(Value::Object(legacy)) => legacy.get("customDirectories"),
        Some(other) => Some(other),
    };
    if let Some(list) = skills {
        let list = list
            .as_array()
            .ok_or_else(|| bad("skills", "an array of paths"))?;
        for item in list {
            let s = item
                .as_str()
                .ok_or_else(|| bad("skills", "an array of paths"))?;
            settings.pi_skills.push(entry(s));
        }
    }
    if let Some(list) = doc.get("packages").filter(|v| !v.is_null()) {
        let list = list.as_array().ok_or_else(|| bad("packages", "an array"))?;
        for item in list {
            let s = match item {
                Value::String(s) => s.as_str(),
                Value::Object(o) => o
                    .get("source")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("packages", "paths or {\"source\": path} objects"))?,
                _ => return Err(bad("packages", "paths or {\"source\": path} objects")),
            };
            settings.pi_packages.push(entry(s));
        }
    }
    Ok(())
}

fn known_keys() -> Vec<String> {
    let mut keys: Vec<String> = TOP_KEYS.iter().map(|k| (*k).to_owned()).collect();
    keys.extend(SKILLS_KEYS.iter().map(|k| format!("skills.{k}")));
    keys.extend(SCAN_KEYS.iter().map(|k| format!("scan.{k}")));
    keys.extend(PLUGINS_KEYS.iter().map(|k| format!("plugins.{k}")));
    keys
}

fn unknown_key_warnings(figment: &Figment, pi_shape: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    let tables: &[(&str, &[&str])] = if pi_shape {
        &[("scan", &SCAN_KEYS), ("plugins", &PLUGINS_KEYS)]
    } else {
        &[
            ("skills", &SKILLS_KEYS),
            ("scan", &SCAN_KEYS),
            ("plugins", &PLUGINS_KEYS),
        ]
    };
    for (table, known) in tables {
        let Ok(value) = figment.find_value(table) else {
            continue;
        };
        let Some(dict) = value.as_dict() else {
            continue;
        };
        for key in dict.keys().filter(|k| !known.contains(&k.as_str())) {
            let dotted = format!("{table}.{key}");
            let origin = figment
                .find_metadata(&dotted)
                .map_or_else(|| "settings".to_owned(), origin_of);
            out.push(Warning {
                code: "unknown-setting",
                message: format!("{dotted} in {origin} is not a known setting; it is ignored"),
            });
        }
    }
    out
}

fn origin_of(meta: &Metadata) -> String {
    match &meta.source {
        Some(Source::File(path)) => path.display().to_string(),
        _ => meta.name.to_string(),
    }
}

fn figment_error(figment: &Figment, err: figment::Error) -> SettingsError {
    let key = err.path.join(".");
    let origin = err
        .metadata
        .as_ref()
        .or_else(|| figment.find_metadata(&key))
        .map_or_else(|| "settings".to_owned(), origin_of);
    match &err.kind {
        figment::error::Kind::InvalidType(actual, expected)
        | figment::error::Kind::InvalidValue(actual, expected) => SettingsError::Value {
            key,
            origin,
            expected: plain_expected(expected),
            found: actual.to_string(),
        },
        figment::error::Kind::MissingField(field) => SettingsError::Other(format!(
            "setting `{}` is missing (from {origin})",
            if key.is_empty() {
                field.to_string()
            } else {
                format!("{key}.{field}")
            }
        )),
        _ => SettingsError::Other(format!("setting `{key}` from {origin}: {}", err.kind)),
    }
}

fn plain_expected(serde_expected: &str) -> String {
    match serde_expected {
        "a sequence" => "an array".to_owned(),
        "usize" | "u64" | "u32" => "a non-negative integer".to_owned(),
        "a boolean" => "a boolean".to_owned(),
        "a string" => "a string".to_owned(),
        other => other.to_owned(),
    }
}

fn parse_value(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

fn nest(dotted: &str, value: Value) -> Value {
    dotted.rsplit('.').fold(value, |inner, part| {
        let mut map = serde_json::Map::new();
        map.insert(part.to_owned(), inner);
        Value::Object(map)
    })
}

fn resolve_relative(p: &RelativePathBuf, cwd: &Path, home: &Path) -> PathBuf {
    let original = p.original().to_string_lossy();
    let base = p
        .metadata_path()
        .and_then(Path::parent)
        .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
    normalize(&resolve_entry(&original, &base, home))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(home: &Path, cwd: &Path) -> Request {
        Request {
            profile: "musepi".into(),
            home: home.into(),
            cwd: cwd.into(),
            ..Request::default()
        }
    }

    #[test]
    fn defaults_enable_everything() {
        let t = tempfile::tempdir().unwrap();
        let s = load(&request(t.path(), t.path())).unwrap();
        assert!(s.enabled && s.enable_skill_commands);
        assert!(s.toggles.values().all(|v| *v));
        assert_eq!(s.limits, ScanLimits::default());
        assert_eq!(s.agent_dir, t.path().join(".musepi/agent"));
    }

    #[test]
    fn wrong_type_names_key_and_file() {
        let t = tempfile::tempdir().unwrap();
        let conf = t.path().join("bad.json");
        std::fs::write(&conf, r#"{"skills": {"enabled": "yes"}}"#).unwrap();
        let mut r = request(t.path(), t.path());
        r.config_files = vec![conf.clone()];
        let err = load(&r).unwrap_err().to_string();
        assert!(err.contains("skills.enabled"), "{err}");
        assert!(err.contains(&conf.display().to_string()), "{err}");
        assert!(err.contains("boolean"), "{err}");
    }

    #[test]
    fn a_later_layer_can_fix_a_bad_value() {
        let t = tempfile::tempdir().unwrap();
        let conf = t.path().join("bad.toml");
        std::fs::write(&conf, "[skills]\nenabled = 3\n").unwrap();
        let mut r = request(t.path(), t.path());
        r.config_files = vec![conf];
        r.sets = vec!["skills.enabled=false".into()];
        assert!(!load(&r).unwrap().enabled);
    }

    #[test]
    fn env_keys_match_case_insensitively_and_set_wins() {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        r.env
            .insert("SKILLPIPE_SKILLS__ENABLECODEXUSER".into(), "false".into());
        r.env.insert(
            "SKILLPIPE_SKILLS__IGNOREDSKILLS".into(),
            r#"["a*","b"]"#.into(),
        );
        let s = load(&r).unwrap();
        assert!(!s.toggles["enableCodexUser"]);
        assert_eq!(s.ignored_skills, ["a*", "b"]);
        r.sets = vec!["skills.enableCodexUser=true".into()];
        assert!(load(&r).unwrap().toggles["enableCodexUser"]);
    }

    #[test]
    fn set_error_names_the_flag() {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        r.sets = vec!["skills.ignoredSkills=7".into()];
        let err = load(&r).unwrap_err().to_string();
        assert!(
            err.contains("--set skills.ignoredSkills=7") && err.contains("array"),
            "{err}"
        );
    }

    #[test]
    fn relative_custom_directories_resolve_against_their_file() {
        let t = tempfile::tempdir().unwrap();
        let conf_dir = t.path().join("conf");
        std::fs::create_dir(&conf_dir).unwrap();
        let conf = conf_dir.join("s.toml");
        std::fs::write(
            &conf,
            "[skills]\ncustomDirectories = [\"../team\", \"~/mine\"]\n",
        )
        .unwrap();
        let mut r = request(t.path(), &t.path().join("project"));
        r.config_files = vec![conf];
        let s = load(&r).unwrap();
        assert_eq!(
            s.custom_directories,
            [t.path().join("team"), t.path().join("mine")]
        );
    }

    #[test]
    fn project_settings_cannot_load_plugins() {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        std::fs::create_dir_all(proj.join(".musepi")).unwrap();
        std::fs::write(
            proj.join(".musepi/settings.json"),
            r#"{"plugins": {"paths": ["x.so"]}}"#,
        )
        .unwrap();
        let s = load(&request(t.path(), &proj)).unwrap();
        assert!(s.plugin_paths.is_empty());
        assert_eq!(s.warnings[0].code, "untrusted-setting");
    }

    #[test]
    fn config_file_must_exist_and_have_a_known_extension() {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        r.config_files = vec![t.path().join("none.json")];
        assert!(matches!(load(&r), Err(SettingsError::File { .. })));
        r.config_files = vec![t.path().join("x.yaml")];
        assert!(matches!(load(&r), Err(SettingsError::File { .. })));
    }

    #[test]
    fn both_profiles_parse() {
        for p in PROFILES {
            let profile = profile(p).unwrap();
            assert!(!profile.providers.is_empty());
        }
    }
}
