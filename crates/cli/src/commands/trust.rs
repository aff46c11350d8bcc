//! `skillpipe trust [DIR]` and `skillpipe untrust [DIR]`: add a project to
//! (or remove it from) the trusted projects in the user settings, so that
//! its skills load under `projectSkills = "trusted"`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use skillpipe::settings::TrustChange;

use crate::args::Global;
use crate::world::{Host, Plugins, skillpipe};
use crate::{out, term};

/// `trust` / `untrust`: edit `trustedProjects` in the user settings of the
/// active profile. DIR is relative to the process's working directory (as
/// `--config` files are); the default is the project.
pub(crate) fn run(
    global: &Global,
    host: Host<'_>,
    dir: Option<&PathBuf>,
    change: TrustChange,
) -> anyhow::Result<ExitCode> {
    let skillpipe = skillpipe(global, host, Plugins::None)?;
    let settings = skillpipe.settings();
    let dir = match dir {
        Some(d) => std::env::current_dir()
            .context("cannot read the current directory")?
            .join(d),
        None => settings.project_dir.clone(),
    };
    let edit =
        skillpipe::settings::edit_trusted_projects(settings, skillpipe.home(), &dir, change)?;
    let (dir, file) = (term::path(&edit.dir), term::path(&edit.file));
    let key = edit.key;
    let mut out = out::raw();
    match (change, edit.changed) {
        (TrustChange::Trust, true) => writeln!(out, "trusted {dir}: added to {key} in {file}")?,
        (TrustChange::Trust, false) => writeln!(out, "{dir} is already trusted ({key} in {file})")?,
        (TrustChange::Untrust, true) => {
            writeln!(out, "untrusted {dir}: removed from {key} in {file}")?
        }
        (TrustChange::Untrust, false) => {
            writeln!(out, "{dir} was not trusted (not in {key} of {file})")?
        }
    }
    out.flush()?;
    if let Some(layer) = &edit.overridden_by {
        out::say(
            "warning",
            &term::escape(&format!(
                "{key} is also set by {layer}, which wins over {} wherever it is given",
                edit.file.display()
            )),
        );
    }
    if settings.project_skills == skillpipe::settings::ProjectSkills::All {
        let mode = skillpipe::settings::TrustKeys::of(settings).project_skills;
        out::say(
            "note",
            &format!(
                "{mode} is \"all\": every project's skills load; set it to \"trusted\" to load only trusted projects' skills"
            ),
        );
    }
    Ok(ExitCode::SUCCESS)
}
