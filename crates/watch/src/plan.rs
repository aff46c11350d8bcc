//! What discovery depends on (its interests) and what to watch for them.
//!
//! - a root: a change in it (or of it, or above it) makes it stale; it is
//!   watched recursively when it is a directory, and its parent (or the
//!   nearest existing ancestor) without recursion, so that the root being
//!   created, deleted or renamed is seen;
//! - a settings file (of any layer) or a `.git` where the repository root
//!   is looked for: a change builds the pipeline again; watched through its
//!   directory (editors save through a temporary file and a rename);
//! - an input of a provider's root listing, as the provider declares it
//!   (`RootItem::Input`: a pi package's `package.json`, Claude Code's plugin
//!   index), or a path a provider reported missing: a change lists the
//!   roots again.
//!
//! A path that does not exist yet is watched through its nearest existing
//! ancestor.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skillpipe::RootItem;
use skillpipe::core::ScanMode;

/// How a directory is watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Mode {
    /// The directory's own entries.
    Flat,
    /// Everything under it.
    Recursive,
}

/// What a change of a path means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A root: its findings are stale.
    Root,
    /// The roots must be listed again.
    Input,
    /// The settings must be read again, the pipeline built again.
    Settings,
}

#[derive(Debug, Clone)]
pub(crate) struct Interest {
    pub(crate) path: PathBuf,
    pub(crate) kind: Kind,
    /// A directory root scanned below its top (watched recursively).
    pub(crate) tree: bool,
}

/// The interests of a pipeline: the roots its providers list now, what
/// they reported about their configuration, and `files` (the settings
/// files and indexes, [`skillpipe::Skillpipe::watched_files`]).
pub(crate) fn interests(listed: &[(String, Vec<RootItem>)], files: &[PathBuf]) -> Vec<Interest> {
    let mut out = Vec::new();
    for item in listed.iter().flat_map(|(_, items)| items) {
        match item {
            RootItem::Root(root) => {
                out.push(Interest {
                    path: root.path.clone(),
                    kind: Kind::Root,
                    tree: root.mode != ScanMode::File,
                });
            }
            // What the provider read to list its roots (its own word).
            RootItem::Input(path) => out.push(Interest {
                path: path.clone(),
                kind: Kind::Input,
                tree: false,
            }),
            RootItem::Diagnostic(d) => out.push(Interest {
                path: d.path.clone(),
                kind: Kind::Input,
                tree: false,
            }),
        }
    }
    out.extend(files.iter().map(|f| Interest {
        path: f.clone(),
        kind: Kind::Settings,
        tree: false,
    }));
    out
}

/// What a changed path means for these interests: the strongest kind it
/// touches (settings over roots over inputs), or `None` when it touches
/// nothing discovery depends on.
pub(crate) fn classify(interests: &[Interest], changed: &Path) -> Option<Kind> {
    let mut best = None;
    for i in interests {
        let hit = match i.kind {
            // In the root, the root itself, or above it.
            Kind::Root => changed.starts_with(&i.path) || i.path.starts_with(changed),
            // The file itself, or a directory above it.
            Kind::Input | Kind::Settings => i.path.starts_with(changed),
        };
        if !hit {
            continue;
        }
        best = match (best, i.kind) {
            (_, Kind::Settings) => return Some(Kind::Settings),
            (Some(Kind::Root), _) | (_, Kind::Root) => Some(Kind::Root),
            _ => Some(Kind::Input),
        };
    }
    best
}

/// The directories to watch for `interests`, each with its mode: a
/// directory root recursively, the parent of everything (or its nearest
/// existing ancestor) flat. A flat watch inside a recursive one, and a
/// recursive one inside another, are left out.
pub(crate) fn watches(interests: &[Interest]) -> BTreeMap<PathBuf, Mode> {
    let mut want: BTreeMap<PathBuf, Mode> = BTreeMap::new();
    let mut add = |path: PathBuf, mode: Mode| {
        let m = want.entry(path).or_insert(mode);
        *m = (*m).max(mode);
    };
    for i in interests {
        if i.tree && i.path.is_dir() {
            add(i.path.clone(), Mode::Recursive);
        }
        let parent = i.path.parent().unwrap_or(&i.path);
        if let Some(dir) = nearest_existing(parent) {
            add(dir, Mode::Flat);
        }
    }
    let recursive: Vec<PathBuf> = want
        .iter()
        .filter(|(_, m)| **m == Mode::Recursive)
        .map(|(p, _)| p.clone())
        .collect();
    want.retain(|p, _| !recursive.iter().any(|r| r != p && p.starts_with(r)));
    want
}

/// `path` or its nearest ancestor that is a directory.
pub(crate) fn nearest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpipe::{Level, Root};

    fn root(path: &Path, mode: ScanMode) -> RootItem {
        Root::new(path, Level::User).mode(mode).into()
    }

    #[test]
    fn roots_are_watched_recursively_and_missing_ones_through_an_ancestor() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path();
        std::fs::create_dir_all(home.join(".claude/skills/a")).unwrap();
        std::fs::create_dir_all(home.join(".claude/skills/nested")).unwrap();
        std::fs::create_dir_all(home.join("agent")).unwrap();
        let listed = vec![(
            "p".to_owned(),
            vec![
                root(&home.join(".claude/skills"), ScanMode::OneLevel),
                root(&home.join(".claude/skills/nested"), ScanMode::Recursive),
                root(&home.join(".codex/skills"), ScanMode::OneLevel),
                root(&home.join("agent/one.md"), ScanMode::File),
                // What the provider read to list them (a package manifest).
                RootItem::Input(home.join("agent/package.json")),
            ],
        )];
        let files = [
            home.join("agent/settings.json"),
            home.join(".musepi/agent/x.json"),
        ];
        let i = interests(&listed, &files);
        let w = watches(&i);
        let want: BTreeMap<PathBuf, Mode> = [
            (home.to_path_buf(), Mode::Flat),
            (home.join(".claude"), Mode::Flat),
            (home.join(".claude/skills"), Mode::Recursive),
            (home.join("agent"), Mode::Flat),
        ]
        .into_iter()
        .collect();
        assert_eq!(w, want);

        use Kind::*;
        let c = |p: &str| classify(&i, &home.join(p));
        assert_eq!(c(".claude/skills/a/SKILL.md"), Some(Root));
        assert_eq!(c(".claude"), Some(Root), "above a root");
        assert_eq!(c(".codex"), Some(Root), "a missing root's ancestor created");
        assert_eq!(c("agent/one.md"), Some(Root));
        assert_eq!(c("agent/settings.json"), Some(Settings));
        assert_eq!(c(".musepi"), Some(Settings));
        assert_eq!(c("agent/package.json"), Some(Input));
        // Only what a provider declares: no manifest is guessed beside a root.
        assert_eq!(c(".claude/package.json"), None);
        assert_eq!(c(".bash_history"), None);
        assert_eq!(c("agent/other.md"), None);
    }
}
