//! The AGENTS.md context files (SPEC §10): the walk from the working
//! directory up to the repository root or home, nearest first.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::resolve::MAX_RESOURCE_BYTES;
use crate::fsio;
use crate::paths::canonical;

/// One AGENTS.md file found by [`context_files`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextFile {
    /// The file.
    #[serde(serialize_with = "skillpipe_types::lossy::path")]
    pub path: PathBuf,
    /// 0 for cwd, 1 for its parent, …
    pub depth: usize,
}

/// The AGENTS.md walk (SPEC §10), nearest first.
pub fn context_files(cwd: &Path, home: &Path, repo_root: Option<&Path>) -> Vec<ContextFile> {
    let home_c = canonical(home);
    let cwd_c = canonical(cwd);
    // (stop directory, whether it is visited)
    let stop: Option<(PathBuf, bool)> = match repo_root.map(canonical) {
        Some(repo) if repo.starts_with(&home_c) && repo != home_c => Some((home_c.clone(), false)),
        Some(repo) => Some((repo, true)),
        None if cwd_c.starts_with(&home_c) => Some((home_c.clone(), true)),
        None => None,
    };
    let mut out = Vec::new();
    for (depth, dir) in cwd.ancestors().enumerate() {
        let real = canonical(dir);
        let at_stop = stop.as_ref().is_some_and(|(s, _)| *s == real);
        if at_stop && stop.as_ref().is_some_and(|(_, visit)| !visit) {
            break;
        }
        if stop.is_none() && dir.parent().is_none() {
            break; // no repo, outside home: the filesystem root is excluded
        }
        let hidden = dir.components().next_back().is_some_and(
            |c| matches!(c, Component::Normal(n) if n.as_encoded_bytes().starts_with(b".")),
        );
        let file = dir.join("AGENTS.md");
        // Read only as far as the first text, never from a FIFO.
        if !hidden && fsio::has_text(&file, MAX_RESOURCE_BYTES) {
            out.push(ContextFile { path: file, depth });
        }
        if at_stop {
            break;
        }
    }
    out
}
