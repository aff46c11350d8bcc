//! The test kit for provider authors: the way skillpipe tests its own
//! providers, for a platform team to test theirs the same way.
//!
//! - [`Tree`] writes a temporary `home/` and `project/` in a few lines;
//! - [`check`] runs one provider through the real pipeline (settings,
//!   trust, toggles, the host's scanners, dedup, order) on that tree, and
//!   compares what loaded with the lines you expect, paths relative to the
//!   tree; [`lines`] returns those lines for assertions of your own, and
//!   [`Run`] sets the profile, environment and settings of a run;
//! - [`hostile`] lays out hostile files beside good skills in one of the
//!   provider's roots and asserts the good ones survive.
//!
//! ```
//! use skillpipe::{Conventional, DiscoveryContext, Level, ProviderInfo, Root, RootItem};
//! use skillpipe_testkit::{Tree, check};
//!
//! fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
//!     vec![Root::new(cx.home.join("team-skills"), Level::User).into()]
//! }
//! let team = || Conventional::new(ProviderInfo::plugin("team", "Team skills", 60), roots);
//!
//! let tree = Tree::new();
//! tree.skill("home/team-skills/deploy", "deploy", "Ship it.")
//!     .skill("project/team-skills/lint", "lint", "Not where the team looks.");
//! check(team(), &tree, &["skill deploy (team/user) home/team-skills/deploy/SKILL.md"]);
//! ```
//!
//! Dependencies: the `skillpipe` library (which links every built-in
//! provider crate, so that the kit can switch them off) and `tempfile`.
//! It is therefore only ever a **dev-dependency**: a provider crate, which
//! depends on `skillpipe-core` alone, uses it from its tests
//! (`providers/<name>/tests/<name>.rs`, integration tests, so that the
//! provider crate is compiled once), and `tests/arrows.rs` fails if any
//! crate takes it as a normal dependency.

mod run;
mod tree;

pub mod hostile;

pub use run::{Run, diagnostic_line, skill_line};
pub use tree::Tree;
#[cfg(unix)]
pub use tree::runs_as_root;

/// The profiles a [`Run`] may use.
pub use skillpipe::Profile;

/// Asserts that `provider`, alone in the musepi profile, loads exactly
/// `expected` in `tree`: [`skill_line`]s, then [`diagnostic_line`]s, in
/// order. On a mismatch it panics with both, as a diff. [`Run`] for
/// another profile, the environment or settings.
#[track_caller]
pub fn check(provider: impl skillpipe::SkillProvider + 'static, tree: &Tree, expected: &[&str]) {
    Run::new(provider).check(tree, expected);
}

/// What `provider`, alone in the musepi profile, loads in `tree`, as the
/// lines [`check`] compares.
pub fn lines(provider: impl skillpipe::SkillProvider + 'static, tree: &Tree) -> Vec<String> {
    Run::new(provider).lines(tree)
}
