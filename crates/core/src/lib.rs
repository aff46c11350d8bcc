//! skillpipe's engine: the provider API and registry, the scanners, the
//! frontmatter parser and checks, the discovery pipeline, and the runtime
//! calls hosts make after discovery.
//!
//! Nothing here reads the process environment, the current directory or
//! the home directory: everything comes in through
//! [`provider::DiscoveryContext`].

pub mod arguments;
pub mod budget;
pub mod checks;
pub mod copies;
pub mod custom;
pub mod dependencies;
mod dirfd;
pub mod frontmatter;
pub mod fsio;
pub mod head;
pub mod invocation;
pub mod load;
pub mod observe;
pub mod paths;
pub mod pipeline;
pub mod provider;
pub mod runtime;
pub mod scan;
pub mod schedule;
pub mod search;
pub mod suggest;
pub mod text;
pub mod update;
mod util;
pub mod visibility;
pub mod wire;

pub use pipeline::{FinalOrder, Options, PipelineRules};
pub use provider::{
    Conventional, Description, DiscoveryContext, EnabledField, Home, NamedBy, Origin, Pass,
    PiSettings, ProviderDescriptor, ProviderInfo, Root, RootDefaults, RootItem, Scanner,
    SettingsEntry, SkillProvider, SourceRoot, Sources, Toggle, project_ancestors,
};
pub use scan::{Found, ScanLimits, ScanMode};
pub use skillpipe_types as types;
