//! The layers, in order (SPEC §7): where the settings files are and
//! reading them, then the figment stacks they are merged into: every
//! layer, and the trusted layers alone (no project file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use figment::value::magic::RelativePathBuf;
use figment::{Figment, Provider};
use serde_json::Value;
use skillpipe_core::paths::{normalize, resolve_entry};

use crate::error::{SettingsError, Warning};
use crate::file::{FileLayer, exists};
use crate::keys::{known_keys, unknown_top_key};
use crate::layer::{Layer, LayerKind, SettingsFile};
use crate::limits::lower_scan_bounds_only;
use crate::profile::{DEFAULTS, Preset, ProjectSettings, SettingsShape};
use crate::request::Request;
use crate::trust::{TrustKeys, untrusted_key_warnings};

/// The agent directory: `$<agent_dir_env>` when set and not blank, else
/// `<home>/<app dir>/agent`.
pub(crate) fn agent_dir(profile: &Preset, req: &Request, cwd: &Path) -> PathBuf {
    match req
        .env
        .get(&profile.agent_dir_env)
        .filter(|v| !v.trim().is_empty())
    {
        Some(dir) => resolve_entry(dir, cwd, &req.home),
        None => req.home.join(&profile.app_dir).join("agent"),
    }
}

/// Every settings file, read, in layer order: the user's, the project's,
/// then each `--config` file.
pub(crate) fn read_files(
    req: &Request,
    profile: &Preset,
    agent_dir: &Path,
    cwd: &Path,
    repo_root: Option<&Path>,
) -> Result<Vec<FileLayer>, SettingsError> {
    let mut files = Vec::new();
    for name in ["settings.json", "settings.toml"] {
        let path = agent_dir.join(name);
        // Something that is there but not a readable regular file (a
        // directory, a FIFO) is an error, never silently absent.
        if exists(&path)? {
            files.push(FileLayer::read(path, LayerKind::User)?);
        }
    }
    for path in project_files(profile, cwd, repo_root)? {
        files.push(FileLayer::read(path, LayerKind::Project)?);
    }
    for path in &req.config_files {
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("json" | "toml")) {
            return Err(SettingsError::File {
                path: path.clone(),
                reason: "a settings file must end in .json or .toml".to_owned(),
            });
        }
        files.push(FileLayer::read(path.clone(), LayerKind::Config)?);
    }
    Ok(files)
}

/// Where the user and project settings files of the profile are, and
/// whether each is there (`files`: those read). A project without one
/// shows the first place looked: `<cwd>/<app dir>/<name>`.
pub(crate) fn locations(
    profile: &Preset,
    agent_dir: &Path,
    cwd: &Path,
    files: &[FileLayer],
) -> Vec<SettingsFile> {
    let read = |path: &Path| files.iter().any(|f| f.path == path);
    let mut out: Vec<SettingsFile> = ["settings.json", "settings.toml"]
        .iter()
        .map(|name| {
            let path = agent_dir.join(name);
            SettingsFile {
                layer: LayerKind::User,
                exists: read(&path),
                path,
            }
        })
        .collect();
    let project: Vec<SettingsFile> = files
        .iter()
        .filter(|f| f.project())
        .map(|f| SettingsFile {
            layer: LayerKind::Project,
            path: f.path.clone(),
            exists: true,
        })
        .collect();
    if project.is_empty() {
        out.extend(
            profile
                .project_settings_files
                .iter()
                .map(|name| SettingsFile {
                    layer: LayerKind::Project,
                    path: cwd.join(&profile.app_dir).join(name),
                    exists: false,
                }),
        );
    } else {
        out.extend(project);
    }
    out
}

/// The project settings files, in layer order: whatever is at their paths
/// (a directory or FIFO there is an error when it is read, never skipped).
fn project_files(
    profile: &Preset,
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

/// Every settings file [`read_files`] reads, or would read were it there,
/// in layer order: the user's two, each project candidate (every directory
/// from cwd up to the repository when the profile looks there), then the
/// `--config` files.
pub(crate) fn candidate_files(
    req: &Request,
    profile: &Preset,
    agent_dir: &Path,
    cwd: &Path,
    repo_root: Option<&Path>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["settings.json", "settings.toml"]
        .iter()
        .map(|n| agent_dir.join(n))
        .collect();
    let dirs: Vec<&Path> = match (profile.project_settings, repo_root) {
        (ProjectSettings::Cwd, _) | (_, None) => vec![cwd],
        (_, Some(repo)) => {
            let mut dirs = Vec::new();
            for dir in cwd.ancestors() {
                dirs.push(dir);
                if dir == repo {
                    break;
                }
            }
            dirs
        }
    };
    for dir in dirs {
        for n in &profile.project_settings_files {
            out.push(dir.join(&profile.app_dir).join(n));
        }
    }
    out.extend(req.config_files.iter().cloned());
    out
}

/// The two figment stacks the layers are merged into, and the warnings
/// merging gave.
pub(crate) struct Stack {
    /// Every layer: what the settings are read from.
    pub(crate) full: Figment,
    /// The trusted layers only: what plugin paths and trust are read from.
    pub(crate) trusted: Figment,
    /// Warnings so far, in layer order.
    pub(crate) warnings: Vec<Warning>,
}

impl Stack {
    /// The built-in defaults and the profile's preset.
    pub(crate) fn base(profile_name: &str, preset: &toml::Table) -> Result<Self, SettingsError> {
        let defaults: Value = toml::from_str(DEFAULTS).map_err(|e| SettingsError::File {
            path: "config/defaults.toml".into(),
            reason: e.to_string(),
        })?;
        let preset =
            serde_json::to_value(preset).map_err(|e| SettingsError::Other(e.to_string()))?;
        let full = Figment::new()
            .merge(Layer {
                kind: LayerKind::Default,
                name: "built-in defaults".into(),
                data: defaults,
            })
            .merge(Layer {
                kind: LayerKind::Profile,
                name: format!("the {profile_name} profile's defaults"),
                data: preset,
            });
        Ok(Stack {
            trusted: full.clone(),
            full,
            warnings: Vec::new(),
        })
    }

    /// A trusted layer goes onto both stacks.
    fn merge_trusted<P: Provider + Clone>(&mut self, layer: &P) {
        self.trusted = std::mem::take(&mut self.trusted).merge(layer.clone());
        self.full = std::mem::take(&mut self.full).merge(layer.clone());
    }

    /// The settings files in order. A project file goes onto the full stack
    /// only, with a warning for each key it may not set, and a layer right
    /// after it that puts back any scan bound it tried to raise.
    pub(crate) fn merge_files(&mut self, files: &[FileLayer], trust_keys: TrustKeys) {
        for f in files {
            if !f.project() {
                self.merge_trusted(f);
                continue;
            }
            self.warnings.extend(untrusted_key_warnings(f, trust_keys));
            self.full = std::mem::take(&mut self.full).merge(f.clone());
            if let Some(kept) = lower_scan_bounds_only(f, &self.trusted, &mut self.warnings) {
                self.full = std::mem::take(&mut self.full).merge(kept);
            }
        }
    }

    /// `SKILLPIPE_*` variables: `__` between key parts, each matched
    /// case-insensitively against the known keys. `SKILLPIPE_PROFILE` and
    /// `SKILLPIPE_LOG` (the log filter) are no settings.
    pub(crate) fn merge_env(&mut self, env: &BTreeMap<String, String>, toggle_keys: &[String]) {
        let known = every_known_key();
        let mut spelt = known.clone();
        spelt.extend(toggle_keys.iter().map(|k| format!("skills.{k}")));
        for (name, value) in env {
            let Some(rest) = name.strip_prefix("SKILLPIPE_") else {
                continue;
            };
            if rest == "PROFILE" || rest == "LOG" || rest.is_empty() {
                continue;
            }
            let dotted = rest.split("__").collect::<Vec<_>>().join(".");
            let key = spelt
                .iter()
                .find(|k| k.eq_ignore_ascii_case(&dotted))
                .map_or_else(|| dotted.to_lowercase(), |k| (*k).to_owned());
            let name = format!("environment variable {name}");
            self.warnings.extend(unknown_top_key(&key, &name, &known));
            self.merge_trusted(&Layer {
                kind: LayerKind::Env,
                name,
                data: nest(&key, parse_value(value)),
            });
        }
    }

    /// `--set key.path=VALUE` flags, in order.
    pub(crate) fn merge_sets(&mut self, sets: &[String]) -> Result<(), SettingsError> {
        let known = every_known_key();
        for set in sets {
            let (key, value) = set
                .split_once('=')
                .ok_or_else(|| SettingsError::BadSet(set.clone()))?;
            self.warnings
                .extend(unknown_top_key(key.trim(), &format!("--set {set}"), &known));
            self.merge_trusted(&Layer {
                kind: LayerKind::Set,
                name: format!("--set {set}"),
                data: nest(key.trim(), parse_value(value)),
            });
        }
        Ok(())
    }
}

/// The keys of every shape: a variable or flag is spelt against them
/// whichever profile is loaded.
fn every_known_key() -> Vec<String> {
    known_keys(SettingsShape::ALL.map(SettingsShape::keys))
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

pub(crate) fn resolve_relative(p: &RelativePathBuf, cwd: &Path, home: &Path) -> PathBuf {
    let original = p.original().to_string_lossy();
    let base = p
        .metadata_path()
        .and_then(Path::parent)
        .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
    normalize(&resolve_entry(&original, &base, home))
}
