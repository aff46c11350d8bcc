//! The library host agents link.
//!
//! ```no_run
//! use skillpipe::{Pipeline, Request};
//! let request = Request { profile: "musepi".into(), home: "/home/me".into(),
//!                         cwd: "/home/me/project".into(), ..Request::default() };
//! let pipeline = Pipeline::from_request(&request, &[]).expect("settings");
//! let discovery = pipeline.load();
//! for skill in &discovery.skills {
//!     println!("{} — {}", skill.name, skill.description);
//! }
//! ```
//!
//! This crate is the one place that names every built-in provider crate, so
//! that the linker keeps their `inventory` registrations; a host that links
//! it gets them all.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skillpipe_core::paths::{normalize, resolve_entry};
use skillpipe_core::pipeline::{self, Options};
use skillpipe_core::provider::registered;

pub use skillpipe_core::agentskills::{Validation, validate};
pub use skillpipe_core::runtime::{
    CatalogOptions, ContextFile, Delivery, ExpandOptions, Expansion, ResolveError, ResolveOptions,
    Resource, SlashCommand, Style,
};
pub use skillpipe_core::types::{
    Collision, Diagnostic, DiagnosticCode, Discovery, Level, Severity, Skill, Source,
};
pub use skillpipe_core::{
    self as core, DiscoveryContext, Origin, ProviderInfo, Root, RootItem, SkillProvider, Toggle,
};
pub use skillpipe_settings::{self as settings, Request, Settings, SettingsError, Warning};

// Name every provider crate so none is dropped by the linker.
use skillpipe_provider_agents as _;
use skillpipe_provider_claude as _;
use skillpipe_provider_claude_plugins as _;
use skillpipe_provider_codex as _;
use skillpipe_provider_github as _;
use skillpipe_provider_managed as _;
use skillpipe_provider_native as _;
use skillpipe_provider_omp_plugins as _;
use skillpipe_provider_opencode as _;
use skillpipe_provider_pi as _;

/// The ids of every built-in provider linked into this library, sorted.
pub fn builtin_provider_ids() -> Vec<&'static str> {
    registered().iter().map(|d| d.id).collect()
}

/// A host hook that may replace the loaded skills before they are used.
pub type SkillsOverride = Box<dyn Fn(Vec<Skill>) -> Vec<Skill> + Send + Sync>;

/// Discovery, configured: settings + context + providers.
pub struct Pipeline {
    settings: Settings,
    cx: DiscoveryContext,
    options: Options,
    providers: Vec<Box<dyn SkillProvider>>,
    leading: Vec<Diagnostic>,
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
    /// Loads settings for `request` and builds the pipeline with every
    /// built-in provider of the profile. `skill_paths` are `--skill`
    /// arguments (relative to the project directory).
    pub fn from_request(request: &Request, skill_paths: &[String]) -> Result<Self, SettingsError> {
        let settings = skillpipe_settings::load(request)?;
        Ok(Self::new(settings, request, skill_paths))
    }

    /// Builds the pipeline from loaded settings.
    pub fn new(settings: Settings, request: &Request, skill_paths: &[String]) -> Self {
        let cwd = normalize(&request.cwd);
        let home = request.home.clone();
        let profile = &settings.profile;
        let cli_paths: Vec<PathBuf> = skill_paths
            .iter()
            .map(|p| resolve_entry(p, &cwd, &home))
            .collect();

        let mut options = Options::new(profile.pipeline.clone());
        options.enabled = settings.enabled;
        options.toggles = settings.toggles.clone();
        options.disabled_extensions = settings.disabled_extensions.clone();
        options.ignored = settings.ignored_skills.clone();
        options.include = settings.include_skills.clone();
        options.custom_directories = settings.custom_directories.clone();
        if profile.pipeline.custom_pass {
            options.cli_custom_directories = cli_paths;
        }
        let trusted = settings.project_trusted();
        if !trusted {
            options.untrusted_project = Some(settings.project_dir.clone());
        }
        // An untrusted project's own settings name no roots (pi: `skills`
        // and `packages` of its settings file are project skills too).
        let entries = |list: &[skillpipe_settings::Entry]| -> Vec<skillpipe_settings::Entry> {
            list.iter()
                .filter(|e| trusted || !e.project)
                .cloned()
                .collect()
        };

        let config = json!({
            "extensions": settings.extensions,
            "providers": settings.providers,
            "pi": {
                "skills": entries(&settings.pi_skills),
                "packages": entries(&settings.pi_packages),
                "cli_skills": if profile.pipeline.custom_pass { Vec::new() } else { skill_paths.to_vec() },
            },
        });
        let cx = DiscoveryContext {
            cwd,
            home,
            repo_root: settings.repo_root.clone(),
            app_dir: profile.app_dir.clone(),
            agent_dir: settings.agent_dir.clone(),
            env: request.env.clone(),
            limits: settings.limits,
            no_skills: settings.no_skills,
            honor_enabled: profile.pipeline.honor_enabled,
            config,
        };
        let builtins = registered()
            .into_iter()
            .filter(|d| profile.providers.iter().any(|id| id == d.id))
            .map(|d| (d.build)())
            .collect();
        let mut p = Pipeline {
            settings,
            cx,
            options,
            providers: Vec::new(),
            leading: Vec::new(),
            skills_override: None,
        };
        p.set_providers(builtins);
        p
    }

    fn set_providers(&mut self, providers: Vec<Box<dyn SkillProvider>>) {
        let disabled = &self.settings.disabled_providers;
        let kept = providers
            .into_iter()
            .filter(|p| !disabled.contains(&p.info().id))
            .collect();
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
    pub fn add_plugins(
        &mut self,
        plugins: Vec<(PathBuf, Box<dyn SkillProvider>)>,
        diagnostics: Vec<Diagnostic>,
    ) {
        self.leading.extend(diagnostics);
        let profile_ids = &self.settings.profile.providers;
        let replaced_builtin = |id: &str| {
            profile_ids.iter().any(|p| p == id) && registered().iter().any(|d| d.id == id)
        };
        let mut all = std::mem::take(&mut self.providers);
        for (path, plugin) in plugins {
            let id = plugin.info().id;
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
    pub fn set_skills_override(&mut self, hook: SkillsOverride) {
        self.skills_override = Some(hook);
    }

    /// The merged settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The context providers see.
    pub fn context(&self) -> &DiscoveryContext {
        &self.cx
    }

    /// The active providers, in pipeline order.
    pub fn providers(&self) -> &[Box<dyn SkillProvider>] {
        &self.providers
    }

    /// Runs discovery: skills plus diagnostics, never an error.
    pub fn load(&self) -> Discovery {
        let started = std::time::Instant::now();
        let mut discovery = pipeline::run(
            &self.providers,
            &self.cx,
            &self.options,
            self.leading.clone(),
        );
        tracing::debug!(
            profile = %self.settings.profile_name,
            providers = self.providers.len(),
            skills = discovery.skills.len(),
            diagnostics = discovery.diagnostics.len(),
            elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            "discovery done"
        );
        if let Some(hook) = &self.skills_override {
            discovery.skills = hook(std::mem::take(&mut discovery.skills));
        }
        discovery
    }

    /// The system-prompt catalogue of `skills` (SPEC §8).
    pub fn render_catalog(&self, skills: &[Skill], read_tool: bool) -> String {
        let style = self.settings.profile.catalog;
        core::runtime::render_catalog(skills, CatalogOptions { style, read_tool })
    }

    /// Expands `/skill:<name> [args]` (SPEC §9). `streaming`: the host is
    /// generating; `follow_up`: the submit key was Ctrl+Enter.
    pub fn expand(
        &self,
        discovery: &Discovery,
        text: &str,
        streaming: bool,
        follow_up: bool,
    ) -> Expansion {
        let style = self.settings.profile.expansion;
        core::runtime::expand(
            &discovery.skills,
            text,
            ExpandOptions {
                style,
                enabled: self.settings.enable_skill_commands,
                streaming,
                follow_up,
                max_file_bytes: self.settings.limits.max_file_bytes,
            },
        )
    }

    /// The `skill:<name>` slash commands (SPEC §9).
    pub fn slash_commands(&self, discovery: &Discovery) -> Vec<SlashCommand> {
        core::runtime::slash_commands(&discovery.skills, self.settings.enable_skill_commands)
    }

    /// Resolves a `skill://` URL (SPEC §10).
    pub fn resolve(&self, discovery: &Discovery, url: &str) -> Result<Resource, ResolveError> {
        core::runtime::resolve(&discovery.skills, url)
    }

    /// [`Pipeline::resolve`] with explicit read options (a bound, or no
    /// content at all).
    pub fn resolve_with(
        &self,
        discovery: &Discovery,
        url: &str,
        opts: core::runtime::ResolveOptions,
    ) -> Result<Resource, ResolveError> {
        core::runtime::resolve_with(&discovery.skills, url, opts)
    }

    /// The AGENTS.md files for the project directory, nearest first (SPEC §10).
    pub fn context_files(&self) -> Vec<ContextFile> {
        core::runtime::context_files(&self.cx.cwd, &self.cx.home, self.cx.repo_root.as_deref())
    }

    /// The settings keys that gate a provider (`providers` output): its
    /// toggle keys, the profile's fallback keys for a fallback toggle.
    pub fn toggle_keys(&self, info: &ProviderInfo) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for t in &info.toggles {
            let add: Vec<String> = match t {
                Toggle::Always => Vec::new(),
                Toggle::Key(k) => vec![format!("skills.{k}")],
                Toggle::Fallback => self
                    .settings
                    .profile
                    .pipeline
                    .fallback_toggles
                    .iter()
                    .map(|k| format!("skills.{k}"))
                    .collect(),
            };
            for k in add {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        keys
    }
}

/// A provider loaded from a plugin library, with the library's path.
pub type LoadedPlugin = (PathBuf, Box<dyn SkillProvider>);

/// Loads provider plugin libraries (`plugins.paths`, `--plugin`), in order:
/// each provider with its library, plus one `plugin-error` diagnostic per
/// library that could not be loaded. Hand both to
/// [`Pipeline::add_plugins`]. Paths should be absolute (the CLI resolves
/// `--plugin` against the process's working directory, settings resolve
/// `plugins.paths` against the declaring file). With the `plugins` feature.
#[cfg(feature = "plugins")]
pub fn load_plugins(paths: &[PathBuf]) -> (Vec<LoadedPlugin>, Vec<Diagnostic>) {
    skillpipe_plugin_host::load_plugins(paths)
}

/// `load_skills_from_dir`: one root, one-level scan, no dedup, for hosts with
/// their own roots.
pub fn load_skills_from_dir(dir: &Path, source: Source, limits: core::ScanLimits) -> Discovery {
    let root = Root::new(
        dir.to_path_buf(),
        source.level,
        core::ScanMode::OneLevel,
        true,
        Toggle::Always,
    );
    let cx = DiscoveryContext {
        limits,
        honor_enabled: true,
        ..DiscoveryContext::default()
    };
    let mut out = Discovery::default();
    for found in core::provider::scan_with(&source.provider, &cx, &root) {
        match found {
            core::Found::Diagnostic(d) => out.diagnostics.push(d),
            // Core's scanners never yield it; if one did, only the failure counts.
            core::Found::Failed(d) => {
                return Discovery {
                    skills: Vec::new(),
                    diagnostics: vec![d],
                };
            }
            core::Found::Candidate { candidate, .. } => {
                out.diagnostics.extend(candidate.diagnostics);
                out.skills.extend(candidate.skill);
            }
        }
    }
    out
}

/// A JSON value of a provider's info plus roots, for `providers --json`.
pub fn provider_json(pipeline: &Pipeline, provider: &dyn SkillProvider) -> Value {
    let info = provider.info();
    let roots: Vec<Value> = provider
        .roots(pipeline.context())
        .into_iter()
        .filter_map(|item| match item {
            // Lossy: `json!` would panic on a path that is not UTF-8.
            RootItem::Root(r) => Some(json!({"path": r.path.to_string_lossy(), "level": r.level})),
            RootItem::Diagnostic(_) => None,
        })
        .collect();
    json!({
        "id": info.id,
        "display_name": info.display_name,
        "priority": info.priority,
        "origin": info.origin,
        "toggle": pipeline.toggle_keys(&info),
        "roots": roots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = Request {
            profile: "musepi".into(),
            home: t.path().into(),
            cwd: t.path().into(),
            ..Request::default()
        };
        let p = Pipeline::from_request(&r, &[]).unwrap();
        let ids: Vec<String> = p.providers().iter().map(|p| p.info().id).collect();
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

    fn names(p: &Pipeline) -> (Vec<String>, Vec<String>) {
        let d = p.load();
        (
            d.skills.iter().map(|s| s.name.clone()).collect(),
            d.diagnostics.iter().map(|d| d.code.to_string()).collect(),
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
        let mut r = Request {
            profile: "pi".into(),
            home: t.path().join("home"),
            cwd: proj.clone(),
            sets: vec!["scan.max_depth=40".into()],
            ..Request::default()
        };
        let (skills, _) = names(&Pipeline::from_request(&r, &[]).unwrap());
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
        let (skills, _) = names(&Pipeline::from_request(&r, &[]).unwrap());
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
        let (skills, _) = names(&Pipeline::from_request(&r, &[]).unwrap());
        assert_eq!(skills, ["deep"]);
        r.sets.clear();
        let (skills, _) = names(&Pipeline::from_request(&r, &[]).unwrap());
        assert!(skills.is_empty(), "{skills:?}");
    }

    #[test]
    fn untrusted_projects_load_no_project_skills() {
        for profile in ["musepi", "pi"] {
            let t = tempfile::tempdir().unwrap();
            let home = t.path().join("home");
            let proj = t.path().join("p");
            let app = if profile == "pi" { ".pi" } else { ".musepi" };
            skill(&proj.join(app).join("skills/mine"), "mine");
            skill(&proj.join(".claude/skills/theirs"), "theirs");
            skill(&proj.join("extra/extra"), "extra");
            skill(&home.join(app).join("agent/skills/user"), "user");
            if profile == "pi" {
                std::fs::write(
                    proj.join(".pi/settings.json"),
                    r#"{"skills": ["../extra"]}"#,
                )
                .unwrap();
            }
            let key = if profile == "pi" {
                "projectSkills"
            } else {
                "skills.projectSkills"
            };
            let mut r = Request {
                profile: profile.into(),
                home: home.clone(),
                cwd: proj.clone(),
                sets: vec![format!("{key}=trusted")],
                ..Request::default()
            };
            let p = Pipeline::from_request(&r, &[]).unwrap();
            let d = p.load();
            let skills: Vec<&str> = d.skills.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(skills, ["user"], "{profile}");
            assert_eq!(d.diagnostics.len(), 1, "{profile}: {:?}", d.diagnostics);
            let diag = &d.diagnostics[0];
            assert_eq!(diag.code, "untrusted-project");
            assert_eq!(diag.severity, Severity::Warning);
            assert_eq!(diag.path, proj.canonicalize().unwrap());
            assert!(diag.message.contains("skillpipe trust"), "{}", diag.message);

            let list = if profile == "pi" {
                "trustedProjects"
            } else {
                "skills.trustedProjects"
            };
            r.sets
                .push(format!("{list}=[{:?}]", proj.display().to_string()));
            let (mut skills, codes) = names(&Pipeline::from_request(&r, &[]).unwrap());
            skills.sort();
            let want: &[&str] = if profile == "pi" {
                &["extra", "mine", "user"]
            } else {
                &["mine", "theirs", "user"]
            };
            assert_eq!(skills, want, "{profile}");
            assert!(codes.is_empty(), "{codes:?}");
        }
    }
}
