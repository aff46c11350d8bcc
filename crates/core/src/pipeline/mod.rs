//! The discovery pipeline (SPEC §5 and §6): run providers in priority
//! order, filter, dedup by real path then by name, add custom directories,
//! then managed skills, then order the result.
//!
//! The two profiles differ only in [`PipelineRules`] data: which passes run, the
//! final order, the fallback toggle keys.

mod keys;
mod options;
mod order;
mod patch;
mod take;
mod work;

use std::sync::Arc;

use skillpipe_types::{Diagnostic, Discovery};

use crate::provider::{DiscoveryContext, Pass, SkillProvider};
use crate::schedule::{self, Schedule, Workers};

use self::order::sort_by_name;
use self::take::State;
use self::work::{Made, Work, collect_work, make_ready};

pub use crate::checks::sanitize_managed_description;
pub use crate::custom::{CUSTOM, custom_root};
pub use options::{FinalOrder, Options, PipelineRules};
pub use order::order_providers;
pub use patch::{Patch, Reloaded, patch};
pub use work::{Off, Stage};

/// From how many loaded names a discovery's tables of names and paths are
/// freed on a thread of their own: freeing took about 27 ns a name (0.27
/// ms for 10,000), starting and joining a thread some tens of
/// microseconds.
const FREE_ELSEWHERE_FROM: usize = 2048;

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

    // Every root of the three passes is listed first, in pipeline order
    // ([`Pass::ORDER`]): pass 1, authored providers; pass 2, the custom
    // pass's provider (custom directories then `--skill` paths); pass 3,
    // managed skills. They are scanned in parallel, and their findings
    // taken in that order as soon as each is ready.
    let mut work: Vec<Work<'_>> = Vec::new();
    // Each provider's items are one group (consecutive in `work`), each
    // custom path one of its own: a user's path fails alone.
    let mut group = 0;
    for pass in Pass::ORDER {
        for stage in providers.iter().filter(|s| s.provider.info().pass == pass) {
            let first = work.len();
            collect_work(*stage, pass, group, cx, opts, &mut work);
            group += 1;
            if pass == Pass::Custom {
                group -= 1;
                for w in work.iter_mut().skip(first) {
                    w.set_group(group);
                    group += 1;
                }
            }
        }
    }
    // SPEC §11: a provider that fails (any of its roots yields
    // `Found::Failed`) contributes nothing but its failure, reported at its
    // place in the visit order. So a group's findings are held until its
    // last item is ready, then taken, or dropped for the first failure;
    // those of a provider that cannot fail (`may_fail`) are taken as each
    // is ready, so taking them overlaps with scanning its other roots.
    let mut held: Vec<(Made, usize, std::time::Duration)> = Vec::new();
    let mut failure: Option<Diagnostic> = None;
    // The roots are scanned on the machine's cores (see `schedule`); the
    // scanners get the run's idle cores through the context.
    let workers = Arc::new(Workers::default());
    let cx = &DiscoveryContext {
        schedule: Schedule::of(&workers),
        ..cx.clone()
    };
    let by_name = opts.profile.order == FinalOrder::Name;
    let run = |w: &Work<'_>| {
        let started = std::time::Instant::now();
        let outcome = make_ready(w.run(cx), by_name);
        (outcome, started.elapsed())
    };
    // Findings are taken on the workers (see `run_ordered`): their spans
    // stay under the caller's.
    let caller = tracing::Span::current();
    schedule::run_ordered(&workers, &work, run, |i, w, (outcome, took)| {
        let _caller = caller.enter();
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
        let group_goes_on = work
            .get(i + 1)
            .is_some_and(|next| next.group() == w.group());
        if group_goes_on && (w.may_fail() || failure.is_some()) {
            return;
        }
        let (id, pass) = w.origin();
        // A group is one provider's, or one custom path's (no priority).
        let priority = match pass {
            Pass::Custom => None,
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
        for ((found, keys, heads), i, took) in held.drain(..) {
            let Some(item) = work.get(i) else { continue };
            let _root = item.span().entered();
            let off = item.off();
            let before = (state.skills.len(), state.candidates);
            state.reserve(found.len(), by_name);
            let mut heads = heads.into_iter();
            for (f, k) in found.into_iter().zip(keys) {
                state.take((f, k), heads.next(), (id, priority), opts, pass, off);
            }
            item.log(
                state.candidates - before.1,
                state.skills.len() - before.0,
                took,
                &opts.keys,
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
        heads,
        mut diagnostics,
        collisions,
        shadowed,
        removed,
        claims,
        real_paths,
        names,
        authored,
        ..
    } = state;
    // The tables of names and paths hold a shared buffer an entry: freeing
    // them took a quarter of a millisecond on 10,000 skills, after the
    // last root, with the other core idle. Beside the final sort, which
    // takes longer, they are freed on a thread joined before the end
    // (nothing of this discovery is left to slow a host's next one);
    // without a sort, on a thread left to finish alone. Small tables are
    // freed here, where they cost less than starting a thread.
    let elsewhere = names.len() >= FREE_ELSEWHERE_FROM;
    let tables = (real_paths, names, authored);
    match (by_name, elsewhere) {
        (true, true) => {
            schedule::side_by_side(
                "skillpipe-free",
                move || drop(tables),
                || sort_by_name(&mut skills, heads),
            );
        }
        (true, false) => sort_by_name(&mut skills, heads),
        (false, true) => schedule::drop_elsewhere(tables),
        (false, false) => drop(tables),
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

#[cfg(test)]
mod tests {
    use super::keys::RealPath;
    use super::*;
    use crate::load::Candidate;
    use crate::provider::{Description, Root, RootItem, Toggle};
    use crate::scan::Found;
    use skillpipe_types::{Fate, Filter, Level, Skill, Source, Switch};
    use std::path::Path;
    use std::path::PathBuf;
    use std::sync::Arc;

    /// The musepi shape's spelling (the settings layer's, which core
    /// cannot depend on).
    const KEYS: skillpipe_types::SettingKeys = skillpipe_types::SettingKeys {
        toggle_prefix: "skills.",
        disabled_providers: "disabledProviders",
        no_skills: "--no-skills",
        project_skills: "skills.projectSkills",
        disabled_extensions: "disabledExtensions",
        ignored_skills: "skills.ignoredSkills",
        include_skills: "skills.includeSkills",
        visibility: "skills.visibility",
    };

    fn options(profile: PipelineRules) -> Options {
        Options::new(profile, KEYS)
    }

    use crate::provider::ProviderInfo;

    /// A provider that scans nothing on disk: each root's findings are given.
    #[derive(Debug)]
    struct Fake {
        info: ProviderInfo,
        notes: Vec<Diagnostic>,
        roots: Vec<(PathBuf, Vec<Found>)>,
        /// Notes listed after the roots.
        late_notes: Vec<Diagnostic>,
        /// What it says of [`SkillProvider::may_fail`].
        may_fail: bool,
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
                may_fail: true,
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
                RootItem::Root(
                    Root::new(path.clone(), Level::User).description(Description::Required),
                )
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

        fn may_fail(&self) -> bool {
            self.may_fail
        }
    }

    /// A skill `name` of provider `provider` at `file` (its real path too),
    /// with one diagnostic of its own.
    fn skill(provider: &str, name: &str, file: &str) -> Found {
        let file = PathBuf::from(file);
        let base_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        Found::Candidate {
            candidate: Candidate {
                filter_name: name.to_owned().into(),
                skill: Some(Skill {
                    name: name.to_owned().into(),
                    description: format!("{name} does things").into(),
                    file_path: file.clone().into(),
                    base_dir: base_dir.into(),
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
                file_len: None,
            },
            path: file.clone().into(),
            real_path: file.into(),
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
            Fake::new("first", 90, Pass::Providers).root(
                "/first",
                vec![skill("first", "alpha", "/first/alpha/SKILL.md")],
            )
        };
        // Its first root holds a skill (which, were it taken, would win the
        // name `clash`, the real path of `other`'s `shared`, and shadow the
        // managed `learned`) and a root diagnostic; its second and third
        // roots fail.
        let mut flaky = Fake::new("flaky", 50, Pass::Providers)
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
            Fake::new("other", 10, Pass::Providers).root(
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

        let opts = options(PipelineRules {
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
    fn a_provider_that_cannot_fail_is_taken_root_by_root_to_the_same_result() {
        // Three roots with a note before them and after, names that
        // collide across its roots and with a neighbour's, a shared real
        // path and a managed name it shadows.
        let many = |may_fail| {
            let mut p = Fake::new("many", 50, Pass::Providers)
                .root(
                    "/many/one",
                    vec![
                        skill("many", "clash", "/many/one/clash/SKILL.md"),
                        Found::Diagnostic(note("many: root note")),
                        skill("many", "shared", "/shared/SKILL.md"),
                    ],
                )
                .root(
                    "/many/two",
                    vec![
                        skill("many", "clash", "/many/two/clash/SKILL.md"),
                        skill("many", "learned", "/many/two/learned/SKILL.md"),
                    ],
                )
                .root(
                    "/many/three",
                    vec![skill("many", "shared", "/shared/SKILL.md")],
                );
            p.notes.push(note("many: listing note"));
            p.late_notes.push(note("many: late note"));
            p.may_fail = may_fail;
            p
        };
        let others = || -> Vec<Box<dyn SkillProvider>> {
            vec![
                Box::new(Fake::new("other", 10, Pass::Providers).root(
                    "/other",
                    vec![skill("other", "clash", "/other/clash/SKILL.md")],
                )),
                Box::new(Fake::new("managed", 0, Pass::Managed).root(
                    "/managed",
                    vec![skill("managed", "learned", "/managed/learned/SKILL.md")],
                )),
            ]
        };
        let opts = Options {
            keep_removed: true,
            ..options(PipelineRules {
                order: FinalOrder::Discovery,
                custom_pass: false,
                honor_enabled: true,
                fallback_toggles: Vec::new(),
            })
        };
        let cx = DiscoveryContext::default();
        let [held, taken] = [true, false].map(|may_fail| {
            let mut providers: Vec<Box<dyn SkillProvider>> = vec![Box::new(many(may_fail))];
            providers.extend(others());
            run(&providers, &cx, &opts, Vec::new())
        });
        let names: Vec<&str> = taken.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["clash", "shared", "learned"]);
        assert_eq!(taken.skills, held.skills);
        assert_eq!(taken.diagnostics, held.diagnostics);
        assert_eq!(taken.shadowed, held.shadowed);
        assert_eq!(taken.removed, held.removed);
        assert_eq!(taken.claims, held.claims);
        assert!(
            taken
                .diagnostics
                .iter()
                .any(|d| d.message == "many: late note")
        );
    }

    #[test]
    fn a_provider_that_says_it_cannot_fail_and_fails_keeps_only_what_came_first() {
        let mut liar = Fake::new("liar", 50, Pass::Providers)
            .root(
                "/liar/one",
                vec![skill("liar", "early", "/liar/one/early/SKILL.md")],
            )
            .root(
                "/liar/two",
                vec![Found::Failed(plugin_error("liar failed"))],
            )
            .root(
                "/liar/three",
                vec![skill("liar", "late", "/liar/three/late/SKILL.md")],
            );
        liar.may_fail = false;
        let opts = options(PipelineRules {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        let providers: Vec<Box<dyn SkillProvider>> = vec![Box::new(liar)];
        let found = run(&providers, &DiscoveryContext::default(), &opts, Vec::new());
        let names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["early"]);
        let failures = found
            .diagnostics
            .iter()
            .filter(|d| d.message == "liar failed")
            .count();
        assert_eq!(failures, 1, "{:#?}", found.diagnostics);
    }

    #[test]
    fn a_provider_failing_on_its_only_root_keeps_its_neighbours_order() {
        let opts = options(PipelineRules {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        let providers: Vec<Box<dyn SkillProvider>> = vec![
            Box::new(
                Fake::new("a", 3, Pass::Providers)
                    .root("/a", vec![skill("a", "one", "/a/one/SKILL.md")]),
            ),
            Box::new(
                Fake::new("b", 2, Pass::Providers)
                    .root("/b", vec![Found::Failed(plugin_error("b failed"))]),
            ),
            Box::new(
                Fake::new("c", 1, Pass::Providers)
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

    /// A skill whose filter name is another (a plugin may say so): it is
    /// keyed, and listed by name, by its own name. The heads of the final
    /// sort are read where each skill was found.
    #[test]
    fn the_name_order_and_the_name_table_use_the_skills_own_name() {
        let opts = options(PipelineRules {
            order: FinalOrder::Name,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        let mut renamed = skill("p", "zeta", "/p/zeta/SKILL.md");
        if let Found::Candidate { candidate, .. } = &mut renamed {
            candidate.filter_name = "aaa".into();
        }
        let high = Fake::new("p", 90, Pass::Providers).root(
            "/p",
            vec![
                skill("p", "Beta", "/p/Beta/SKILL.md"),
                renamed,
                skill("p", "İx", "/p/ix/SKILL.md"),
            ],
        );
        let low = Fake::new("q", 10, Pass::Providers).root(
            "/q",
            vec![
                skill("q", "alpha", "/q/alpha/SKILL.md"),
                skill("q", "zeta", "/q/zeta/SKILL.md"),
                skill("q", "beta", "/q/beta/SKILL.md"),
            ],
        );
        let providers: Vec<Box<dyn SkillProvider>> = vec![Box::new(high), Box::new(low)];
        let d = run(&providers, &DiscoveryContext::default(), &opts, Vec::new());
        let names: Vec<&str> = d.skills.iter().map(|s| s.name.as_str()).collect();
        // By name lower-cased, then exact name: `Beta` before `beta`.
        assert_eq!(names, ["alpha", "Beta", "beta", "İx", "zeta"]);
        let shadowed: Vec<&str> = d.shadowed.iter().map(|c| c.skill.name.as_str()).collect();
        assert_eq!(
            shadowed,
            ["zeta"],
            "the second zeta loses to the renamed one"
        );
    }

    #[test]
    fn a_loser_stays_as_a_shadowed_copy_naming_its_winner() {
        let opts = options(PipelineRules {
            order: FinalOrder::Name,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        // The winner's provider lists a note after its root: its priority
        // is still the provider's.
        let mut high = Fake::new("high", 90, Pass::Providers)
            .root("/high", vec![skill("high", "tdd", "/high/tdd/SKILL.md")]);
        high.late_notes.push(note("high: late note"));
        let low = Fake::new("low", 10, Pass::Providers)
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
            ("high", Some(90), Pass::Providers)
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
        let mut opts = options(PipelineRules {
            order: FinalOrder::Discovery,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: Vec::new(),
        });
        opts.ignored = vec!["tmp-*".into()];
        opts.toggles.insert("enableOff".into(), false);
        let mut off = Fake::new("off", 50, Pass::Providers)
            .root("/off", vec![skill("off", "gated", "/off/gated/SKILL.md")]);
        off.info.toggles = vec![Toggle::key("enableOff")];
        let broken = Found::Candidate {
            candidate: Candidate {
                filter_name: "broken".into(),
                skill: None,
                diagnostics: vec![Diagnostic::error("yaml-error", "bad", "/a/broken/SKILL.md")],
                file_len: None,
            },
            path: "/a/broken/SKILL.md".into(),
            real_path: "/a/broken/SKILL.md".into(),
        };
        let providers: Vec<Box<dyn SkillProvider>> = vec![
            Box::new(Fake::new("a", 90, Pass::Providers).root(
                "/a",
                vec![
                    skill("a", "one", "/a/one/SKILL.md"),
                    skill("a", "tmp-x", "/a/tmp-x/SKILL.md"),
                    broken,
                ],
            )),
            Box::new(off),
            // The same real file as `a`'s `one`, by another path.
            Box::new(Fake::new("b", 10, Pass::Providers).root(
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
            matches!(fates[0].1, Fate::Removed { reason: Filter::Ignored { glob }, setting, pattern, .. }
                if glob == "tmp-*" && setting == "skills.ignoredSkills" && pattern == "\"tmp-*\""),
            "{fates:#?}"
        );
        assert_eq!(fates[1].0, "gated");
        assert!(
            matches!(fates[1].1, Fate::SwitchedOff { reason: Switch::Toggle { keys }, setting, .. }
                if keys == &["enableOff"] && setting == "skills.enableOff = false"),
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
        let mut o = options(PipelineRules {
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
        let mut o = options(PipelineRules {
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
