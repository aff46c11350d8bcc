//! The Node add-on: skillpipe in process for TypeScript host agents.
//!
//! This file is the napi-rs glue only; the public JavaScript API is the
//! loader `index.js` (types: `index.d.ts`), which checks the arguments,
//! hands them over as JSON text and turns what comes back into objects
//! and errors with a `code`. Calls into the library live in `host.rs`;
//! pi's result shapes in `pi.rs`; the options in `args.rs`.
//!
//! Every function here answers with a value or a thrown JS error, never
//! an abort: a failure is thrown as an `Error` whose message is the JSON
//! `{"code", "message"}` of an `args::Failure`; the loader rethrows it
//! as `Error(message)` with `code`. The `unsafe` in this crate is the
//! expansion of the `#[napi]` attributes below; the other modules deny it.

mod args;
mod host;
mod pi;

use napi::bindgen_prelude::{AsyncTask, Buffer, Uint8Array, Uint32Array};
use napi::{Env, Status, Task};
use napi_derive::napi;

use crate::args::Failure;

fn thrown(f: &Failure) -> napi::Error {
    napi::Error::new(Status::GenericFailure, f.to_json())
}

fn answer<T>(r: Result<T, Failure>) -> napi::Result<T> {
    r.map_err(|f| thrown(&f))
}

/// pi's `{skills, diagnostics}` for the loader to make objects of: the
/// skills' strings in one text with where each ends, and their flags
/// (see `pi::Columns`); or, when those cannot hold it, the whole result
/// as JSON in `json`.
#[napi(object)]
pub struct PiSkills {
    /// Each skill's name, description, file path and base directory.
    pub text: Option<String>,
    /// Where each of those ends in `text`, in UTF-16 units.
    pub ends: Option<Uint32Array>,
    /// Per skill: hidden, scope, labelled (bits 0, 1-2, 3).
    pub flags: Option<Uint8Array>,
    /// `loadSkillsFromDir`'s `source`.
    pub label: Option<String>,
    /// The diagnostics as JSON.
    pub diagnostics: Option<String>,
    /// The whole result as JSON, instead of the fields above.
    pub json: Option<String>,
}

impl From<host::PiAnswer> for PiSkills {
    fn from(a: host::PiAnswer) -> Self {
        match a {
            host::PiAnswer::Columns(c) => PiSkills {
                text: Some(c.text),
                ends: Some(Uint32Array::new(c.ends)),
                flags: Some(Uint8Array::new(c.flags)),
                label: c.label,
                diagnostics: Some(c.diagnostics),
                json: None,
            },
            host::PiAnswer::Json(json) => PiSkills {
                text: None,
                ends: None,
                flags: None,
                label: None,
                diagnostics: None,
                json: Some(json),
            },
        }
    }
}

/// pi's `loadSkills` (options as JSON).
#[napi(js_name = "loadSkills")]
pub fn load_skills(options: String) -> napi::Result<PiSkills> {
    answer(args::parse("loadSkills", &options).and_then(|a| host::load_skills(&a))).map(Into::into)
}

/// pi's `loadSkillsFromDir` (options as JSON).
#[napi(js_name = "loadSkillsFromDir")]
pub fn load_skills_from_dir(options: String) -> napi::Result<PiSkills> {
    answer(args::parse("loadSkillsFromDir", &options).and_then(|a| host::load_skills_from_dir(&a)))
        .map(Into::into)
}

/// pi's `formatSkillsForPrompt` (the skills as JSON).
#[napi(js_name = "formatSkillsForPrompt")]
pub fn format_skills_for_prompt(skills: String) -> napi::Result<String> {
    let skills: Vec<args::PromptSkill> = answer(args::parse("formatSkillsForPrompt", &skills))?;
    Ok(host::format_skills_for_prompt(&skills))
}

/// The AGENTS.md files (options as `discover`'s), as JSON.
#[napi(js_name = "contextFiles")]
pub fn context_files(options: String) -> napi::Result<String> {
    answer(args::parse("contextFiles", &options).and_then(|a| host::context_files(&a)))
}

/// `validate --json` of the paths (a JSON list).
#[napi]
pub fn validate(paths: String) -> napi::Result<String> {
    answer(args::parse::<Vec<String>>("validate", &paths).and_then(|p| host::validate(&p)))
}

/// `loadSkills` on the libuv thread pool.
pub struct LoadSkillsTask {
    options: String,
    outcome: Option<Result<host::PiAnswer, Failure>>,
}

impl Task for LoadSkillsTask {
    type Output = ();
    type JsValue = PiSkills;

    fn compute(&mut self) -> napi::Result<()> {
        self.outcome =
            Some(args::parse("loadSkillsAsync", &self.options).and_then(|a| host::load_skills(&a)));
        Ok(())
    }

    fn resolve(&mut self, _env: Env, (): ()) -> napi::Result<PiSkills> {
        answer(self.outcome.take().unwrap_or_else(|| Err(not_run()))).map(Into::into)
    }
}

fn not_run() -> Failure {
    Failure {
        code: "INTERNAL".into(),
        message: "the task did not run".to_owned(),
    }
}

/// `loadSkills` on the libuv thread pool: a promise of its result.
#[napi(js_name = "loadSkillsAsync", ts_return_type = "Promise<PiSkills>")]
pub fn load_skills_async(options: String) -> AsyncTask<LoadSkillsTask> {
    AsyncTask::new(LoadSkillsTask {
        options,
        outcome: None,
    })
}

/// A `skill://` read.
#[napi(object)]
pub struct Resource {
    /// The file or directory.
    pub path: String,
    /// `text/markdown`, `application/json` or `text/plain`.
    #[napi(js_name = "content_type")]
    pub content_type: String,
    /// A directory: `content` is its listing.
    #[napi(js_name = "is_dir")]
    pub is_dir: bool,
    /// The bytes.
    pub content: Buffer,
}

/// A discovery and its pipeline (`discover`).
#[napi]
pub struct Session {
    inner: host::Session,
}

#[napi]
impl Session {
    /// Settings, pipeline and discovery for the options (as JSON).
    #[napi(factory)]
    pub fn open(options: String) -> napi::Result<Session> {
        let inner = answer(args::parse("discover", &options).and_then(|a| host::open(&a)))?;
        Ok(Session { inner })
    }

    /// The `list --json` document.
    #[napi(js_name = "listJson")]
    pub fn list_json(&self) -> napi::Result<String> {
        answer(self.inner.list_json())
    }

    /// The settings warnings, as JSON.
    #[napi(js_name = "warningsJson")]
    pub fn warnings_json(&self) -> napi::Result<String> {
        answer(self.inner.warnings_json())
    }

    /// The system-prompt catalogue.
    #[napi]
    pub fn catalog(&self, read_tool: bool) -> String {
        self.inner.catalog(read_tool)
    }

    /// `expand --json`.
    #[napi]
    pub fn expand(&self, text: String, streaming: bool, follow_up: bool) -> napi::Result<String> {
        answer(self.inner.expand(&text, streaming, follow_up))
    }

    /// A `skill://` read, or the CLI's message.
    #[napi]
    pub fn resolve(&self, url: String) -> napi::Result<Resource> {
        let r = answer(self.inner.resolve(&url))?;
        Ok(Resource {
            path: r.path,
            content_type: r.content_type,
            is_dir: r.is_dir,
            content: r.content.into(),
        })
    }

    /// `search --json`'s results, as JSON.
    #[napi]
    pub fn search(&self, query: String, limit: u32) -> napi::Result<String> {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        answer(self.inner.search(&query, limit))
    }

    /// What changed in the catalogue since `previous`, as JSON.
    #[napi(js_name = "catalogUpdate")]
    pub fn catalog_update(&self, previous: &Session) -> napi::Result<String> {
        answer(self.inner.catalog_update(&previous.inner))
    }

    /// The slash commands, as JSON.
    #[napi]
    pub fn commands(&self) -> napi::Result<String> {
        answer(self.inner.commands())
    }

    /// The AGENTS.md files, as JSON.
    #[napi(js_name = "contextFiles")]
    pub fn context_files(&self) -> napi::Result<String> {
        answer(self.inner.context_files())
    }
}

/// `discover` on the libuv thread pool.
pub struct DiscoverTask {
    options: String,
    outcome: Option<Result<host::Session, Failure>>,
}

impl Task for DiscoverTask {
    type Output = ();
    type JsValue = Session;

    fn compute(&mut self) -> napi::Result<()> {
        self.outcome =
            Some(args::parse("discoverAsync", &self.options).and_then(|a| host::open(&a)));
        Ok(())
    }

    fn resolve(&mut self, _env: Env, (): ()) -> napi::Result<Session> {
        let inner = answer(self.outcome.take().unwrap_or_else(|| Err(not_run())))?;
        Ok(Session { inner })
    }
}

/// `discover` on the libuv thread pool: a promise of a [`Session`].
#[napi(js_name = "discoverAsync", ts_return_type = "Promise<Session>")]
pub fn discover_async(options: String) -> AsyncTask<DiscoverTask> {
    AsyncTask::new(DiscoverTask {
        options,
        outcome: None,
    })
}
