//! `explain`: every file that claims a skill name, in pipeline order, and
//! what became of it — the data of `skillpipe explain NAME` and its JSON
//! document, shared by the CLI and the bindings.
//!
//! The claims are kept by [`Skillpipe::discover_all`](crate::Skillpipe::discover_all)
//! only: on a plain discovery every name has none.

use std::path::Path;

use serde_json::{Value, json};
use skillpipe_core::dependencies::{Requirement, requires_of};
use skillpipe_core::types::{Diagnostic, Discovery, ShadowedCopy, Skill};

use crate::Discovered;

/// What became of one file that claimed the name.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// It loaded.
    Loaded(&'a Skill),
    /// A copy that did not load: shadowed or removed, with its fate.
    Copy(&'a ShadowedCopy),
    /// The file did not become a skill, for these reasons.
    NotASkill(&'a [Diagnostic]),
    /// Read, but neither loaded nor kept: a managed copy of a name an
    /// authored skill has, or a second look at a file whose skill did not
    /// load.
    Dropped,
}

/// One claim with its outcome.
#[derive(Debug)]
pub struct ClaimOutcome<'a> {
    /// The file that claims the name.
    pub file_path: &'a Path,
    /// The provider that read it.
    pub provider: &'a str,
    /// What became of it.
    pub outcome: Outcome<'a>,
}

/// The claims of `name`, in pipeline order, each matched once to the
/// skill or copy it became.
pub fn claims_of<'a>(d: &'a Discovery, name: &str) -> Vec<ClaimOutcome<'a>> {
    let mut used_skill = vec![false; d.skills.len()];
    let mut used_shadowed = vec![false; d.shadowed.len()];
    let mut used_removed = vec![false; d.removed.len()];
    let mut out = Vec::new();
    for claim in d.claims.iter().filter(|c| c.name == name) {
        let same = |s: &Skill| s.name == name && s.file_path == claim.file_path;
        let outcome = if let Some(i) = first_unused(&d.skills, &mut used_skill, same) {
            Outcome::Loaded(&d.skills[i])
        } else if let Some(i) = first_unused(&d.shadowed, &mut used_shadowed, |c| same(&c.skill)) {
            Outcome::Copy(&d.shadowed[i])
        } else if let Some(i) = first_unused(&d.removed, &mut used_removed, |c| same(&c.skill)) {
            Outcome::Copy(&d.removed[i])
        } else if !claim.diagnostics.is_empty() {
            Outcome::NotASkill(&claim.diagnostics)
        } else {
            Outcome::Dropped
        };
        out.push(ClaimOutcome {
            file_path: &claim.file_path,
            provider: &claim.provider,
            outcome,
        });
    }
    out
}

/// The first item not matched yet that `ok` accepts, now matched.
fn first_unused<T>(items: &[T], used: &mut [bool], ok: impl Fn(&T) -> bool) -> Option<usize> {
    let i = items
        .iter()
        .zip(used.iter())
        .position(|(item, used)| !used && ok(item))?;
    if let Some(u) = used.get_mut(i) {
        *u = true;
    }
    Some(i)
}

/// The diagnostics discovery reported on a loaded skill's file (its
/// field warnings, `missing-dependency`, …).
pub fn own_diagnostics<'d>(d: &'d Discovery, s: &Skill) -> Vec<&'d Diagnostic> {
    d.diagnostics
        .iter()
        .filter(|x| x.path == s.file_path)
        .collect()
}

/// Both directions of `metadata.requires` for a name: what its loaded
/// skill requires (each loaded or not) and which loaded skills require it.
#[derive(Debug)]
pub struct Links<'a> {
    /// What the name's skill requires, each with whether it loaded.
    pub requires: Vec<(&'a str, bool)>,
    /// The loaded skills that require the name.
    pub required_by: Vec<&'a str>,
}

impl<'a> Links<'a> {
    /// The links of `name` in `found`.
    pub fn of(found: &'a Discovered, name: &str) -> Self {
        let skills = found.skills();
        let requires = skills
            .iter()
            .find(|s| s.name == name)
            .map(requires_of)
            .unwrap_or(&[])
            .iter()
            .map(|r| {
                let req = Requirement::parse(r);
                (r.as_str(), skills.iter().any(|s| req.is_met_by(s)))
            })
            .collect();
        let required_by = found
            .required_by(name)
            .into_iter()
            .map(|s| s.name.as_str())
            .collect();
        Links {
            requires,
            required_by,
        }
    }
}

/// The document of `skillpipe explain NAME --json`: `{name, claims,
/// requires?, required_by?}`, for the claims [`claims_of`] found for the
/// name in `found` (from
/// [`Skillpipe::discover_all`](crate::Skillpipe::discover_all)).
pub fn document(found: &Discovered, name: &str, list: &[ClaimOutcome<'_>]) -> Value {
    let claims: Vec<Value> = list.iter().map(|e| claim_json(e, found)).collect();
    let mut doc = json!({ "name": name, "claims": claims });
    let links = Links::of(found, name);
    if !links.requires.is_empty() {
        doc["requires"] = links
            .requires
            .iter()
            .map(|(name, loaded)| json!({ "name": name, "loaded": loaded }))
            .collect();
    }
    if !links.required_by.is_empty() {
        doc["required_by"] = json!(links.required_by);
    }
    doc
}

fn claim_json(e: &ClaimOutcome<'_>, found: &Discovered) -> Value {
    let mut v = json!({
        "file_path": e.file_path.to_string_lossy(),
        "provider": e.provider,
    });
    let extra = match &e.outcome {
        Outcome::Loaded(s) => {
            let mut x = json!({ "level": s.source.level, "fate": "loaded" });
            if !s.visibility.is_on() {
                x["visibility"] = json!(s.visibility);
                if let Some(rule) = found.visibility_rule(&s.name) {
                    x["visibility_rule"] = json!({ "pattern": rule.pattern, "layer": rule.layer });
                }
            }
            let own = own_diagnostics(found.discovery(), s);
            if !own.is_empty() {
                x["diagnostics"] = json!(own);
            }
            x
        }
        Outcome::Copy(c) => {
            let mut f = serde_json::to_value(&c.fate).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut f {
                m.insert("level".into(), json!(c.skill.source.level));
            }
            f
        }
        Outcome::NotASkill(diags) => json!({ "fate": "not-a-skill", "diagnostics": diags }),
        Outcome::Dropped => json!({ "fate": "dropped" }),
    };
    if let (Value::Object(m), Value::Object(x)) = (&mut v, extra) {
        m.extend(x);
    }
    v
}
