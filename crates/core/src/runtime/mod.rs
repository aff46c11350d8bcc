//! What hosts call after discovery (SPEC §8-§10): the system-prompt
//! catalogue, `/skill:` expansion, slash commands, `skill://` resolution
//! and AGENTS.md context files.
//!
//! One file per call (`catalog`, `expand`, `commands`, `resolve`,
//! `context`), re-exported here so every path is `runtime::X`.

mod catalog;
mod commands;
mod context;
mod expand;
mod resolve;

pub use catalog::{CatalogOptions, ReadTool, Style, escape_xml, render_catalog, render_entry};
pub(crate) use catalog::{catalog_head, catalog_tail, collapse_whitespace, push_entry};
pub use commands::{SkillCommands, SlashCommand, shadowed_commands, slash_commands};
pub use context::{ContextFile, context_files};
pub use expand::{Delivery, ExpandOptions, ExpandOutcome, Expansion, NotExpanded, expand};
pub use resolve::{
    Contents, MAX_RESOURCE_BYTES, ResolveError, ResolveOptions, Resource, check_segments,
    content_type, percent_decode, rel_segments, resolve, resolve_with,
};
