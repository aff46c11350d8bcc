//! A settings shape's key table ([`ShapeKeys`], one per shape, in
//! `musepi.rs` and `pi.rs`) and what is derived from it: the tables whose
//! unknown keys get a warning, and the keys every shape knows, against
//! which the environment and `--set` flags are spelt.

use figment::Figment;

use crate::error::{Warning, origin_of};
use crate::invocation::InvocationKeys;
use crate::limits::SCAN_KEYS;
use crate::trust::{MCP_SERVERS, PLUGIN_PATHS, TrustKeys};
use skillpipe_core::suggest::closest;

/// Whether a `skills.*` key is a source toggle (`enable` and a capital:
/// `enableClaudeUser`), whose meaning the provider that declares it owns.
pub fn is_toggle_key(key: &str) -> bool {
    key != "enableSkillCommands"
        && key
            .strip_prefix("enable")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// One settings key of a shape, as a dotted path, and how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// A value of the merged settings, shown by `skillpipe settings` with
    /// the layer that set it.
    Merged(&'static str),
    /// A value of the merged settings that `skillpipe settings` does not
    /// show.
    Unlisted(&'static str),
    /// The table whose `enable<Source>` keys ([`is_toggle_key`]) are the
    /// source toggles: each provider declares those it reads, so every one
    /// set is shown.
    Toggles(&'static str),
    /// A value read from the trusted layers only (`trust.rs`), shown as
    /// they give it, or as its built-in default.
    Trusted(&'static str),
    /// A list read from each file on its own, in file order, never merged
    /// (pi's `skills` and `packages`); shown file by file, last.
    PerFile(&'static str),
}

impl Key {
    /// The dotted path.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Key::Merged(k)
            | Key::Unlisted(k)
            | Key::Toggles(k)
            | Key::Trusted(k)
            | Key::PerFile(k) => k,
        }
    }
}

/// A settings shape's table: every key it reads, and where its invocation
/// and trust settings are.
pub(crate) struct ShapeKeys {
    /// `arguments` and `visibility` (`invocation.rs`), shown first.
    pub(crate) invocation: InvocationKeys,
    /// The shape's own keys, in the order `skillpipe settings` shows them.
    pub(crate) own: &'static [Key],
    /// `projectSkills` and `trustedProjects`.
    pub(crate) trust: TrustKeys,
    /// The keys of the name filters and toggles, as a removed skill's
    /// fate names them (see [`SettingsShape::setting_keys`](crate::SettingsShape::setting_keys)).
    pub(crate) filters: FilterKeys,
}

/// The keys of the name filters and the prefix of the toggles: what a
/// shape spells its own way among the keys a reason names.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FilterKeys {
    /// Before a toggle key (`skills.`).
    pub(crate) toggle_prefix: &'static str,
    /// `skill:<name>` entries.
    pub(crate) disabled_extensions: &'static str,
    /// Globs that remove names.
    pub(crate) ignored_skills: &'static str,
    /// Globs that keep only the names they match.
    pub(crate) include_skills: &'static str,
}

impl ShapeKeys {
    /// Every key of the shape, in the order `skillpipe settings` shows
    /// them: the invocation keys, the shape's own, then those every shape
    /// has (the scan bounds, `plugins.paths`, the trust keys, `providers`)
    /// and last what is read per file.
    pub(crate) fn all(&self) -> impl Iterator<Item = Key> + '_ {
        let (per_file, own): (Vec<Key>, Vec<Key>) =
            self.own.iter().partition(|k| matches!(k, Key::PerFile(_)));
        [
            Key::Merged(self.invocation.arguments),
            Key::Merged(self.invocation.visibility),
        ]
        .into_iter()
        .chain(own)
        .chain(SCAN_KEYS.map(Key::Merged))
        .chain([
            Key::Trusted(PLUGIN_PATHS),
            Key::Trusted(MCP_SERVERS),
            Key::Trusted(self.trust.project_skills),
            Key::Trusted(self.trust.trusted_projects),
            Key::Merged("providers"),
        ])
        .chain(per_file)
    }

    /// The tables among the shape's keys (`skills`, `scan`, `plugins` in
    /// musepi), each with the keys known in it, in the order they come.
    fn tables(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let mut tables: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for key in self.all() {
            let (table, rest) = match (key, key.path().split_once('.')) {
                (_, Some((table, rest))) => (table, Some(rest)),
                (Key::Toggles(table), None) => (table, None),
                _ => continue,
            };
            let at = match tables.iter().position(|(t, _)| *t == table) {
                Some(at) => at,
                None => {
                    tables.push((table, Vec::new()));
                    tables.len() - 1
                }
            };
            if let Some((_, known)) = tables.get_mut(at) {
                known.extend(rest);
            }
        }
        tables
    }

    /// Whether `table` holds the shape's source toggles.
    fn toggles_in(&self, table: &'static str) -> bool {
        self.own.contains(&Key::Toggles(table))
    }
}

/// Every key the `shapes` know, each table too (`skills`, `scan`), in the
/// order they come: what an environment variable's name is spelt back
/// against, and the near misses suggested.
pub(crate) fn known_keys<'a>(shapes: impl IntoIterator<Item = &'a ShapeKeys>) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for path in shapes.into_iter().flat_map(|s| s.all()).map(Key::path) {
        let table = path.split_once('.').map(|(t, _)| t);
        for k in table.into_iter().chain([path]) {
            if !keys.iter().any(|known| known == k) {
                keys.push(k.to_owned());
            }
        }
    }
    keys
}

/// An `unknown-setting` warning for each key of a table of the shape
/// (`skills.*` in musepi, `scan.*`, `plugins.*`) that the shape does not
/// know, the toggles aside.
pub(crate) fn unknown_key_warnings(figment: &Figment, shape: &ShapeKeys) -> Vec<Warning> {
    let mut out = Vec::new();
    for (table, known) in shape.tables() {
        let Ok(value) = figment.find_value(table) else {
            continue;
        };
        let Some(dict) = value.as_dict() else {
            continue;
        };
        let toggles_here = shape.toggles_in(table);
        for key in dict
            .keys()
            .filter(|k| !(known.contains(&k.as_str()) || toggles_here && is_toggle_key(k)))
        {
            let dotted = format!("{table}.{key}");
            let origin = figment
                .find_metadata(&dotted)
                .map_or_else(|| "settings".to_owned(), origin_of);
            let hint =
                did_you_mean(closest(key, known.iter().copied()).map(|k| format!("{table}.{k}")));
            out.push(Warning {
                code: "unknown-setting",
                message: format!(
                    "{dotted} in {origin} is not a known setting; it is ignored{hint}"
                ),
            });
        }
    }
    out
}

/// An `unknown-setting` warning for a key given by an environment variable
/// or a `--set` flag (`origin`) whose first part is none of the `known`
/// keys ([`known_keys`]). Unknown keys of files pass quietly: a settings
/// file is shared with the agent, whose own keys are not ours.
pub(crate) fn unknown_top_key(dotted: &str, origin: &str, known: &[String]) -> Option<Warning> {
    let top = dotted.split('.').next().unwrap_or(dotted);
    if known.iter().any(|k| k == top) {
        return None;
    }
    let hint = did_you_mean(closest(dotted, known.iter().map(String::as_str)).map(str::to_owned));
    Some(Warning {
        code: "unknown-setting",
        message: format!("{dotted} in {origin} is not a known setting; it is ignored{hint}"),
    })
}

fn did_you_mean(suggestion: Option<String>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean {s}?)"))
}
