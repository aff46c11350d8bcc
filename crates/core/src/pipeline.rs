//! The discovery pipeline (SPEC §5 and §6): run providers in priority
//! order, filter, dedup by real path then by name, add custom directories,
//! then managed skills, then order the result.
//!
//! The two profiles differ only in [`Profile`] data: which passes run, the
//! final order, the fallback toggle keys.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::fast::FixedState;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use skillpipe_types::{
    Claim, Collision, Diagnostic, DiagnosticCode, Discovery, Fate, Level, PipelinePass,
    ShadowedCopy, Skill, Winner,
};

use crate::checks;
use crate::copies::Digest;
use crate::load::Candidate;
use crate::provider::{DiscoveryContext, Pass, Root, RootItem, SkillProvider, Toggle, scan_with};
use crate::scan::{Found, ScanMode, lowercase};
use crate::schedule::{self, Schedule, Workers};

/// How the final list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinalOrder {
    /// By lower-cased name, then exact name (musepi).
    Name,
    /// As discovered (pi).
    Discovery,
}

/// The pipeline part of a profile preset (`config/profiles/*.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineProfile {
    /// Final order.
    pub order: FinalOrder,
    /// Whether pass 2 (custom directories and `--skill` as custom) runs.
    pub custom_pass: bool,
    /// Whether `enabled: false` in frontmatter skips a file.
    pub honor_enabled: bool,
    /// The toggle keys whose OR enables a `fallback` root.
    #[serde(default)]
    pub fallback_toggles: Vec<String>,
}

/// What the settings say to the pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The profile's pipeline data.
    pub profile: PipelineProfile,
    /// `skills.enabled`.
    pub enabled: bool,
    /// Toggle values by key (missing keys are true).
    pub toggles: BTreeMap<String, bool>,
    /// `disabledExtensions` entries (`skill:<name>` are name filters).
    pub disabled_extensions: Vec<String>,
    /// `skills.ignoredSkills` globs.
    pub ignored: Vec<String>,
    /// `skills.includeSkills` globs.
    pub include: Vec<String>,
    /// Custom directories from settings (resolved).
    pub custom_directories: Vec<PathBuf>,
    /// `--skill` paths for the custom pass (resolved).
    pub cli_custom_directories: Vec<PathBuf>,
    /// The project, when its project-level skills may not load
    /// (`projectSkills = "trusted"` and it is not trusted): roots of
    /// [`Level::Project`] are not scanned, and one `untrusted-project`
    /// warning naming it stands at the first such root's place.
    pub untrusted_project: Option<PathBuf>,
    /// `skills.warnIdenticalCopies`: a copy whose `SKILL.md` bytes are
    /// the winner's is a `collision` too (by default it is quiet).
    pub warn_identical_copies: bool,
    /// Keep what the run leaves out ([`Discovery::removed`] and
    /// [`Discovery::claims`]): switched-off sources are scanned too, and
    /// filtered skills kept with their fate (`explain`, `list --all`).
    /// Off, the run does nothing more than it must.
    pub keep_removed: bool,
    /// `skills.visibility`: `off` removes a name as the name filters do;
    /// a loaded skill takes its visibility (`user-only` hides it).
    pub visibility: crate::visibility::Rules,
}

impl Options {
    /// Options that enable everything, for a profile.
    pub fn new(profile: PipelineProfile) -> Self {
        Options {
            profile,
            enabled: true,
            toggles: BTreeMap::new(),
            disabled_extensions: Vec::new(),
            ignored: Vec::new(),
            include: Vec::new(),
            custom_directories: Vec::new(),
            cli_custom_directories: Vec::new(),
            untrusted_project: None,
            warn_identical_copies: false,
            keep_removed: false,
            visibility: Default::default(),
        }
    }

    /// The first setting that removes `name`: the setting, the entry,
    /// and the layer when the entry knows it (a visibility entry does).
    fn removed_by(&self, name: &str) -> Option<(&str, String, Option<String>)> {
        if let Some((setting, pattern)) = self.removed_by_filter(name) {
            return Some((setting, pattern, None));
        }
        let rule = self.visibility_off(name)?;
        Some((
            self.visibility.setting(),
            format!("\"{}\": \"off\"", rule.pattern),
            Some(rule.layer.clone()),
        ))
    }

    /// The `skills.visibility` entry that switches `name` off.
    fn visibility_off(&self, name: &str) -> Option<&crate::visibility::Rule> {
        if self.visibility.is_empty() {
            return None;
        }
        self.visibility
            .of(name)
            .filter(|r| r.visibility == skillpipe_types::Visibility::Off)
    }

    /// The first name filter that removes `name`: the setting, the entry.
    fn removed_by_filter(&self, name: &str) -> Option<(&'static str, String)> {
        if let Some(e) = self
            .disabled_extensions
            .iter()
            .find(|e| e.strip_prefix("skill:") == Some(name))
        {
            return Some(("disabledExtensions", format!("\"{e}\"")));
        }
        if let Some(g) = self
            .ignored
            .iter()
            .find(|g| glob_match::glob_match(g, name))
        {
            return Some(("skills.ignoredSkills", format!("\"{g}\"")));
        }
        (!self.kept_by_name_globs(name)).then(|| {
            let globs: Vec<String> = self.include.iter().map(|g| format!("\"{g}\"")).collect();
            (
                "skills.includeSkills",
                format!("(matches none of {})", globs.join(", ")),
            )
        })
    }

    /// The setting that switches a toggle off, as the user writes it.
    fn toggle_setting(&self, t: &Toggle) -> String {
        match t {
            Toggle::Always => String::new(),
            Toggle::Key(k) => format!("skills.{k}"),
            Toggle::Fallback => self
                .profile
                .fallback_toggles
                .iter()
                .map(|k| format!("skills.{k}"))
                .collect::<Vec<_>>()
                .join(" and "),
        }
    }

    fn toggle_on(&self, t: &Toggle) -> bool {
        match t {
            Toggle::Always => true,
            Toggle::Key(k) => self.toggles.get(k.as_ref()).copied().unwrap_or(true),
            Toggle::Fallback => self
                .profile
                .fallback_toggles
                .iter()
                .any(|k| self.toggles.get(k).copied().unwrap_or(true)),
        }
    }

    fn disabled_by_extension(&self, name: &str) -> bool {
        self.disabled_extensions
            .iter()
            .any(|e| e.strip_prefix("skill:") == Some(name))
    }

    /// Whether the name globs and `skills.visibility` keep `name`.
    fn kept_by_globs(&self, name: &str) -> bool {
        self.kept_by_name_globs(name) && self.visibility_off(name).is_none()
    }

    fn kept_by_name_globs(&self, name: &str) -> bool {
        if self.ignored.iter().any(|g| glob_match::glob_match(g, name)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|g| glob_match::glob_match(g, name))
    }
}

/// How many names a filter's `-v` line shows.
const FILTERED_NAMES_SHOWN: usize = 10;

/// The provider id of the custom pass.
pub const CUSTOM: &str = "custom";

/// Runs discovery. `providers` are in pipeline order already (see
/// [`order_providers`]); `leading` diagnostics (plugin load failures) come
/// first in the output.
pub fn run(
    providers: &[Box<dyn SkillProvider>],
    cx: &DiscoveryContext,
    opts: &Options,
    leading: Vec<Diagnostic>,
) -> Discovery {
    let stages: Vec<Stage<'_>> = providers
        .iter()
        .map(|p| Stage {
            provider: p.as_ref(),
            off: None,
        })
        .collect();
    run_stages(&stages, cx, opts, leading)
}

/// A provider in the run, and the setting that switched it off (a
/// `disabledProviders` entry), which the run honours by scanning it only
/// when [`Options::keep_removed`] asks, to keep what it holds as
/// [`Fate::SwitchedOff`].
#[derive(Clone, Copy)]
pub struct Stage<'a> {
    /// The provider.
    pub provider: &'a dyn SkillProvider,
    /// The setting that switched it off.
    pub off: Option<&'a str>,
}

/// [`run`], with providers some setting switched off among them.
pub fn run_stages(
    providers: &[Stage<'_>],
    cx: &DiscoveryContext,
    opts: &Options,
    leading: Vec<Diagnostic>,
) -> Discovery {
    if !opts.enabled {
        return Discovery::default();
    }
    let mut state = State {
        diagnostics: leading,
        max_file_bytes: cx.limits.max_file_bytes,
        ..State::default()
    };

    // Every root of the three passes is listed first, in pipeline order:
    // pass 1, authored providers; pass 2, custom directories then `--skill`
    // paths; pass 3, managed skills. They are scanned in parallel, and
    // their findings taken in that order as soon as each is ready.
    let mut work: Vec<Work<'_>> = Vec::new();
    // Each provider's items are one group (consecutive in `work`), each
    // custom directory one of its own.
    let mut group = 0;
    for stage in providers
        .iter()
        .filter(|s| s.provider.info().pass == Pass::Authored)
    {
        collect_work(*stage, Pass::Authored, group, cx, opts, &mut work);
        group += 1;
    }
    if opts.profile.custom_pass {
        let settings_dirs = if cx.no_skills {
            &[][..]
        } else {
            &opts.custom_directories[..]
        };
        let custom = settings_dirs
            .iter()
            .map(|dir| custom_root(dir, false))
            .chain(
                opts.cli_custom_directories
                    .iter()
                    .map(|path| custom_root(path, true)),
            );
        for item in custom {
            let (pass, id) = (Pass::Authored, CUSTOM.to_owned());
            work.push(match item {
                RootItem::Root(root) => Work::Scan {
                    provider: None,
                    pass,
                    id,
                    root,
                    group,
                    off: None,
                },
                RootItem::Diagnostic(diagnostic) => Work::Note {
                    pass,
                    id,
                    diagnostic,
                    group,
                },
            });
            group += 1;
        }
    }
    for stage in providers
        .iter()
        .filter(|s| s.provider.info().pass == Pass::Managed)
    {
        collect_work(*stage, Pass::Managed, group, cx, opts, &mut work);
        group += 1;
    }
    // SPEC §11: a provider that fails (any of its roots yields
    // `Found::Failed`) contributes nothing but its failure, reported at its
    // place in the visit order. So a group's findings are held until its
    // last item is ready, then taken, or dropped for the first failure.
    let mut held: Vec<(Vec<Ready>, usize, std::time::Duration)> = Vec::new();
    let mut failure: Option<Diagnostic> = None;
    // The roots are scanned on the machine's cores (see `schedule`); the
    // scanners get the run's idle cores through the context.
    let workers = Arc::new(Workers::default());
    let cx = &DiscoveryContext {
        schedule: Schedule::of(&workers),
        ..cx.clone()
    };
    let run = |w: &Work<'_>| {
        let started = std::time::Instant::now();
        let outcome = make_ready(w.run(cx));
        (outcome, started.elapsed())
    };
    schedule::run_ordered(&workers, &work, run, |i, w, (outcome, took)| {
        match outcome {
            Ok(found) if failure.is_none() => held.push((found, i, took)),
            Ok(_) => {}
            // A switched-off source kept for `explain` never fails its provider.
            Err(_) if w.off().is_some() => {}
            Err(d) => {
                if failure.is_none() {
                    held.clear();
                    failure = Some(*d);
                }
            }
        }
        if work
            .get(i + 1)
            .is_some_and(|next| next.group() == w.group())
        {
            return;
        }
        let (id, pass) = w.origin();
        // A group is one provider's, or one custom directory's (no
        // priority, also when a host scans the custom pass as a provider).
        let priority = match w {
            Work::Scan { provider: None, .. } => None,
            _ if id == CUSTOM => None,
            _ => providers
                .iter()
                .map(|s| s.provider.info())
                .find(|info| info.id == id)
                .map(|info| info.priority),
        };
        if let Some(d) = failure.take() {
            state.diagnostics.push(d);
        }
        let _provider = tracing::info_span!("provider", id).entered();
        for (found, i, took) in held.drain(..) {
            let Some(item) = work.get(i) else { continue };
            let _root = item.span().entered();
            let off = item.off();
            let before = (state.skills.len(), state.candidates);
            state.reserve(found.len());
            for f in found {
                state.take(f, (id, priority), opts, pass, off);
            }
            item.log(
                state.candidates - before.1,
                state.skills.len() - before.0,
                took,
            );
        }
    });
    state.log_filters(opts);

    let roots_scanned = work
        .iter()
        .filter(|w| matches!(w, Work::Scan { off: None, .. }))
        .count();
    let State {
        mut skills,
        mut diagnostics,
        collisions,
        shadowed,
        removed,
        claims,
        ..
    } = state;
    if opts.profile.order == FinalOrder::Name {
        sort_by_name(&mut skills);
    }
    diagnostics.extend(collisions);
    Discovery {
        skills,
        diagnostics,
        shadowed,
        removed,
        claims,
        roots_scanned,
    }
}

/// By name lower-cased (Unicode), then exact name; each lower-cased name is
/// computed once, and not at all for a name that is lower case already.
fn sort_by_name(skills: &mut Vec<Skill>) {
    // The keys travel with the indices, so comparing never goes back to
    // the skills.
    let mut keys: Vec<(Cow<'_, str>, &str, usize)> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| (lowercase(&s.name), s.name.as_str(), i))
        .collect();
    // Stable: each root's skills come in name order already, and the
    // stable sort merges such runs in near-linear time.
    keys.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let order: Vec<usize> = keys.into_iter().map(|(_, _, i)| i).collect();
    // Each skill moved once, to its place in a new list.
    let mut slots: Vec<Option<Skill>> = std::mem::take(skills).into_iter().map(Some).collect();
    *skills = order
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect();
}

/// Orders providers for a profile: by priority (higher first); equal
/// priorities keep the order of `profile_order` (the profile's provider
/// list), then plugins in load order.
pub fn order_providers(
    mut providers: Vec<Box<dyn SkillProvider>>,
    profile_order: &[String],
) -> Vec<Box<dyn SkillProvider>> {
    let rank = |p: &dyn SkillProvider| {
        let id = &p.info().id;
        profile_order
            .iter()
            .position(|x| x == id)
            .unwrap_or(usize::MAX)
    };
    // A stable sort keeps load order among plugins of equal priority.
    providers.sort_by_key(|p| (std::cmp::Reverse(p.info().priority), rank(p.as_ref())));
    providers
}

enum Work<'a> {
    Scan {
        /// `None` for the custom pass.
        provider: Option<&'a dyn SkillProvider>,
        pass: Pass,
        id: String,
        root: Root,
        /// The provider's (or custom directory's) index in the run: what
        /// fails together.
        group: usize,
        /// The setting that switched it off: scanned only to keep what it
        /// holds ([`Options::keep_removed`]).
        off: Option<String>,
    },
    Note {
        pass: Pass,
        id: String,
        diagnostic: Diagnostic,
        group: usize,
    },
}

impl Work<'_> {
    fn origin(&self) -> (&str, Pass) {
        match self {
            Work::Scan { id, pass, .. } | Work::Note { id, pass, .. } => (id, *pass),
        }
    }

    fn group(&self) -> usize {
        match self {
            Work::Scan { group, .. } | Work::Note { group, .. } => *group,
        }
    }

    fn off(&self) -> Option<&str> {
        match self {
            Work::Scan { off, .. } => off.as_deref(),
            Work::Note { .. } => None,
        }
    }

    /// The span a root's findings are taken in (a note's: its provider's).
    fn span(&self) -> tracing::Span {
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
    fn log(&self, files: usize, loaded: usize, took: std::time::Duration) {
        let Work::Scan { root, off, .. } = self else {
            return;
        };
        if !tracing::enabled!(tracing::Level::INFO) {
            return;
        }
        let took = format!("{:.1}ms", took.as_secs_f64() * 1000.0);
        if let Some(setting) = off {
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

    fn run(&self, cx: &DiscoveryContext) -> Vec<Found> {
        match self {
            Work::Scan {
                provider: Some(provider),
                root,
                ..
            } => keep_inside_project(cx, root, provider.scan_root(cx, root)),
            Work::Scan {
                provider: None,
                id,
                root,
                ..
            } => keep_inside_project(cx, root, scan_with(id, cx, root)),
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
fn keep_inside_project(cx: &DiscoveryContext, root: &Root, found: Vec<Found>) -> Vec<Found> {
    if root.level != Level::Project {
        return found;
    }
    let project = cx.repo_root.as_deref().unwrap_or(&cx.cwd);
    let real_project = crate::paths::canonical(project);
    // Found inside the project (as spelt, or as resolved), led out of it.
    let led_out = |path: &Path, real: &Path| {
        (path.starts_with(project) || path.starts_with(&real_project))
            && !real.starts_with(&real_project)
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

/// What the custom pass scans for one of its paths, decided as the run
/// reaches it (the watcher's `custom` provider lists its roots with this
/// too, so both always agree). A settings directory is a custom directory:
/// scanned one level deep, a description required. A `--skill` path
/// (`from_cli`): a folder holding a `SKILL.md` is that one skill (its root
/// scanned as pi scans one: the skill file stops the walk), any other
/// folder a custom directory, and a path where nothing is a
/// `path-not-found` warning, as in pi.
pub fn custom_root(path: &Path, from_cli: bool) -> RootItem {
    if !from_cli {
        return Root::new(path, Level::User).require_description().into();
    }
    if std::fs::metadata(path).is_err() {
        return RootItem::Diagnostic(Diagnostic::warning(
            DiagnosticCode::PathNotFound,
            "skill path does not exist",
            path,
        ));
    }
    let mode = if path.join("SKILL.md").is_file() {
        ScanMode::Recursive
    } else {
        ScanMode::OneLevel
    };
    Root::new(path, Level::User)
        .mode(mode)
        .require_description()
        .from_command_line()
        .into()
}

fn collect_work<'a>(
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
        (Some(setting), _) => Some(format!("{setting} \"{}\"", info.id)),
        (None, false) => Some(
            info.toggles
                .iter()
                .map(|t| opts.toggle_setting(t))
                .collect::<Vec<_>>()
                .join(" and ")
                + " = false",
        ),
        (None, true) => None,
    };
    if let Some(setting) = &provider_off {
        tracing::info!(provider = %info.id, "off ({setting})");
        if !opts.keep_removed {
            return;
        }
    }
    for item in provider.roots(cx) {
        match item {
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
                } else if cx.no_skills && !root.cli {
                    Some("--no-skills".to_owned())
                } else if !opts.toggle_on(&root.toggle) {
                    let setting = format!("{} = false", opts.toggle_setting(&root.toggle));
                    tracing::info!(
                        provider = %info.id,
                        root = %root.path.display(),
                        "off ({setting})"
                    );
                    Some(setting)
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
                    Some(format!(
                        "skills.projectSkills = \"trusted\" ({} is not trusted)",
                        project.display()
                    ))
                } else {
                    None
                };
                // A root that is off is scanned only to say what it would
                // have given (`keep_removed`).
                if off.is_none() || opts.keep_removed {
                    work.push(Work::Scan {
                        provider: Some(provider),
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

/// One finding, made ready on the scanning thread: the path as found is
/// dropped there (where it was allocated), and the real path is already a
/// hashed table key.
enum Ready {
    Diagnostic(Diagnostic),
    /// The candidate (its `filter_name` moved to the [`Name`]).
    Candidate(Candidate, RealPath, Name),
}

/// A root's findings made ready, or its provider's failure
/// ([`Found::Failed`]; the first, when there are several).
/// (Boxed: failures are rare, and the result small.)
type Outcome = Result<Vec<Ready>, Box<Diagnostic>>;

fn make_ready(found: Vec<Found>) -> Outcome {
    found
        .into_iter()
        .map(|f| match f {
            Found::Diagnostic(d) => Ok(Ready::Diagnostic(d)),
            Found::Candidate {
                mut candidate,
                real_path,
                ..
            } => {
                let name = Name::new(std::mem::take(&mut candidate.filter_name));
                Ok(Ready::Candidate(candidate, RealPath::new(real_path), name))
            }
            Found::Failed(d) => Err(Box::new(d)),
        })
        .collect()
}

#[derive(Default)]
struct State {
    skills: Vec<Skill>,
    diagnostics: Vec<Diagnostic>,
    collisions: Vec<Diagnostic>,
    /// Real paths whose diagnostics were reported, each with the skill
    /// loaded from it: 0 for none, else its index in `skills` plus one.
    real_paths: FastMap<RealPath, u32>,
    /// Loaded names: the winner's index in `skills` and its provider's in
    /// `providers`.
    names: FastMap<Name, (usize, usize)>,
    /// The providers of loaded skills: id, priority (none in the custom
    /// pass) and pass.
    providers: Vec<(String, Option<i32>, PipelinePass)>,
    /// Names of authored candidates of enabled sources (shadow managed ones).
    authored: FastSet<Name>,
    /// Copies of loaded names that did not load, in the order met.
    shadowed: Vec<ShadowedCopy>,
    /// What settings and switched-off sources removed, and same-file
    /// copies (only with [`Options::keep_removed`]).
    removed: Vec<ShadowedCopy>,
    /// Every candidate, in order (only with [`Options::keep_removed`]).
    claims: Vec<Claim>,
    /// Candidates taken (for `-v`).
    candidates: usize,
    /// How many candidates each name filter removed, and the first few
    /// names (for `-v`).
    filtered: BTreeMap<String, (usize, Vec<String>)>,
    /// The digests of winners' files, by index in `skills`: read only
    /// when a second copy of their name comes.
    digests: FastMap<usize, Option<Digest>>,
    /// This run's key for [`Digest`].
    keys: std::hash::RandomState,
    /// The bound of a skill file read for a digest.
    max_file_bytes: u64,
}

/// A name as a table key, hashed once, where it is made (on the scanning
/// thread), so that taking a skill rarely reads its name again.
#[derive(Clone)]
struct Name {
    hash: u64,
    text: String,
}

impl Name {
    fn new(text: String) -> Self {
        Name {
            hash: hash_bytes(text.as_bytes()),
            text,
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A real path as a table key: its bytes, in the one spelling its
/// components have (as `Path` compares them: `a//b`, `a/./b` and `a/b/` are
/// `a/b`), hashed once, as bytes, where it is made.
#[derive(PartialEq, Eq)]
struct RealPath {
    hash: u64,
    bytes: Vec<u8>,
}

impl Hash for RealPath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl RealPath {
    fn new(path: PathBuf) -> Self {
        // The fast look knows `/` only; elsewhere the components decide.
        let path = if cfg!(unix) && is_clean(crate::paths::bytes_of(&path)) {
            path
        } else {
            path.components().collect()
        };
        let bytes = crate::paths::into_bytes(path);
        RealPath {
            hash: hash_bytes(&bytes),
            bytes,
        }
    }
}

/// Whether a path's bytes are the one spelling of its components: no `//`,
/// no `/./`, no trailing `/` (but `/` itself) or `/.`.
pub(crate) fn is_clean(b: &[u8]) -> bool {
    !b.is_empty()
        && (b == b"/" || !b.ends_with(b"/"))
        && !b.ends_with(b"/.")
        && memchr::memchr_iter(b'/', b).all(|i| {
            let next = &b[i + 1..];
            !next.starts_with(b"/") && !next.starts_with(b"./")
        })
}

/// The pipeline's tables: their keys are hashed once, where they are made
/// ([`hash_bytes`]), and the tables hash that `u64` with foldhash. SipHash
/// takes many rounds per word; the keys here are file paths and skill names
/// found on the user's own disk, so its resistance to chosen collisions
/// buys nothing. (A unit test guards the spread on similar paths.)
type FastMap<K, V> = HashMap<K, V, FixedState>;
type FastSet<K> = HashSet<K, FixedState>;

/// A fixed seed: the same key hashes alike on every thread of a run.
const HASH_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

fn hash_bytes(bytes: &[u8]) -> u64 {
    FixedState::with_seed(HASH_SEED).hash_one(bytes)
}

impl State {
    /// Room for `n` more candidates, so the tables grow once per root
    /// rather than rehash as they fill.
    fn reserve(&mut self, n: usize) {
        self.real_paths.reserve(n);
        self.names.reserve(n);
        self.authored.reserve(n);
        self.skills.reserve(n);
    }

    fn take(
        &mut self,
        item: Ready,
        (provider, priority): (&str, Option<i32>),
        opts: &Options,
        pass: Pass,
        off: Option<&str>,
    ) {
        let (candidate, real_path, name) = match item {
            // A switched-off source says nothing.
            Ready::Diagnostic(_) if off.is_some() => return,
            Ready::Diagnostic(d) => {
                self.diagnostics.push(d);
                return;
            }
            Ready::Candidate(candidate, real_path, name) => (candidate, real_path, name),
        };
        self.candidates += 1;
        let Candidate {
            skill, diagnostics, ..
        } = candidate;
        if opts.keep_removed {
            self.claim(&name, skill.as_ref(), &diagnostics, provider);
        }
        if let Some(setting) = off {
            if let (true, Some(skill)) = (opts.keep_removed, skill) {
                tracing::debug!(file = %skill.file_path.display(), "off ({setting})");
                let fate = Fate::SwitchedOff {
                    setting: setting.to_owned(),
                    layer: None,
                };
                self.removed.push(ShadowedCopy { skill, fate });
            }
            return;
        }
        if opts.disabled_by_extension(&name.text) {
            self.filtered_out(skill, &name.text, opts);
            return;
        }
        // An authored candidate's name shadows managed skills: it goes to
        // `authored`, or, when the skill loads, to `names` (which the managed
        // pass consults too).
        let authored = pass == Pass::Authored && skill.is_some() && provider != CUSTOM;
        if !opts.kept_by_globs(&name.text) {
            if authored {
                self.authored.insert(name.clone());
            }
            self.filtered_out(skill, &name.text, opts);
            return;
        }
        let loaded = match self.real_paths.entry(real_path) {
            Entry::Occupied(seen) => seen.into_mut(),
            Entry::Vacant(new) => {
                self.diagnostics.extend(diagnostics);
                new.insert(0)
            }
        };
        let Some(mut skill) = skill else {
            return;
        };
        if *loaded != 0 {
            let winner = *loaded as usize - 1;
            if authored {
                self.authored.insert(name);
            }
            if opts.keep_removed {
                self.same_real_path(winner, skill);
            }
            return;
        }
        // The skill's name as a key: the filter name's, hashed on the
        // scanning thread, in all but odd cases.
        let skill_name = if name.text == skill.name {
            None
        } else {
            Some(Name::new(skill.name.clone()))
        };
        let key = skill_name.as_ref().unwrap_or(&name);
        if pass == Pass::Managed {
            let dropped = !checks::is_managed_name(&skill.name)
                || self.authored.contains(key)
                || self.names.contains_key(key);
            if dropped {
                return;
            }
        }
        if let Some(&(winner, winner_provider)) = self.names.get(key) {
            let by = self.winner(winner, winner_provider);
            let identical = self.identical(winner, &skill.file_path);
            if !identical || opts.warn_identical_copies {
                let mut d = Diagnostic::warning(
                    DiagnosticCode::Collision,
                    format!("name \"{}\" collision", skill.name),
                    &skill.file_path,
                );
                d.collision = Some(Collision {
                    winner_path: by.file_path.clone(),
                    winner_provider: by.provider.clone(),
                    loser_provider: provider.to_owned(),
                });
                self.collisions.push(d);
            }
            let fate = if identical {
                Fate::Identical { to: by }
            } else {
                Fate::Shadowed { by }
            };
            tracing::debug!(file = %skill.file_path.display(), "{}", fate.describe());
            self.shadowed.push(ShadowedCopy { skill, fate });
            if authored {
                self.authored.insert(name);
            }
            return;
        }
        if pass == Pass::Managed {
            skill.description = sanitize_managed_description(&skill.description);
            if let Some(inv) = skill.invocation.as_deref_mut()
                && let Some(when) = &inv.when_to_use
            {
                inv.listing_description = Some(crate::invocation::listing_description(
                    &skill.description,
                    when,
                ));
            }
        }
        if !opts.visibility.is_empty() {
            skill.visibility = opts.visibility.visibility_of(&skill.name);
            skill.hidden |= skill.visibility == skillpipe_types::Visibility::UserOnly;
        }
        *loaded = u32::try_from(self.skills.len() + 1).unwrap_or(u32::MAX);
        let provider_index = match self.providers.iter().rposition(|p| p.0 == provider) {
            Some(i) => i,
            None => {
                let pass = match pass {
                    Pass::Managed => PipelinePass::Managed,
                    Pass::Authored if provider == CUSTOM => PipelinePass::Custom,
                    Pass::Authored => PipelinePass::Providers,
                };
                self.providers.push((provider.to_owned(), priority, pass));
                self.providers.len() - 1
            }
        };
        let entry = (self.skills.len(), provider_index);
        match skill_name {
            None => {
                self.names.insert(name, entry);
            }
            Some(skill_name) => {
                if authored {
                    self.authored.insert(name);
                }
                self.names.insert(skill_name, entry);
            }
        }
        tracing::debug!(file = %skill.file_path.display(), name = %skill.name, "loaded");
        self.skills.push(skill);
    }

    /// A candidate a name filter removed: counted, and kept when asked.
    fn filtered_out(&mut self, skill: Option<Skill>, name: &str, opts: &Options) {
        let Some((setting, pattern, layer)) = opts.removed_by(name) else {
            return;
        };
        let (count, names) = self.filtered.entry(setting.to_owned()).or_default();
        *count += 1;
        if names.len() < FILTERED_NAMES_SHOWN && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        let Some(skill) = skill else { return };
        tracing::debug!(file = %skill.file_path.display(), "removed by {setting} {pattern}");
        if opts.keep_removed {
            let fate = Fate::Removed {
                setting: setting.to_owned(),
                pattern,
                layer,
            };
            self.removed.push(ShadowedCopy { skill, fate });
        }
    }

    /// A copy of the file loaded as `skills[winner]`, by another path.
    fn same_real_path(&mut self, winner: usize, skill: Skill) {
        let provider = self.skills.get(winner).and_then(|w| {
            self.names
                .iter()
                .find(|(_, (i, _))| *i == winner)
                .map(|(_, (_, p))| *p)
                .or_else(|| self.providers.iter().position(|p| p.0 == w.source.provider))
        });
        let of = self.winner(winner, provider.unwrap_or(usize::MAX));
        self.removed.push(ShadowedCopy {
            skill,
            fate: Fate::SameRealPath { of },
        });
    }

    /// Notes a candidate for `explain`.
    fn claim(
        &mut self,
        name: &Name,
        skill: Option<&Skill>,
        diagnostics: &[Diagnostic],
        provider: &str,
    ) {
        let (name, file_path, diagnostics) = match skill {
            Some(s) => (s.name.clone(), s.file_path.clone(), Vec::new()),
            None => (
                name.text.clone(),
                diagnostics
                    .first()
                    .map(|d| d.path.clone())
                    .unwrap_or_default(),
                diagnostics.to_vec(),
            ),
        };
        self.claims.push(Claim {
            name,
            file_path,
            provider: provider.to_owned(),
            diagnostics,
        });
    }

    /// One line for `-v` per name filter that removed anything.
    fn log_filters(&self, opts: &Options) {
        let set = [
            ("disabledExtensions", opts.disabled_extensions.len()),
            ("skills.ignoredSkills", opts.ignored.len()),
            ("skills.includeSkills", opts.include.len()),
            (opts.visibility.setting(), opts.visibility.all.len()),
        ];
        for (setting, entries) in set {
            if entries > 0 {
                let (removed, names) = self
                    .filtered
                    .get(setting)
                    .map_or((0, &[][..]), |(n, names)| (*n, &names[..]));
                let more = if removed > names.len() { ", …" } else { "" };
                let names = match names.is_empty() {
                    true => String::new(),
                    false => format!(": {}{more}", names.join(", ")),
                };
                tracing::info!(
                    "filter {setting} ({entries} entr{}): removed {removed}{names}",
                    if entries == 1 { "y" } else { "ies" }
                );
            }
        }
    }
}

impl State {
    /// The loaded copy `winner` (an index in `skills`), as a fate names it.
    fn winner(&self, winner: usize, provider: usize) -> Winner {
        let skill = self.skills.get(winner);
        let (id, priority, pass) = self.providers.get(provider).cloned().unwrap_or((
            String::new(),
            None,
            PipelinePass::Providers,
        ));
        Winner {
            file_path: skill.map(|w| w.file_path.clone()).unwrap_or_default(),
            provider: id,
            level: skill.map_or(Level::User, |w| w.source.level),
            priority,
            pass,
        }
    }

    /// Whether the file at `path` holds the bytes of the loaded copy
    /// `winner`'s. Only copies of a taken name come here, so only files
    /// that share a name are ever read for it; the winner's once.
    fn identical(&mut self, winner: usize, path: &Path) -> bool {
        let (max, keys, skills) = (self.max_file_bytes, &self.keys, &self.skills);
        let theirs = *self.digests.entry(winner).or_insert_with(|| {
            skills
                .get(winner)
                .and_then(|w| Digest::of(&w.file_path, max, keys))
        });
        theirs.is_some() && theirs == Digest::of(path, max, keys)
    }
}

/// SPEC §5 step 6: control and format characters become spaces, `<`, `>`
/// and `` ` `` are removed, `~~…` becomes `~`, whitespace runs become one
/// space, trimmed.
pub fn sanitize_managed_description(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    let mut prev_tilde = false;
    for c in text.chars() {
        let c = if c.is_control() || is_format(c) {
            ' '
        } else {
            c
        };
        if matches!(c, '<' | '>' | '`') {
            continue;
        }
        if c == '~' {
            if prev_tilde {
                continue;
            }
            prev_tilde = true;
        } else {
            prev_tilde = false;
        }
        cleaned.push(c);
    }
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Unicode general category Cf (format), the common ones.
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
        | '\u{08E2}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0001}'
        | '\u{E0020}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    use skillpipe_types::Source;

    use crate::provider::ProviderInfo;

    /// A provider that scans nothing on disk: each root's findings are given.
    #[derive(Debug)]
    struct Fake {
        info: ProviderInfo,
        notes: Vec<Diagnostic>,
        roots: Vec<(PathBuf, Vec<Found>)>,
        /// Notes listed after the roots.
        late_notes: Vec<Diagnostic>,
    }

    impl Fake {
        fn new(id: &str, priority: i32, pass: Pass) -> Self {
            Fake {
                info: ProviderInfo {
                    toggles: Vec::new(),
                    pass,
                    ..ProviderInfo::plugin(id, id, priority)
                },
                notes: Vec::new(),
                roots: Vec::new(),
                late_notes: Vec::new(),
            }
        }

        fn root(mut self, path: &str, found: Vec<Found>) -> Self {
            self.roots.push((PathBuf::from(path), found));
            self
        }
    }

    impl SkillProvider for Fake {
        fn info(&self) -> &ProviderInfo {
            &self.info
        }

        fn roots(&self, _cx: &DiscoveryContext) -> Vec<RootItem> {
            let notes = self.notes.iter().cloned().map(RootItem::Diagnostic);
            let roots = self.roots.iter().map(|(path, _)| {
                RootItem::Root(Root::new(path.clone(), Level::User).require_description())
            });
            let late = self.late_notes.iter().cloned().map(RootItem::Diagnostic);
            notes.chain(roots).chain(late).collect()
        }

        fn scan_root(&self, _cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
            self.roots
                .iter()
                .find(|(path, _)| *path == root.path)
                .map(|(_, found)| found.clone())
                .unwrap_or_default()
        }
    }

    /// A skill `name` of provider `provider` at `file` (its real path too),
    /// with one diagnostic of its own.
    fn skill(provider: &str, name: &str, file: &str) -> Found {
        let file = PathBuf::from(file);
        let base_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        Found::Candidate {
            candidate: Candidate {
                filter_name: name.to_owned(),
                skill: Some(Skill {
                    name: name.to_owned(),
                    description: format!("{name} does things"),
                    file_path: file.clone(),
                    base_dir,
                    source: Arc::new(Source {
                        provider: provider.to_owned(),
                        level: Level::User,
                        root: None,
                    }),
                    hidden: false,
                    frontmatter: Default::default(),
                    invocation: None,
                    visibility: Default::default(),
                }),
                diagnostics: vec![Diagnostic::warning(
                    "name-mismatch",
                    format!("{provider}: {name}"),
                    &file,
                )],
            },
            path: file.clone(),
            real_path: file,
        }
    }

    fn note(message: &str) -> Diagnostic {
        Diagnostic::warning("read-error", message, Path::new("/note"))
    }

    fn plugin_error(message: &str) -> Diagnostic {
        Diagnostic::warning("plugin-error", message, Path::new("/lib/libflaky.so"))
    }

    #[test]
    fn a_provider_failing_on_one_root_contributes_nothing_but_its_failure() {
        let first = || {
            Fake::new("first", 90, Pass::Authored).root(
                "/first",
                vec![skill("first", "alpha", "/first/alpha/SKILL.md")],
            )
        };
        // Its first root holds a skill (which, were it taken, would win the
        // name `clash`, the real path of `other`'s `shared`, and shadow the
        // managed `learned`) and a root diagnostic; its second and third
        // roots fail.
        let mut flaky = Fake::new("flaky", 50, Pass::Authored)
            .root(
                "/flaky/one",
                vec![
                    skill("flaky", "clash", "/flaky/one/clash/SKILL.md"),
                    skill("flaky", "shared", "/shared/SKILL.md"),
                    skill("flaky", "learned", "/flaky/one/learned/SKILL.md"),
                    Found::Diagnostic(note("flaky: root note")),
                ],
            )
            .root(
                "/flaky/two",
                vec![
                    skill("flaky", "late", "/flaky/two/late/SKILL.md"),
                    Found::Failed(plugin_error("flaky failed scanning /flaky/two")),
                ],
            )
            .root(
                "/flaky/three",
                vec![Found::Failed(plugin_error(
                    "flaky failed scanning /flaky/three",
                ))],
            );
        flaky.notes.push(note("flaky: listing note"));
        let other = || {
            Fake::new("other", 10, Pass::Authored).root(
                "/other",
                vec![
                    skill("other", "clash", "/other/clash/SKILL.md"),
                    skill("other", "shared", "/shared/SKILL.md"),
                ],
            )
        };
        let managed = || {
            Fake::new("managed", 0, Pass::Managed).root(
                "/managed",
                vec![skill("managed", "learned", "/managed/learned/SKILL.md")],
            )
        };

        let opts = Options::new(PipelineProfile {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        let cx = DiscoveryContext::default();
        let leading = vec![plugin_error("a library that did not load")];
        let without: Vec<Box<dyn SkillProvider>> =
            vec![Box::new(first()), Box::new(other()), Box::new(managed())];
        let with: Vec<Box<dyn SkillProvider>> = vec![
            Box::new(first()),
            Box::new(flaky),
            Box::new(other()),
            Box::new(managed()),
        ];
        let without = run(&without, &cx, &opts, leading.clone());
        let with = run(&with, &cx, &opts, leading);

        let names: Vec<&str> = with.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alpha", "clash", "shared", "learned"]);
        assert!(with.skills.iter().all(|s| s.source.provider != "flaky"));
        assert_eq!(with.skills, without.skills);
        // Its failure, once, at its place in the visit order; nothing else of it.
        let mut expected = without.diagnostics.clone();
        expected.insert(2, plugin_error("flaky failed scanning /flaky/two"));
        assert_eq!(with.diagnostics, expected);
        let failures = with
            .diagnostics
            .iter()
            .filter(|d| d.message.starts_with("flaky failed"))
            .count();
        assert_eq!(failures, 1, "{:#?}", with.diagnostics);
        assert!(with.diagnostics.iter().all(|d| d.code != "collision"));
    }

    #[test]
    fn a_provider_failing_on_its_only_root_keeps_its_neighbours_order() {
        let opts = Options::new(PipelineProfile {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        let providers: Vec<Box<dyn SkillProvider>> = vec![
            Box::new(
                Fake::new("a", 3, Pass::Authored)
                    .root("/a", vec![skill("a", "one", "/a/one/SKILL.md")]),
            ),
            Box::new(
                Fake::new("b", 2, Pass::Authored)
                    .root("/b", vec![Found::Failed(plugin_error("b failed"))]),
            ),
            Box::new(
                Fake::new("c", 1, Pass::Authored)
                    .root("/c1", vec![skill("c", "two", "/c1/two/SKILL.md")])
                    .root("/c2", vec![skill("c", "three", "/c2/three/SKILL.md")]),
            ),
        ];
        let d = run(&providers, &DiscoveryContext::default(), &opts, Vec::new());
        let names: Vec<&str> = d.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["one", "two", "three"]);
        let messages: Vec<&str> = d.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["a: one", "b failed", "c: two", "c: three"]);
    }

    #[test]
    fn a_loser_stays_as_a_shadowed_copy_naming_its_winner() {
        let opts = Options::new(PipelineProfile {
            order: FinalOrder::Name,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        // The winner's provider lists a note after its root: its priority
        // is still the provider's.
        let mut high = Fake::new("high", 90, Pass::Authored)
            .root("/high", vec![skill("high", "tdd", "/high/tdd/SKILL.md")]);
        high.late_notes.push(note("high: late note"));
        let low = Fake::new("low", 10, Pass::Authored)
            .root("/low", vec![skill("low", "tdd", "/low/tdd/SKILL.md")]);
        let providers: Vec<Box<dyn SkillProvider>> = vec![Box::new(high), Box::new(low)];
        let d = run(&providers, &DiscoveryContext::default(), &opts, Vec::new());
        assert_eq!(d.skills.len(), 1);
        assert_eq!(d.shadowed.len(), 1);
        let copy = &d.shadowed[0];
        assert_eq!(copy.skill.file_path, Path::new("/low/tdd/SKILL.md"));
        // The files cannot be read here: the copies count as different.
        let Fate::Shadowed { by } = &copy.fate else {
            panic!("{:?}", copy.fate)
        };
        assert_eq!(
            (by.provider.as_str(), by.priority, by.pass),
            ("high", Some(90), PipelinePass::Providers)
        );
        assert_eq!(by.file_path, Path::new("/high/tdd/SKILL.md"));
        let collision = d
            .diagnostics
            .iter()
            .find(|d| d.code == "collision")
            .unwrap();
        assert_eq!(collision.path, Path::new("/low/tdd/SKILL.md"));
    }

    #[test]
    fn what_the_run_leaves_out_is_kept_only_when_asked() {
        let mut opts = Options::new(PipelineProfile {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        opts.ignored = vec!["tmp-*".into()];
        opts.toggles.insert("enableOff".into(), false);
        let mut off = Fake::new("off", 50, Pass::Authored)
            .root("/off", vec![skill("off", "gated", "/off/gated/SKILL.md")]);
        off.info.toggles = vec![Toggle::key("enableOff")];
        let broken = Found::Candidate {
            candidate: Candidate {
                filter_name: "broken".into(),
                skill: None,
                diagnostics: vec![Diagnostic::error("yaml-error", "bad", "/a/broken/SKILL.md")],
            },
            path: "/a/broken/SKILL.md".into(),
            real_path: "/a/broken/SKILL.md".into(),
        };
        let providers: Vec<Box<dyn SkillProvider>> = vec![
            Box::new(Fake::new("a", 90, Pass::Authored).root(
                "/a",
                vec![
                    skill("a", "one", "/a/one/SKILL.md"),
                    skill("a", "tmp-x", "/a/tmp-x/SKILL.md"),
                    broken,
                ],
            )),
            Box::new(off),
            // The same real file as `a`'s `one`, by another path.
            Box::new(Fake::new("b", 10, Pass::Authored).root(
                "/b",
                vec![Found::Candidate {
                    candidate: match skill("b", "one", "/b/one/SKILL.md") {
                        Found::Candidate { candidate, .. } => candidate,
                        _ => unreachable!(),
                    },
                    path: "/b/one/SKILL.md".into(),
                    real_path: "/a/one/SKILL.md".into(),
                }],
            )),
        ];
        let cx = DiscoveryContext::default();
        let plain = run(&providers, &cx, &opts, Vec::new());
        assert!(plain.removed.is_empty() && plain.claims.is_empty());
        // Two roots scanned: the switched-off one is not.
        assert_eq!(plain.roots_scanned, 2);

        opts.keep_removed = true;
        let all = run(&providers, &cx, &opts, Vec::new());
        // The skills and diagnostics are the plain run's.
        assert_eq!(all.skills, plain.skills);
        assert_eq!(all.diagnostics, plain.diagnostics);
        let fates: Vec<(&str, &Fate)> = all
            .removed
            .iter()
            .map(|c| (c.skill.name.as_str(), &c.fate))
            .collect();
        assert_eq!(fates.len(), 3, "{fates:#?}");
        assert_eq!(fates[0].0, "tmp-x");
        assert!(
            matches!(fates[0].1, Fate::Removed { setting, pattern, .. }
                if setting == "skills.ignoredSkills" && pattern == "\"tmp-*\""),
            "{fates:#?}"
        );
        assert_eq!(fates[1].0, "gated");
        assert!(
            matches!(fates[1].1, Fate::SwitchedOff { setting, .. }
                if setting == "skills.enableOff = false"),
            "{fates:#?}"
        );
        assert_eq!(fates[2].0, "one");
        let Fate::SameRealPath { of } = fates[2].1 else {
            panic!("{fates:#?}")
        };
        assert_eq!((of.provider.as_str(), of.priority), ("a", Some(90)));
        // Every file's claim, in order; the broken one with its diagnostics.
        let claims: Vec<(&str, &str)> = all
            .claims
            .iter()
            .map(|c| (c.name.as_str(), c.provider.as_str()))
            .collect();
        assert_eq!(
            claims,
            [
                ("one", "a"),
                ("tmp-x", "a"),
                ("broken", "a"),
                ("gated", "off"),
                ("one", "b")
            ]
        );
        assert_eq!(all.claims[2].diagnostics[0].code, "yaml-error");
    }

    #[test]
    fn real_path_keys_compare_as_paths_do() {
        let spellings = [
            "/a/b",
            "/a//b",
            "/a/./b",
            "/a/b/",
            "/a/b/.",
            "//a/b",
            "/a/b/c/..",
            "a/b",
            "./a/b",
            "a/b/",
            ".",
            "./",
            "/",
            "/.",
            "a/./b/./",
        ];
        for x in spellings {
            for y in spellings {
                let same_path = Path::new(x) == Path::new(y);
                let (kx, ky) = (RealPath::new(x.into()), RealPath::new(y.into()));
                assert_eq!(kx == ky, same_path, "{x:?} vs {y:?}");
                if same_path {
                    assert_eq!(kx.hash, ky.hash, "{x:?} vs {y:?}");
                }
            }
        }
    }

    #[test]
    fn key_hashes_spread_similar_paths() {
        use std::collections::HashSet;
        let hashes: HashSet<u64> = (0..10_000)
            .map(|i| {
                RealPath::new(format!("/home/u/.claude/skills/skill-{i}/SKILL.md").into()).hash
            })
            .collect();
        assert_eq!(hashes.len(), 10_000);
    }

    #[test]
    fn managed_description_is_sanitised() {
        assert_eq!(
            sanitize_managed_description("  Use <b>this</b>\u{200B}`now`  ~~~ ok\n\tdone "),
            "Use bthis/b now ~ ok done"
        );
    }

    #[test]
    fn globs_and_extensions_filter_names() {
        let mut o = Options::new(PipelineProfile {
            order: FinalOrder::Name,
            custom_pass: true,
            honor_enabled: true,
            fallback_toggles: vec!["a".into(), "b".into()],
        });
        o.disabled_extensions = vec!["skill:x".into(), "other".into()];
        o.ignored = vec!["tmp-*".into()];
        o.include = vec!["{keep,tmp}-*".into()];
        assert!(o.disabled_by_extension("x"));
        assert!(!o.disabled_by_extension("other"));
        assert!(!o.kept_by_globs("tmp-1"));
        assert!(o.kept_by_globs("keep-1"));
        assert!(!o.kept_by_globs("lost"));
    }

    #[test]
    fn fallback_is_the_or_of_its_keys() {
        let mut o = Options::new(PipelineProfile {
            order: FinalOrder::Name,
            custom_pass: true,
            honor_enabled: true,
            fallback_toggles: vec!["a".into(), "b".into()],
        });
        o.toggles.insert("a".into(), false);
        assert!(o.toggle_on(&Toggle::Fallback));
        o.toggles.insert("b".into(), false);
        assert!(!o.toggle_on(&Toggle::Fallback));
        assert!(o.toggle_on(&Toggle::Key("c".into())));
        assert!(o.toggle_on(&Toggle::Always));
    }
}
