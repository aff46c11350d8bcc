//! The discovery pipeline (SPEC §5 and §6): run providers in priority
//! order, filter, dedup by real path then by name, add custom directories,
//! then managed skills, then order the result.
//!
//! The two profiles differ only in [`Profile`] data: which passes run, the
//! final order, the fallback toggle keys.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Collision, Diagnostic, Discovery, Level, Skill};

use crate::checks;
use crate::provider::{DiscoveryContext, Pass, Root, RootItem, SkillProvider, Toggle, scan_with};
use crate::scan::{Found, ScanMode, lowercase, permuted};

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
        }
    }

    fn toggle_on(&self, t: &Toggle) -> bool {
        match t {
            Toggle::Always => true,
            Toggle::Key(k) => self.toggles.get(k).copied().unwrap_or(true),
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

    fn kept_by_globs(&self, name: &str) -> bool {
        if self.ignored.iter().any(|g| glob_match::glob_match(g, name)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|g| glob_match::glob_match(g, name))
    }
}

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
    if !opts.enabled {
        return Discovery::default();
    }
    let mut state = State {
        diagnostics: leading,
        ..State::default()
    };

    // Every root of the three passes is listed first, in pipeline order:
    // pass 1, authored providers; pass 2, custom directories then `--skill`
    // paths; pass 3, managed skills. They are scanned in parallel, and
    // their findings taken in that order as soon as each is ready.
    let mut work: Vec<Work<'_>> = Vec::new();
    for provider in providers.iter().filter(|p| p.info().pass == Pass::Authored) {
        collect_work(provider.as_ref(), Pass::Authored, cx, opts, &mut work);
    }
    if opts.profile.custom_pass {
        let settings_dirs = if cx.no_skills {
            &[][..]
        } else {
            &opts.custom_directories[..]
        };
        for dir in settings_dirs.iter().chain(&opts.cli_custom_directories) {
            let root = Root::new(
                dir.clone(),
                Level::User,
                ScanMode::OneLevel,
                true,
                Toggle::Always,
            );
            work.push(Work::Scan {
                provider: None,
                pass: Pass::Authored,
                id: CUSTOM.to_owned(),
                root,
            });
        }
    }
    for provider in providers.iter().filter(|p| p.info().pass == Pass::Managed) {
        collect_work(provider.as_ref(), Pass::Managed, cx, opts, &mut work);
    }
    scan_all(cx, &work, |w, found| {
        let (id, pass) = w.origin();
        for f in found {
            state.take(f, id, opts, pass);
        }
    });

    let State {
        mut skills,
        mut diagnostics,
        collisions,
        ..
    } = state;
    if opts.profile.order == FinalOrder::Name {
        sort_by_name(&mut skills);
    }
    diagnostics.extend(collisions);
    Discovery {
        skills,
        diagnostics,
    }
}

/// By name lower-cased (Unicode), then exact name; each lower-cased name is
/// computed once, and not at all for a name that is lower case already.
fn sort_by_name(skills: &mut Vec<Skill>) {
    let lower: Vec<Cow<'_, str>> = skills.iter().map(|s| lowercase(&s.name)).collect();
    let mut order: Vec<usize> = (0..skills.len()).collect();
    order.sort_by(|&a, &b| {
        lower[a]
            .cmp(&lower[b])
            .then_with(|| skills[a].name.cmp(&skills[b].name))
    });
    drop(lower);
    *skills = permuted(std::mem::take(skills), &order);
}

/// Orders providers for a profile: by priority (higher first); equal
/// priorities keep the order of `profile_order` (the profile's provider
/// list), then plugins in load order.
pub fn order_providers(
    mut providers: Vec<Box<dyn SkillProvider>>,
    profile_order: &[String],
) -> Vec<Box<dyn SkillProvider>> {
    let rank = |p: &dyn SkillProvider| {
        let id = p.info().id;
        profile_order
            .iter()
            .position(|x| *x == id)
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
    },
    Note {
        pass: Pass,
        id: String,
        diagnostic: Diagnostic,
    },
}

impl Work<'_> {
    fn origin(&self) -> (&str, Pass) {
        match self {
            Work::Scan { id, pass, .. } | Work::Note { id, pass, .. } => (id, *pass),
        }
    }

    fn run(&self, cx: &DiscoveryContext) -> Vec<Found> {
        match self {
            Work::Scan {
                provider: Some(provider),
                root,
                ..
            } => provider.scan_root(cx, root),
            Work::Scan {
                provider: None,
                id,
                root,
                ..
            } => scan_with(id, cx, root),
            Work::Note { diagnostic, .. } => vec![Found::Diagnostic(diagnostic.clone())],
        }
    }
}

fn collect_work<'a>(
    provider: &'a dyn SkillProvider,
    pass: Pass,
    cx: &DiscoveryContext,
    opts: &Options,
    work: &mut Vec<Work<'a>>,
) {
    let info = provider.info();
    let gated_on = info.toggles.is_empty() || info.toggles.iter().any(|t| opts.toggle_on(t));
    if !gated_on {
        return;
    }
    for item in provider.roots(cx) {
        match item {
            RootItem::Diagnostic(d) => work.push(Work::Note {
                pass,
                id: info.id.clone(),
                diagnostic: d,
            }),
            RootItem::Root(root) => {
                if (cx.no_skills && !root.cli) || !opts.toggle_on(&root.toggle) {
                    continue;
                }
                work.push(Work::Scan {
                    provider: Some(provider),
                    pass,
                    id: info.id.clone(),
                    root,
                });
            }
        }
    }
}

/// Scans every root of `work` on the machine's cores and hands the findings
/// of each to `take`, in work order, on this thread, as soon as they and
/// those before them are ready: taking overlaps with scanning.
fn scan_all<'w>(
    cx: &DiscoveryContext,
    work: &'w [Work<'_>],
    mut take: impl FnMut(&'w Work<'_>, Vec<Found>),
) {
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(work.len());
    if threads <= 1 {
        for w in work {
            take(w, w.run(cx));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let board = Mutex::new(Board {
        slots: (0..work.len()).map(|_| None).collect(),
        failed: false,
    });
    let ready = Condvar::new();
    let lock = || board.lock().unwrap_or_else(PoisonError::into_inner);
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // A panicking scan must not leave the taker waiting.
                let _wake = WakeOnPanic {
                    board: &board,
                    ready: &ready,
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(w) = work.get(i) else { break };
                    let found = w.run(cx);
                    let mut b = lock();
                    if let Some(slot) = b.slots.get_mut(i) {
                        *slot = Some(found);
                    }
                    drop(b);
                    ready.notify_one();
                }
            });
        }
        for (i, w) in work.iter().enumerate() {
            let mut b = lock();
            let found = loop {
                if b.failed {
                    return; // the scope re-raises the worker's panic
                }
                if let Some(found) = b.slots.get_mut(i).and_then(Option::take) {
                    break found;
                }
                b = ready.wait(b).unwrap_or_else(PoisonError::into_inner);
            };
            drop(b);
            take(w, found);
        }
    });
}

struct Board {
    slots: Vec<Option<Vec<Found>>>,
    failed: bool,
}

struct WakeOnPanic<'a> {
    board: &'a Mutex<Board>,
    ready: &'a Condvar,
}

impl Drop for WakeOnPanic<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.board
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .failed = true;
            self.ready.notify_all();
        }
    }
}

#[derive(Default)]
struct State {
    skills: Vec<Skill>,
    diagnostics: Vec<Diagnostic>,
    collisions: Vec<Diagnostic>,
    /// Real paths whose diagnostics were reported, each with whether a
    /// skill was loaded from it.
    real_paths: HashMap<PathBuf, bool>,
    /// Loaded names: winner's file and provider.
    names: HashMap<String, (PathBuf, String)>,
    /// Names of authored candidates of enabled sources (shadow managed ones).
    authored: HashSet<String>,
}

impl State {
    fn take(&mut self, found: Found, provider: &str, opts: &Options, pass: Pass) {
        let (candidate, real_path) = match found {
            Found::Diagnostic(d) => {
                self.diagnostics.push(d);
                return;
            }
            Found::Candidate {
                candidate,
                real_path,
                ..
            } => (candidate, real_path),
        };
        let name = candidate.filter_name.as_str();
        if opts.disabled_by_extension(name) {
            return;
        }
        if pass == Pass::Authored && candidate.skill.is_some() && provider != CUSTOM {
            self.authored.insert(name.to_owned());
        }
        if !opts.kept_by_globs(name) {
            return;
        }
        let loaded = match self.real_paths.entry(real_path) {
            Entry::Occupied(seen) => seen.into_mut(),
            Entry::Vacant(new) => {
                self.diagnostics.extend(candidate.diagnostics);
                new.insert(false)
            }
        };
        let Some(mut skill) = candidate.skill else {
            return;
        };
        if *loaded {
            return;
        }
        if pass == Pass::Managed {
            let dropped = !checks::is_managed_name(&skill.name)
                || self.authored.contains(&skill.name)
                || self.names.contains_key(&skill.name);
            if dropped {
                return;
            }
        }
        if let Some((winner_path, winner_provider)) = self.names.get(&skill.name) {
            let mut d = Diagnostic::warning(
                "collision",
                format!("name \"{}\" collision", skill.name),
                &skill.file_path,
            );
            d.collision = Some(Collision {
                winner_path: winner_path.clone(),
                winner_provider: winner_provider.clone(),
                loser_provider: provider.to_owned(),
            });
            self.collisions.push(d);
            return;
        }
        if pass == Pass::Managed {
            skill.description = sanitize_managed_description(&skill.description);
        }
        *loaded = true;
        self.names.insert(
            skill.name.clone(),
            (skill.file_path.clone(), provider.to_owned()),
        );
        self.skills.push(skill);
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
