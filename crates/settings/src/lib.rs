//! Profiles and settings (SPEC §7).
//!
//! Layers, later wins, each key merged separately:
//! 1. the embedded `config/defaults.toml` and the profile's `[settings]`;
//! 2. user settings: `<agentDir>/settings.json`, then `<agentDir>/settings.toml`;
//! 3. project settings (where the profile says; never trusted with plugins);
//! 4. each `--config FILE`, in order;
//! 5. `SKILLPIPE_*` environment variables (`__` between key parts, parts
//!    matched case-insensitively);
//! 6. `--set key.path=VALUE` flags.
//!
//! Every error names the key and the file, variable or flag its value came
//! from. Relative paths resolve against the declaring file's directory, or
//! the project directory for the environment and flags.
//!
//! Modules: the profile presets (`profile.rs`); the request (`request.rs`)
//! and the typed result (`settings.rs`); the layers as data, their kinds
//! and a value's origin (`layer.rs`); reading one file (`file.rs`); the
//! layer stacks (`layers.rs`); a shape's key table and what is derived
//! from it (`keys.rs`); the two settings shapes, each its keys and its fill
//! (`musepi.rs`, `pi.rs`), and what the shape decides (`shape.rs`); what
//! only trusted layers set, and `trust`/`untrust`'s edit (`trust.rs`); the scan bounds a project may
//! only lower (`limits.rs`); each value's layer (`provenance.rs`); errors
//! and origins (`error.rs`), and what a figment error says
//! (`figment_error.rs`).

use figment::value::magic::RelativePathBuf;
use skillpipe_core::paths::{canonical, find_repo_root, normalize};

mod error;
mod figment_error;
mod file;
mod invocation;
mod keys;
mod layer;
mod layers;
mod limits;
mod musepi;
mod pi;
mod profile;
mod provenance;
mod request;
mod settings;
mod shape;
mod trust;

pub use error::{SettingsError, Warning};
pub use file::{MAX_SETTINGS_BYTES, read_settings_file};
pub use keys::is_toggle_key;
pub use layer::{Effective, LayerKind, LayerOrigin, SettingsFile};
pub use profile::{PROFILES, Preset, ProjectSettings, SettingsShape, app_dir_problem, profile};
pub use request::Request;
pub use settings::{CatalogSettings, Entry, ProjectSkills, Settings};
pub use trust::{TrustChange, TrustEdit, TrustKeys, edit_trusted_projects};

use layers::{Stack, agent_dir, candidate_files, locations, read_files, resolve_relative};
use profile::{ProfileFile, profile_file};

/// Loads settings for a request.
pub fn load(req: &Request) -> Result<Settings, SettingsError> {
    // Where: the profile, the agent directory, the repository.
    let ProfileFile {
        mut profile,
        settings: preset,
    } = profile_file(&req.profile)?;
    if let Some(app) = &req.app_dir {
        if let Some(reason) = app_dir_problem(app) {
            return Err(SettingsError::AppDir {
                name: app.clone(),
                reason,
            });
        }
        profile.app_dir.clone_from(app);
    }
    let cwd = &normalize(&req.cwd);
    let agent_dir = agent_dir(&profile, req, cwd);
    let repo_root = find_repo_root(cwd);

    // The layers, in order, onto the full and the trusted stack.
    let files = read_files(req, &profile, &agent_dir, cwd, repo_root.as_deref())?;
    let shape = profile.settings_shape;
    let mut stack = Stack::base(&req.profile, &preset)?;
    stack.merge_files(&files, shape.trust_keys());
    stack.merge_env(&req.env, &req.toggle_keys);
    stack.merge_sets(&req.sets)?;
    let Stack {
        full,
        trusted: trusted_stack,
        mut warnings,
    } = stack;
    warnings.extend(keys::unknown_key_warnings(&full, shape.keys()));

    // The typed values: the trusted-only ones, then the shape's.
    let resolve = |p: &RelativePathBuf| resolve_relative(p, cwd, &req.home);
    let trusted = trust::trusted_only(&trusted_stack, shape.trust_keys(), &resolve)?;
    let project_dir = canonical(repo_root.as_deref().unwrap_or(cwd));
    let effective = provenance::effective(&full, &trusted_stack, shape.keys(), &files);
    let located = locations(&profile, &agent_dir, cwd, &files);
    let mut settings = Settings::unfilled(
        req.profile.clone(),
        profile,
        agent_dir,
        repo_root,
        project_dir,
        trusted,
        warnings,
    );
    shape.fill(&full, &trusted_stack, &files, &resolve, &mut settings)?;
    settings.effective = effective;
    settings.files = located;
    Ok(settings)
}

/// Every settings file [`load`] reads for `req`, or would read were it
/// there, in layer order, for the `settings` it gave (their profile, agent
/// directory and repository): what a watcher watches to know when to load
/// again.
pub fn settings_files(req: &Request, settings: &Settings) -> Vec<std::path::PathBuf> {
    candidate_files(
        req,
        &settings.profile,
        &settings.agent_dir,
        &normalize(&req.cwd),
        settings.repo_root.as_deref(),
    )
}

#[cfg(test)]
mod tests;
