//! The generated trees: which `gen_tree.py` arguments make them, where
//! their roots lie, and which roots each profile is given as `--skill`.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// Every root `gen_tree.py` spreads skills over (its `ROOTS`), relative to
/// the tree. Checked to exist after generation.
pub(crate) const TREE_ROOTS: [&str; 15] = [
    "home/.musepi/agent/skills",
    "project/.musepi/skills",
    "home/.pi/agent/skills",
    "project/.pi/skills",
    "home/.claude/skills",
    "project/.claude/skills",
    "home/.codex/skills",
    "project/.codex/skills",
    "home/.agents/skills",
    "project/.agents/skills",
    "home/.config/opencode/skills",
    "project/.opencode/skills",
    "project/.github/skills",
    "home/.musepi/agent/managed-skills",
    "home/custom-skills",
];

/// The tree roots no musepi provider scans (SPEC §4, with home =
/// `tree/home` and cwd = `tree/project`): pi's own and the custom directory.
/// musepi gets them as `--skill` directories.
const MUSEPI_EXTRA: [&str; 3] = [
    "home/.pi/agent/skills",
    "project/.pi/skills",
    "home/custom-skills",
];

/// The roots the pi profile scans by itself (SPEC §6).
const PI_OWN: [&str; 2] = ["home/.pi/agent/skills", "project/.pi/skills"];

/// A generated tree: its directory name under `target/bench` and the
/// `gen_tree.py` arguments.
pub(crate) struct TreeSpec {
    pub label: &'static str,
    dir: &'static str,
    args: &'static [&'static str],
}

pub(crate) const SMALL: TreeSpec = TreeSpec {
    label: "50",
    dir: "tree-50",
    args: &["--skills", "50", "--noise", "50", "--seed", "7"],
};
pub(crate) const TREES: [TreeSpec; 2] = [
    TreeSpec {
        label: "1k",
        dir: "tree-1k",
        args: &["--skills", "1000", "--seed", "7"],
    },
    TreeSpec {
        label: "10k",
        dir: "tree-10k",
        args: &["--skills", "10000", "--noise", "20000", "--seed", "7"],
    },
];

/// Generates a tree unless the one there was made with the same arguments.
pub(crate) fn generate(out: &Path, spec: &TreeSpec) -> Result<PathBuf> {
    let dir = crate::gen_tree::generate(out, spec.dir, spec.args)?;
    // A small tree may leave a root without a skill: create it empty, so
    // every run is given the same roots. A big one must have them all.
    let big = spec
        .args
        .windows(2)
        .any(|w| w[0] == "--skills" && w[1].len() > 3);
    for r in TREE_ROOTS {
        if !dir.join(r).is_dir() {
            if big {
                bail!(
                    "{} has no {r}: gen_tree.py's roots changed, update TREE_ROOTS",
                    dir.display()
                );
            }
            fs::create_dir_all(dir.join(r))?;
        }
    }
    Ok(dir)
}

/// The `--skill` arguments that make a profile scan every tree root.
pub(crate) fn extra_roots(profile: &str, tree: &Path) -> Vec<String> {
    TREE_ROOTS
        .iter()
        .filter(|r| {
            if profile == "pi" {
                !PI_OWN.contains(r)
            } else {
                MUSEPI_EXTRA.contains(r)
            }
        })
        .map(|r| tree.join(r).to_string_lossy().into_owned())
        .collect()
}
