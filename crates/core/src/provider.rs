//! The provider API: what every source of skills implements, built-in crate
//! (registered with `inventory`) and plugin library alike.
//!
//! A provider says who it is ([`ProviderInfo`]) and where it looks
//! ([`SkillProvider::roots`]); the pipeline decides which roots are enabled
//! and scans them, through [`SkillProvider::scan_root`] (the shared scanners
//! by default, or a provider's own loader).
//!
//! [`prelude`] is what a provider author imports: `use
//! skillpipe_core::provider::prelude::*;`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
pub use skillpipe_types::Pass;
use skillpipe_types::{Diagnostic, Level, Source};

use crate::scan::{self, Found, ScanLimits, ScanMode, ScanSpec};

/// Everything a provider author needs, and nothing a host does: the
/// trait and its data, the roots and their settings, the context, the
/// diagnostics a provider reports, and the helpers for folders per project,
/// index files and the shared scanners.
///
/// ```
/// use skillpipe_core::provider::prelude::*;
///
/// fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
///     let root = Root::new(cx.home.join("team-skills"), Level::User);
///     vec![root.description(Description::Required).into()]
/// }
/// let team = Conventional::new(ProviderInfo::plugin("team", "Team skills", 60), roots)
///     .toggle(Toggle::key("enableTeamSkills"));
/// assert_eq!(team.info().toggles, [Toggle::key("enableTeamSkills")]);
/// ```
pub mod prelude {
    pub use super::{
        Conventional, Description, DiscoveryContext, EnabledField, Home, NamedBy, PiSettings,
        ProviderDescriptor, ProviderInfo, Root, RootItem, SettingsEntry, SkillProvider, SourceRoot,
        Sources, Toggle, project_ancestors, reload_with, scan_with,
    };
    pub use crate::fsio::{MAX_INDEX_BYTES, read_index};
    pub use crate::scan::{Found, ScanLimits, ScanMode};
    pub use skillpipe_types::{Diagnostic, DiagnosticCode, Level, Severity};
}

/// What gates a root (SPEC §4 "toggle").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toggle {
    /// Never gated.
    Always,
    /// Enabled when any of the profile's fallback keys is true.
    Fallback,
    /// Enabled when this `skills.<key>` setting is true (absent: true).
    /// Declared by the provider that owns the key, e.g. `const USER: Toggle
    /// = Toggle::key("enableClaudeUser");`: the settings read every
    /// `skills.enable*` key, and the providers' declarations say which ones
    /// mean something.
    Key(Cow<'static, str>),
}

impl Toggle {
    /// `Toggle::Key` of a key spelt in the provider's code.
    pub const fn key(key: &'static str) -> Self {
        Toggle::Key(Cow::Borrowed(key))
    }

    /// The settings key it reads, if any.
    pub fn key_name(&self) -> Option<&str> {
        match self {
            Toggle::Key(k) => Some(k),
            Toggle::Always | Toggle::Fallback => None,
        }
    }
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

/// Who scans a plugin provider's roots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scanner {
    /// The host, with its own scanners (the default): the scanning rules
    /// never depend on the copy of core a plugin was built with.
    #[default]
    Host,
    /// The provider's own [`SkillProvider::scan_root`] (a plugin with its
    /// own loader), called across the plugin boundary.
    Own,
}

/// Who a provider is. Pure data, no I/O. Its JSON form is the plugin
/// wire's **info** document ([`crate::wire`]).
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// Who scans its roots when it is a plugin (built-ins always run their
    /// own [`SkillProvider::scan_root`], in process).
    pub scanner: Scanner,
}

/// Whether a root refuses a skill without a description (SPEC §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Description {
    /// Refused, with a `description-required` error.
    Required,
    /// Accepted (as Claude Code, Codex and OpenCode accept it).
    Optional,
}

/// Who named a root: it decides whether `--no-skills` drops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NamedBy {
    /// The provider, by its conventions or its settings: `--no-skills`
    /// (setting `noSkills`) drops it.
    Provider,
    /// The command line (`--skill`): it loads even with `--no-skills`.
    CommandLine,
}

/// Whether a root's skills carry it as their `source.root`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceRoot {
    /// Reported: the directory scanned.
    Reported,
    /// Left out: a single file named directly (pi's explicit `.md` path).
    Omitted,
}

/// The values a [`Root`] takes for what its maker does not say. There are
/// two sets, both written here and nowhere else:
///
/// | | [`Root::DEFAULTS`] (`Root::new`) | [`Root::WIRE_DEFAULTS`] (a plugin's JSON) |
/// |---|---|---|
/// | level | the one given | [`Level::User`] |
/// | mode | [`ScanMode::OneLevel`] | [`ScanMode::OneLevel`] |
/// | description | [`Description::Optional`] | [`Description::Required`] |
/// | toggle | [`Toggle::Always`] | [`Toggle::Fallback`] |
/// | named by | [`NamedBy::Provider`] | [`NamedBy::Provider`] |
/// | source root | [`SourceRoot::Reported`] | [`SourceRoot::Reported`] |
///
/// The wire's set is part of the plugin ABI (`skillpipe-plugin-api`
/// documents it): a plugin that leaves a field out of its **roots**
/// document has always meant these values, so they never change. A Rust
/// provider's roots cross the wire with every field written, so only a
/// plugin built without the SDK ever relies on them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootDefaults {
    /// The level (`Root::new` always takes one).
    pub level: Level,
    /// How it is scanned.
    pub mode: ScanMode,
    /// Whether a skill without a description is refused.
    pub description: Description,
    /// What gates it.
    pub toggle: Toggle,
    /// Who named it.
    pub named_by: NamedBy,
    /// Whether `source.root` is reported.
    pub source_root: SourceRoot,
}

impl RootDefaults {
    /// A root at `path` with these values.
    pub fn root(&self, path: impl Into<PathBuf>) -> Root {
        Root {
            path: path.into(),
            level: self.level,
            mode: self.mode,
            description: self.description,
            toggle: self.toggle.clone(),
            named_by: self.named_by,
            source_root: self.source_root,
        }
    }
}

/// One directory (or file) a provider scans. Built with [`Root::new`] and
/// the value setters below; what a root does not set is [`Root::DEFAULTS`]
/// (see [`RootDefaults`]). Its JSON form is the plugin wire's
/// ([`crate::wire`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The directory or file.
    pub path: PathBuf,
    /// User, project or explicit path.
    pub level: Level,
    /// How it is scanned.
    pub mode: ScanMode,
    /// Whether a skill without a description is refused.
    pub description: Description,
    /// What gates it.
    pub toggle: Toggle,
    /// Who named it: a root named on the command line loads even with
    /// `--no-skills`.
    pub named_by: NamedBy,
    /// Whether its skills report it as `source.root`.
    pub source_root: SourceRoot,
}

impl Root {
    /// What [`Root::new`] starts from (its level is the one given).
    pub const DEFAULTS: RootDefaults = RootDefaults {
        level: Level::User,
        mode: ScanMode::OneLevel,
        description: Description::Optional,
        toggle: Toggle::Always,
        named_by: NamedBy::Provider,
        source_root: SourceRoot::Reported,
    };

    /// What the plugin wire fills in for a field a plugin's **roots**
    /// document leaves out: part of the plugin ABI, never changed.
    pub const WIRE_DEFAULTS: RootDefaults = RootDefaults {
        level: Level::User,
        mode: ScanMode::OneLevel,
        description: Description::Required,
        toggle: Toggle::Fallback,
        named_by: NamedBy::Provider,
        source_root: SourceRoot::Reported,
    };

    /// A root at `path` of `level`, every other value
    /// [`Root::DEFAULTS`]: scanned one level deep, a skill without a
    /// description accepted, never gated, named by the provider, its path
    /// reported as `source.root`. Each setter below takes the value.
    ///
    /// ```
    /// use skillpipe_core::{Description, Root, ScanMode, Toggle};
    /// use skillpipe_core::types::Level;
    /// let root = Root::new("/home/me/.claude/skills", Level::User)
    ///     .description(Description::Required)
    ///     .toggle(Toggle::key("enableClaudeUser"));
    /// assert_eq!(root.mode, ScanMode::OneLevel);
    /// ```
    pub fn new(path: impl Into<PathBuf>, level: Level) -> Self {
        Root::DEFAULTS.root(path).level(level)
    }

    /// Its level.
    #[must_use]
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    /// How it is scanned (default [`ScanMode::OneLevel`]).
    #[must_use]
    pub fn mode(mut self, mode: ScanMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether a skill without a description is refused (SPEC §2.2;
    /// default [`Description::Optional`]).
    #[must_use]
    pub fn description(mut self, description: Description) -> Self {
        self.description = description;
        self
    }

    /// The gate of the root (default [`Toggle::Always`]).
    #[must_use]
    pub fn toggle(mut self, toggle: Toggle) -> Self {
        self.toggle = toggle;
        self
    }

    /// Who named it (default [`NamedBy::Provider`]; a `--skill` path is
    /// [`NamedBy::CommandLine`] and loads even with `--no-skills`).
    #[must_use]
    pub fn named_by(mut self, named_by: NamedBy) -> Self {
        self.named_by = named_by;
        self
    }

    /// Whether its skills report it as `source.root` (default
    /// [`SourceRoot::Reported`]; a single file named directly is
    /// [`SourceRoot::Omitted`]).
    #[must_use]
    pub fn source_root(mut self, source_root: SourceRoot) -> Self {
        self.source_root = source_root;
        self
    }
}

impl From<Root> for RootItem {
    fn from(root: Root) -> Self {
        RootItem::Root(root)
    }
}

impl From<Diagnostic> for RootItem {
    fn from(d: Diagnostic) -> Self {
        RootItem::Diagnostic(d)
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
    /// A file the provider read (or looked for) to list its roots, a pi
    /// package's `package.json` or Claude Code's plugin index: discovery
    /// passes over it, and the watcher lists the roots again when it
    /// changes, so no host has to guess what a provider depends on.
    Input(PathBuf),
}

/// Which roots load: `--no-skills` (setting `noSkills`) leaves only the
/// command line's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Sources {
    /// Every enabled root (the default).
    #[default]
    All,
    /// Only roots [`NamedBy::CommandLine`] (`--no-skills`).
    CommandLineOnly,
}

/// Whether a skill's `enabled: false` frontmatter field skips its file
/// (profile data: musepi honours it, pi does not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum EnabledField {
    /// Read as any other field: the skill loads.
    #[default]
    Ignored,
    /// `enabled: false` skips the file.
    Honored,
}

/// A pi `skills` or `packages` settings entry, as written, with where it
/// resolves: what the host hands the pi profile's `path` provider in
/// [`PiSettings`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsEntry {
    /// As written.
    pub entry: String,
    /// The directory relative entries resolve against.
    pub base: PathBuf,
    /// The settings file that declared it.
    pub file: PathBuf,
    /// Declared by a project settings file (untrusted: a root it names
    /// outside the project is scanned with no more than the default
    /// bounds).
    #[serde(default)]
    pub project: bool,
}

/// pi's own settings (SPEC §6), for the pi profile's `path` provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PiSettings {
    /// `skills` entries, the global settings file's first, then the
    /// project's (none from an untrusted project).
    pub skills: Vec<SettingsEntry>,
    /// `packages` entries, in the same order.
    pub packages: Vec<SettingsEntry>,
    /// `--skill` paths as given (empty when the profile's custom pass
    /// takes them, as musepi's does).
    pub cli_skills: Vec<String>,
}

/// The world as a provider sees it: injected, never read from the process.
/// The host fills every field; its JSON form is the plugin wire's
/// **context** document ([`crate::wire`]), unchanged from when the
/// settings below crossed as one untyped `config` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "crate::wire::WireContext", from = "crate::wire::WireContext")]
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
    /// Which roots load (`--no-skills` / `noSkills`: only the command
    /// line's).
    pub sources: Sources,
    /// Whether `enabled: false` skips a file (profile data).
    pub enabled_field: EnabledField,
    /// The `extensions` setting: extension package roots, each resolved
    /// against the settings file that declared it (musepi's
    /// `omp-plugins`).
    pub extensions: Vec<PathBuf>,
    /// pi's `skills` and `packages` entries and `--skill` paths (the pi
    /// profile's `path` provider).
    pub pi: PiSettings,
    /// `providers.*` in the settings files, relative paths already
    /// resolved: each provider's own keys, free-form, read with
    /// [`DiscoveryContext::provider_config`].
    pub providers: serde_json::Value,
    /// The pipeline run this context belongs to (its idle cores, lent to
    /// [`scan_with`]); empty outside a run. Never serialised.
    pub schedule: crate::schedule::Schedule,
    /// Who hears of each skill file the scans read whole (none by
    /// default; see [`crate::observe`]). Never serialised.
    pub files: crate::observe::FileObserver,
}

impl DiscoveryContext {
    /// The settings of provider `id` (`providers.<id>` in the settings
    /// files, relative paths already resolved), read as `T`: `Ok(None)`
    /// when there are none, an error naming what does not fit otherwise.
    pub fn provider_config<T: serde::de::DeserializeOwned>(
        &self,
        id: &str,
    ) -> Result<Option<T>, serde_json::Error> {
        match self.providers.get(id) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => T::deserialize(v).map(Some),
        }
    }

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
    /// Who it is. Pure, no I/O, the same value every time.
    fn info(&self) -> &ProviderInfo;

    /// Where it looks, in order. May read small index files (through
    /// [`crate::fsio::read_index`], and report what cannot be read as a
    /// diagnostic), never skill files.
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem>;

    /// Scans one enabled root. The default uses the shared scanners. A
    /// provider that cannot do its job returns [`Found::Failed`]: then
    /// nothing it returned in this discovery, from any root, is kept but
    /// that diagnostic.
    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        scan_with(&self.info().id, cx, root)
    }

    /// Loads again one skill file that this provider's last scan of `root`
    /// found (`path`, as found), when its content changed in place: what a
    /// new scan of the root would make of that file, without scanning the
    /// root (live reload uses it). `None`, the default, means "scan the
    /// root whole": a provider whose `scan_root` is not the shared
    /// scanners' keeps it; one that scans with them ([`Conventional`])
    /// answers with [`reload_with`].
    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        let _ = (cx, root, path);
        None
    }

    /// Whether [`SkillProvider::scan_root`] may return [`Found::Failed`].
    /// `true`, the default: the pipeline holds what this provider's roots
    /// found until its last root is scanned, so that a failure drops it
    /// all. A provider whose scans cannot fail (the shared scanners never
    /// return `Failed`) says `false`, and each root's findings are taken
    /// as soon as they and those before them are ready, while its other
    /// roots are still being scanned. One that says `false` and fails
    /// anyway keeps what its earlier roots found; the failure is reported
    /// and nothing after it is kept.
    fn may_fail(&self) -> bool {
        true
    }
}

impl<P: SkillProvider + ?Sized> SkillProvider for Box<P> {
    fn info(&self) -> &ProviderInfo {
        (**self).info()
    }
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        (**self).roots(cx)
    }
    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        (**self).scan_root(cx, root)
    }
    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        (**self).reload_file(cx, root, path)
    }
    fn may_fail(&self) -> bool {
        (**self).may_fail()
    }
}

impl<P: SkillProvider + ?Sized> SkillProvider for std::sync::Arc<P> {
    fn info(&self) -> &ProviderInfo {
        (**self).info()
    }
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        (**self).roots(cx)
    }
    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        (**self).scan_root(cx, root)
    }
    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        (**self).reload_file(cx, root, path)
    }
    fn may_fail(&self) -> bool {
        (**self).may_fail()
    }
}

/// Scans `root` with the shared scanners, as provider `id`.
pub fn scan_with(id: &str, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
    let source = source_of(id, root);
    scan::scan_in(&spec_of(cx, root, &source), cx.schedule.workers())
}

/// Loads one file of `root` again as [`scan_with`] would have loaded it
/// ([`SkillProvider::reload_file`] for a provider that scans with it).
pub fn reload_with(id: &str, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
    let source = source_of(id, root);
    scan::reload_file(&spec_of(cx, root, &source), path)
}

/// The source every skill of `root` gets, as provider `id`.
fn source_of(id: &str, root: &Root) -> Arc<Source> {
    Arc::new(Source {
        provider: id.to_owned(),
        level: root.level,
        root: (root.source_root == SourceRoot::Reported).then(|| root.path.clone()),
    })
}

/// How the shared scanners read `root`.
fn spec_of<'a>(cx: &'a DiscoveryContext, root: &'a Root, source: &'a Arc<Source>) -> ScanSpec<'a> {
    ScanSpec {
        root: &root.path,
        mode: root.mode,
        source,
        require_description: root.description == Description::Required,
        honor_enabled: cx.enabled_field == EnabledField::Honored,
        limits: cx.limits,
        observer: Some(&cx.files),
    }
}

/// A built-in provider, registered in its crate with
/// `inventory::submit! { ProviderDescriptor::new(provider) }`. Its id is
/// the one its [`ProviderInfo`] gives.
pub struct ProviderDescriptor {
    build: fn() -> Box<dyn SkillProvider>,
}

impl ProviderDescriptor {
    /// Registers `build` (pure, no I/O).
    pub const fn new(build: fn() -> Box<dyn SkillProvider>) -> Self {
        ProviderDescriptor { build }
    }

    /// Builds the provider.
    pub fn build(&self) -> Box<dyn SkillProvider> {
        (self.build)()
    }
}

inventory::collect!(ProviderDescriptor);

/// Every registered built-in provider, built, sorted by id (registration
/// order is unspecified and never relied on).
pub fn registered() -> Vec<Box<dyn SkillProvider>> {
    let mut all: Vec<_> = inventory::iter::<ProviderDescriptor>
        .into_iter()
        .map(ProviderDescriptor::build)
        .collect();
    all.sort_by(|a, b| a.info().id.cmp(&b.info().id));
    all
}

/// A provider described by data plus a roots function: the shape of every
/// directory-convention provider (claude, codex, agents, …), so each
/// provider crate is its info, its gates and its roots.
///
/// Its gates are declared once, here, with [`Conventional::toggle`] (every
/// root) or [`Conventional::toggle_for`] (the roots of one level): they
/// become its info's [`ProviderInfo::toggles`] (what `providers` shows and
/// what gates the provider as a whole) and the toggle of each root its
/// roots function lists without one of its own, so the two never differ.
///
/// ```
/// use skillpipe_core::types::Level;
/// use skillpipe_core::{Conventional, DiscoveryContext, ProviderInfo, Root, RootItem, Toggle};
/// fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
///     vec![
///         Root::new(cx.home.join(".team/skills"), Level::User).into(),
///         Root::new(cx.cwd.join(".team/skills"), Level::Project).into(),
///     ]
/// }
/// let team = Conventional::new(ProviderInfo::builtin("team", "Team", 60), roots)
///     .toggle_for(Level::User, Toggle::key("enableTeamUser"))
///     .toggle_for(Level::Project, Toggle::Fallback);
/// assert_eq!(team.info.toggles, [Toggle::key("enableTeamUser"), Toggle::Fallback]);
/// ```
#[derive(Debug, Clone)]
pub struct Conventional {
    /// Who it is.
    pub info: ProviderInfo,
    /// Where it looks.
    pub roots: fn(&DiscoveryContext) -> Vec<RootItem>,
    /// Its gates, in the order declared: a root of the level (`None`:
    /// of any level) that names no toggle of its own takes it.
    gates: Vec<(Option<Level>, Toggle)>,
}

impl Conventional {
    /// A provider of `info` whose roots `roots` lists, gated as `info`
    /// says until [`Conventional::toggle`] or [`Conventional::toggle_for`]
    /// declares its gates.
    pub fn new(info: ProviderInfo, roots: fn(&DiscoveryContext) -> Vec<RootItem>) -> Self {
        Conventional {
            info,
            roots,
            gates: Vec::new(),
        }
    }

    /// Every root (of a level without a gate of its own) is gated by
    /// `toggle`.
    #[must_use]
    pub fn toggle(self, toggle: Toggle) -> Self {
        self.gate(None, toggle)
    }

    /// The roots of `level` are gated by `toggle`.
    #[must_use]
    pub fn toggle_for(self, level: Level, toggle: Toggle) -> Self {
        self.gate(Some(level), toggle)
    }

    /// Declares a gate: the info's toggles become the gates' (those
    /// declared so far, each once, in order; the first replaces what the
    /// info said, such as a plugin's default fallback).
    fn gate(mut self, level: Option<Level>, toggle: Toggle) -> Self {
        self.gates.push((level, toggle));
        let mut toggles: Vec<Toggle> = Vec::new();
        for (_, t) in &self.gates {
            if !toggles.contains(t) {
                toggles.push(t.clone());
            }
        }
        self.info.toggles = toggles;
        self
    }

    /// The gate of a root of `level`: its level's, else the one of every
    /// level.
    fn gate_of(&self, level: Level) -> Option<&Toggle> {
        let of = |want: Option<Level>| self.gates.iter().find(|(l, _)| *l == want).map(|(_, t)| t);
        of(Some(level)).or_else(|| of(None))
    }
}

impl SkillProvider for Conventional {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    /// Its roots function's items; a root that names no toggle (its
    /// toggle is [`Toggle::Always`]) takes its level's gate.
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        let mut items = (self.roots)(cx);
        if self.gates.is_empty() {
            return items;
        }
        for item in &mut items {
            if let RootItem::Root(root) = item
                && root.toggle == Toggle::Always
                && let Some(gate) = self.gate_of(root.level)
            {
                root.toggle = gate.clone();
            }
        }
        items
    }

    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        reload_with(&self.info.id, cx, root, path)
    }

    /// The shared scanners never fail.
    fn may_fail(&self) -> bool {
        false
    }
}

impl ProviderInfo {
    /// A built-in provider's info: authored skills (pass 1), no gates
    /// until [`ProviderInfo::toggles`] names them.
    pub fn builtin(id: &str, display_name: &str, priority: i32) -> Self {
        ProviderInfo {
            id: id.to_owned(),
            display_name: display_name.to_owned(),
            priority,
            toggles: Vec::new(),
            pass: Pass::Providers,
            origin: Origin::Builtin,
            scanner: Scanner::Host,
        }
    }

    /// A plugin provider's info: authored skills, gated by the profile's
    /// fallback toggle (SPEC §4: plugin providers take the fallback unless
    /// they name a toggle), its roots scanned by the host.
    pub fn plugin(id: &str, display_name: &str, priority: i32) -> Self {
        ProviderInfo {
            origin: Origin::Plugin,
            toggles: vec![Toggle::Fallback],
            ..ProviderInfo::builtin(id, display_name, priority)
        }
    }

    /// A plugin provider whose own [`SkillProvider::scan_root`] scans its
    /// roots (its own loader), instead of the host's scanners.
    #[must_use]
    pub fn scans_itself(mut self) -> Self {
        self.scanner = Scanner::Own;
        self
    }

    /// The gates its roots use, in root order (shown by `providers`); the
    /// provider as a whole is off when every one is off. A
    /// [`Conventional`] declares them with its own `toggle`/`toggle_for`
    /// instead, once for its info and its roots.
    #[must_use]
    pub fn toggles(mut self, toggles: impl IntoIterator<Item = Toggle>) -> Self {
        self.toggles = toggles.into_iter().collect();
        self
    }

    /// Its skills are auto-learned: pass 3, shadowed by any authored name.
    #[must_use]
    pub fn managed(mut self) -> Self {
        self.pass = Pass::Managed;
        self
    }

    /// The settings keys its toggles read.
    pub fn toggle_keys(&self) -> impl Iterator<Item = &str> {
        self.toggles.iter().filter_map(Toggle::key_name)
    }
}

/// Whether [`project_ancestors`] lists home itself when the walk reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Home is one of the project directories (`<home>/.musepi/skills`).
    Included,
    /// Home is left out (its folder is the user-level root already, as
    /// `~/.claude/skills`).
    Skipped,
}

/// The project directories a provider walks: ancestors of cwd, nearest
/// first, up to and including the repository root; without a repository up
/// to and including home when cwd is under it, else up to the filesystem
/// root. Comparisons are canonical; the paths returned are built from cwd
/// as given.
pub fn project_ancestors(cx: &DiscoveryContext, home_dir: Home) -> Vec<PathBuf> {
    let skip_home = home_dir == Home::Skipped;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
        vec![
            Root::new(cx.home.join("u"), Level::User).into(),
            Root::new(cx.cwd.join("p"), Level::Project).into(),
            Root::new(cx.cwd.join("x"), Level::Path).into(),
            Root::new(cx.cwd.join("own"), Level::Project)
                .toggle(Toggle::key("enableOwn"))
                .into(),
        ]
    }

    fn toggles(p: &Conventional) -> Vec<Toggle> {
        p.roots(&DiscoveryContext::default())
            .into_iter()
            .filter_map(|item| match item {
                RootItem::Root(r) => Some(r.toggle),
                RootItem::Diagnostic(_) | RootItem::Input(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_conventional_provider_declares_each_gate_once_for_info_and_roots() {
        let user = Toggle::key("enableUser");
        // Undeclared: the info's toggles and the roots' own, as given.
        let plain = Conventional::new(ProviderInfo::plugin("t", "T", 1), roots);
        assert_eq!(plain.info.toggles, [Toggle::Fallback]);
        assert_eq!(
            toggles(&plain)[..3],
            [Toggle::Always, Toggle::Always, Toggle::Always]
        );
        // One level's gate, and one for every other level; the first
        // declaration replaces the plugin's default fallback.
        let gated = plain
            .toggle_for(Level::User, user.clone())
            .toggle(Toggle::Fallback)
            .toggle_for(Level::Project, user.clone());
        assert_eq!(gated.info.toggles, [user.clone(), Toggle::Fallback]);
        assert_eq!(
            toggles(&gated),
            [
                user.clone(),
                user,
                Toggle::Fallback,
                // A root that names its own toggle keeps it.
                Toggle::key("enableOwn"),
            ]
        );
    }
}
