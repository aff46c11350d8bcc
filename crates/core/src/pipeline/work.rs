//! The work list: every root of the three passes, gated by toggles,
//! trust, `--no-skills` and `disabledProviders`; the custom pass's roots
//! (`custom_root`); the project-escape policy; each root's findings made
//! ready on its scanning thread.

use std::path::Path;

use skillpipe_types::{Diagnostic, DiagnosticCode, Level, SettingKeys, Switch};

use crate::provider::{DiscoveryContext, NamedBy, Pass, Root, RootItem, SkillProvider, Sources};
use crate::scan::Found;
use crate::util::lowercase_head;

use super::keys::{Name, RealPath};
use super::options::Options;

/// A provider in the run, and whether a setting switched it off as a
/// whole, which the run honours by scanning it only when
/// [`Options::keep_removed`] asks, to keep what it holds as
/// [`Fate::SwitchedOff`](skillpipe_types::Fate::SwitchedOff).
#[derive(Clone, Copy)]
pub struct Stage<'a> {
    /// The provider.
    pub provider: &'a dyn SkillProvider,
    /// What switched it off, if anything.
    pub off: Option<Off>,
}

/// What switches a provider off as a whole, before its roots are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Off {
    /// `disabledProviders` lists it.
    DisabledProvider,
}

pub(super) enum Work<'a> {
    Scan {
        provider: &'a dyn SkillProvider,
        pass: Pass,
        id: String,
        root: Root,
        /// The provider's (or custom path's) index in the run: what fails
        /// together.
        group: usize,
        /// Why it is off: scanned only to keep what it holds
        /// ([`Options::keep_removed`]).
        off: Option<Switch>,
    },
    Note {
        pass: Pass,
        id: String,
        diagnostic: Diagnostic,
        group: usize,
    },
}

impl Work<'_> {
    pub(super) fn origin(&self) -> (&str, Pass) {
        match self {
            Work::Scan { id, pass, .. } | Work::Note { id, pass, .. } => (id, *pass),
        }
    }

    pub(super) fn group(&self) -> usize {
        match self {
            Work::Scan { group, .. } | Work::Note { group, .. } => *group,
        }
    }

    pub(super) fn set_group(&mut self, to: usize) {
        match self {
            Work::Scan { group, .. } | Work::Note { group, .. } => *group = to,
        }
    }

    /// Whether its provider may fail: then what it found is held until the
    /// provider's last item is ready. A note is held (it is dropped if a
    /// root after it fails), and taken with the item after it.
    pub(super) fn may_fail(&self) -> bool {
        match self {
            Work::Scan { provider, .. } => provider.may_fail(),
            Work::Note { .. } => true,
        }
    }

    pub(super) fn off(&self) -> Option<&Switch> {
        match self {
            Work::Scan { off, .. } => off.as_ref(),
            Work::Note { .. } => None,
        }
    }

    /// The span a root's findings are taken in (a note's: its provider's).
    pub(super) fn span(&self) -> tracing::Span {
        match self {
            Work::Scan { root, .. } => tracing::info_span!(
                "root",
                path = %root.path.display(),
                level = %root.level
            ),
            Work::Note { .. } => tracing::Span::none(),
        }
    }

    /// One line for `-v`: what became of a root.
    pub(super) fn log(
        &self,
        files: usize,
        loaded: usize,
        took: std::time::Duration,
        keys: &SettingKeys,
    ) {
        let Work::Scan { root, off, .. } = self else {
            return;
        };
        if !tracing::enabled!(tracing::Level::INFO) {
            return;
        }
        let took = format!("{:.1}ms", took.as_secs_f64() * 1000.0);
        if let Some(switch) = off {
            let setting = switch.setting(keys);
            tracing::info!(
                files,
                "off ({setting}): not loaded, read for explain only ({took})"
            );
        } else if std::fs::symlink_metadata(&root.path).is_err() {
            tracing::info!("missing ({took})");
        } else {
            tracing::info!(files, skills = loaded, "scanned ({took})");
        }
    }

    pub(super) fn run(&self, cx: &DiscoveryContext) -> Vec<Found> {
        match self {
            Work::Scan { provider, root, .. } => {
                keep_inside_project(cx, root, provider.scan_root(cx, root))
            }
            Work::Note { diagnostic, .. } => vec![Found::Diagnostic(diagnostic.clone())],
        }
    }
}

/// A project cannot pass off a user's file as a skill: in a project-level
/// root, a skill file found inside the project (the repository root, else
/// cwd) whose real path leaves it counts only when it is a skill with a description in
/// its frontmatter, as a shared skill linked into the project is. Anything
/// else there (a key, a config file, a skill that failed to load) is
/// replaced by one `symlink-outside-project` warning naming the link and
/// its target, and nothing read from it is reported.
pub(super) fn keep_inside_project(
    cx: &DiscoveryContext,
    root: &Root,
    found: Vec<Found>,
) -> Vec<Found> {
    if root.level != Level::Project {
        return found;
    }
    let project = cx.repo_root.as_deref().unwrap_or(&cx.cwd);
    let real_project = crate::paths::canonical(project);
    // Found inside the project (as spelt, or as resolved), led out of it.
    let within = crate::paths::starts_with;
    let led_out = |path: &Path, real: &Path| {
        (within(path, project) || within(path, &real_project)) && !within(real, &real_project)
    };
    found
        .into_iter()
        .map(|f| match f {
            Found::Candidate {
                candidate,
                path,
                real_path,
            } if led_out(&path, &real_path) => {
                let described = candidate
                    .skill
                    .as_ref()
                    .is_some_and(|s| !s.description.trim().is_empty());
                if described {
                    Found::Candidate {
                        candidate,
                        path,
                        real_path,
                    }
                } else {
                    Found::Diagnostic(Diagnostic::warning(
                        DiagnosticCode::SymlinkOutsideProject,
                        format!(
                            "{} leads outside the project to {}: not loaded (a file there loads only as a skill with a description)",
                            path.display(),
                            real_path.display()
                        ),
                        path,
                    ))
                }
            }
            other => other,
        })
        .collect()
}

pub(super) fn collect_work<'a>(
    stage: Stage<'a>,
    pass: Pass,
    group: usize,
    cx: &DiscoveryContext,
    opts: &Options,
    work: &mut Vec<Work<'a>>,
) {
    let provider = stage.provider;
    let info = provider.info();
    let gated_on = info.toggles.is_empty() || info.toggles.iter().any(|t| opts.toggle_on(t));
    let provider_off = match (stage.off, gated_on) {
        (Some(Off::DisabledProvider), _) => Some(Switch::DisabledProvider {
            provider: info.id.clone(),
        }),
        (None, false) => Some(Switch::Toggle {
            keys: info
                .toggles
                .iter()
                .flat_map(|t| opts.toggle_keys(t))
                .collect(),
        }),
        (None, true) => None,
    };
    if let Some(switch) = &provider_off {
        tracing::info!(provider = %info.id, "off ({})", switch.setting(&opts.keys));
        if !opts.keep_removed {
            return;
        }
    }
    for item in provider.roots(cx) {
        match item {
            RootItem::Input(_) => {}
            RootItem::Diagnostic(_) if provider_off.is_some() => {}
            RootItem::Diagnostic(d) => work.push(Work::Note {
                pass,
                id: info.id.clone(),
                diagnostic: d,
                group,
            }),
            RootItem::Root(root) => {
                let off = if provider_off.is_some() {
                    provider_off.clone()
                } else if cx.sources == Sources::CommandLineOnly
                    && root.named_by != NamedBy::CommandLine
                {
                    Some(Switch::NoSkills)
                } else if !opts.toggle_on(&root.toggle) {
                    let switch = Switch::Toggle {
                        keys: opts.toggle_keys(&root.toggle),
                    };
                    tracing::info!(
                        provider = %info.id,
                        root = %root.path.display(),
                        "off ({})",
                        switch.setting(&opts.keys)
                    );
                    Some(switch)
                } else if let (Some(project), Level::Project) =
                    (&opts.untrusted_project, root.level)
                {
                    let reported = work.iter().any(|w| {
                        matches!(w, Work::Note { diagnostic, .. }
                            if diagnostic.code == DiagnosticCode::UntrustedProject)
                    });
                    if !reported {
                        let message = format!(
                            "project skills of {dir} are not loaded: this project is not trusted (run `skillpipe trust {dir}` to trust it)",
                            dir = project.display()
                        );
                        work.push(Work::Note {
                            pass,
                            id: info.id.clone(),
                            diagnostic: Diagnostic::warning(
                                DiagnosticCode::UntrustedProject,
                                message,
                                project,
                            ),
                            group,
                        });
                    }
                    tracing::info!(
                        provider = %info.id,
                        root = %root.path.display(),
                        "off (project not trusted)"
                    );
                    Some(Switch::UntrustedProject {
                        project: project.clone(),
                    })
                } else {
                    None
                };
                // A root that is off is scanned only to say what it would
                // have given (`keep_removed`).
                if off.is_none() || opts.keep_removed {
                    work.push(Work::Scan {
                        provider,
                        pass,
                        id: info.id.clone(),
                        root,
                        group,
                        off,
                    });
                }
            }
        }
    }
}

/// What the taking thread needs of one finding besides the finding
/// itself, read on the scanning thread, where the bytes were just
/// written: the hashes of its filter name and real path (the table keys),
/// and whether its skill's name is another than its filter name (a
/// plugin's may be). The findings stay where the scan put them; only this
/// small record is written beside each, so that a root's findings are not
/// moved once more before they are taken. Zeros for a diagnostic.
#[derive(Clone, Copy, Default)]
pub(super) struct Keys {
    pub(super) name: u64,
    pub(super) real_path: u64,
    pub(super) renamed: bool,
}

/// A root's findings (no [`Found::Failed`] among them), their [`Keys`] at
/// the same index, and (for a profile that lists by name) the
/// [`lowercase_head`] of each finding's skill name, also at the same index
/// (zeros where there is no skill): the final sort's keys, read here too.
pub(super) type Made = (Vec<Found>, Vec<Keys>, Vec<(u128, u128)>);

/// A root's findings made ready, or its provider's failure
/// ([`Found::Failed`]; the first, when there are several). (Boxed:
/// failures are rare, and the result small.)
pub(super) type Outcome = Result<Made, Box<Diagnostic>>;

/// Makes a root's findings ready; `heads`: whether the final list is
/// sorted by name (the heads are read then, else none). A real path that
/// is not in its one spelling ([`RealPath`]) is put in it here.
pub(super) fn make_ready(mut found: Vec<Found>, heads: bool) -> Outcome {
    if let Some(at) = found.iter().position(|f| matches!(f, Found::Failed(_)))
        && let Found::Failed(d) = found.swap_remove(at)
    {
        return Err(Box::new(d));
    }
    let mut read = Vec::with_capacity(if heads { found.len() } else { 0 });
    let mut keys = Vec::with_capacity(found.len());
    for f in &mut found {
        let Found::Candidate {
            candidate,
            real_path,
            ..
        } = f
        else {
            if heads {
                read.push((0, 0));
            }
            keys.push(Keys::default());
            continue;
        };
        let skill = candidate.skill.as_ref();
        if heads {
            read.push(skill.map_or((0, 0), |s| lowercase_head(&s.name)));
        }
        let (hash, respelt) = RealPath::hash_of(real_path);
        keys.push(Keys {
            name: Name::hash_of(&candidate.filter_name),
            real_path: hash,
            renamed: skill.is_some_and(|s| s.name != candidate.filter_name),
        });
        if let Some(respelt) = respelt {
            *real_path = respelt;
        }
    }
    Ok((found, keys, read))
}
