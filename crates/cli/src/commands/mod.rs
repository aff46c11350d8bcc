//! One module per subcommand, each with a `run` that `main.rs` dispatches
//! to: what a command prints and how it exits. What several commands share
//! (the tables, where output goes, terminal text, the configured library)
//! lives beside this folder, not in it.

pub(crate) mod completions;
pub(crate) mod context;
pub(crate) mod expand;
pub(crate) mod explain;
pub(crate) mod list;
pub(crate) mod man;
pub(crate) mod mcp;
pub(crate) mod prompt;
pub(crate) mod providers;
pub(crate) mod resolve;
pub(crate) mod search;
pub(crate) mod settings;
pub(crate) mod slash;
pub(crate) mod trust;
pub(crate) mod validate;
pub(crate) mod watch;
