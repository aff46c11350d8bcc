//! The data skillpipe passes around: [`Skill`], [`Source`], [`Level`],
//! [`Diagnostic`] and [`Severity`].
//!
//! This crate does no I/O and depends on nothing of ours, so host agents,
//! providers and plugin hosts can all share it. Every value carries its
//! origin: a skill its provider, level and root, a diagnostic its path and,
//! for YAML errors, its line and column in the SKILL.md file.
//!
//! One file per type family, re-exported here: `skill.rs` (a skill and
//! where it came from), `frontmatter.rs` (its lazily built mapping),
//! `diagnostic.rs` (findings and their code registry), `discovery.rs`
//! (what a run returns, and the fates of the copies that did not load),
//! `reason.rs` (why a source was off or a name filtered, and how a
//! profile spells those settings), `shared.rs` (the strings and paths a
//! skill cuts from shared buffers) and `lossy.rs` (how paths serialise).

mod diagnostic;
mod discovery;
mod frontmatter;
pub mod lossy;
mod reason;
mod shared;
mod skill;

pub use diagnostic::{Collision, Diagnostic, DiagnosticCode, Severity};
pub use discovery::{Claim, Discovery, Fate, Pass, ShadowedCopy, Winner};
pub use frontmatter::Frontmatter;
pub use reason::{Filter, SettingKeys, Switch};
pub use shared::{SharedPath, Text};
pub use skill::{Invocation, LISTING_DESCRIPTION_CHARS, Level, Skill, Source, Visibility};
