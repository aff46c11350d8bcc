//! The skillpipe provider-plugin ABI: the only types that cross between the
//! host (`skillpipe-plugin-host`) and a plugin library (a `cdylib`).
//!
//! This crate depends on `abi_stable` and nothing else, so a plugin can be
//! built against it without skillpipe's core, and a move away from
//! `abi_stable` (to `stabby` or hand-written `#[repr(C)]`) stays local to
//! this crate and the two adapters around it.
//!
//! # Sides
//!
//! - **Local** (the plugin): implements [`FfiProvider`] and exports a
//!   [`PluginMod`] from `#[export_root_module]`. Rust plugins do not write
//!   this by hand: `skillpipe-plugin-sdk`'s `export_provider!` turns any
//!   `SkillProvider` into a plugin in one line.
//! - **Foreign** (the host): `skillpipe-plugin-host` loads the library,
//!   checks the version and layout, and wraps the provider as a
//!   `SkillProvider` (`ForeignProvider`), so core never sees an FFI type.
//!
//! # Versioning
//!
//! The crate version is the ABI version ([`PluginModRef`]'s
//! `VERSION_STRINGS` come from `package_version_strings!`). abi_stable
//! refuses a plugin of another minor version (0.x) and checks the layout of
//! the root module, field by field. Rules:
//! - new [`FfiProvider`] methods and [`PluginMod`] fields are appended after
//!   the `last_prefix_field` in a patch release (0.1.0 → 0.1.1);
//! - anything else (a changed signature, a removed method, a changed JSON
//!   meaning) bumps the minor (0.1 → 0.2).
//!
//! # The surface is small; the data is JSON
//!
//! Rich values cross as UTF-8 JSON strings, so adding a field to a skill or
//! to the context never changes the ABI. Every call returns
//! `RResult<RString, RString>`: `ROk(json)` or `RErr(short message)`. A
//! plugin must never let a panic unwind out of a call (it would abort the
//! host); the SDK catches every panic and returns it as `RErr`.
//!
//! The JSON documents (serde's default externally tagged form):
//!
//! - **context** (host → plugin, every call): `{"cwd", "home", "repo_root",
//!   "app_dir", "agent_dir", "env": {name: value}, "limits": {"max_depth",
//!   "max_dirs", "max_entries", "max_file_bytes"}, "no_skills",
//!   "honor_enabled", "config": {"extensions": [path], "providers": {<id>:
//!   …}, "pi": {"skills": [ENTRY], "packages": [ENTRY], "cli_skills":
//!   [path]}}}`, `ENTRY` being `{"entry", "base", "file", "project"}`.
//!   `config["providers"][<id>]` holds the plugin's own settings
//!   (`providers.<id>` in a settings file); `extensions` and `pi` are the
//!   settings the built-in `omp-plugins` and `path` providers read. In
//!   Rust these are `DiscoveryContext`'s typed fields (`providers`,
//!   `extensions`, `pi`, `sources`, `enabled_field`), whose serde form is
//!   this document.
//! - **info** (plugin → host, once): `{"id", "display_name", "priority",
//!   "toggles"?, "pass"?}`. `toggles` is a list of `"always"`, `"fallback"`
//!   or `{"key": "<skills.* key>"}`; absent means `["fallback"]`. `pass` is
//!   `"authored"` (default) or `"managed"`; `"providers"`, the name the
//!   host's own JSON gives pass 1, is read as `"authored"`, and
//!   `"authored"` is what the SDK writes.
//! - **roots** (plugin → host): a list of `{"root": ROOT}` or
//!   `{"diagnostic": DIAGNOSTIC}` in visit order. `ROOT` is `{"path",
//!   "level"?: "user"|"project"|"path" (default user), "mode"?:
//!   "one-level"|"recursive"|"file" (default one-level),
//!   "require_description"? (default true), "toggle"? (default
//!   "fallback"), "cli"? (default false), "report_root"? (default true)}`
//!   (these defaults are `Root::WIRE_DEFAULTS` in `skillpipe-core`).
//! - **scan** (host → plugin: context and one `ROOT` as above; plugin →
//!   host): a list of `{"candidate": {"path", "real_path"?, "filter_name"?,
//!   "skill": SKILL|null, "diagnostics": [DIAGNOSTIC]}}` or `{"diagnostic":
//!   DIAGNOSTIC}` in visit order. `SKILL` and `DIAGNOSTIC` are the JSON of
//!   `skillpipe list --json`. The host sets `skill.source.provider` to the
//!   plugin's id.

use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RBox, RResult, RStr, RString};
use abi_stable::{StableAbi, declare_root_module_statics, package_version_strings, sabi_trait};

pub use abi_stable;

/// The name the root module is exported under (abi_stable's `BASE_NAME`).
pub const ROOT_MODULE_NAME: &str = "skillpipe_plugin";

/// This crate's version: the ABI version a plugin was built against.
pub const ABI_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A provider, as the plugin implements it. Every method returns JSON (see
/// the crate docs) or a short error message; none may panic across the
/// boundary.
#[sabi_trait]
pub trait FfiProvider: Send + Sync {
    /// Who the provider is: the **info** document.
    fn info(&self) -> RResult<RString, RString>;

    /// Where it looks, given the **context**: the **roots** document.
    fn roots(&self, context: RStr<'_>) -> RResult<RString, RString>;

    /// Scans one enabled root (one `ROOT` of its **roots**): the **scan**
    /// document.
    #[sabi(last_prefix_field)]
    fn scan_root(&self, context: RStr<'_>, root: RStr<'_>) -> RResult<RString, RString>;
}

/// An owned, type-erased [`FfiProvider`].
pub type FfiProviderBox = FfiProvider_TO<'static, RBox<()>>;

/// The root module a plugin library exports (with
/// `#[export_root_module]`).
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModRef)))]
#[sabi(missing_field(panic))]
pub struct PluginMod {
    /// Builds the library's provider, or says why it cannot.
    #[sabi(last_prefix_field)]
    pub new: extern "C" fn() -> RResult<FfiProviderBox, RString>,
}

impl RootModule for PluginModRef {
    declare_root_module_statics! {PluginModRef}
    const BASE_NAME: &'static str = ROOT_MODULE_NAME;
    const NAME: &'static str = ROOT_MODULE_NAME;
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}
