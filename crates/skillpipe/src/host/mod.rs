//! The host API: [`Skillpipe::builder`] → [`Skillpipe`] → [`Discovered`].
//!
//! One file a step: the profile (`profile.rs`); how a [`Skillpipe`] is
//! configured (`builder.rs`) and built (`build.rs`, failing with
//! `error.rs`'s [`Error`]), with the process's environment and home
//! (`env.rs`) and the `plugins` feature's glue (`plugins.rs`); the configured discovery itself (`skillpipe.rs`);
//! what one discovery gives (`discovered.rs`).

mod build;
mod builder;
mod discovered;
mod env;
mod error;
mod plugins;
mod profile;
mod skillpipe;

pub use builder::Builder;
pub use discovered::Discovered;
// The catalogue's own option, core's; the host API names it here.
pub use env::home_from_env;
pub use error::Error;
pub use profile::Profile;
pub use skillpipe::Skillpipe;
pub use skillpipe_core::runtime::ReadTool;
