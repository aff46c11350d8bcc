//! What discovery gives: [`Skillpipe::discover`] and
//! [`Skillpipe::discover_all`] make a [`Discovered`], which the catalogue,
//! search, expansion, `skill://` reads and slash commands answer from.

use std::sync::OnceLock;

use skillpipe_core::budget::{CatalogMode, CatalogPaths, FittedCatalog, pinned_by};
use skillpipe_core::runtime::{
    self, CatalogOptions, Delivery, ExpandOptions, Expansion, ReadTool, ResolveError,
    ResolveOptions, Resource, SlashCommand,
};
use skillpipe_core::search::{SearchHit, SearchIndex};
use skillpipe_core::types::{Claim, Diagnostic, Discovery, ShadowedCopy, Skill};
use skillpipe_core::update::{CatalogUpdate, Rerender};
use skillpipe_core::visibility::Rule as VisibilityRule;

use super::skillpipe::Skillpipe;

impl Skillpipe {
    /// Runs discovery: the skills plus the diagnostics, never an error.
    pub fn discover(&self) -> Discovered {
        Discovered {
            discovery: self.inner.pipeline.load(),
            host: self.clone(),
            index: OnceLock::new(),
        }
    }

    /// Runs discovery keeping what it leaves out, for a host that shows
    /// why a skill is missing (`skillpipe explain`, `list --all`): the
    /// skills settings removed, those of switched-off sources (read for
    /// this call only), and copies of a loaded file
    /// ([`Discovered::removed`]), and every file that claimed a name
    /// ([`Discovered::claims`]). The skills and diagnostics are those of
    /// [`Skillpipe::discover`]; it costs a scan of the sources that are
    /// off.
    pub fn discover_all(&self) -> Discovered {
        Discovered {
            discovery: self.inner.pipeline.load_all(),
            host: self.clone(),
            index: OnceLock::new(),
        }
    }
}

/// What one discovery found, with what later calls need: the catalogue,
/// expansion, `skill://` reads and slash commands all answer from it.
#[derive(Debug, Clone)]
pub struct Discovered {
    discovery: Discovery,
    host: Skillpipe,
    /// The search index, built by the first search.
    index: OnceLock<SearchIndex>,
}

impl Discovered {
    /// The skills, in pipeline order.
    pub fn skills(&self) -> &[Skill] {
        &self.discovery.skills
    }

    /// Everything discovery reported, in the order of SPEC §2.2.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.discovery.diagnostics
    }

    /// The configuration this discovery ran with.
    pub fn skillpipe(&self) -> &Skillpipe {
        &self.host
    }

    /// The plain data, for a host that keeps it or serialises it.
    pub fn into_discovery(self) -> Discovery {
        self.discovery
    }

    /// The data, borrowed.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// The system-prompt catalogue in the profile's format (SPEC §8),
    /// within the `skills.catalogBudget` setting (0, the default: the full
    /// text) and laid out as the `skills.catalogMode`, `catalogPins`,
    /// `catalogMinDescription` and `catalogPaths` settings say.
    pub fn catalog(&self, read_tool: ReadTool) -> String {
        if !self.full_list() {
            return self.fit_catalog(read_tool, None).text;
        }
        let style = self.host.settings().profile.catalog;
        runtime::render_catalog(&self.discovery.skills, CatalogOptions { style, read_tool })
    }

    /// Whether the catalogue is every visible skill's entry in order (no
    /// budget, the list mode, absolute paths): one [`runtime::render_entry`]
    /// a skill between the head and the tail.
    fn full_list(&self) -> bool {
        let settings = self.host.settings();
        settings.catalog_budget == 0
            && settings.catalog.mode == CatalogMode::List
            && settings.catalog.paths == CatalogPaths::Absolute
    }

    /// This discovery after some skill files changed in place, each loaded
    /// again by its provider ([`SkillProvider::reload_file`](crate::SkillProvider::reload_file)):
    /// what [`Skillpipe::discover`] would give, made without reading any
    /// other file or taking any other skill again, when the change leaves
    /// every decision of the pipeline as it was (each file kept its name,
    /// paths, source and `metadata.requires`, loads without a diagnostic,
    /// and its name has no other copy). `None` when only running discovery
    /// again can say (then run it). With the discovery, the skills the
    /// files' new ones replaced, with their positions, in order (live
    /// reload uses them: its events, catalogue and catalogue update follow
    /// from them).
    pub fn patched(
        &self,
        files: Vec<skillpipe_core::pipeline::Reloaded<'_>>,
    ) -> Option<(Discovered, Vec<(usize, Skill)>)> {
        let pipeline = self.host.pipeline();
        let patch = pipeline.patch(&self.discovery, files)?;
        let mut discovery = self.discovery.clone();
        let replaced = pipeline.apply(patch, &mut discovery);
        let discovered = Discovered {
            discovery,
            host: self.host.clone(),
            index: OnceLock::new(),
        };
        Some((discovered, replaced))
    }

    /// [`Discovered::patched`] in place, without copying the skills the
    /// files did not touch: the replaced skills, or `None` (and this
    /// discovery unchanged) when discovery must run again.
    pub fn patch_in_place(
        &mut self,
        files: Vec<skillpipe_core::pipeline::Reloaded<'_>>,
    ) -> Option<Vec<(usize, Skill)>> {
        let pipeline = self.host.pipeline();
        let patch = pipeline.patch(&self.discovery, files)?;
        self.index = OnceLock::new();
        Some(pipeline.apply(patch, &mut self.discovery))
    }

    /// The discovery this one was patched from ([`Discovered::patched`]):
    /// `replaced`'s skills put back.
    fn unpatched(&self, replaced: &[(usize, Skill)]) -> Discovered {
        let mut before = self.clone();
        before.index = OnceLock::new();
        for (i, skill) in replaced {
            if let Some(slot) = before.discovery.skills.get_mut(*i) {
                slot.clone_from(skill);
            }
        }
        before
    }

    /// [`Discovered::catalog`], from the catalogue `previous_text` of the
    /// discovery this one was patched from (`replaced`, as
    /// [`Discovered::patched`] gives it): the replaced skills' entries are
    /// replaced in that text, as long as the catalogue is the full list
    /// (no budget, the list mode, absolute paths) and each old entry is
    /// found once; otherwise the catalogue is rendered whole. The same
    /// text either way.
    pub fn catalog_after(
        &self,
        previous_text: &str,
        replaced: &[(usize, Skill)],
        read_tool: ReadTool,
    ) -> String {
        if !self.full_list() || read_tool == ReadTool::Absent {
            return self.catalog(read_tool);
        }
        let style = self.host.settings().profile.catalog;
        let mut text = previous_text.to_owned();
        for (i, old) in replaced {
            let Some(new) = self.skills().get(*i) else {
                return self.catalog(read_tool);
            };
            if old.hidden != new.hidden || old.name != new.name {
                return self.catalog(read_tool);
            }
            if old.hidden {
                continue;
            }
            let (was, now) = (
                runtime::render_entry(old, style),
                runtime::render_entry(new, style),
            );
            let finder = memchr::memmem::Finder::new(was.as_bytes());
            let Some(at) = finder.find(text.as_bytes()) else {
                return self.catalog(read_tool);
            };
            if finder.find(&text.as_bytes()[at + 1..]).is_some() {
                return self.catalog(read_tool);
            }
            text.replace_range(at..at + was.len(), &now);
        }
        text
    }

    /// [`Discovered::catalog_update`] from the discovery this one was
    /// patched from (`replaced`, as [`Discovered::patched`] gives it),
    /// comparing only the replaced skills (the others are the same). With
    /// a budget, which weighs the whole previous catalogue, that discovery
    /// is made again for it.
    pub fn catalog_update_after(&self, replaced: &[(usize, Skill)]) -> CatalogUpdate {
        let settings = self.host.settings();
        let layout = &settings.catalog;
        if settings.catalog_budget > 0 || layout.mode != CatalogMode::List {
            return self.catalog_update(&self.unpatched(replaced));
        }
        let (before, after): (Vec<Skill>, Vec<Skill>) = replaced
            .iter()
            .filter_map(|(i, old)| Some((old.clone(), self.skills().get(*i)?.clone())))
            .unzip();
        let listed = |s: &Skill| !s.hidden;
        let mut update = skillpipe_core::update::catalog_update(
            &before,
            &after,
            CatalogOptions {
                style: settings.profile.catalog,
                read_tool: ReadTool::Available,
            },
            &listed,
            None,
        );
        let entries = self.skills().iter().filter(|s| listed(s)).count();
        if 2 * update.changed.len() > entries {
            update.rerender = Some(Rerender::MostChanged);
        }
        update
    }

    /// The catalogue within `budget` characters (`None`: the
    /// `skills.catalogBudget` setting; 0: no budget), with what was cut to
    /// fit it: descriptions shortened to one common cap, and only when the
    /// names alone do not fit, skills left out from the end of the
    /// pipeline order.
    pub fn fit_catalog(&self, read_tool: ReadTool, budget: Option<usize>) -> FittedCatalog {
        self.host
            .pipeline()
            .fit_catalog(&self.discovery.skills, read_tool, budget)
    }

    /// At most `limit` skills ranked by relevance to `query`, best first
    /// (equal scores in pipeline order): BM25 over each skill's name,
    /// description and frontmatter `when_to_use`, with words of English and
    /// parts of identifiers (`pdf-forms`) as terms
    /// ([`skillpipe_core::search`]). Hidden skills are not found. The index
    /// is built by the first search of this discovery and kept.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        let skills = &self.discovery.skills;
        let index = self.index.get_or_init(|| SearchIndex::build(skills));
        index
            .search(query, limit)
            .into_iter()
            .filter_map(|hit| {
                Some(SearchHit {
                    skill: skills.get(hit.index)?,
                    score: hit.score,
                })
            })
            .collect()
    }

    /// What a host appends to the conversation when the skills changed
    /// from `previous` (the discovery its system prompt, or its last
    /// update, was rendered from), so that the system prompt stays as it
    /// was: the catalogue entries added and changed, the names removed, in
    /// the profile's format (empty when nothing the catalogue shows
    /// changed). `rerender` says when rendering the catalogue again is
    /// better: the catalogue's settings changed, more than half of its
    /// entries changed, or (with a budget) the previous catalogue and the
    /// message together exceed the budget.
    pub fn catalog_update(&self, previous: &Discovered) -> CatalogUpdate {
        let settings = self.host.settings();
        let before = previous.host.settings();
        let style = settings.profile.catalog;
        let layout = &settings.catalog;
        let pinned = pinned_by(&layout.pins);
        let listed = |s: &Skill| !s.hidden && (layout.mode == CatalogMode::List || pinned(s));
        let searchable =
            |skills: &[Skill]| skills.iter().filter(|s| !s.hidden && !pinned(s)).count();
        let counts = (layout.mode == CatalogMode::Search)
            .then(|| (searchable(previous.skills()), searchable(self.skills())));
        let mut update = skillpipe_core::update::catalog_update(
            previous.skills(),
            self.skills(),
            CatalogOptions {
                style,
                read_tool: ReadTool::Available,
            },
            &listed,
            counts,
        );
        if before.profile.catalog != style
            || before.catalog != *layout
            || before.catalog_budget != settings.catalog_budget
        {
            update.rerender = Some(Rerender::Settings);
            return update;
        }
        if update.is_empty() {
            return update;
        }
        let entries = previous.skills().iter().filter(|s| listed(s)).count();
        let touched = update.added.len() + update.changed.len() + update.removed.len();
        if 2 * touched > entries {
            update.rerender = Some(Rerender::MostChanged);
        } else if settings.catalog_budget > 0 {
            let shown = previous.fit_catalog(ReadTool::Available, None).length;
            if shown + update.message.chars().count() > settings.catalog_budget {
                update.rerender = Some(Rerender::BudgetExceeded);
            }
        }
        update
    }

    /// Expands `/skill:<name> [args]` (SPEC §9); `delivery` is how the host
    /// would send the text ([`Delivery::Prompt`] when idle, `Steer` or
    /// `FollowUp` while it streams a response). `<name>` may be an address,
    /// `name@provider[:level]`, reaching a copy that did not load.
    pub fn expand(&self, text: &str, delivery: Delivery) -> Expansion {
        let settings = self.host.settings();
        runtime::expand(
            &self.discovery,
            text,
            ExpandOptions {
                style: settings.profile.expansion,
                commands: settings.skill_commands,
                delivery,
                max_file_bytes: settings.limits.max_file_bytes,
                arguments: settings.arguments,
            },
        )
    }

    /// Reads a `skill://<name>/<path>` URL (SPEC §10), at most
    /// [`runtime::MAX_RESOURCE_BYTES`]; `skill://<name>@<provider>[:<level>]/…`
    /// reads a copy that did not load, inside its own folder.
    pub fn resolve(&self, url: &str) -> Result<Resource, ResolveError> {
        runtime::resolve(&self.discovery, url)
    }

    /// [`Discovered::resolve`] with explicit read options (a bound, or only
    /// the path and kind).
    pub fn resolve_with(&self, url: &str, opts: ResolveOptions) -> Result<Resource, ResolveError> {
        runtime::resolve_with(&self.discovery, url, opts)
    }

    /// The `skill:<name>` slash commands (SPEC §9).
    pub fn commands(&self) -> Vec<SlashCommand> {
        runtime::slash_commands(&self.discovery.skills, self.host.settings().skill_commands)
    }

    /// [`Discovered::commands`] and, after each, the copies of its name
    /// that did not load (`skill:<name>@<provider>[:<level>]`,
    /// `shadowed: true`): for listings, not for completion.
    pub fn all_commands(&self) -> Vec<SlashCommand> {
        runtime::shadowed_commands(&self.discovery, self.host.settings().skill_commands)
    }

    /// The copies of loaded names that did not load, in pipeline order,
    /// each with its fate.
    pub fn shadowed(&self) -> &[ShadowedCopy] {
        &self.discovery.shadowed
    }

    /// What settings and switched-off sources removed, and copies of a
    /// loaded file by another path: empty but after
    /// [`Skillpipe::discover_all`].
    pub fn removed(&self) -> &[ShadowedCopy] {
        &self.discovery.removed
    }

    /// Every file that claimed a name, in pipeline order: empty but after
    /// [`Skillpipe::discover_all`].
    pub fn claims(&self) -> &[Claim] {
        &self.discovery.claims
    }

    /// The loaded skills whose `metadata.requires` name `name` (the other
    /// direction is the skill's own `invocation.requires`).
    pub fn required_by(&self, name: &str) -> Vec<&Skill> {
        skillpipe_core::dependencies::required_by(&self.discovery.skills, name)
    }

    /// The `skills.visibility` entry that decides `name`'s visibility
    /// (its glob, value and layer), `None` when none matches (it is `on`).
    pub fn visibility_rule(&self, name: &str) -> Option<&VisibilityRule> {
        self.host.settings().visibility.of(name)
    }
}
