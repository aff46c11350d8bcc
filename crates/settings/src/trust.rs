//! Trust: what only the trusted layers may set (plugin paths, which
//! projects' skills load), and `trust`/`untrust`'s edit of the user file.

use std::path::{Path, PathBuf};

use figment::Figment;
use figment::value::magic::RelativePathBuf;
use serde::Deserialize;
use serde_json::Value;
use skillpipe_core::paths::{canonical, normalize, plain, resolve_entry};

use crate::error::{SettingsError, Warning, origin_of};
use crate::figment_error::figment_error;
use crate::file::{
    FileLayer, exists, io_reason, link_target, lock_for_edit, read_settings_file, replace_file,
};
use crate::layer::LayerKind;
use crate::settings::{ProjectSkills, Settings, TrustedOnly};

/// The plugin libraries' paths: every shape's, set by trusted layers only.
pub(crate) const PLUGIN_PATHS: &str = "plugins.paths";

/// The MCP servers the `mcp` provider starts or calls: every shape's, set
/// by trusted layers only (a project could otherwise run a command).
pub(crate) const MCP_SERVERS: &str = "mcp.servers";

#[derive(Deserialize)]
struct PluginsRaw {
    plugins: Plugins,
}

#[derive(Deserialize)]
struct Plugins {
    paths: Vec<RelativePathBuf>,
}

/// Where the trust settings live in a settings shape: beside the other
/// skill settings (`skills.*` in musepi; top level in pi, whose `skills`
/// is a list of paths). Each shape's are in its key table
/// ([`SettingsShape::trust_keys`](crate::SettingsShape::trust_keys)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustKeys {
    /// `projectSkills`: `"all"` or `"trusted"`.
    pub project_skills: &'static str,
    /// `trustedProjects`: directories.
    pub trusted_projects: &'static str,
}

impl TrustKeys {
    /// The keys for loaded settings (their profile's shape).
    pub fn of(settings: &Settings) -> Self {
        settings.profile.settings_shape.trust_keys()
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
                        found: format!("a string {raw:?}"),
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

/// `plugins.paths`, `projectSkills` and `trustedProjects`, from the
/// trusted layers.
pub(crate) fn trusted_only(
    trusted: &Figment,
    keys: TrustKeys,
    resolve: &impl Fn(&RelativePathBuf) -> PathBuf,
) -> Result<TrustedOnly, SettingsError> {
    let plugin_paths = trusted
        .extract::<PluginsRaw>()
        .map_err(|e| figment_error(trusted, e))?
        .plugins
        .paths
        .iter()
        .map(resolve)
        .collect();
    let (project_skills, trusted_projects) = trust_settings(trusted, keys, resolve)?;
    let mcp_servers = match trusted.find_value(MCP_SERVERS) {
        Err(_) => serde_json::Map::new(),
        Ok(_) => match trusted
            .extract_inner::<Value>(MCP_SERVERS)
            .map_err(|e| figment_error(trusted, e))?
        {
            Value::Object(servers) => servers,
            other => {
                return Err(SettingsError::Value {
                    key: MCP_SERVERS.to_owned(),
                    origin: trusted
                        .find_metadata(MCP_SERVERS)
                        .map_or_else(|| "settings".to_owned(), origin_of),
                    expected: "an object of server ids".to_owned(),
                    found: match other {
                        Value::Array(_) => "a list",
                        Value::String(_) => "a string",
                        Value::Number(_) => "a number",
                        Value::Bool(_) => "a boolean",
                        Value::Null | Value::Object(_) => "null",
                    }
                    .to_owned(),
                });
            }
        },
    };
    Ok(TrustedOnly {
        plugin_paths,
        mcp_servers,
        project_skills,
        trusted_projects,
    })
}

/// An `untrusted-setting` warning for each key of a project file that only
/// trusted layers may set (the file's value is never read).
pub(crate) fn untrusted_key_warnings(f: &FileLayer, trust_keys: TrustKeys) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if f.get(PLUGIN_PATHS).is_some() {
        warnings.push(Warning {
            code: "untrusted-setting",
            message: format!(
                "{PLUGIN_PATHS} in {} is ignored (project settings cannot load plugins)",
                f.path.display()
            ),
        });
    }
    if f.get(MCP_SERVERS).is_some() {
        warnings.push(Warning {
            code: "untrusted-setting",
            message: format!(
                "{MCP_SERVERS} in {} is ignored (project settings cannot start MCP servers)",
                f.path.display()
            ),
        });
    }
    // Read from trusted layers only; a project cannot trust itself.
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
    warnings
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
    /// A layer above the user settings (`--config`, the environment,
    /// `--set`) that sets the key in this run, so its value wins over the
    /// file's: the edit counts only where that layer is not there.
    pub overridden_by: Option<String>,
}

/// What `trust`/`untrust` does to a project's entry in `trustedProjects`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustChange {
    /// Add it (`skillpipe trust`): the directory must exist.
    Trust,
    /// Remove it (`skillpipe untrust`).
    Untrust,
}

/// Adds `dir` to (`trust`) or removes it from the user's `trustedProjects`
/// in the active profile's agent directory: in the user settings file
/// whose value wins, that is `settings.toml` when it sets the key (it is
/// the later layer), else `settings.json`, else a `settings.toml` alone;
/// `settings.json` is created when there is neither. Every other key keeps
/// its value and place (TOML: its comments too). Entries are compared
/// canonically; a new one is stored canonical.
///
/// Concurrent edits (several `trust` runs at once) each take an advisory
/// lock (on the sidecar `<file>.lock`) around reading and writing, so
/// none is lost; the file is replaced whole (a temporary file renamed over
/// it), so a reader never sees a part of it. A settings file that is a
/// symbolic link stays one: the file it leads to is replaced.
pub fn edit_trusted_projects(
    settings: &Settings,
    home: &Path,
    dir: &Path,
    change: TrustChange,
) -> Result<TrustEdit, SettingsError> {
    let trust = change == TrustChange::Trust;
    let key = TrustKeys::of(settings).trusted_projects;
    let canon = match std::fs::canonicalize(dir) {
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
    // Stored as people write it (`C:\x`, not Windows' verbatim `\\?\C:\x`);
    // compared canonically, as every reader of the list compares.
    let dir = plain(canon.clone());
    let Some(dir_text) = dir.to_str().map(str::to_owned) else {
        return Err(SettingsError::Other(format!(
            "cannot store {} in settings: the path is not UTF-8",
            dir.display()
        )));
    };
    let file = file_to_edit(&settings.agent_dir, key)?;
    let base = settings.agent_dir.clone();
    let same = |entry: &str| canonical(&normalize(&resolve_entry(entry, &base, home))) == canon;
    let edit = ListEdit {
        key,
        file: &file,
        trust,
        same: &same,
        entry: &dir_text,
    };
    let overridden_by = settings
        .effective
        .iter()
        .find(|e| e.key == key)
        .filter(|e| {
            !matches!(
                e.origin.layer,
                LayerKind::User | LayerKind::Default | LayerKind::Profile
            )
        })
        .map(|e| e.origin.name.clone());
    let done = |changed: bool| TrustEdit {
        dir: dir.clone(),
        file: file.clone(),
        key,
        changed,
        overridden_by: overridden_by.clone(),
    };
    // A first look without the lock: when there is nothing to change, that
    // is the answer (the file is only ever replaced whole).
    if edit.apply(current_text(&file)?.as_deref())?.is_none() {
        return Ok(done(false));
    }
    std::fs::create_dir_all(&settings.agent_dir).map_err(|e| SettingsError::File {
        path: settings.agent_dir.clone(),
        reason: format!("cannot create the directory: {e}"),
    })?;
    let target = link_target(&file)?;
    let _lock = lock_for_edit(&target)?;
    // Read again under the lock: another edit may have come first.
    let changed = match edit.apply(current_text(&target)?.as_deref())? {
        Some(text) => {
            replace_file(&target, &text).map_err(|reason| SettingsError::File {
                path: file.clone(),
                reason,
            })?;
            true
        }
        None => false,
    };
    Ok(done(changed))
}

/// The user settings file whose `key` counts: `settings.toml` when it sets
/// the key (the later layer), else `settings.json` when it exists, else a
/// `settings.toml` alone, else `settings.json` (to be created).
fn file_to_edit(agent_dir: &Path, key: &str) -> Result<PathBuf, SettingsError> {
    let json = agent_dir.join("settings.json");
    let toml = agent_dir.join("settings.toml");
    if exists(&toml)? {
        let sets_key = FileLayer::read(toml.clone(), LayerKind::User)?
            .get(key)
            .is_some();
        if sets_key || !exists(&json)? {
            return Ok(toml);
        }
    }
    Ok(json)
}

/// The text of a settings file, or `None` when there is none.
fn current_text(path: &Path) -> Result<Option<String>, SettingsError> {
    if exists(path)? {
        read_settings_file(path).map(Some)
    } else {
        Ok(None)
    }
}

/// One edit of a `trustedProjects` list, applied to a file's text.
struct ListEdit<'a> {
    key: &'static str,
    /// The file as the user knows it (errors name it).
    file: &'a Path,
    trust: bool,
    same: &'a dyn Fn(&str) -> bool,
    /// The entry to add.
    entry: &'a str,
}

impl ListEdit<'_> {
    /// The new text of the file, or `None` when nothing changes.
    fn apply(&self, text: Option<&str>) -> Result<Option<String>, SettingsError> {
        let fail = |reason: String| SettingsError::File {
            path: self.file.to_path_buf(),
            reason,
        };
        let key = self.key;
        let parts: Vec<&str> = key.split('.').collect();
        let (tables, last) = parts.split_at(parts.len() - 1);
        let last = last.first().copied().unwrap_or(key);
        if self.file.extension().is_some_and(|e| e == "toml") {
            let mut doc: toml_edit::DocumentMut = text
                .unwrap_or_default()
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
            let had = list.iter().any(|v| v.as_str().is_some_and(self.same));
            if self.trust && !had {
                list.push(self.entry);
            } else if !self.trust && had {
                list.retain(|v| !v.as_str().is_some_and(self.same));
            } else {
                return Ok(None);
            }
            Ok(Some(doc.to_string()))
        } else {
            let mut doc: Value = match text {
                Some(text) => serde_json::from_str(text).map_err(|e| fail(e.to_string()))?,
                None => Value::Object(serde_json::Map::new()),
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
            let had = list.iter().any(|v| v.as_str().is_some_and(self.same));
            if self.trust && !had {
                list.push(Value::String(self.entry.to_owned()));
            } else if !self.trust && had {
                list.retain(|v| !v.as_str().is_some_and(self.same));
            } else {
                return Ok(None);
            }
            let mut text = serde_json::to_string_pretty(&doc).map_err(|e| fail(e.to_string()))?;
            text.push('\n');
            Ok(Some(text))
        }
    }
}
