//! `skillpipe list [--all] [--json] [--deny-warnings]`: the skills an agent
//! would load and every diagnostic; with `--all`, the copies that did not
//! load too, each with its fate.

use std::io::Write;
use std::process::ExitCode;

use skillpipe::{Diagnostic, Discovery, Fate, ShadowedCopy, Skill, Skillpipe};

use crate::not_loaded::not_loaded;
use crate::{out, output};

/// `list`: exit 1 with `--deny-warnings` when any diagnostic was reported.
pub(crate) fn run(
    skillpipe: &Skillpipe,
    json: bool,
    deny_warnings: bool,
    all: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let found = match all {
        true => skillpipe.discover_all(),
        false => skillpipe.discover(),
    };
    let discovery = found.discovery();
    if json {
        // Streamed: the list is never copied into a JSON value or a
        // string (half the time and memory of `list` on 10k skills).
        let mut w = std::io::BufWriter::new(&mut out);
        let mut doc = ListJson::new(skillpipe, discovery);
        if all {
            doc.removed = Some(
                not_loaded(discovery)
                    .into_iter()
                    .map(RemovedJson::new)
                    .collect(),
            );
        }
        serde_json::to_writer_pretty(&mut w, &doc)?;
        writeln!(w)?;
        w.flush()?;
    } else {
        let fit = output::Fit::stdout(skillpipe.home());
        output::list_table(&mut out::styled(), discovery, &fit, all)?;
    }
    if deny_warnings && !discovery.diagnostics.is_empty() {
        return Ok(ExitCode::from(1));
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The document of `list --json`.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    profile: &'a str,
    skills: &'a [Skill],
    /// `list --all`: the skills that did not load, with their fate.
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<Vec<RemovedJson<'a>>>,
    diagnostics: &'a [Diagnostic],
}

impl<'a> ListJson<'a> {
    fn new(skillpipe: &'a Skillpipe, discovery: &'a Discovery) -> Self {
        ListJson {
            profile: &skillpipe.settings().profile_name,
            skills: &discovery.skills,
            removed: None,
            diagnostics: &discovery.diagnostics,
        }
    }
}

/// A row of `list --all --json`'s `removed`: the skill's fields, plus
/// its fate.
#[derive(serde::Serialize)]
pub(crate) struct RemovedJson<'a> {
    #[serde(flatten)]
    skill: &'a Skill,
    #[serde(flatten)]
    fate: &'a Fate,
}

impl<'a> RemovedJson<'a> {
    pub(crate) fn new(copy: &'a ShadowedCopy) -> Self {
        RemovedJson {
            skill: &copy.skill,
            fate: &copy.fate,
        }
    }
}
