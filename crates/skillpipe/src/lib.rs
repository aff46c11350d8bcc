//! The library host agents link: discovery of Agent Skills as coding agents
//! do it, then the catalogue, `/skill:` expansion and `skill://` reads.
//!
//! ```no_run
//! use skillpipe::{Delivery, Profile, ReadTool, Skillpipe};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The process environment, its working directory as the project, the
//! // home it names, the plugins the user's settings name: all defaults.
//! let skillpipe = Skillpipe::builder(Profile::Musepi).build()?;
//! for warning in skillpipe.warnings() {
//!     eprintln!("warning: {}: {}", warning.code, warning.message);
//! }
//! let found = skillpipe.discover();
//! for skill in found.skills() {
//!     println!("{} — {}", skill.name, skill.description);
//! }
//! let system_prompt = found.catalog(ReadTool::Available);
//! let message = found.expand("/skill:pdf extract page 3", Delivery::Prompt);
//! let reference = found.resolve("skill://pdf/reference.md")?;
//! # let _ = (system_prompt, message, reference);
//! # Ok(()) }
//! ```
//!
//! This crate is the one place that names every built-in provider crate, so
//! that the linker keeps their `inventory` registrations; a host that links
//! it gets them all. Loading provider plugins at run time is the `plugins`
//! feature (off by default: without it abi_stable is not linked).

mod engine;
pub mod explain;
mod host;
mod list_doc;
mod load_dir;
mod providers_doc;
mod watching;

pub use engine::{SkillsOverride, builtin_provider_ids};
pub use host::{Builder, Discovered, Error, Profile, ReadTool, Skillpipe, home_from_env};
pub use list_doc::{ListDocument, RemovedRow};
pub use load_dir::load_skills_from_dir;
pub use providers_doc::provider_json;

pub use skillpipe_core::arguments::{Arguments, Placeholders};
pub use skillpipe_core::budget::{
    CatalogMode, CatalogPaths, CatalogRoot, FittedCatalog, Layout, Truncation,
};
pub use skillpipe_core::copies::Copies;
pub use skillpipe_core::runtime::{
    CatalogOptions, Contents, ContextFile, Delivery, ExpandOptions, ExpandOutcome, Expansion,
    NotExpanded, ResolveError, ResolveOptions, Resource, SlashCommand, Style,
};
pub use skillpipe_core::search::SearchHit;
pub use skillpipe_core::types::{
    Claim, Collision, Diagnostic, DiagnosticCode, Discovery, Fate, Level, Pass, Severity,
    ShadowedCopy, SharedPath, Skill, Source, Text, Winner,
};
pub use skillpipe_core::types::{Invocation, Visibility};
pub use skillpipe_core::update::{CatalogUpdate, Rerender};
pub use skillpipe_core::visibility::Rule as VisibilityRule;
pub use skillpipe_core::{
    self as core, Conventional, Description, DiscoveryContext, NamedBy, Origin, ProviderInfo, Root,
    RootItem, SkillProvider, SourceRoot, Toggle,
};
pub use skillpipe_settings::{self as settings, Settings, SettingsError, Warning};
pub use skillpipe_validate::{Validation, validate};

// Name every provider crate so none is dropped by the linker.
use skillpipe_provider_agents as _;
use skillpipe_provider_claude as _;
use skillpipe_provider_claude_plugins as _;
use skillpipe_provider_codex as _;
use skillpipe_provider_github as _;
use skillpipe_provider_managed as _;
#[cfg(feature = "mcp")]
use skillpipe_provider_mcp as _;
use skillpipe_provider_native as _;
use skillpipe_provider_omp_plugins as _;
use skillpipe_provider_opencode as _;
use skillpipe_provider_pi as _;
