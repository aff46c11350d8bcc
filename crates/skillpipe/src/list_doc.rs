//! The document of `skillpipe list --json` (`list --all --json`), written
//! once for the CLI and the bindings, which hand it to their hosts as it
//! is.

use serde::Serialize;
use skillpipe_core::copies::not_loaded;
use skillpipe_core::types::{Diagnostic, Fate, ShadowedCopy, Skill};

use crate::Discovered;

/// `{profile, skills, removed?, diagnostics}`: serialised straight from the
/// discovery, nothing copied.
#[derive(Debug, Serialize)]
pub struct ListDocument<'a> {
    /// The profile's name.
    pub profile: &'a str,
    /// The skills that loaded, in pipeline order.
    pub skills: &'a [Skill],
    /// `list --all`: the copies that did not load, each with its fate, in
    /// the order the pipeline met their files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<RemovedRow<'a>>>,
    /// Every diagnostic.
    pub diagnostics: &'a [Diagnostic],
}

impl<'a> ListDocument<'a> {
    /// The document of `found`; `with_removed` adds `removed` (`list
    /// --all`, for a discovery from
    /// [`Skillpipe::discover_all`](crate::Skillpipe::discover_all)).
    pub fn new(found: &'a Discovered, with_removed: bool) -> Self {
        let d = found.discovery();
        ListDocument {
            profile: &found.skillpipe().settings().profile_name,
            skills: &d.skills,
            removed: with_removed.then(|| not_loaded(d).into_iter().map(RemovedRow::new).collect()),
            diagnostics: &d.diagnostics,
        }
    }
}

/// A row of `removed`: the skill's fields, then its fate's (`off` by
/// `skills.visibility` is `{"fate": "removed", "setting":
/// "skills.visibility", "pattern", "layer"}`).
#[derive(Debug, Serialize)]
pub struct RemovedRow<'a> {
    #[serde(flatten)]
    skill: &'a Skill,
    #[serde(flatten)]
    fate: &'a Fate,
}

impl<'a> RemovedRow<'a> {
    /// The row of one copy.
    pub fn new(copy: &'a ShadowedCopy) -> Self {
        RemovedRow {
            skill: &copy.skill,
            fate: &copy.fate,
        }
    }
}
