//! Every call into the `skillpipe` facade: building a pipeline from a
//! call's options, loading, and the runtime calls on what was loaded.
//!
//! Nothing else in the add-on calls the library (the other modules only
//! read the fields of what it returns), so a change of the facade's host
//! API is a change of this file.

#![deny(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use skillpipe::{
    CatalogOptions, Discovery, Pipeline, Request, ResolveError, ResolveOptions, Skill, Source,
    Style,
};

use crate::args::{self, DiscoverArgs, Failure, LoadSkillsArgs, LoadSkillsFromDirArgs};
use crate::pi;

/// A pipeline and what it loaded: the result of `discover`.
pub struct Session {
    pipeline: Pipeline,
    discovery: Discovery,
    warnings: Vec<Warning>,
}

/// A settings warning (the CLI prints it on stderr).
#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    /// `untrusted-setting`, …
    pub code: &'static str,
    /// The text.
    pub message: String,
}

/// A `skill://` read: `resolve --json`'s fields and the bytes.
pub struct Resolved {
    /// The file or directory.
    pub path: String,
    /// `text/markdown`, `application/json` or `text/plain`.
    pub content_type: String,
    /// A directory: `content` is its listing.
    pub is_dir: bool,
    /// The bytes.
    pub content: Vec<u8>,
}

fn settings_failure(e: &skillpipe::SettingsError) -> Failure {
    Failure {
        code: "SETTINGS",
        message: e.to_string(),
    }
}

fn paths(what: &str, list: &[String]) -> Result<Vec<PathBuf>, Failure> {
    list.iter().map(|p| args::path(what, p)).collect()
}

/// What the facade needs besides the [`Request`].
struct Extra<'a> {
    skill_paths: &'a [String],
    no_skills: bool,
    plugins: Vec<PathBuf>,
}

/// Settings, then the pipeline, then plugins: what the CLI does before
/// any command.
fn build(request: &Request, extra: Extra<'_>) -> Result<(Pipeline, Vec<Warning>), Failure> {
    let mut settings = skillpipe::settings::load(request).map_err(|e| settings_failure(&e))?;
    if extra.no_skills {
        settings.no_skills = true;
    }
    let warnings = settings
        .warnings
        .iter()
        .map(|w| Warning {
            code: w.code,
            message: w.message.clone(),
        })
        .collect();
    let mut pipeline = Pipeline::new(settings, request, extra.skill_paths);
    let mut plugin_paths = pipeline.settings().plugin_paths.clone();
    plugin_paths.extend(extra.plugins);
    if !plugin_paths.is_empty() {
        let (providers, diagnostics) = skillpipe::load_plugins(&plugin_paths);
        pipeline.add_plugins(providers, diagnostics);
    }
    Ok((pipeline, warnings))
}

fn request(a: &DiscoverArgs) -> Result<Request, Failure> {
    Ok(Request {
        profile: a.profile.clone(),
        app_dir: a.app_dir.clone(),
        home: args::path("home", &a.home)?,
        cwd: args::path("cwd", &a.cwd)?,
        env: a.env.clone(),
        config_files: paths("config", &a.config)?,
        sets: a.set.clone(),
    })
}

/// `discover(...)`: settings, pipeline, discovery.
pub fn open(a: &DiscoverArgs) -> Result<Session, Failure> {
    for p in &a.skill_paths {
        args::path("skillPaths", p)?;
    }
    let (pipeline, warnings) = build(
        &request(a)?,
        Extra {
            skill_paths: &a.skill_paths,
            no_skills: a.no_skills,
            plugins: paths("plugins", &a.plugins)?,
        },
    )?;
    let discovery = pipeline.load();
    Ok(Session {
        pipeline,
        discovery,
        warnings,
    })
}

/// `contextFiles(...)`: the AGENTS.md files, nearest first, as JSON.
pub fn context_files(a: &DiscoverArgs) -> Result<String, Failure> {
    let (pipeline, _) = build(
        &request(a)?,
        Extra {
            skill_paths: &[],
            no_skills: true,
            plugins: Vec::new(),
        },
    )?;
    to_json(&pipeline.context_files())
}

fn to_json(value: &impl Serialize) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure {
        code: "INTERNAL",
        message: e.to_string(),
    })
}

/// The document of `list --json`.
#[derive(Serialize)]
struct ListJson<'a> {
    profile: &'a str,
    skills: &'a [Skill],
    diagnostics: &'a [skillpipe::Diagnostic],
}

impl Session {
    /// The `list --json` document.
    pub fn list_json(&self) -> Result<String, Failure> {
        to_json(&ListJson {
            profile: &self.pipeline.settings().profile_name,
            skills: &self.discovery.skills,
            diagnostics: &self.discovery.diagnostics,
        })
    }

    /// The settings warnings, as JSON.
    pub fn warnings_json(&self) -> Result<String, Failure> {
        to_json(&self.warnings)
    }

    /// The system-prompt catalogue (`prompt`).
    pub fn catalog(&self, read_tool: bool) -> String {
        self.pipeline
            .render_catalog(&self.discovery.skills, read_tool)
    }

    /// `expand --json`.
    pub fn expand(&self, text: &str, streaming: bool, follow_up: bool) -> Result<String, Failure> {
        to_json(
            &self
                .pipeline
                .expand(&self.discovery, text, streaming, follow_up),
        )
    }

    /// `commands --json`'s list.
    pub fn commands(&self) -> Result<String, Failure> {
        to_json(&self.pipeline.slash_commands(&self.discovery))
    }

    /// `context --json`'s list.
    pub fn context_files(&self) -> Result<String, Failure> {
        to_json(&self.pipeline.context_files())
    }

    /// `resolve`: the bytes and what they are, or the CLI's message.
    pub fn resolve(&self, url: &str) -> Result<Resolved, Failure> {
        match self
            .pipeline
            .resolve_with(&self.discovery, url, ResolveOptions::default())
        {
            Ok(r) => Ok(Resolved {
                path: r.path.to_string_lossy().into_owned(),
                content_type: r.content_type,
                is_dir: r.is_dir,
                content: r.content,
            }),
            Err(e) => Err(Failure {
                code: resolve_code(&e),
                message: e.to_string(),
            }),
        }
    }
}

/// The stable code of a `skill://` failure.
fn resolve_code(e: &ResolveError) -> &'static str {
    match e {
        ResolveError::NotSkillUrl(_) => "NOT_SKILL_URL",
        ResolveError::EmptyName => "EMPTY_NAME",
        ResolveError::UnknownSkill { .. } => "UNKNOWN_SKILL",
        ResolveError::Absolute => "ABSOLUTE_PATH",
        ResolveError::DotDot | ResolveError::Escape => "PATH_TRAVERSAL",
        ResolveError::InvalidSegment(_) => "INVALID_SEGMENT",
        ResolveError::NotFound(_) => "NOT_FOUND",
        ResolveError::NotRegular(_) => "NOT_REGULAR_FILE",
        ResolveError::TooLarge { .. } => "FILE_TOO_LARGE",
        ResolveError::Read { .. } => "READ_ERROR",
        _ => "RESOLVE_ERROR",
    }
}

/// pi's `loadSkills`: the pi profile with `agentDir` as pi's agent
/// directory, as `{skills, diagnostics}` JSON in pi's shapes.
pub fn load_skills(a: &LoadSkillsArgs) -> Result<String, Failure> {
    let mut env: BTreeMap<String, String> = a.env.clone();
    let agent_dir = match &a.agent_dir {
        Some(dir) => Some(args::path("agentDir", dir)?),
        None => None,
    };
    if let Some(dir) = &agent_dir {
        // The pi profile's agent directory comes from this variable (SPEC §6).
        env.insert(
            "PI_CODING_AGENT_DIR".to_owned(),
            dir.to_string_lossy().into_owned(),
        );
    }
    for p in &a.skill_paths {
        args::path("skillPaths", p)?;
    }
    let request = Request {
        profile: "pi".to_owned(),
        app_dir: None,
        home: args::path("home", &a.home)?,
        cwd: args::path("cwd", &a.cwd)?,
        env,
        config_files: paths("config", &a.config)?,
        sets: a.set.clone(),
    };
    let (pipeline, _) = build(
        &request,
        Extra {
            skill_paths: &a.skill_paths,
            no_skills: !a.include_defaults,
            plugins: Vec::new(),
        },
    )?;
    let discovery = pipeline.load();
    let scope = pi::Scopes {
        include_defaults: a.include_defaults,
        user_dir: pipeline.settings().agent_dir.join("skills"),
        project_dir: pipeline.context().cwd.join(".pi/skills"),
    };
    to_json(&pi::result(&discovery, &scope, None))
}

/// pi's `loadSkillsFromDir`: one directory scanned as pi scans a root
/// (recursive, ignore files), its skills labelled with `source`.
pub fn load_skills_from_dir(a: &LoadSkillsFromDirArgs) -> Result<String, Failure> {
    let dir = args::path("dir", &a.dir)?;
    if !dir.exists() {
        // pi: a missing directory is no skills and no diagnostic.
        return to_json(&pi::result(
            &Discovery::default(),
            &pi::Scopes::none(),
            None,
        ));
    }
    let dir_text = dir.to_string_lossy().into_owned();
    let request = Request {
        profile: "pi".to_owned(),
        app_dir: None,
        home: args::path("home", &a.home)?,
        cwd: dir.clone(),
        env: BTreeMap::new(),
        config_files: Vec::new(),
        sets: Vec::new(),
    };
    let (pipeline, _) = build(
        &request,
        Extra {
            skill_paths: std::slice::from_ref(&dir_text),
            no_skills: true,
            plugins: Vec::new(),
        },
    )?;
    let discovery = pipeline.load();
    to_json(&pi::result(
        &discovery,
        &pi::Scopes::none(),
        Some(a.source.as_str()),
    ))
}

/// pi's `formatSkillsForPrompt`: the pi catalogue of the skills given.
pub fn format_skills_for_prompt(skills: &[args::PromptSkill]) -> String {
    let source = std::sync::Arc::new(Source {
        provider: "path".to_owned(),
        level: skillpipe::Level::Path,
        root: None,
    });
    let skills: Vec<Skill> = skills
        .iter()
        .map(|s| {
            let file = PathBuf::from(&s.file_path);
            Skill {
                name: s.name.clone(),
                description: s.description.clone(),
                base_dir: file.parent().map_or_else(PathBuf::new, Path::to_path_buf),
                file_path: file,
                source: source.clone(),
                hidden: s.disable_model_invocation,
                frontmatter: Default::default(),
            }
        })
        .collect();
    skillpipe::core::runtime::render_catalog(
        &skills,
        CatalogOptions {
            style: Style::Pi,
            read_tool: true,
        },
    )
}

/// `validate PATH... --json`: the Agent Skills check of each path
/// (relative ones against the process's working directory, as the CLI).
pub fn validate(list: &[String]) -> Result<String, Failure> {
    let mut results = Vec::new();
    for p in list {
        let v = skillpipe::validate(&args::path("paths", p)?);
        results.push(serde_json::json!({
            "path": v.path.to_string_lossy(),
            "valid": v.is_valid(),
            "errors": v.errors,
        }));
    }
    let valid = results.iter().all(|r| r["valid"] == true);
    to_json(&serde_json::json!({ "valid": valid, "results": results }))
}
