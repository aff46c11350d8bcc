//! Incremental discovery: the previous discovery with some skill files
//! loaded again in place, when what the pipeline decided about them cannot
//! have changed, so that nothing else is read, taken or copied but the
//! list itself.
//!
//! The pipeline's decisions about a file (real-path and name dedup,
//! filters, the managed pass, dependencies) depend on its name, paths,
//! source, requirements and whether it loads cleanly, and on the other
//! copies of its name; its description, frontmatter and invocation fields
//! are carried to the result as they are. So a patch is made only when, for
//! every file, the old and new findings agree on all of the first and the
//! name has no other copy; any other change is [`None`], and the caller
//! runs the pipeline.

use std::sync::Arc;

use skillpipe_types::{Discovery, Skill};

use crate::provider::{DiscoveryContext, Pass, Root};
use crate::scan::Found;

use super::options::Options;
use super::take::settle;
use super::work::keep_inside_project;

/// One skill file loaded again in place.
#[derive(Debug)]
pub struct Reloaded<'a> {
    /// The pass of the provider that found it.
    pub pass: Pass,
    /// The root it was found under.
    pub root: &'a Root,
    /// What the previous scan made of it, as the provider gave it.
    pub old: &'a Found,
    /// What loading it again made of it ([`crate::scan::reload_file`]).
    pub new: Found,
}

/// The skills a patch puts in place of a discovery's ([`patch`]): made
/// from that discovery, applied to it or to a copy of it.
#[derive(Debug)]
pub struct Patch {
    /// Each file's skill with its position, in order, each position once.
    replaced: Vec<(usize, Skill)>,
}

impl Patch {
    /// The positions of the files' skills, in order (a file loaded again
    /// with the same result is one of them: its body may have changed).
    pub fn files(&self) -> Vec<usize> {
        self.replaced.iter().map(|(i, _)| *i).collect()
    }

    /// Puts the new skills in place in `discovery` (the one the patch was
    /// made from, or a copy of it), and returns the skills they replace,
    /// with their positions, in order.
    pub fn apply(self, discovery: &mut Discovery) -> Vec<(usize, Skill)> {
        let mut replaced = self.replaced;
        for (index, skill) in &mut replaced {
            if let Some(slot) = discovery.skills.get_mut(*index) {
                std::mem::swap(slot, skill);
            }
        }
        replaced
    }
}

/// What loading `files` again does to `previous`, when that is what
/// running the pipeline would give; `None` when only running it can say
/// (see the module's comment).
pub fn patch(
    previous: &Discovery,
    cx: &DiscoveryContext,
    opts: &Options,
    files: Vec<Reloaded<'_>>,
) -> Option<Patch> {
    if !opts.enabled || opts.keep_removed {
        return None;
    }
    let mut replaced: Vec<(usize, Skill)> = Vec::with_capacity(files.len());
    for file in files {
        let (index, skill) = replacement(previous, cx, opts, file)?;
        if !replaced.iter().any(|(i, _)| *i == index) {
            replaced.push((index, skill));
        }
    }
    replaced.sort_by_key(|(i, _)| *i);
    Some(Patch { replaced })
}

/// Where `file`'s skill sits in `previous` and what it becomes, when
/// nothing the pipeline decides on changed.
fn replacement(
    previous: &Discovery,
    cx: &DiscoveryContext,
    opts: &Options,
    file: Reloaded<'_>,
) -> Option<(usize, Skill)> {
    let Found::Candidate {
        candidate: old,
        path: old_path,
        real_path: old_real,
    } = file.old
    else {
        return None;
    };
    let mut kept = keep_inside_project(cx, file.root, vec![file.new]);
    let Some(Found::Candidate {
        candidate: new,
        path,
        real_path,
    }) = kept.pop()
    else {
        return None;
    };
    let same_file = path == *old_path && real_path == *old_real;
    let clean = old.diagnostics.is_empty() && new.diagnostics.is_empty();
    if !same_file || !clean || old.filter_name != new.filter_name {
        return None;
    }
    let (before, mut after) = (old.skill.as_ref()?, new.skill?);
    let requires = |s: &Skill| s.invocation.as_ref().and_then(|i| i.requires.clone());
    let same_place = before.name == after.name
        && before.file_path == after.file_path
        && before.base_dir == after.base_dir
        && before.hidden == after.hidden
        && before.source == after.source
        && requires(before) == requires(&after);
    if !same_place {
        return None;
    }
    // Paths as bytes: ten times faster than component by component over
    // ten thousand skills, and a skill's path is built the same way each
    // time it is found.
    let path = before.file_path.as_os_str();
    let index = previous
        .skills
        .iter()
        .position(|s| s.file_path.as_os_str() == path)?;
    let loaded = &previous.skills[index];
    let alone = !previous
        .shadowed
        .iter()
        .any(|c| c.skill.name == loaded.name);
    if loaded.name != before.name || loaded.source != before.source || !alone {
        return None;
    }
    settle(&mut after, file.pass, opts);
    after.source = Arc::clone(&loaded.source);
    Some((index, after))
}
