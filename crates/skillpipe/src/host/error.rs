//! Why a [`Skillpipe`](super::Skillpipe) could not be built: the one error
//! of the host API, shared by the builder, the profile's parse and the
//! plugin glue.

use skillpipe_settings::SettingsError;

/// Why a [`Skillpipe`](super::Skillpipe) could not be built. Discovery itself never fails:
/// what it meets is reported as diagnostics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is wrong (the message names the key and where it came from).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// No home was given and the environment names none.
    #[error(
        "no home directory: none was given and the environment has none ($HOME; %USERPROFILE% on Windows)"
    )]
    NoHome,
    /// The process's working directory, needed for a default or a relative
    /// path, could not be read.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    /// The home or working directory is longer than any system opens
    /// ([`skillpipe_core::paths::LONGEST_PATH`]): it could only fail, and
    /// walking its ancestors would take very long.
    #[error(
        "the {what} path is {len} bytes long, longer than any system opens ({} bytes)",
        skillpipe_core::paths::LONGEST_PATH
    )]
    PathTooLong {
        /// `home` or `cwd`.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// A plugin library given explicitly could not be loaded (the loader's
    /// reason).
    #[error("{0}")]
    Plugin(String),
    /// A provider given with [`Builder::provider`](super::Builder::provider)
    /// has the id of one already active (a built-in, a plugin, or another
    /// given before it).
    #[error(
        "provider id \"{0}\" is already active; list it in disabledProviders to replace that provider"
    )]
    DuplicateProvider(String),
}
