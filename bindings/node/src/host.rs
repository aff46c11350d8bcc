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
    CatalogOptions, Delivery, Discovered, Profile, ReadTool, Skill, Skillpipe, Source, Style,
};

use crate::args::{self, DiscoverArgs, Failure, LoadSkillsArgs, LoadSkillsFromDirArgs};
use crate::pi;

/// What `discover` found, with the configuration it ran with.
pub struct Session {
    found: Discovered,
    /// Whether the document has `removed` (`list --all --json`).
    all: bool,
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

/// Why the library could not be configured.
fn build_failure(e: &skillpipe::Error) -> Failure {
    let code = match e {
        skillpipe::Error::Settings(_) => "SETTINGS",
        skillpipe::Error::Plugin(_) => "PLUGIN",
        skillpipe::Error::NoHome => "NO_HOME",
        skillpipe::Error::CurrentDir(_) => "CURRENT_DIR",
        _ => "CONFIGURATION",
    };
    Failure {
        code: code.into(),
        message: e.to_string(),
    }
}

fn paths(what: &str, list: &[String]) -> Result<Vec<PathBuf>, Failure> {
    list.iter().map(|p| args::path(what, p)).collect()
}

/// Skill paths as pi resolves them: `~…` under home (left to the
/// library), a relative one against the project directory (the library
/// would take the process's working directory).
fn skill_paths(list: &[String], cwd: &Path) -> Result<Vec<PathBuf>, Failure> {
    list.iter()
        .map(|p| {
            let path = args::path("skillPaths", p)?;
            Ok(if p.starts_with('~') || path.is_absolute() {
                path
            } else {
                cwd.join(path)
            })
        })
        .collect()
}

/// The inputs every call configures the library with.
struct World<'a> {
    profile: Profile,
    app_dir: Option<&'a str>,
    home: PathBuf,
    cwd: PathBuf,
    env: BTreeMap<String, String>,
    config: &'a [String],
    set: &'a [String],
    skill_paths: &'a [String],
    no_skills: bool,
    plugins: &'a [String],
}

/// The library configured for `w`: settings read, plugins loaded.
fn build(w: World<'_>) -> Result<Skillpipe, Failure> {
    let mut b = Skillpipe::builder(w.profile)
        .home(&w.home)
        .cwd(&w.cwd)
        .env(w.env)
        .skill_paths(skill_paths(w.skill_paths, &w.cwd)?);
    if let Some(dir) = w.app_dir {
        b = b.app_dir(dir);
    }
    for file in paths("config", w.config)? {
        b = b.config(file);
    }
    for set in w.set {
        b = b.set(set);
    }
    if w.no_skills {
        b = b.no_skills();
    }
    for lib in paths("plugins", w.plugins)? {
        b = b.plugin(lib);
    }
    b.build().map_err(|e| build_failure(&e))
}

fn world(a: &DiscoverArgs) -> Result<World<'_>, Failure> {
    Ok(World {
        profile: a.profile.parse().map_err(|e| build_failure(&e))?,
        app_dir: a.app_dir.as_deref(),
        home: args::path("home", &a.home)?,
        cwd: args::path("cwd", &a.cwd)?,
        env: a.env.clone(),
        config: &a.config,
        set: &a.set,
        skill_paths: &a.skill_paths,
        no_skills: a.no_skills,
        plugins: &a.plugins,
    })
}

/// `discover(...)`: settings, pipeline, discovery (`all`: keeping what
/// did not load, as `list --all`).
pub fn open(a: &DiscoverArgs) -> Result<Session, Failure> {
    let skillpipe = build(world(a)?)?;
    Ok(Session {
        found: match a.all {
            true => skillpipe.discover_all(),
            false => skillpipe.discover(),
        },
        all: a.all,
    })
}

/// `contextFiles(...)`: the AGENTS.md files, nearest first, as JSON.
pub fn context_files(a: &DiscoverArgs) -> Result<String, Failure> {
    let w = World {
        no_skills: true,
        skill_paths: &[],
        ..world(a)?
    };
    to_json(&build(w)?.context_files())
}

fn to_json(value: &impl Serialize) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure {
        code: "INTERNAL".into(),
        message: e.to_string(),
    })
}

impl Session {
    /// The `list --json` document.
    pub fn list_json(&self) -> Result<String, Failure> {
        to_json(&skillpipe::ListDocument::new(&self.found, self.all))
    }

    /// The settings warnings, as JSON.
    pub fn warnings_json(&self) -> Result<String, Failure> {
        let list: Vec<Warning> = self
            .found
            .skillpipe()
            .warnings()
            .iter()
            .map(|w| Warning {
                code: w.code,
                message: w.message.clone(),
            })
            .collect();
        to_json(&list)
    }

    /// The system-prompt catalogue (`prompt`).
    pub fn catalog(&self, read_tool: bool) -> String {
        self.found.catalog(if read_tool {
            ReadTool::Available
        } else {
            ReadTool::Absent
        })
    }

    /// `expand --json`: `streaming` the host is generating, `follow_up`
    /// the submit key was Ctrl+Enter (as the CLI's flags).
    pub fn expand(&self, text: &str, streaming: bool, follow_up: bool) -> Result<String, Failure> {
        let delivery = match (streaming, follow_up) {
            (false, _) => Delivery::Prompt,
            (true, false) => Delivery::Steer,
            (true, true) => Delivery::FollowUp,
        };
        to_json(&self.found.expand(text, delivery))
    }

    /// `search --json`'s results: at most `limit` skills, best first.
    pub fn search(&self, query: &str, limit: usize) -> Result<String, Failure> {
        to_json(&self.found.search(query, limit))
    }

    /// What changed in the catalogue since `previous`, as JSON.
    pub fn catalog_update(&self, previous: &Session) -> Result<String, Failure> {
        to_json(&self.found.catalog_update(&previous.found))
    }

    /// `commands --json`'s list.
    pub fn commands(&self) -> Result<String, Failure> {
        to_json(&self.found.commands())
    }

    /// `context --json`'s list.
    pub fn context_files(&self) -> Result<String, Failure> {
        to_json(&self.found.skillpipe().context_files())
    }

    /// `resolve`: the bytes and what they are, or the CLI's message.
    pub fn resolve(&self, url: &str) -> Result<Resolved, Failure> {
        match self.found.resolve(url) {
            Ok(r) => Ok(Resolved {
                path: r.path.to_string_lossy().into_owned(),
                content_type: r.content_type,
                is_dir: r.is_dir,
                content: r.content,
            }),
            Err(e) => Err(Failure {
                code: screaming(e.code()).into(),
                message: e.to_string(),
            }),
        }
    }
}

/// A library code as JavaScript's error codes are written:
/// `path-traversal` is `PATH_TRAVERSAL`.
fn screaming(code: &str) -> String {
    code.replace('-', "_").to_ascii_uppercase()
}

/// pi's `loadSkills`: the pi profile with `agentDir` as pi's agent
/// directory, as `{skills, diagnostics}` JSON in pi's shapes.
pub fn load_skills(a: &LoadSkillsArgs) -> Result<PiAnswer, Failure> {
    let mut env: BTreeMap<String, String> = a.env.clone();
    if let Some(dir) = &a.agent_dir {
        // The pi profile's agent directory comes from this variable (SPEC §6).
        args::path("agentDir", dir)?;
        env.insert("PI_CODING_AGENT_DIR".to_owned(), dir.clone());
    }
    let skillpipe = build(World {
        profile: Profile::Pi,
        app_dir: None,
        home: args::path("home", &a.home)?,
        cwd: args::path("cwd", &a.cwd)?,
        env,
        config: &a.config,
        set: &a.set,
        skill_paths: &a.skill_paths,
        no_skills: !a.include_defaults,
        plugins: &[],
    })?;
    let found = skillpipe.discover();
    let settings = skillpipe.settings();
    let entries = settings
        .pi_skills
        .iter()
        .map(|e| {
            let path = skillpipe::core::paths::resolve_entry(&e.entry, &e.base, skillpipe.home());
            (path, if e.project { "project" } else { "user" })
        })
        .collect();
    let scopes = pi::Scopes {
        include_defaults: a.include_defaults,
        user_dir: settings.agent_dir.join("skills"),
        project_dir: skillpipe.cwd().join(".pi/skills"),
        entries,
    };
    pi_answer(&pi::result(found.discovery(), &scopes, None), None)
}

/// pi's result for the loader: as [`pi::Columns`], or as JSON when the
/// columns cannot hold it.
pub enum PiAnswer {
    Columns(pi::Columns),
    Json(String),
}

fn pi_answer(result: &pi::PiResult<'_>, label: Option<&str>) -> Result<PiAnswer, Failure> {
    let columns = result.columns(label).map_err(|e| Failure {
        code: "INTERNAL".into(),
        message: e.to_string(),
    })?;
    match columns {
        Some(c) => Ok(PiAnswer::Columns(c)),
        None => to_json(result).map(PiAnswer::Json),
    }
}

/// pi's `loadSkillsFromDir`: one directory scanned as pi scans a root
/// (recursive, ignore files), its skills labelled with `source`.
pub fn load_skills_from_dir(a: &LoadSkillsFromDirArgs) -> Result<PiAnswer, Failure> {
    let dir = args::path("dir", &a.dir)?;
    if !dir.exists() {
        // pi: a missing directory is no skills and no diagnostic.
        let none = skillpipe::Discovery::default();
        return pi_answer(&pi::result(&none, &pi::Scopes::none(), None), None);
    }
    let skillpipe = build(World {
        profile: Profile::Pi,
        app_dir: None,
        home: args::path("home", &a.home)?,
        cwd: dir.clone(),
        env: BTreeMap::new(),
        config: &[],
        set: &[],
        skill_paths: std::slice::from_ref(&a.dir),
        no_skills: true,
        plugins: &[],
    })?;
    let found = skillpipe.discover();
    let label = Some(a.source.as_str());
    pi_answer(
        &pi::result(found.discovery(), &pi::Scopes::none(), label),
        label,
    )
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
            let file = skillpipe::SharedPath::from(&*s.file_path);
            Skill {
                name: s.name.as_str().into(),
                description: s.description.as_str().into(),
                base_dir: file.parent_dir(),
                file_path: file,
                source: source.clone(),
                hidden: s.disable_model_invocation,
                frontmatter: Default::default(),
                invocation: None,
                visibility: Default::default(),
            }
        })
        .collect();
    skillpipe::core::runtime::render_catalog(
        &skills,
        CatalogOptions {
            style: Style::Pi,
            read_tool: skillpipe::ReadTool::Available,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_codes_are_written_as_javascript_error_codes() {
        assert_eq!(screaming("path-traversal"), "PATH_TRAVERSAL");
        assert_eq!(screaming("not-regular-file"), "NOT_REGULAR_FILE");
        assert_eq!(screaming("empty-name"), "EMPTY_NAME");
    }
}
