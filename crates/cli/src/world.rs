//! The library, configured from the global flags and the process
//! environment: what every command that reads skills or settings starts
//! from, so that a flag means the same under every command.

use std::path::{Path, PathBuf};

use skillpipe::{Builder, Skillpipe};

use crate::args::Global;
use crate::out::{self, Failure};
use crate::term;

/// What a host adds to every library the command builds
/// ([`crate::run_with`]): applied before the flags.
pub(crate) type Host<'a> = &'a dyn Fn(Builder) -> Builder;

/// The library, configured by the host, then from the flags and the
/// process environment (relative paths are relative to the process's
/// working directory).
pub(crate) fn skillpipe(
    global: &Global,
    host: Host<'_>,
    plugins: Plugins,
) -> anyhow::Result<Skillpipe> {
    // A directory given on the command line must be one: a typo never
    // silently shows an empty world.
    for (flag, dir) in [("--cwd", &global.cwd), ("--home", &global.home)] {
        if let Some(dir) = dir {
            given_dir(flag, dir)?;
        }
    }
    let profile = match &global.profile {
        Some(p) => p.clone(),
        None => std::env::var("SKILLPIPE_PROFILE").unwrap_or_else(|_| "musepi".to_owned()),
    };
    let mut b = host(Skillpipe::builder(profile.parse()?))
        .skill_paths(global.skill.iter().map(PathBuf::from));
    if let Some(dir) = &global.app_dir {
        b = b.app_dir(dir);
    }
    if let Some(cwd) = &global.cwd {
        b = b.cwd(cwd);
    }
    if let Some(home) = &global.home {
        b = b.home(home);
    }
    for file in &global.config {
        b = b.config(file);
    }
    for set in &global.set {
        b = b.set(set);
    }
    if global.no_skills {
        b = b.no_skills();
    }
    match plugins {
        Plugins::Load => {
            for lib in &global.plugin {
                b = b.plugin(lib);
            }
        }
        Plugins::None => b = b.no_plugins(),
    }
    let skillpipe = b.build().map_err(build_failure)?;
    for w in skillpipe.warnings() {
        out::say(
            "warning",
            &format!("{}: {}", w.code, term::escape(&w.message)),
        );
    }
    Ok(skillpipe)
}

/// Checks that `dir` (relative to the process's working directory) is a
/// directory.
fn given_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    let shown = std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |c| c.join(dir));
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Failure::input(format!("{flag} {}: not a directory", shown.display())).into()),
        Err(e) => Err(Failure::input(format!(
            "{flag} {}: {}",
            shown.display(),
            if e.kind() == std::io::ErrorKind::NotFound {
                "no such directory".to_owned()
            } else {
                e.to_string()
            }
        ))
        .into()),
    }
}

/// What a failed build ends with: settings errors exit 2 as they are; a
/// `--plugin` that did not load exits 2 with the loader's reason.
fn build_failure(err: skillpipe::Error) -> anyhow::Error {
    match err {
        skillpipe::Error::Settings(e) => e.into(),
        skillpipe::Error::Plugin(reason) => Failure {
            code: "plugin",
            exit: 2,
            message: format!("--plugin {reason}"),
            bare: None,
        }
        .into(),
        other => Failure::input(other.to_string()).into(),
    }
}

/// Whether any flag that chooses what discovery sees was given.
pub(crate) fn names_a_world(g: &Global) -> bool {
    g.profile.is_some()
        || g.app_dir.is_some()
        || g.cwd.is_some()
        || g.home.is_some()
        || !g.config.is_empty()
        || !g.set.is_empty()
        || !g.plugin.is_empty()
        || !g.skill.is_empty()
        || g.no_skills
}

/// Whether a command needs the plugins (`trust` only edits settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plugins {
    Load,
    None,
}
