//! The JSON documents a provider plugin and the host exchange (their schema
//! is documented in `skillpipe-plugin-api`): written here by the plugin
//! side (`skillpipe-plugin-sdk`) and read here by the host
//! (`skillpipe-plugin-host`), one definition for both. Reading is lenient:
//! optional fields take the defaults a plugin author would expect, so a
//! plugin written against the interface crate alone, in any language,
//! needs to send little.
//!
//! Defaults worth knowing: a provider without `toggles` is gated by the
//! profile's fallback toggle (SPEC §4); what a root leaves out is
//! [`Root::WIRE_DEFAULTS`] (gated by the fallback toggle, scanned
//! `one-level`, at level `user`, requiring a description). Whatever a
//! plugin says, its providers have origin `plugin` and its skills name it
//! as their provider.
//!
//! The Rust types ([`ProviderInfo`], [`Root`]) have no serde form of their
//! own: the wire's spellings (pass 1 `"authored"`, a root's booleans
//! `require_description`, `cli` and `report_root`) are written here only.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use std::path::Path;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, Level, Skill};

use crate::load::{Candidate, FileKind, default_name};
use crate::provider::{
    Description, DiscoveryContext, EnabledField, NamedBy, Origin, Pass, PiSettings, ProviderInfo,
    Root, RootItem, Scanner, SettingsEntry, SourceRoot, Sources, Toggle,
};
use crate::scan::{Found, ScanLimits, ScanMode};

/// The **context** document (host → plugin, every call): the serde form
/// of [`DiscoveryContext`] (`#[serde(into, from)]`), as it always was.
/// The typed settings cross in `config`: `{"extensions": [PATH],
/// "providers": {<id>: …}, "pi": {"skills": [ENTRY], "packages": [ENTRY],
/// "cli_skills": [STRING]}}`; `no_skills` and `honor_enabled` are the
/// wire's booleans for [`Sources`] and [`EnabledField`]. Read leniently:
/// what is missing is the default.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct WireContext {
    cwd: PathBuf,
    home: PathBuf,
    repo_root: Option<PathBuf>,
    app_dir: String,
    agent_dir: PathBuf,
    env: BTreeMap<String, String>,
    limits: ScanLimits,
    no_skills: bool,
    honor_enabled: bool,
    config: Option<WireConfig>,
}

/// The context's `config` object, its keys in the order the host has
/// always written them.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct WireConfig {
    extensions: Vec<PathBuf>,
    providers: serde_json::Value,
    pi: WirePi,
}

#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct WirePi {
    skills: Vec<SettingsEntry>,
    packages: Vec<SettingsEntry>,
    cli_skills: Vec<String>,
}

impl From<DiscoveryContext> for WireContext {
    fn from(cx: DiscoveryContext) -> Self {
        WireContext {
            cwd: cx.cwd,
            home: cx.home,
            repo_root: cx.repo_root,
            app_dir: cx.app_dir,
            agent_dir: cx.agent_dir,
            env: cx.env,
            limits: cx.limits,
            no_skills: cx.sources == Sources::CommandLineOnly,
            honor_enabled: cx.enabled_field == EnabledField::Honored,
            config: Some(WireConfig {
                extensions: cx.extensions,
                providers: cx.providers,
                pi: WirePi {
                    skills: cx.pi.skills,
                    packages: cx.pi.packages,
                    cli_skills: cx.pi.cli_skills,
                },
            }),
        }
    }
}

impl From<WireContext> for DiscoveryContext {
    fn from(w: WireContext) -> Self {
        let config = w.config.unwrap_or_default();
        DiscoveryContext {
            cwd: w.cwd,
            home: w.home,
            repo_root: w.repo_root,
            app_dir: w.app_dir,
            agent_dir: w.agent_dir,
            env: w.env,
            limits: w.limits,
            sources: match w.no_skills {
                true => Sources::CommandLineOnly,
                false => Sources::All,
            },
            enabled_field: match w.honor_enabled {
                true => EnabledField::Honored,
                false => EnabledField::Ignored,
            },
            extensions: config.extensions,
            pi: PiSettings {
                skills: config.pi.skills,
                packages: config.pi.packages,
                cli_skills: config.pi.cli_skills,
            },
            providers: config.providers,
            schedule: Default::default(),
            files: Default::default(),
        }
    }
}

/// The **info** document, both ways: read leniently by [`info`], written
/// whole by [`encode_info`].
#[derive(Serialize, Deserialize)]
struct WireInfo {
    id: String,
    display_name: Option<String>,
    priority: i32,
    toggles: Option<Vec<Toggle>>,
    #[serde(default)]
    pass: WirePass,
    /// Written as it always was; never believed when read (a plugin's
    /// providers have origin `plugin`, whatever it says).
    #[serde(default = "plugin")]
    origin: Origin,
    #[serde(default)]
    scanner: Scanner,
}

fn plugin() -> Origin {
    Origin::Plugin
}

/// How the plugin wire spells a [`Pass`]: pass 1 is `"authored"` there
/// (the spelling of the interface since its first version, and what every
/// host reads), where the user-facing JSON says `"providers"`. This is the
/// one place the two spellings meet: `"providers"` is read too, `"authored"`
/// is what is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum WirePass {
    /// [`Pass::Providers`] (the default).
    #[default]
    #[serde(alias = "providers")]
    Authored,
    /// [`Pass::Custom`]: reserved, refused by [`info`]; written only so
    /// that the refusal names it.
    Custom,
    /// [`Pass::Managed`].
    Managed,
}

impl From<Pass> for WirePass {
    fn from(pass: Pass) -> Self {
        match pass {
            Pass::Providers => WirePass::Authored,
            Pass::Custom => WirePass::Custom,
            Pass::Managed => WirePass::Managed,
        }
    }
}

impl From<WirePass> for Pass {
    fn from(pass: WirePass) -> Self {
        match pass {
            WirePass::Authored => Pass::Providers,
            WirePass::Custom => Pass::Custom,
            WirePass::Managed => Pass::Managed,
        }
    }
}

/// Reads the **info** document.
pub fn info(json: &str) -> Result<ProviderInfo, String> {
    let w: WireInfo = serde_json::from_str(json).map_err(|e| format!("info: {e}"))?;
    let id = w.id.trim().to_owned();
    if id.is_empty() {
        return Err("info: the provider id is empty".to_owned());
    }
    if id == crate::custom::CUSTOM {
        return Err(
            "info: the provider id \"custom\" is reserved (the custom-directories pass)".to_owned(),
        );
    }
    if w.pass == WirePass::Custom {
        return Err(
            "info: the pass \"custom\" is reserved (the custom-directories pass); a plugin's is \"authored\" or \"managed\"".to_owned(),
        );
    }
    Ok(ProviderInfo {
        display_name: w.display_name.unwrap_or_else(|| id.clone()),
        id,
        priority: w.priority,
        toggles: w.toggles.unwrap_or_else(|| vec![Toggle::Fallback]),
        pass: w.pass.into(),
        origin: Origin::Plugin,
        scanner: w.scanner,
    })
}

/// Writes the **info** document: every field, `pass` in the wire's
/// spelling (pass 1 is `"authored"`).
pub fn encode_info(info: &ProviderInfo) -> Result<String, String> {
    to_json(&WireInfo {
        id: info.id.clone(),
        display_name: Some(info.display_name.clone()),
        priority: info.priority,
        toggles: Some(info.toggles.clone()),
        pass: info.pass.into(),
        origin: info.origin,
        scanner: info.scanner,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireRootItem {
    Root(WireRoot),
    Diagnostic(Diagnostic),
    Input(PathBuf),
}

/// A `ROOT` as read: every field but `path` optional, what is left out
/// taken from [`Root::WIRE_DEFAULTS`] (part of the plugin ABI).
#[derive(Deserialize)]
struct WireRoot {
    path: PathBuf,
    level: Option<Level>,
    mode: Option<ScanMode>,
    require_description: Option<bool>,
    toggle: Option<Toggle>,
    cli: Option<bool>,
    report_root: Option<bool>,
}

impl From<WireRoot> for Root {
    fn from(w: WireRoot) -> Self {
        let mut root = Root::WIRE_DEFAULTS.root(w.path);
        if let Some(level) = w.level {
            root = root.level(level);
        }
        if let Some(mode) = w.mode {
            root = root.mode(mode);
        }
        if let Some(required) = w.require_description {
            root = root.description(match required {
                true => Description::Required,
                false => Description::Optional,
            });
        }
        if let Some(toggle) = w.toggle {
            root = root.toggle(toggle);
        }
        if let Some(cli) = w.cli {
            root = root.named_by(match cli {
                true => NamedBy::CommandLine,
                false => NamedBy::Provider,
            });
        }
        if let Some(reported) = w.report_root {
            root = root.source_root(match reported {
                true => SourceRoot::Reported,
                false => SourceRoot::Omitted,
            });
        }
        root
    }
}

/// A `ROOT` as written: every field, so the reader's defaults never
/// matter (the wire's spellings: `require_description`, `cli` and
/// `report_root` are booleans there).
#[derive(Serialize)]
struct WireRootOut<'a> {
    path: &'a Path,
    level: Level,
    mode: ScanMode,
    require_description: bool,
    toggle: &'a Toggle,
    cli: bool,
    report_root: bool,
}

impl<'a> From<&'a Root> for WireRootOut<'a> {
    fn from(r: &'a Root) -> Self {
        WireRootOut {
            path: &r.path,
            level: r.level,
            mode: r.mode,
            require_description: r.description == Description::Required,
            toggle: &r.toggle,
            cli: r.named_by == NamedBy::CommandLine,
            report_root: r.source_root == SourceRoot::Reported,
        }
    }
}

/// One item of the **roots** document, as written.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum WireRootItemOut<'a> {
    Root(WireRootOut<'a>),
    Diagnostic(&'a Diagnostic),
    Input(&'a std::path::Path),
}

/// Writes the **roots** document.
pub fn encode_roots(items: &[RootItem]) -> Result<String, String> {
    let wire: Vec<WireRootItemOut<'_>> = items
        .iter()
        .map(|item| match item {
            RootItem::Root(r) => WireRootItemOut::Root(r.into()),
            RootItem::Diagnostic(d) => WireRootItemOut::Diagnostic(d),
            RootItem::Input(p) => WireRootItemOut::Input(p),
        })
        .collect();
    to_json(&wire)
}

/// Reads the **roots** document.
pub fn roots(json: &str) -> Result<Vec<RootItem>, String> {
    let items: Vec<WireRootItem> = serde_json::from_str(json).map_err(|e| format!("roots: {e}"))?;
    Ok(items
        .into_iter()
        .map(|item| match item {
            WireRootItem::Root(r) => RootItem::Root(r.into()),
            WireRootItem::Diagnostic(d) => RootItem::Diagnostic(d),
            WireRootItem::Input(p) => RootItem::Input(p),
        })
        .collect())
}

/// Writes the `ROOT` the host sends with a **scan** call.
pub fn encode_root(root: &Root) -> Result<String, String> {
    to_json(&WireRootOut::from(root))
}

/// Reads the `ROOT` of a **scan** call (as leniently as a root of the
/// **roots** document).
pub fn root(json: &str) -> Result<Root, String> {
    serde_json::from_str::<WireRoot>(json)
        .map(Root::from)
        .map_err(|e| format!("root: {e}"))
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireFound {
    Candidate(WireCandidate),
    Diagnostic(Diagnostic),
}

#[derive(Deserialize)]
struct WireCandidate {
    path: PathBuf,
    real_path: Option<PathBuf>,
    filter_name: Option<String>,
    skill: Option<Skill>,
    #[serde(default)]
    diagnostics: Vec<Diagnostic>,
}

/// One item of the **scan** document, as written.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum WireFoundOut<'a> {
    Candidate {
        path: &'a Path,
        real_path: &'a Path,
        filter_name: &'a str,
        skill: Option<&'a Skill>,
        diagnostics: &'a [Diagnostic],
    },
    Diagnostic(&'a Diagnostic),
}

/// Writes the **scan** document. A [`Found::Failed`] has no wire form: it
/// is the error (its message), which the host reports as the provider's
/// failure.
pub fn encode_found(found: &[Found]) -> Result<String, String> {
    let wire = found
        .iter()
        .map(|f| match f {
            Found::Candidate {
                candidate,
                path,
                real_path,
            } => Ok(WireFoundOut::Candidate {
                path,
                real_path,
                filter_name: &candidate.filter_name,
                skill: candidate.skill.as_ref(),
                diagnostics: &candidate.diagnostics,
            }),
            Found::Diagnostic(d) => Ok(WireFoundOut::Diagnostic(d)),
            Found::Failed(d) => Err(d.message.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    to_json(&wire)
}

fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| format!("cannot encode the result as JSON: {e}"))
}

/// Reads the **scan** document of provider `id`.
pub fn found(json: &str, id: &str) -> Result<Vec<Found>, String> {
    let items: Vec<WireFound> = serde_json::from_str(json).map_err(|e| format!("scan: {e}"))?;
    Ok(items
        .into_iter()
        .map(|item| match item {
            WireFound::Diagnostic(d) => Found::Diagnostic(d),
            WireFound::Candidate(c) => {
                let mut skill = c.skill;
                if let Some(s) = &mut skill {
                    id.clone_into(&mut std::sync::Arc::make_mut(&mut s.source).provider);
                }
                let filter_name = c
                    .filter_name
                    .map(skillpipe_types::Text::from)
                    .or_else(|| skill.as_ref().map(|s| s.name.clone()))
                    .unwrap_or_else(|| default_name(&c.path, FileKind::SkillFile).into());
                let real_path = c.real_path.unwrap_or_else(|| {
                    fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone())
                });
                Found::Candidate {
                    candidate: Candidate {
                        filter_name,
                        skill,
                        diagnostics: c.diagnostics,
                        file_len: None,
                    },
                    path: c.path.into(),
                    real_path: real_path.into(),
                }
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_minimal_info_takes_the_fallback_toggle_and_origin_plugin() {
        let i = info(r#"{"id": "cats", "priority": 40}"#).unwrap();
        assert_eq!(i.display_name, "cats");
        assert_eq!(i.toggles, vec![Toggle::Fallback]);
        assert_eq!(i.pass, Pass::Providers);
        assert_eq!(i.origin, Origin::Plugin);
        // An explicit empty list (always on) is kept; origin is never the plugin's word.
        let i = info(r#"{"id": "m", "display_name": "M", "priority": 5, "toggles": [], "pass": "managed", "origin": "builtin"}"#).unwrap();
        assert!(i.toggles.is_empty());
        assert_eq!(i.pass, Pass::Managed);
        assert_eq!(i.origin, Origin::Plugin);
        assert_eq!(i.scanner, Scanner::Host, "the host scans unless told");
        let own = info(r#"{"id": "o", "priority": 1, "scanner": "own"}"#).unwrap();
        assert_eq!(own.scanner, Scanner::Own);
        let round = info(&encode_info(&own).unwrap()).unwrap();
        assert_eq!(round, own);
        assert!(info(r#"{"id": " ", "priority": 1}"#).is_err());
        assert!(info(r#"{"id": "custom", "priority": 1}"#).is_err());
        // Nor may a plugin claim the custom pass itself.
        let err = info(r#"{"id": "sly", "priority": 1, "pass": "custom"}"#).unwrap_err();
        assert!(err.contains("reserved"), "{err}");
        assert!(info(r#"{"priority": 1}"#).is_err());
    }

    #[test]
    fn the_info_document_spells_pass_one_authored_as_it_always_did() {
        let written = encode_info(&ProviderInfo::plugin("team", "Team skills", 60)).unwrap();
        assert_eq!(
            written,
            r#"{"id":"team","display_name":"Team skills","priority":60,"toggles":["fallback"],"pass":"authored","origin":"plugin","scanner":"host"}"#
        );
        let managed = ProviderInfo::builtin("m", "M", 5).managed();
        assert!(
            encode_info(&managed)
                .unwrap()
                .contains(r#""pass":"managed""#)
        );
        // Both spellings of pass 1 are read.
        for pass in ["authored", "providers"] {
            let json = format!(r#"{{"id": "p", "priority": 1, "pass": "{pass}"}}"#);
            assert_eq!(info(&json).unwrap().pass, Pass::Providers, "{pass}");
        }
    }

    #[test]
    fn a_minimal_root_gets_the_defaults() {
        let items = roots(r#"[{"root": {"path": "/r"}}, {"diagnostic": {"severity": "error", "code": "read-error", "message": "m", "path": "/i"}}]"#).unwrap();
        let RootItem::Root(r) = &items[0] else {
            panic!("{items:?}")
        };
        assert_eq!(r.level, Level::User);
        assert_eq!(r.mode, ScanMode::OneLevel);
        assert_eq!(r.description, Description::Required);
        assert_eq!(r.source_root, SourceRoot::Reported);
        assert_eq!(r.named_by, NamedBy::Provider);
        assert_eq!(r.toggle, Toggle::Fallback);
        assert_eq!(r, &Root::WIRE_DEFAULTS.root("/r"));
        assert!(matches!(&items[1], RootItem::Diagnostic(d) if d.code == "read-error"));
    }

    #[test]
    fn a_root_is_written_as_it_always_was_and_read_back_whole() {
        let root = Root::new("/h/x", Level::Project)
            .mode(ScanMode::File)
            .description(Description::Required)
            .toggle(Toggle::key("enableX"))
            .named_by(NamedBy::CommandLine)
            .source_root(SourceRoot::Omitted);
        let items = [RootItem::Root(root.clone()), RootItem::Input("/h/i".into())];
        assert_eq!(
            encode_roots(&items).unwrap(),
            r#"[{"root":{"path":"/h/x","level":"project","mode":"file","require_description":true,"toggle":{"key":"enableX"},"cli":true,"report_root":false}},{"input":"/h/i"}]"#
        );
        assert_eq!(roots(&encode_roots(&items).unwrap()).unwrap(), items);
        let plain = Root::new("/h/y", Level::User);
        assert_eq!(
            encode_root(&plain).unwrap(),
            r#"{"path":"/h/y","level":"user","mode":"one-level","require_description":false,"toggle":"always","cli":false,"report_root":true}"#
        );
        for r in [root, plain] {
            assert_eq!(self::root(&encode_root(&r).unwrap()).unwrap(), r);
        }
        assert!(self::root("[]").is_err());
    }

    #[test]
    fn the_context_crosses_as_it_always_did_its_settings_typed() {
        // What a host wrote before the settings were typed (pi profile).
        let json = r#"{"cwd":"/p","home":"/h","repo_root":null,"app_dir":".pi","agent_dir":"/h/.pi/agent","env":{"PATH":"/bin"},"limits":{"max_depth":12,"max_dirs":20000,"max_entries":200000,"max_file_bytes":1048576},"no_skills":true,"honor_enabled":false,"config":{"extensions":["/p/ext"],"providers":{"team":{"dir":"d"}},"pi":{"skills":[{"entry":"../x","base":"/h/.pi/agent","file":"/h/.pi/agent/settings.json","project":false}],"packages":[],"cli_skills":["/p/s"]}}}"#;
        let cx: DiscoveryContext = serde_json::from_str(json).unwrap();
        assert_eq!(cx.sources, Sources::CommandLineOnly);
        assert_eq!(cx.enabled_field, EnabledField::Ignored);
        assert_eq!(cx.extensions, [PathBuf::from("/p/ext")]);
        assert_eq!(cx.pi.skills[0].entry, "../x");
        assert_eq!(cx.pi.cli_skills, ["/p/s"]);
        #[derive(Deserialize, PartialEq, Debug)]
        struct Team {
            dir: String,
        }
        let team = cx.provider_config::<Team>("team").unwrap();
        assert_eq!(team, Some(Team { dir: "d".into() }));
        assert_eq!(serde_json::to_string(&cx).unwrap(), json);
        // Leniently read: what is missing is the default.
        let bare: DiscoveryContext = serde_json::from_str(r#"{"home": "/h"}"#).unwrap();
        assert_eq!(
            bare,
            DiscoveryContext {
                home: "/h".into(),
                ..DiscoveryContext::default()
            }
        );
    }

    #[test]
    fn skills_are_attributed_to_the_plugin_and_names_defaulted() {
        let json = r#"[{"candidate": {"path": "/r/a/SKILL.md", "skill": {"name": "x", "description": "d",
            "file_path": "/r/a/SKILL.md", "base_dir": "/r/a", "source": {"provider": "liar", "level": "user"},
            "hidden": false, "frontmatter": {}}}},
            {"candidate": {"path": "/r/b/SKILL.md", "skill": null, "diagnostics": []}}]"#;
        let f = found(json, "cats").unwrap();
        let Found::Candidate {
            candidate,
            real_path,
            ..
        } = &f[0]
        else {
            panic!("{f:?}")
        };
        assert_eq!(candidate.filter_name, "x");
        assert_eq!(candidate.skill.as_ref().unwrap().source.provider, "cats");
        assert_eq!(real_path, &PathBuf::from("/r/a/SKILL.md"));
        let Found::Candidate { candidate, .. } = &f[1] else {
            panic!("{f:?}")
        };
        assert_eq!(candidate.filter_name, "b");
        assert!(found("{}", "cats").is_err());
    }
}
