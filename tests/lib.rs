//! Helpers for the workspace-level tests in `tests/*.rs`: building a case's
//! tree in a temporary directory and running the library on it in process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use skillpipe::{Discovery, Skillpipe};

pub mod case;

/// A tree to build: files (text), raw files (bytes), symlinks, directories.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tree {
    /// `path = "content"`.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// `link = "target"` (as written).
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// Empty directories.
    #[serde(default)]
    pub dirs: Vec<String>,
}

impl Tree {
    /// Writes the tree under `root`.
    pub fn build(&self, root: &Path) -> std::io::Result<()> {
        for dir in &self.dirs {
            std::fs::create_dir_all(root.join(dir))?;
        }
        for (rel, content) in &self.files {
            let path = root.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, content.replace("$TREE", &root.to_string_lossy()))?;
        }
        for (rel, target) in &self.symlinks {
            let path = root.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(target, path)?;
            #[cfg(windows)]
            {
                // Windows has two kinds of links: a directory link for a
                // directory target (resolved beside the link).
                let resolved = path
                    .parent()
                    .map_or_else(|| target.into(), |p| p.join(target));
                if resolved.is_dir() {
                    std::os::windows::fs::symlink_dir(target, path)?;
                } else {
                    std::os::windows::fs::symlink_file(target, path)?;
                }
            }
        }
        Ok(())
    }
}

/// Runs discovery in process on a built tree.
pub fn discover(
    root: &Path,
    profile: &str,
    home: &str,
    cwd: &str,
    flags: &Flags,
) -> Result<Discovery, String> {
    Ok(build(root, profile, home, cwd, flags)?
        .discover()
        .into_discovery())
}

/// The library configured for a built tree, as [`discover`] runs it.
pub fn build(
    root: &Path,
    profile: &str,
    home: &str,
    cwd: &str,
    flags: &Flags,
) -> Result<Skillpipe, String> {
    let tree = root.to_string_lossy();
    let mut b = Skillpipe::builder(profile.parse().map_err(|e| format!("{e}"))?)
        .home(root.join(home))
        .cwd(root.join(cwd))
        .env(
            flags
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.replace("$TREE", &tree))),
        )
        .skill_paths(flags.skill.iter().map(PathBuf::from))
        .no_plugins();
    for set in &flags.set {
        b = b.set(set);
    }
    for c in &flags.config {
        b = b.config(root.join(c));
    }
    if flags.no_skills {
        b = b.no_skills();
    }
    b.build().map_err(|e| e.to_string())
}

/// Flags of a run.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    /// Environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `--set` flags.
    #[serde(default)]
    pub set: Vec<String>,
    /// `--config` files, relative to the tree.
    #[serde(default)]
    pub config: Vec<PathBuf>,
    /// `--skill` paths.
    #[serde(default)]
    pub skill: Vec<String>,
    /// `--no-skills`.
    #[serde(default)]
    pub no_skills: bool,
}

/// A skill as the corpus writes it: `name provider/level relative-file`,
/// then ` hidden` and the visibility a setting gave (` name-only`).
pub fn skill_line(root: &Path, s: &skillpipe::Skill) -> String {
    format!(
        "{} {}/{} {}{}{}",
        s.name,
        s.source.provider,
        s.source.level,
        rel(root, &s.file_path),
        if s.hidden { " hidden" } else { "" },
        if s.visibility.is_on() {
            String::new()
        } else {
            format!(" {}", s.visibility)
        }
    )
}

/// A diagnostic as the corpus writes it: `code relative-path`.
pub fn diagnostic_line(root: &Path, d: &skillpipe::Diagnostic) -> String {
    format!("{} {}", d.code, rel(root, &d.path))
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .map_or_else(|_| p.display().to_string(), |r| r.display().to_string())
}
