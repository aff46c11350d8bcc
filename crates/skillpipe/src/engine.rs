//! The engine behind [`Skillpipe`](crate::Skillpipe): loaded settings
//! turned into core's `Options` and context, the providers merged with
//! plugins and `disabledProviders`, and the runs of discovery (with
//! `keep_removed` staging, layer names and `unknown-provider` warnings)
//! and of the catalogue.

use std::path::PathBuf;

use skillpipe_core::budget::FittedCatalog;
use skillpipe_core::paths::{normalize, plain, resolve_entry};
use skillpipe_core::pipeline::{self, Options};
use skillpipe_core::provider::registered;
use skillpipe_core::runtime::{CatalogOptions, ContextFile, ReadTool};
use skillpipe_core::types::{Diagnostic, DiagnosticCode, Discovery, Fate, Skill};
use skillpipe_core::{self as core, DiscoveryContext, ProviderInfo, SkillProvider};
use skillpipe_settings::{Request, Settings, Warning};

/// The ids of every built-in provider linked into this library, sorted.
pub fn builtin_provider_ids() -> Vec<String> {
    registered().iter().map(|p| p.info().id.clone()).collect()
}

/// A host hook that may replace the loaded skills before they are used
/// ([`Builder::skills_override`](crate::Builder::skills_override)).
pub type SkillsOverride = std::sync::Arc<dyn Fn(Vec<Skill>) -> Vec<Skill> + Send + Sync>;

/// Discovery, configured: settings + context + providers. The engine
/// behind [`Skillpipe`](crate::Skillpipe).
pub(crate) struct Pipeline {
    settings: Settings,
    cx: DiscoveryContext,
    pub(crate) options: Options,
    pub(crate) providers: Vec<Box<dyn SkillProvider>>,
    /// The custom pass's provider (musepi: `customDirectories` and
    /// `--skill`), run as pass 2; not listed among the providers.
    pub(crate) custom: Option<Box<dyn SkillProvider>>,
    /// The built-ins `disabledProviders` removed: scanned only for
    /// [`Pipeline::load_all`].
    disabled: Vec<Box<dyn SkillProvider>>,
    leading: Vec<Diagnostic>,
    /// The ids of every plugin offered, kept or not (for `unknown-provider`).
    plugin_ids: Vec<String>,
    skills_override: Option<SkillsOverride>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("profile", &self.settings.profile_name)
            .field("providers", &self.providers)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// Builds the pipeline from loaded settings, with every built-in
    /// provider of the profile. `skill_paths` are `--skill` arguments.
    pub(crate) fn new(settings: Settings, request: &Request, skill_paths: &[String]) -> Self {
        let cwd = normalize(&request.cwd);
        let home = request.home.clone();
        let profile = &settings.profile;
        let cli_paths: Vec<PathBuf> = skill_paths
            .iter()
            .map(|p| resolve_entry(p, &cwd, &home))
            .collect();

        let mut options = Options::new(
            profile.pipeline.clone(),
            profile.settings_shape.setting_keys(),
        );
        options.enabled = settings.enabled;
        options.toggles = settings.toggles.clone();
        options.disabled_extensions = settings.disabled_extensions.clone();
        options.ignored = settings.ignored_skills.clone();
        options.include = settings.include_skills.clone();
        options.warn_identical_copies = settings.warn_identical_copies;
        options.visibility = settings.visibility.clone();
        let custom = profile.pipeline.custom_pass.then(|| {
            let custom = core::custom::CustomDirectories::new(
                settings.custom_directories.clone(),
                cli_paths,
            );
            Box::new(custom) as Box<dyn SkillProvider>
        });
        let trusted = settings.project_trusted();
        if !trusted {
            // Named as `skillpipe trust` stores it (`C:\x`, not `\\?\C:\x`).
            options.untrusted_project = Some(plain(settings.project_dir.clone()));
        }
        // An untrusted project's own settings name no roots (pi: `skills`
        // and `packages` of its settings file are project skills too).
        let entries = |list: &[skillpipe_settings::Entry]| -> Vec<core::SettingsEntry> {
            list.iter()
                .filter(|e| trusted || !e.project)
                .map(|e| core::SettingsEntry {
                    entry: e.entry.clone(),
                    base: e.base.clone(),
                    file: e.file.clone(),
                    project: e.project,
                })
                .collect()
        };
        let mut cx = DiscoveryContext {
            cwd,
            home,
            repo_root: settings.repo_root.clone(),
            app_dir: profile.app_dir.clone(),
            agent_dir: settings.agent_dir.clone(),
            env: request.env.clone(),
            limits: settings.limits,
            sources: match settings.no_skills {
                true => core::Sources::CommandLineOnly,
                false => core::Sources::All,
            },
            enabled_field: match profile.pipeline.honor_enabled {
                true => core::EnabledField::Honored,
                false => core::EnabledField::Ignored,
            },
            extensions: settings.extensions.clone(),
            pi: core::PiSettings {
                skills: entries(&settings.pi_skills),
                packages: entries(&settings.pi_packages),
                cli_skills: match profile.pipeline.custom_pass {
                    true => Vec::new(),
                    false => skill_paths.to_vec(),
                },
            },
            providers: settings.providers.clone(),
            schedule: Default::default(),
            files: Default::default(),
        };
        let mut builtins: Vec<Box<dyn SkillProvider>> = registered()
            .into_iter()
            .filter(|p| profile.providers.contains(&p.info().id))
            .collect();
        let leading: Vec<Diagnostic> = mcp_servers(&settings, &mut cx, &mut builtins)
            .into_iter()
            .collect();
        let mut p = Pipeline {
            settings,
            cx,
            options,
            providers: Vec::new(),
            custom,
            disabled: Vec::new(),
            leading: Vec::new(),
            plugin_ids: Vec::new(),
            skills_override: None,
        };
        p.leading = leading;
        p.set_providers(builtins);
        p
    }

    fn set_providers(&mut self, providers: Vec<Box<dyn SkillProvider>>) {
        let disabled = &self.settings.disabled_providers;
        let (off, kept): (Vec<_>, Vec<_>) = providers
            .into_iter()
            .partition(|p| disabled.contains(&p.info().id));
        for p in &off {
            tracing::info!(provider = %p.info().id, "off (disabledProviders)");
        }
        self.disabled = off;
        self.providers = pipeline::order_providers(kept, &self.settings.profile.providers);
    }

    /// Adds providers loaded from plugins (see `load_plugins`, feature
    /// `plugins`), with the
    /// diagnostics of loading them, which come first in every discovery.
    ///
    /// - A plugin whose id is already active is refused with a
    ///   `plugin-error` (SPEC §11).
    /// - `disabledProviders` removes built-ins; a plugin with the id of a
    ///   built-in so removed takes its place, at its position in the
    ///   profile's order (that is how a built-in is replaced, SPEC §11).
    ///   A plugin with any other listed id is removed (SPEC §5).
    /// - Other plugins come after the built-ins of equal priority, in the
    ///   order given.
    pub(crate) fn add_plugins(
        &mut self,
        plugins: Vec<(PathBuf, Box<dyn SkillProvider>)>,
        diagnostics: Vec<Diagnostic>,
    ) {
        self.leading.extend(diagnostics);
        let profile_ids = &self.settings.profile.providers;
        let replaced_builtin = |id: &str| {
            profile_ids.iter().any(|p| p == id) && registered().iter().any(|p| p.info().id == id)
        };
        let mut all = std::mem::take(&mut self.providers);
        for (path, plugin) in plugins {
            let id = plugin.info().id.clone();
            self.plugin_ids.push(id.clone());
            if all.iter().any(|p| p.info().id == id) {
                self.leading.push(Diagnostic::warning(
                    DiagnosticCode::PluginError,
                    format!(
                        "{}: provider id \"{id}\" is already active; list it in disabledProviders to replace it",
                        path.display()
                    ),
                    &path,
                ));
                continue;
            }
            if self.settings.disabled_providers.contains(&id) && !replaced_builtin(&id) {
                continue;
            }
            all.push(plugin);
        }
        self.providers = pipeline::order_providers(all, profile_ids);
    }

    /// Sets the host hook that may replace the loaded list.
    pub(crate) fn set_skills_override(&mut self, hook: SkillsOverride) {
        self.skills_override = Some(hook);
    }

    /// Sets who hears of each skill file a scan reads whole.
    pub(crate) fn set_file_observer(&mut self, files: core::observe::FileObserver) {
        self.cx.files = files;
    }

    /// The merged settings.
    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The context providers see.
    pub(crate) fn context(&self) -> &DiscoveryContext {
        &self.cx
    }

    /// The active providers, in pipeline order.
    pub(crate) fn providers(&self) -> &[Box<dyn SkillProvider>] {
        &self.providers
    }

    /// Runs discovery: skills plus diagnostics, never an error.
    pub(crate) fn load(&self) -> Discovery {
        self.load_with(false)
    }

    /// [`Pipeline::load`], keeping what the run leaves out: the skills
    /// settings removed, those of switched-off sources (read for this
    /// only), copies of a loaded file, and every file's claim
    /// ([`Discovery::removed`], [`Discovery::claims`]).
    pub(crate) fn load_all(&self) -> Discovery {
        self.load_with(true)
    }

    fn load_with(&self, keep_removed: bool) -> Discovery {
        let started = std::time::Instant::now();
        let mut leading = self.leading.clone();
        leading.extend(self.unknown_providers());
        let mut stages: Vec<pipeline::Stage<'_>> = self
            .providers
            .iter()
            .chain(&self.custom)
            .map(|p| pipeline::Stage {
                provider: p.as_ref(),
                off: None,
            })
            .collect();
        let options;
        let opts = if keep_removed {
            // The switched-off built-ins take their places in the order.
            let order = &self.settings.profile.providers;
            let rank = |p: &dyn SkillProvider| {
                let id = &p.info().id;
                (
                    std::cmp::Reverse(p.info().priority),
                    order.iter().position(|x| x == id).unwrap_or(usize::MAX),
                )
            };
            stages.extend(self.disabled.iter().map(|p| pipeline::Stage {
                provider: p.as_ref(),
                off: Some(pipeline::Off::DisabledProvider),
            }));
            stages.sort_by_key(|s| rank(s.provider));
            options = Options {
                keep_removed: true,
                ..self.options.clone()
            };
            &options
        } else {
            &self.options
        };
        let mut discovery = pipeline::run_stages(&stages, &self.cx, opts, leading);
        if keep_removed {
            self.name_layers(&mut discovery);
        }
        tracing::info!(
            profile = %self.settings.profile_name,
            roots = discovery.roots_scanned,
            providers = self.providers.len(),
            skills = discovery.skills.len(),
            diagnostics = discovery.diagnostics.len(),
            elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            "discovery done"
        );
        if let Some(hook) = &self.skills_override {
            discovery.skills = hook(std::mem::take(&mut discovery.skills));
        }
        // `metadata.requires`, checked on what loaded.
        discovery
            .diagnostics
            .extend(core::dependencies::check(&discovery.skills));
        if let Some(d) = self.catalog_truncated(&discovery.skills) {
            discovery.diagnostics.push(d);
        }
        discovery
    }

    /// What `files`, changed in place, do to `previous` (this pipeline's
    /// last discovery), when that is what [`Pipeline::load`] would give
    /// ([`pipeline::patch`]); `None` where discovery must run again, and
    /// always with a skills hook, which sees every skill.
    pub(crate) fn patch(
        &self,
        previous: &Discovery,
        files: Vec<pipeline::Reloaded<'_>>,
    ) -> Option<pipeline::Patch> {
        if self.skills_override.is_some() {
            return None;
        }
        pipeline::patch(previous, &self.cx, &self.options, files)
    }

    /// Applies `patch` to `discovery` with the diagnostics made after the
    /// pipeline (the catalogue budget's) made again; returns the skills it
    /// replaced, with their positions.
    pub(crate) fn apply(
        &self,
        patch: pipeline::Patch,
        discovery: &mut Discovery,
    ) -> Vec<(usize, Skill)> {
        let replaced = patch.apply(discovery);
        if self.settings.catalog_budget > 0 {
            // `load_with` reports it last.
            let diagnostics = &mut discovery.diagnostics;
            if diagnostics
                .last()
                .is_some_and(|d| d.code == DiagnosticCode::CatalogTruncated)
            {
                diagnostics.pop();
            }
            diagnostics.extend(self.catalog_truncated(&discovery.skills));
        }
        replaced
    }

    /// The catalogue of `skills` within `budget` characters (`None`: the
    /// `skills.catalogBudget` setting; 0: no budget), with what was cut to
    /// fit. Skills are left out (only when the names alone do not fit)
    /// from the end of the pipeline order: managed skills first, then
    /// custom directories, then providers from the lowest priority up.
    pub(crate) fn fit_catalog(
        &self,
        skills: &[Skill],
        read_tool: ReadTool,
        budget: Option<usize>,
    ) -> FittedCatalog {
        let style = self.settings.profile.catalog;
        let opts = CatalogOptions { style, read_tool };
        let budget = budget.unwrap_or(self.settings.catalog_budget);
        let c = &self.settings.catalog;
        let pinned = core::budget::pinned_by(&c.pins);
        let layout = core::budget::Layout {
            mode: c.mode,
            paths: c.paths,
            pinned: &pinned,
            min_description: c.min_description,
        };
        if budget == 0 {
            return core::budget::fit_catalog_with(skills, opts, 0, &|_| 0, &layout);
        }
        // Pipeline order: the passes in `Pass::ORDER`, the custom pass its
        // one provider.
        let mut order: Vec<&str> = Vec::new();
        for pass in core::Pass::ORDER {
            if pass == core::Pass::Custom {
                order.push(pipeline::CUSTOM);
                continue;
            }
            for p in &self.providers {
                let info = p.info();
                if info.pass == pass {
                    order.push(&info.id);
                }
            }
        }
        // The skills of one root share their `Source`: each is ranked
        // once, by its address, not its id compared with every provider's
        // for each of thousands of skills.
        let ranked: std::cell::RefCell<Vec<(*const core::types::Source, usize)>> =
            std::cell::RefCell::default();
        let rank = |s: &Skill| {
            let at = std::sync::Arc::as_ptr(&s.source);
            if let Some(&(_, r)) = ranked.borrow().iter().find(|(p, _)| *p == at) {
                return r;
            }
            let r = order
                .iter()
                .position(|id| *id == s.source.provider)
                .unwrap_or(order.len());
            ranked.borrow_mut().push((at, r));
            r
        };
        core::budget::fit_catalog_with(skills, opts, budget, &rank, &layout)
    }

    /// A `catalog-truncated` warning when the configured budget cuts the
    /// catalogue of `skills` (as a host with a read tool shows it).
    fn catalog_truncated(&self, skills: &[Skill]) -> Option<Diagnostic> {
        if self.settings.catalog_budget == 0 {
            return None;
        }
        let fitted = self.fit_catalog(skills, ReadTool::Available, None);
        if !fitted.cut_anything() && !fitted.over_budget() {
            return None;
        }
        let first = fitted
            .truncated
            .first()
            .map(|t| &t.name)
            .into_iter()
            .chain(&fitted.omitted)
            .chain(&fitted.pinned)
            .next()
            .and_then(|name| skills.iter().find(|s| s.name == *name))
            .map(|s| s.file_path.clone())
            .unwrap_or_default();
        Some(Diagnostic::warning(
            DiagnosticCode::CatalogTruncated,
            fitted.summary(),
            first,
        ))
    }

    /// Names, in each removed skill's fate, the settings layer that set
    /// the setting that removed it (a pair of toggles: its first key's).
    fn name_layers(&self, discovery: &mut Discovery) {
        let keys = &self.options.keys;
        let layer_of = |key: &str| {
            self.settings
                .effective
                .iter()
                .find(|e| e.key == key)
                .map(|e| e.origin.name.clone())
        };
        for copy in &mut discovery.removed {
            match &mut copy.fate {
                // A visibility entry names its own layer.
                Fate::Removed { reason, layer, .. } if layer.is_none() => {
                    *layer = layer_of(reason.key(keys));
                }
                Fate::SwitchedOff { reason, layer, .. } if layer.is_none() => {
                    *layer = layer_of(&reason.key(keys));
                }
                _ => {}
            }
        }
    }

    /// One `unknown-provider` warning for each `disabledProviders` entry
    /// that is neither a built-in provider nor a plugin offered, with the
    /// nearest id when one is near; its path is the settings file that
    /// set the list (else the project).
    fn unknown_providers(&self) -> Vec<Diagnostic> {
        let builtins: Vec<String> = registered().iter().map(|p| p.info().id.clone()).collect();
        let known: Vec<&str> = builtins
            .iter()
            .chain(&self.plugin_ids)
            .map(String::as_str)
            .collect();
        let origin = self
            .settings
            .effective
            .iter()
            .find(|e| e.key == "disabledProviders")
            .map(|e| &e.origin);
        let path = origin
            .and_then(|o| o.file.clone())
            .unwrap_or_else(|| self.settings.project_dir.clone());
        let from = origin.map_or_else(|| "settings".to_owned(), |o| o.name.clone());
        self.settings
            .disabled_providers
            .iter()
            .filter(|id| !known.contains(&id.as_str()))
            .map(|id| {
                let hint = core::suggest::closest(id, known.iter().copied())
                    .map_or_else(String::new, |s| format!("; did you mean \"{s}\"?"));
                Diagnostic::warning(
                    DiagnosticCode::UnknownProvider,
                    format!(
                        "disabledProviders (from {from}) names \"{id}\", which is no provider{hint}"
                    ),
                    &path,
                )
            })
            .collect()
    }

    /// The AGENTS.md files for the project directory, nearest first (SPEC §10).
    pub(crate) fn context_files(&self) -> Vec<ContextFile> {
        core::runtime::context_files(&self.cx.cwd, &self.cx.home, self.cx.repo_root.as_deref())
    }

    /// The settings keys that gate a provider (`providers` output): its
    /// toggle keys, the profile's fallback keys for a fallback toggle.
    pub(crate) fn toggle_keys(&self, info: &ProviderInfo) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for t in &info.toggles {
            for k in self.options.toggle_keys(t) {
                let k = format!("{}{k}", self.options.keys.toggle_prefix);
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        keys
    }
}

/// The toggle keys `providers` declare (`enableClaudeUser`, …), owned.
pub(crate) fn declared_toggle_keys<'a, I>(providers: I) -> impl Iterator<Item = String> + 'a
where
    I: IntoIterator<Item = &'a dyn SkillProvider>,
    I::IntoIter: 'a,
{
    providers
        .into_iter()
        .flat_map(|p| p.info().toggle_keys().map(str::to_owned))
}

/// Source toggles are declared by the providers that read them
/// (`Toggle::key`); a `skills.enable…` key that no active provider (nor
/// the profile's fallback) reads is most likely a typo.
pub(crate) fn warn_undeclared_toggles(pipeline: &mut Pipeline) {
    let declared: Vec<String> = declared_toggle_keys(pipeline.providers.iter().map(|p| p.as_ref()))
        .chain(
            pipeline
                .settings
                .profile
                .pipeline
                .fallback_toggles
                .iter()
                .cloned(),
        )
        .collect();
    let unknown: Vec<String> = pipeline
        .settings
        .toggles
        .keys()
        .filter(|k| !declared.contains(k))
        .cloned()
        .collect();
    for key in unknown {
        let hint = skillpipe_core::suggest::closest(&key, declared.iter().map(String::as_str))
            .map_or_else(String::new, |k| format!(" (did you mean skills.{k}?)"));
        pipeline.settings.warnings.push(Warning {
            code: "unknown-setting",
            message: format!(
                "skills.{key} switches no source: no active provider declares it; it is ignored{hint}"
            ),
        });
    }
}

/// `mcp.servers` (trusted layers only): when it names a server, the `mcp`
/// provider joins the pipeline (so with none, `providers` lists exactly
/// the profile's), and reads the servers as `providers.mcp`, which no
/// settings file can set so (the trusted value replaces it). Without the
/// library's `mcp` feature a named server is a warning, never ignored in
/// silence.
fn mcp_servers(
    settings: &Settings,
    cx: &mut DiscoveryContext,
    providers: &mut Vec<Box<dyn SkillProvider>>,
) -> Option<Diagnostic> {
    if let Some(map) = cx.providers.as_object_mut() {
        map.remove("mcp");
    }
    if settings.mcp_servers.is_empty() {
        return None;
    }
    #[cfg(feature = "mcp")]
    {
        let servers = serde_json::json!({ "servers": settings.mcp_servers });
        match cx.providers.as_object_mut() {
            Some(map) => {
                map.insert("mcp".to_owned(), servers);
            }
            None => cx.providers = serde_json::json!({ "mcp": servers }),
        }
        providers.push(skillpipe_provider_mcp::provider());
        None
    }
    #[cfg(not(feature = "mcp"))]
    {
        let _ = providers;
        Some(Diagnostic::warning(
            DiagnosticCode::McpServer,
            "mcp.servers names MCP servers, but this build of skillpipe has no MCP client (the library's `mcp` feature): none is read",
            &cx.cwd,
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use skillpipe_core::types::Severity;

    use super::*;
    use crate::host::{Profile, Skillpipe};

    #[test]
    fn every_builtin_provider_is_registered() {
        assert_eq!(
            builtin_provider_ids(),
            [
                "agents",
                "claude",
                "claude-plugins",
                "codex",
                "github",
                "musepi-managed",
                "native",
                "omp-plugins",
                "opencode",
                "path",
                "pi"
            ]
        );
    }

    #[test]
    fn musepi_providers_follow_priority_then_profile_order() {
        let t = tempfile::tempdir().unwrap();
        let p = build(Profile::Musepi, t.path(), t.path(), &[]);
        let ids: Vec<String> = p.providers().map(|p| p.info().id.clone()).collect();
        assert_eq!(
            ids,
            [
                "native",
                "omp-plugins",
                "claude",
                "claude-plugins",
                "agents",
                "codex",
                "opencode",
                "github",
                "musepi-managed"
            ]
        );
    }

    fn skill(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: d\n---\n"),
        )
        .unwrap();
    }

    /// A pipeline on a test's own world: no process environment.
    fn build(profile: Profile, home: &Path, cwd: &Path, sets: &[String]) -> Skillpipe {
        sets.iter()
            .fold(
                Skillpipe::builder(profile)
                    .home(home)
                    .cwd(cwd)
                    .env::<String, String>([]),
                |b, s| b.set(s.as_str()),
            )
            .build()
            .unwrap()
    }

    fn names(p: &Skillpipe) -> (Vec<String>, Vec<String>) {
        let d = p.discover();
        (
            d.skills().iter().map(|s| s.name.to_string()).collect(),
            d.diagnostics().iter().map(|d| d.code.to_string()).collect(),
        )
    }

    #[test]
    fn pi_project_entries_outside_the_project_keep_default_bounds() {
        let t = tempfile::tempdir().unwrap();
        let proj = t.path().join("p");
        let outside = t.path().join("outside");
        let mut deep = outside.clone();
        for i in 0..14 {
            deep.push(format!("d{i}"));
        }
        skill(&deep, "deep");
        std::fs::create_dir_all(proj.join(".pi")).unwrap();
        std::fs::write(
            proj.join(".pi/settings.json"),
            r#"{"skills": ["../outside"]}"#,
        )
        .unwrap();
        let home = t.path().join("home");
        let mut sets = vec!["scan.max_depth=40".to_owned()];
        let (skills, _) = names(&build(Profile::Pi, &home, &proj, &sets));
        assert!(skills.is_empty(), "{skills:?}");
        // The same root named by the user's own settings gets the user's bounds.
        let agent = t.path().join("home/.pi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            format!(r#"{{"skills": [{:?}]}}"#, outside.display().to_string()),
        )
        .unwrap();
        std::fs::remove_file(proj.join(".pi/settings.json")).unwrap();
        let (skills, _) = names(&build(Profile::Pi, &home, &proj, &sets));
        assert_eq!(skills, ["deep"]);
        // An entry inside the project keeps the trusted bounds.
        std::fs::remove_file(agent.join("settings.json")).unwrap();
        let inner = proj.join("vendor");
        std::fs::rename(&outside, &inner).unwrap();
        std::fs::write(
            proj.join(".pi/settings.json"),
            r#"{"skills": ["../vendor"]}"#,
        )
        .unwrap();
        let (skills, _) = names(&build(Profile::Pi, &home, &proj, &sets));
        assert_eq!(skills, ["deep"]);
        sets.clear();
        let (skills, _) = names(&build(Profile::Pi, &home, &proj, &sets));
        assert!(skills.is_empty(), "{skills:?}");
    }

    #[test]
    fn a_source_toggle_no_provider_declares_is_reported_with_the_near_one() {
        let t = tempfile::tempdir().unwrap();
        let sets = ["skills.enableClaudUser=false".to_owned()];
        let p = build(Profile::Musepi, t.path(), t.path(), &sets);
        let warnings: Vec<&str> = p.warnings().iter().map(|w| w.message.as_str()).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("skills.enableClaudUser switches no source")
                && warnings[0].ends_with("(did you mean skills.enableClaudeUser?)"),
            "{warnings:?}"
        );
        // A declared one is read, and quiet.
        let sets = ["skills.enableClaudeUser=false".to_owned()];
        let p = build(Profile::Musepi, t.path(), t.path(), &sets);
        assert!(p.warnings().is_empty(), "{:?}", p.warnings());
        assert!(!p.settings().toggle("enableClaudeUser"));
    }

    #[test]
    fn untrusted_projects_load_no_project_skills() {
        for profile in Profile::ALL {
            let t = tempfile::tempdir().unwrap();
            let home = t.path().join("home");
            let proj = t.path().join("p");
            let pi = profile == Profile::Pi;
            let app = if pi { ".pi" } else { ".musepi" };
            skill(&proj.join(app).join("skills/mine"), "mine");
            skill(&proj.join(".claude/skills/theirs"), "theirs");
            skill(&proj.join("extra/extra"), "extra");
            skill(&home.join(app).join("agent/skills/user"), "user");
            if pi {
                std::fs::write(
                    proj.join(".pi/settings.json"),
                    r#"{"skills": ["../extra"]}"#,
                )
                .unwrap();
            }
            let key = if pi {
                "projectSkills"
            } else {
                "skills.projectSkills"
            };
            let mut sets = vec![format!("{key}=trusted")];
            let d = build(profile, &home, &proj, &sets).discover();
            let skills: Vec<&str> = d.skills().iter().map(|s| s.name.as_str()).collect();
            assert_eq!(skills, ["user"], "{profile}");
            assert_eq!(d.diagnostics().len(), 1, "{profile}: {:?}", d.diagnostics());
            let diag = &d.diagnostics()[0];
            assert_eq!(diag.code, "untrusted-project");
            assert_eq!(diag.severity, Severity::Warning);
            assert_eq!(diag.path, plain(proj.canonicalize().unwrap()));
            assert!(diag.message.contains("skillpipe trust"), "{}", diag.message);

            let list = if pi {
                "trustedProjects"
            } else {
                "skills.trustedProjects"
            };
            sets.push(format!("{list}=[{:?}]", proj.display().to_string()));
            let (mut skills, codes) = names(&build(profile, &home, &proj, &sets));
            skills.sort();
            let want: &[&str] = if pi {
                &["extra", "mine", "user"]
            } else {
                &["mine", "theirs", "user"]
            };
            assert_eq!(skills, want, "{profile}");
            assert!(codes.is_empty(), "{codes:?}");
        }
    }
}
