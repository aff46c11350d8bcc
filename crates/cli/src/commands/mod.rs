//! One module per subcommand, each with a `run` that `main.rs` dispatches
//! to: what a command prints and how it exits. What several commands share
//! (the tables, where output goes, terminal text, the configured library)
//! lives beside this folder, not in it.

pub mod completions;
pub mod context;
pub mod expand;
pub mod explain;
pub mod list;
pub mod man;
pub mod mcp;
pub mod prompt;
pub mod providers;
pub mod resolve;
pub mod search;
pub mod settings;
pub mod slash;
pub mod trust;
pub mod validate;
pub mod watch;
