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

use figment::value::magic::RelativePathBuf;
use figment::{Figment, Metadata, Provider, Source};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skillpipe_core::paths::{canonical, find_repo_root, normalize, resolve_entry};
use skillpipe_core::runtime::Style;
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
    /// Catalogue format.
    pub catalog: Style,
    /// Expansion format.
    pub expansion: Style,
    /// Settings key layout.
    pub settings_shape: SettingsShape,
    /// Where project settings are looked for.
    pub project_settings: ProjectSettings,
    /// Project settings file names, in layer order.
    pub project_settings_files: Vec<String>,
    /// The pipeline's part.
    pub pipeline: PipelineProfile,
}

/// How a profile's settings keys are laid out. A profile file naming
/// anything else fails to load (a typo never falls back to a default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingsShape {
    /// `skills.*` toggles, `disabledExtensions`, …
    Musepi,
    /// pi's top-level `skills` and `packages` lists.
    Pi,
}

/// Where a profile looks for project settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectSettings {
    /// The nearest ancestor of cwd holding the app directory, up to the
    /// repository root.
    Nearest,
    /// `<cwd>/<app dir>` only.
    Cwd,
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
    /// Whether that file is a project settings file (untrusted: a root it
    /// names outside the project is scanned with no more than the default
    /// bounds, and none of its roots load in an untrusted project).
    #[serde(default)]
    pub project: bool,
}

/// `projectSkills`: which projects' project-level skills load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectSkills {
    /// Every project's (the default).
    #[default]
    All,
    /// Only those of projects listed in `trustedProjects`.
    Trusted,
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
    /// `projectSkills` (trusted layers only).
    pub project_skills: ProjectSkills,
    /// `trustedProjects`, resolved (trusted layers only).
    pub trusted_projects: Vec<PathBuf>,
    /// The project: the repository root, else the project directory,
    /// canonical.
    pub project_dir: PathBuf,
    /// Warnings to print on stderr.
    pub warnings: Vec<Warning>,
}

impl Settings {
    /// Whether project-level skills load: `projectSkills` is `all`, or the
    /// project is listed in `trustedProjects` (canonical comparison).
    pub fn project_trusted(&self) -> bool {
        self.project_skills == ProjectSkills::All
            || self
                .trusted_projects
                .iter()
                .any(|p| canonical(p) == self.project_dir)
    }
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

const SKILLS_KEYS: [&str; 14] = [
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
    "projectSkills",
    "trustedProjects",
];
const SCAN_KEYS: [&str; 4] = ["max_depth", "max_dirs", "max_entries", "max_file_bytes"];
const PLUGINS_KEYS: [&str; 1] = ["paths"];
const TOP_KEYS: [&str; 12] = [
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
    "projectSkills",
    "trustedProjects",
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

/// The largest settings file read (a larger one is an error naming it).
pub const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// Reads a settings file: a regular file (a directory, FIFO, socket or
/// device is an error saying which; a FIFO is never opened, and the open
/// is non-blocking should the file be swapped for one), at most
/// [`MAX_SETTINGS_BYTES`], UTF-8, a leading byte order mark dropped.
pub fn read_settings_file(path: &Path) -> Result<String, SettingsError> {
    use std::io::Read;
    let fail = |reason: String| SettingsError::File {
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(io_reason(&e)))?;
    check_file_type(&meta).map_err(fail)?;
    let mut file = skillpipe_core::fsio::open_nonblocking(path).map_err(|e| fail(io_reason(&e)))?;
    // The path may have changed between the two looks: check what was opened.
    let meta = file.metadata().map_err(|e| fail(io_reason(&e)))?;
    check_file_type(&meta).map_err(fail)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(io_reason(&e)))?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(fail(too_large(bytes.len() as u64)));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

fn check_file_type(meta: &std::fs::Metadata) -> Result<(), String> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err("is a directory".to_owned());
    }
    if !t.is_file() {
        return Err(format!("is not a regular file (it is {})", kind_name(t)));
    }
    if meta.len() > MAX_SETTINGS_BYTES {
        return Err(too_large(meta.len()));
    }
    Ok(())
}

/// What a file that is neither a regular file nor a directory is.
fn kind_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = t;
    "of another type"
}

fn too_large(len: u64) -> String {
    format!(
        "is {len} bytes; a settings file may have at most {} MiB",
        MAX_SETTINGS_BYTES >> 20
    )
}

fn io_reason(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "no such file".to_owned()
    } else {
        e.to_string()
    }
}

/// Whether something is at `path` (a dangling link or a path through a
/// non-directory counts as nothing, as a missing file does).
fn exists(path: &Path) -> Result<bool, SettingsError> {
    match std::fs::metadata(path) {
        Ok(_) => Ok(true),
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.kind() == std::io::ErrorKind::NotADirectory =>
        {
            Ok(false)
        }
        Err(e) => Err(SettingsError::File {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

/// A settings file layer: read and parsed once; figment sees the parsed
/// value under the file's name (so relative paths resolve against it).
#[derive(Debug, Clone)]
struct FileLayer {
    path: PathBuf,
    project: bool,
    value: Value,
}

impl FileLayer {
    fn read(path: PathBuf, project: bool) -> Result<Self, SettingsError> {
        let text = read_settings_file(&path)?;
        let parsed = if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str::<Value>(&text).map_err(|e| e.to_string())
        } else {
            serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())
        };
        let value = parsed.map_err(|reason| SettingsError::File {
            path: path.clone(),
            reason,
        })?;
        if !value.is_object() {
            return Err(SettingsError::File {
                path,
                reason: "expected a table of settings at the top level".to_owned(),
            });
        }
        Ok(FileLayer {
            path,
            project,
            value,
        })
    }

    fn json(&self) -> &Value {
        &self.value
    }

    /// The value at a dotted key, if the file sets it.
    fn get(&self, dotted: &str) -> Option<&Value> {
        dotted
            .split('.')
            .try_fold(&self.value, |v, part| v.get(part))
    }
}

impl Provider for FileLayer {
    fn metadata(&self) -> Metadata {
        let kind = if self.path.extension().is_some_and(|e| e == "toml") {
            "TOML file"
        } else {
            "JSON file"
        };
        Metadata::from(kind, self.path.as_path())
    }
    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        figment::providers::Serialized::defaults(&self.value).data()
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
        // Something that is there but not a readable regular file (a
        // directory, a FIFO) is an error, never silently absent.
        if exists(&path)? {
            files.push(FileLayer::read(path, false)?);
        }
    }
    for path in project_files(&profile, cwd, repo_root.as_deref())? {
        files.push(FileLayer::read(path, true)?);
    }
    for path in &req.config_files {
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("json" | "toml")) {
            return Err(SettingsError::File {
                path: path.clone(),
                reason: "a settings file must end in .json or .toml".to_owned(),
            });
        }
        files.push(FileLayer::read(path.clone(), false)?);
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
    let pi_shape = profile.settings_shape == SettingsShape::Pi;
    let trust_keys = TrustKeys::of_shape(pi_shape);
    for f in &files {
        if !f.project {
            trusted = trusted.merge(f.clone());
            full = full.merge(f.clone());
            continue;
        }
        if f.get("plugins.paths").is_some() {
            warnings.push(Warning {
                code: "untrusted-setting",
                message: format!(
                    "plugins.paths in {} is ignored (project settings cannot load plugins)",
                    f.path.display()
                ),
            });
        }
        // Read from trusted layers only (below); a project cannot trust itself.
        for key in [trust_keys.project_skills, trust_keys.trusted_projects] {
            if f.get(key).is_some() {
                warnings.push(Warning {
                    code: "untrusted-setting",
                    message: format!(
                        "{key} in {} is ignored (project settings cannot choose which projects are trusted)",
                        f.path.display()
                    ),
                });
            }
        }
        full = full.merge(f.clone());
        if let Some(kept) = lower_scan_bounds_only(f, &trusted, &mut warnings) {
            full = full.merge(kept);
        }
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

    let (project_skills, trusted_projects) = trust_settings(&trusted, trust_keys, &resolve)?;
    let project_dir = canonical(repo_root.as_deref().unwrap_or(cwd));

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
        project_skills,
        trusted_projects,
        project_dir,
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

/// The project settings files, in layer order: whatever is at their paths
/// (a directory or FIFO there is an error when it is read, never skipped).
fn project_files(
    profile: &Profile,
    cwd: &Path,
    repo_root: Option<&Path>,
) -> Result<Vec<PathBuf>, SettingsError> {
    let files_in = |dir: &Path| -> Result<Vec<PathBuf>, SettingsError> {
        let mut found = Vec::new();
        for n in &profile.project_settings_files {
            let path = dir.join(&profile.app_dir).join(n);
            if exists(&path)? {
                found.push(path);
            }
        }
        Ok(found)
    };
    if profile.project_settings == ProjectSettings::Cwd {
        return files_in(cwd);
    }
    let Some(repo) = repo_root else {
        return files_in(cwd);
    };
    for dir in cwd.ancestors() {
        let found = files_in(dir)?;
        if !found.is_empty() {
            return Ok(found);
        }
        if dir == repo {
            break;
        }
    }
    Ok(Vec::new())
}

/// `scan.*` in a project file may only lower a bound below what the
/// trusted layers before it give: a higher value (or any value when the
/// trusted one is not a number) gets an `untrusted-setting` warning and a
/// layer putting the trusted value back. Trusted layers after the project
/// file (`--config`, environment, `--set`) may still raise it.
fn lower_scan_bounds_only(
    f: &FileLayer,
    trusted: &Figment,
    warnings: &mut Vec<Warning>,
) -> Option<Layer> {
    let mut restored = serde_json::Map::new();
    for key in SCAN_KEYS {
        let dotted = format!("scan.{key}");
        let Some(theirs) = f.get(&dotted) else {
            continue;
        };
        let ours = trusted.find_value(&dotted).ok();
        let ours_num = ours.as_ref().and_then(figment::value::Value::to_u128);
        let lowers = match (theirs.as_u64(), ours_num) {
            (Some(t), Some(o)) => u128::from(t) <= o,
            // Not a non-negative integer: the type check of the merged
            // value reports it, naming this file (nothing is raised).
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if lowers {
            continue;
        }
        let Some(ours) = ours else { continue };
        let kept = serde_json::to_value(&ours).unwrap_or(Value::Null);
        warnings.push(Warning {
            code: "untrusted-setting",
            message: format!(
                "{dotted} = {theirs} in {} is ignored (project settings can only lower scan bounds); keeping {kept}",
                f.path.display()
            ),
        });
        restored.insert(key.to_owned(), kept);
    }
    (!restored.is_empty()).then(|| Layer {
        name: format!(
            "the trusted scan bounds that {} tried to raise",
            f.path.display()
        ),
        data: serde_json::json!({ "scan": restored }),
    })
}

/// Where the trust settings live in a settings shape: beside the other
/// skill settings (`skills.*` in musepi; top level in pi, whose `skills`
/// is a list of paths).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustKeys {
    /// `projectSkills`: `"all"` or `"trusted"`.
    pub project_skills: &'static str,
    /// `trustedProjects`: directories.
    pub trusted_projects: &'static str,
}

impl TrustKeys {
    /// The keys of a settings shape (`pi` or else musepi).
    pub fn of_shape(pi_shape: bool) -> Self {
        if pi_shape {
            TrustKeys {
                project_skills: "projectSkills",
                trusted_projects: "trustedProjects",
            }
        } else {
            TrustKeys {
                project_skills: "skills.projectSkills",
                trusted_projects: "skills.trustedProjects",
            }
        }
    }

    /// The keys for loaded settings.
    pub fn of(settings: &Settings) -> Self {
        Self::of_shape(settings.profile.settings_shape == SettingsShape::Pi)
    }
}

/// `projectSkills` and `trustedProjects`, from the trusted layers only.
fn trust_settings(
    trusted: &Figment,
    keys: TrustKeys,
    resolve: &impl Fn(&RelativePathBuf) -> PathBuf,
) -> Result<(ProjectSkills, Vec<PathBuf>), SettingsError> {
    let mode = match trusted.find_value(keys.project_skills) {
        Err(_) => ProjectSkills::All,
        Ok(_) => {
            let raw: String = trusted
                .extract_inner(keys.project_skills)
                .map_err(|e| figment_error(trusted, e))?;
            match raw.as_str() {
                "all" => ProjectSkills::All,
                "trusted" => ProjectSkills::Trusted,
                _ => {
                    return Err(SettingsError::Value {
                        key: keys.project_skills.to_owned(),
                        origin: trusted
                            .find_metadata(keys.project_skills)
                            .map_or_else(|| "settings".to_owned(), origin_of),
                        expected: "\"all\" or \"trusted\"".to_owned(),
                        found: format!("{raw:?}"),
                    });
                }
            }
        }
    };
    let dirs = match trusted.find_value(keys.trusted_projects) {
        Err(_) => Vec::new(),
        Ok(_) => trusted
            .extract_inner::<Vec<RelativePathBuf>>(keys.trusted_projects)
            .map_err(|e| figment_error(trusted, e))?
            .iter()
            .map(resolve)
            .collect(),
    };
    Ok((mode, dirs))
}

fn read_pi_entries(f: &FileLayer, settings: &mut Settings) -> Result<(), SettingsError> {
    let doc = f.json();
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
        project: f.project,
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

/// What [`edit_trusted_projects`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustEdit {
    /// The directory, canonical (or as given, when removing one that no
    /// longer exists).
    pub dir: PathBuf,
    /// The user settings file written (or that would have been).
    pub file: PathBuf,
    /// The dotted key edited.
    pub key: &'static str,
    /// Whether the file changed (false: already trusted / not trusted).
    pub changed: bool,
}

/// Adds `dir` to (`trust`) or removes it from the user's `trustedProjects`
/// in the active profile's `<agentDir>/settings.json`, created when there
/// is no user settings file; a `settings.toml` alone is edited in place.
/// Every other key keeps its value and place. Entries are compared
/// canonically; a new one is stored canonical.
pub fn edit_trusted_projects(
    settings: &Settings,
    home: &Path,
    dir: &Path,
    trust: bool,
) -> Result<TrustEdit, SettingsError> {
    let key = TrustKeys::of(settings).trusted_projects;
    let dir = match std::fs::canonicalize(dir) {
        Ok(d) if d.is_dir() => d,
        Ok(d) if trust => {
            return Err(SettingsError::Other(format!(
                "cannot trust {}: not a directory",
                d.display()
            )));
        }
        Err(e) if trust => {
            return Err(SettingsError::Other(format!(
                "cannot trust {}: {}",
                dir.display(),
                io_reason(&e)
            )));
        }
        _ => normalize(dir),
    };
    let Some(dir_text) = dir.to_str().map(str::to_owned) else {
        return Err(SettingsError::Other(format!(
            "cannot store {} in settings: the path is not UTF-8",
            dir.display()
        )));
    };
    let json_file = settings.agent_dir.join("settings.json");
    let toml_file = settings.agent_dir.join("settings.toml");
    let file = if !exists(&json_file)? && exists(&toml_file)? {
        toml_file
    } else {
        json_file
    };
    let base = settings.agent_dir.clone();
    let same = |entry: &str| canonical(&normalize(&resolve_entry(entry, &base, home))) == dir;
    let fail = |reason: String| SettingsError::File {
        path: file.clone(),
        reason,
    };
    let parts: Vec<&str> = key.split('.').collect();
    let (tables, last) = parts.split_at(parts.len() - 1);
    let last = last.first().copied().unwrap_or(key);
    let mut changed = false;
    let text = if file.extension().is_some_and(|e| e == "toml") {
        let mut doc: toml_edit::DocumentMut = read_settings_file(&file)?
            .parse()
            .map_err(|e: toml_edit::TomlError| fail(e.to_string()))?;
        let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
        for part in tables {
            table = table
                .entry(part)
                .or_insert(toml_edit::table())
                .as_table_like_mut()
                .ok_or_else(|| fail(format!("`{part}` is not a table; cannot edit {key}")))?;
        }
        let list = table
            .entry(last)
            .or_insert(toml_edit::value(toml_edit::Array::new()))
            .as_array_mut()
            .ok_or_else(|| fail(format!("{key} is not an array")))?;
        let had = list.iter().any(|v| v.as_str().is_some_and(same));
        if trust && !had {
            list.push(dir_text.as_str());
            changed = true;
        } else if !trust && had {
            list.retain(|v| !v.as_str().is_some_and(same));
            changed = true;
        }
        doc.to_string()
    } else {
        let mut doc: Value = if exists(&file)? {
            serde_json::from_str(&read_settings_file(&file)?).map_err(|e| fail(e.to_string()))?
        } else {
            Value::Object(serde_json::Map::new())
        };
        let mut table = doc
            .as_object_mut()
            .ok_or_else(|| fail("expected a table of settings at the top level".to_owned()))?;
        for part in tables {
            table = table
                .entry(*part)
                .or_insert_with(|| Value::Object(serde_json::Map::new()))
                .as_object_mut()
                .ok_or_else(|| fail(format!("`{part}` is not a table; cannot edit {key}")))?;
        }
        let list = table
            .entry(last)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| fail(format!("{key} is not an array")))?;
        let had = list.iter().any(|v| v.as_str().is_some_and(same));
        if trust && !had {
            list.push(Value::String(dir_text));
            changed = true;
        } else if !trust && had {
            list.retain(|v| !v.as_str().is_some_and(same));
            changed = true;
        }
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| fail(e.to_string()))?;
        text.push('\n');
        text
    };
    if changed {
        std::fs::create_dir_all(&settings.agent_dir).map_err(|e| SettingsError::File {
            path: settings.agent_dir.clone(),
            reason: format!("cannot create the directory: {e}"),
        })?;
        // Written in place (not renamed over), so a settings file that is a
        // link into a dotfiles repository stays one.
        std::fs::write(&file, text).map_err(|e| fail(format!("cannot write: {e}")))?;
    }
    Ok(TrustEdit {
        dir,
        file,
        key,
        changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_formats_are_typed_and_a_typo_is_an_error() {
        for name in PROFILES {
            let p = profile(name).unwrap();
            let want = if name == "pi" {
                Style::Pi
            } else {
                Style::Musepi
            };
            assert_eq!((p.catalog, p.expansion), (want, want), "{name}");
        }
        assert_eq!(profile("pi").unwrap().settings_shape, SettingsShape::Pi);
        assert_eq!(
            profile("musepi").unwrap().project_settings,
            ProjectSettings::Nearest
        );
        // A misspelt format no longer means musepi's silently.
        let text = PROFILE_FILES[1]
            .1
            .replace("catalog = \"pi\"", "catalog = \"pie\"");
        assert_ne!(text, PROFILE_FILES[1].1, "the pi profile names its catalog");
        let err = toml::from_str::<ProfileFile>(&text)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("pie") && err.contains("catalog"), "{err}");
    }

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

    fn project_with(settings: &str) -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        std::fs::create_dir_all(proj.join(".musepi")).unwrap();
        std::fs::write(proj.join(".musepi/settings.json"), settings).unwrap();
        (t, proj)
    }

    #[test]
    fn project_settings_may_lower_scan_bounds() {
        let (t, proj) = project_with(r#"{"scan": {"max_depth": 3, "max_dirs": 10}}"#);
        let s = load(&request(t.path(), &proj)).unwrap();
        assert_eq!(s.limits.max_depth, 3);
        assert_eq!(s.limits.max_dirs, 10);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn project_settings_cannot_raise_scan_bounds() {
        let (t, proj) = project_with(
            r#"{"scan": {"max_depth": 100000, "max_file_bytes": 5, "max_entries": 999999999}}"#,
        );
        let s = load(&request(t.path(), &proj)).unwrap();
        let d = ScanLimits::default();
        assert_eq!(s.limits.max_depth, d.max_depth);
        assert_eq!(s.limits.max_entries, d.max_entries);
        assert_eq!(s.limits.max_file_bytes, 5);
        let file = proj.join(".musepi/settings.json").display().to_string();
        assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
        let w = &s.warnings[0];
        assert_eq!(w.code, "untrusted-setting");
        assert!(w.message.contains("scan.max_depth"), "{}", w.message);
        assert!(w.message.contains(&file), "{}", w.message);
        assert!(w.message.contains("keeping 12"), "{}", w.message);
    }

    #[test]
    fn project_bounds_compare_with_the_user_value_and_later_trusted_layers_win() {
        let (t, proj) = project_with(r#"{"scan": {"max_depth": 40}}"#);
        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            r#"{"scan": {"max_depth": 50}}"#,
        )
        .unwrap();
        let mut r = request(t.path(), &proj);
        // Under the user's 50: kept.
        assert_eq!(load(&r).unwrap().limits.max_depth, 40);
        std::fs::write(
            agent.join("settings.json"),
            r#"{"scan": {"max_depth": 30}}"#,
        )
        .unwrap();
        // Over the user's 30: the user's value.
        assert_eq!(load(&r).unwrap().limits.max_depth, 30);
        // A trusted later layer raises again.
        r.env
            .insert("SKILLPIPE_SCAN__MAX_DEPTH".into(), "60".into());
        assert_eq!(load(&r).unwrap().limits.max_depth, 60);
        r.env.clear();
        r.sets = vec!["scan.max_depth=70".into()];
        assert_eq!(load(&r).unwrap().limits.max_depth, 70);
    }

    #[test]
    fn pi_project_settings_cannot_raise_scan_bounds_and_mark_their_entries() {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        std::fs::create_dir_all(proj.join(".pi")).unwrap();
        std::fs::write(
            proj.join(".pi/settings.json"),
            r#"{"skills": ["/"], "scan": {"max_depth": 100000}}"#,
        )
        .unwrap();
        let agent = t.path().join(".pi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("settings.json"), r#"{"skills": ["~/mine"]}"#).unwrap();
        let mut r = request(t.path(), &proj);
        r.profile = "pi".into();
        let s = load(&r).unwrap();
        assert_eq!(s.limits.max_depth, 12);
        assert_eq!(s.warnings[0].code, "untrusted-setting");
        let marks: Vec<(&str, bool)> = s
            .pi_skills
            .iter()
            .map(|e| (e.entry.as_str(), e.project))
            .collect();
        assert_eq!(marks, [("~/mine", false), ("/", true)]);
    }

    #[test]
    fn trust_settings_come_from_trusted_layers_only() {
        let (t, proj) =
            project_with(r#"{"skills": {"projectSkills": "all", "trustedProjects": ["."]}}"#);
        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            r#"{"skills": {"projectSkills": "trusted"}}"#,
        )
        .unwrap();
        let s = load(&request(t.path(), &proj)).unwrap();
        assert_eq!(s.project_skills, ProjectSkills::Trusted);
        assert!(s.trusted_projects.is_empty());
        assert!(!s.project_trusted());
        let codes: Vec<&str> = s.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["untrusted-setting", "untrusted-setting"]);
        assert!(s.warnings[1].message.contains("skills.trustedProjects"));
        // The user lists the project (any spelling of it): trusted.
        std::fs::write(
            agent.join("settings.json"),
            format!(
                r#"{{"skills": {{"projectSkills": "trusted", "trustedProjects": [{:?}]}}}}"#,
                format!("{}/../p", proj.display())
            ),
        )
        .unwrap();
        assert!(load(&request(t.path(), &proj)).unwrap().project_trusted());
    }

    #[test]
    fn project_skills_rejects_other_values_naming_the_origin() {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        r.sets = vec!["skills.projectSkills=some".into()];
        let err = load(&r).unwrap_err().to_string();
        assert!(
            err.contains("skills.projectSkills")
                && err.contains("--set")
                && err.contains("trusted"),
            "{err}"
        );
        r.sets = vec!["skills.projectSkills=trusted".into()];
        let s = load(&r).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.project_skills, ProjectSkills::Trusted);
    }

    #[cfg(unix)]
    #[test]
    fn config_that_is_a_directory_or_fifo_says_so() {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        let dir = t.path().join("d.json");
        std::fs::create_dir(&dir).unwrap();
        r.config_files = vec![dir];
        let err = load(&r).unwrap_err().to_string();
        assert!(err.contains("d.json: is a directory"), "{err}");
        let fifo = t.path().join("f.json");
        mkfifo(&fifo);
        r.config_files = vec![fifo];
        // Returns (never blocks on the FIFO) with the file's type.
        let err = load(&r).unwrap_err().to_string();
        assert!(
            err.contains("f.json: is not a regular file (it is a FIFO)"),
            "{err}"
        );
        r.config_files = vec![t.path().join("none.json")];
        let err = load(&r).unwrap_err().to_string();
        assert!(err.contains("none.json: no such file"), "{err}");
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[cfg(unix)]
    #[test]
    fn user_and_project_settings_that_are_not_files_are_errors() {
        let t = tempfile::tempdir().unwrap();
        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(agent.join("settings.json")).unwrap();
        let err = load(&request(t.path(), t.path())).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "settings file {}: is a directory",
                agent.join("settings.json").display()
            )
        );
        std::fs::remove_dir(agent.join("settings.json")).unwrap();
        mkfifo(&agent.join("settings.toml"));
        let err = load(&request(t.path(), t.path())).unwrap_err().to_string();
        assert!(
            err.contains("settings.toml: is not a regular file"),
            "{err}"
        );
        std::fs::remove_file(agent.join("settings.toml")).unwrap();

        let proj = t.path().join("p");
        std::fs::create_dir_all(proj.join(".musepi")).unwrap();
        mkfifo(&proj.join(".musepi/settings.json"));
        let err = load(&request(t.path(), &proj)).unwrap_err().to_string();
        assert!(
            err.contains(".musepi/settings.json: is not a regular file"),
            "{err}"
        );
    }

    #[test]
    fn oversized_settings_files_are_errors_naming_the_size() {
        let t = tempfile::tempdir().unwrap();
        let big = t.path().join("big.json");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_SETTINGS_BYTES + 1).unwrap();
        let mut r = request(t.path(), t.path());
        r.config_files = vec![big];
        let err = load(&r).unwrap_err().to_string();
        assert!(
            err.contains("big.json: is 16777217 bytes") && err.contains("16 MiB"),
            "{err}"
        );
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let t = tempfile::tempdir().unwrap();
        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            "\u{feff}{\"skills\": {\"enabled\": false}}",
        )
        .unwrap();
        assert!(!load(&request(t.path(), t.path())).unwrap().enabled);
        std::fs::remove_file(agent.join("settings.json")).unwrap();
        std::fs::write(
            agent.join("settings.toml"),
            "\u{feff}[skills]\nenableCodexUser = false\n",
        )
        .unwrap();
        assert!(!load(&request(t.path(), t.path())).unwrap().toggles["enableCodexUser"]);
    }

    #[test]
    fn relative_paths_in_a_project_file_resolve_against_it() {
        let (t, proj) = project_with(r#"{"skills": {"customDirectories": ["team"]}}"#);
        let s = load(&request(t.path(), &proj)).unwrap();
        assert_eq!(s.custom_directories, [proj.join(".musepi/team")]);
    }

    #[test]
    fn trust_edits_keep_every_other_key_in_place() {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        std::fs::create_dir_all(&proj).unwrap();
        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        let file = agent.join("settings.json");
        std::fs::write(
            &file,
            r#"{"zeta": 1, "skills": {"enabled": true, "ignoredSkills": ["a"]}, "alpha": [2]}"#,
        )
        .unwrap();
        let s = load(&request(t.path(), &proj)).unwrap();
        let edit = edit_trusted_projects(&s, t.path(), &proj.join("."), true).unwrap();
        assert!(edit.changed);
        assert_eq!(edit.key, "skills.trustedProjects");
        assert_eq!(edit.file, file);
        let canon = proj.canonicalize().unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["zeta", "skills", "alpha"]);
        let skill_keys: Vec<&String> = doc["skills"].as_object().unwrap().keys().collect();
        assert_eq!(skill_keys, ["enabled", "ignoredSkills", "trustedProjects"]);
        assert_eq!(doc["skills"]["trustedProjects"], serde_json::json!([canon]));
        // Twice: no change; the settings now trust it.
        let s = load(&request(t.path(), &proj)).unwrap();
        assert!(
            !edit_trusted_projects(&s, t.path(), &proj, true)
                .unwrap()
                .changed
        );
        assert_eq!(s.trusted_projects, [PathBuf::from(&canon)]);
        let edit = edit_trusted_projects(&s, t.path(), &proj, false).unwrap();
        assert!(edit.changed);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(doc["skills"]["trustedProjects"], serde_json::json!([]));
        assert_eq!(doc["zeta"], 1);
    }

    #[test]
    fn trust_edits_a_lone_toml_and_creates_json_otherwise() {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        std::fs::create_dir_all(&proj).unwrap();
        // pi: top-level key; no user file yet: settings.json is created.
        let mut r = request(t.path(), &proj);
        r.profile = "pi".into();
        let s = load(&r).unwrap();
        let edit = edit_trusted_projects(&s, t.path(), &proj, true).unwrap();
        assert_eq!(edit.file, t.path().join(".pi/agent/settings.json"));
        assert_eq!(edit.key, "trustedProjects");
        assert_eq!(load(&r).unwrap().trusted_projects.len(), 1);

        let agent = t.path().join(".musepi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        let toml_file = agent.join("settings.toml");
        std::fs::write(&toml_file, "# mine\n[skills]\nenabled = true # keep\n").unwrap();
        let s = load(&request(t.path(), &proj)).unwrap();
        let edit = edit_trusted_projects(&s, t.path(), &proj, true).unwrap();
        assert_eq!(edit.file, toml_file);
        let text = std::fs::read_to_string(&toml_file).unwrap();
        assert!(
            text.starts_with("# mine\n[skills]\nenabled = true # keep\n"),
            "{text}"
        );
        assert!(!agent.join("settings.json").exists());
        assert!(
            load(&request(t.path(), &proj))
                .unwrap()
                .trusted_projects
                .len()
                == 1
        );
        let err = edit_trusted_projects(&s, t.path(), &t.path().join("none"), true).unwrap_err();
        assert!(err.to_string().contains("none: no such file"), "{err}");
    }

    #[test]
    fn both_profiles_parse() {
        for p in PROFILES {
            let profile = profile(p).unwrap();
            assert!(!profile.providers.is_empty());
        }
    }
}
