//! The provider API: what every source of skills implements, built-in crate
//! (registered with `inventory`) and plugin library alike.
//!
//! A provider says who it is ([`ProviderInfo`]) and where it looks
//! ([`SkillProvider::roots`]); the pipeline decides which roots are enabled
//! and scans them, through [`SkillProvider::scan_root`] (the shared scanners
//! by default, or a provider's own loader).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, Level, Source};

use crate::scan::{self, Found, ScanLimits, ScanMode, ScanSpec};

/// What gates a root (SPEC §4 "toggle").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toggle {
    /// Never gated.
    Always,
    /// Enabled when any of the profile's fallback keys is true.
    Fallback,
    /// Enabled when this `skills.<key>` setting is true.
    Key(String),
}

/// Where a provider comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Linked into the host.
    Builtin,
    /// Loaded from a plugin library.
    Plugin,
}

/// Which pass of the pipeline a provider's skills go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pass {
    /// Authored skills: pass 1 (SPEC §5 step 2).
    Authored,
    /// Auto-learned skills: pass 3, shadowed by any authored name (SPEC §5 step 6).
    Managed,
}

/// Who a provider is. Pure data, no I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderInfo {
    /// Stable kebab-case id, e.g. `claude`.
    pub id: String,
    /// Human name, e.g. `Claude Code`.
    pub display_name: String,
    /// Higher runs first; equal priorities keep the profile's list order.
    pub priority: i32,
    /// The gates its roots use, in root order (for `providers`).
    pub toggles: Vec<Toggle>,
    /// Which pass its skills go through.
    pub pass: Pass,
    /// Built in or plugin.
    pub origin: Origin,
}

/// One directory (or file) a provider scans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// The directory or file.
    pub path: PathBuf,
    /// User, project or explicit path.
    pub level: Level,
    /// How it is scanned.
    pub mode: ScanMode,
    /// Whether a skill without a description is refused.
    pub require_description: bool,
    /// What gates it.
    pub toggle: Toggle,
    /// Named on the command line (`--skill`): loads even with `--no-skills`.
    #[serde(default)]
    pub cli: bool,
    /// Whether `source.root` is reported (absent for a single file).
    #[serde(default = "yes")]
    pub report_root: bool,
}

fn yes() -> bool {
    true
}

impl Root {
    /// A root with the usual defaults: not from the command line, root reported.
    pub fn new(
        path: PathBuf,
        level: Level,
        mode: ScanMode,
        require_description: bool,
        toggle: Toggle,
    ) -> Self {
        Root {
            path,
            level,
            mode,
            require_description,
            toggle,
            cli: false,
            report_root: true,
        }
    }
}

/// What [`SkillProvider::roots`] yields, in order: roots to scan and
/// findings about the provider's own configuration (a missing explicit
/// path, an unreadable plugin index).
#[derive(Debug, Clone, PartialEq)]
pub enum RootItem {
    /// A root to scan.
    Root(Root),
    /// A finding reported at this point of the visit order.
    Diagnostic(Diagnostic),
}

/// The world as a provider sees it: injected, never read from the process.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiscoveryContext {
    /// The project directory, absolute and lexically normalised.
    pub cwd: PathBuf,
    /// The user's home.
    pub home: PathBuf,
    /// The nearest ancestor of cwd holding `.git`.
    pub repo_root: Option<PathBuf>,
    /// The profile's app directory name, e.g. `.musepi`.
    pub app_dir: String,
    /// The agent directory (`~/.musepi/agent`, `~/.pi/agent`, or moved by env).
    pub agent_dir: PathBuf,
    /// A snapshot of the environment variables providers may read.
    pub env: BTreeMap<String, String>,
    /// Scan bounds.
    pub limits: ScanLimits,
    /// `--no-skills` / `noSkills`: only command-line roots load.
    pub no_skills: bool,
    /// Whether `enabled: false` skips a file (profile data).
    pub honor_enabled: bool,
    /// Provider settings, relative paths already resolved: opaque JSON that
    /// each provider reads its own keys from.
    pub config: serde_json::Value,
}

impl DiscoveryContext {
    /// A non-blank environment variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }
}

/// A source of skills.
pub trait SkillProvider: Send + Sync + fmt::Debug {
    /// Who it is. Pure, no I/O.
    fn info(&self) -> ProviderInfo;

    /// Where it looks, in order. May read small index files (and report
    /// them as diagnostics), never skill files.
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem>;

    /// Scans one enabled root. The default uses the shared scanners. A
    /// provider that cannot do its job returns [`Found::Failed`]: then
    /// nothing it returned in this discovery, from any root, is kept but
    /// that diagnostic.
    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        scan_with(&self.info().id, cx, root)
    }
}

/// Scans `root` with the shared scanners, as provider `id`.
pub fn scan_with(id: &str, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
    let source = Arc::new(Source {
        provider: id.to_owned(),
        level: root.level,
        root: root.report_root.then(|| root.path.clone()),
    });
    scan::scan(&ScanSpec {
        root: &root.path,
        mode: root.mode,
        source: &source,
        require_description: root.require_description,
        honor_enabled: cx.honor_enabled,
        limits: cx.limits,
    })
}

/// A built-in provider, registered with `inventory::submit!` in its crate.
pub struct ProviderDescriptor {
    /// The provider's id (matches [`ProviderInfo::id`]).
    pub id: &'static str,
    /// Builds it. Pure, no I/O.
    pub build: fn() -> Box<dyn SkillProvider>,
}

inventory::collect!(ProviderDescriptor);

/// Every registered built-in provider, sorted by id (registration order is
/// unspecified and never relied on).
pub fn registered() -> Vec<&'static ProviderDescriptor> {
    let mut all: Vec<_> = inventory::iter::<ProviderDescriptor>.into_iter().collect();
    all.sort_by_key(|d| d.id);
    all
}

/// A provider described by data plus a roots function: the shape of every
/// directory-convention provider (claude, codex, agents, …), so each
/// provider crate is its info and its roots.
#[derive(Debug, Clone)]
pub struct Conventional {
    /// Who it is.
    pub info: ProviderInfo,
    /// Where it looks.
    pub roots: fn(&DiscoveryContext) -> Vec<RootItem>,
}

impl SkillProvider for Conventional {
    fn info(&self) -> ProviderInfo {
        self.info.clone()
    }
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        (self.roots)(cx)
    }
}

impl ProviderInfo {
    /// A built-in provider's info.
    pub fn builtin(id: &str, display_name: &str, priority: i32, toggles: Vec<Toggle>) -> Self {
        ProviderInfo {
            id: id.to_owned(),
            display_name: display_name.to_owned(),
            priority,
            toggles,
            pass: Pass::Authored,
            origin: Origin::Builtin,
        }
    }
}

/// The project directories a provider walks: ancestors of cwd, nearest
/// first, up to and including the repository root; without a repository up
/// to and including home when cwd is under it, else up to the filesystem
/// root. With `skip_home`, home itself is left out. Comparisons are
/// canonical; the paths returned are built from cwd as given.
pub fn project_ancestors(cx: &DiscoveryContext, skip_home: bool) -> Vec<PathBuf> {
    use crate::paths::canonical;
    let home = canonical(&cx.home);
    let cwd = canonical(&cx.cwd);
    let stop = match &cx.repo_root {
        Some(repo) => Some(canonical(repo)),
        None if cwd.starts_with(&home) => Some(home.clone()),
        None => None,
    };
    let mut out = Vec::new();
    for dir in cx.cwd.ancestors() {
        let real = canonical(dir);
        if !(skip_home && real == home) {
            out.push(dir.to_path_buf());
        }
        if stop.as_ref() == Some(&real) {
            break;
        }
    }
    out
}

/// A one-level root, the usual kind for provider directories.
pub fn one_level(
    path: PathBuf,
    level: Level,
    require_description: bool,
    toggle: Toggle,
) -> RootItem {
    RootItem::Root(Root::new(
        path,
        level,
        ScanMode::OneLevel,
        require_description,
        toggle,
    ))
}

/// `Toggle::Key` from a `&str`.
pub fn key(k: &str) -> Toggle {
    Toggle::Key(k.to_owned())
}
