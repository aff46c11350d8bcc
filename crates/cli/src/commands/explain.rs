//! `skillpipe explain NAME`: every file that claims a name, in pipeline
//! order, and what became of it.

use std::io::Write;
use std::process::ExitCode;

use serde_json::{Value, json};
use skillpipe::core::dependencies::{Requirement, requires_of};
use skillpipe::{Diagnostic, Discovered, Discovery, ShadowedCopy, Skill, Skillpipe};

use crate::out::{self, Failure};
use crate::output::{Fit, describe};
use crate::term;

/// What became of one file that claimed the name.
enum Outcome<'a> {
    Loaded(&'a Skill),
    Copy(&'a ShadowedCopy),
    NotASkill(&'a [Diagnostic]),
    /// Read, but neither loaded nor kept: a managed copy of a name an
    /// authored skill has, or a second look at a file whose skill did not
    /// load.
    Dropped,
}

/// One claim with its outcome.
struct Entry<'a> {
    file_path: &'a std::path::Path,
    provider: &'a str,
    outcome: Outcome<'a>,
}

/// The claims of `name`, in pipeline order, each matched once to the
/// skill or copy it became.
fn entries<'a>(d: &'a Discovery, name: &str) -> Vec<Entry<'a>> {
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
        out.push(Entry {
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

/// `explain NAME [--json]`: exit 1 when no file claims the name.
pub(crate) fn run(skillpipe: &Skillpipe, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let found = skillpipe.discover_all();
    let d = found.discovery();
    let list = entries(d, name);
    if list.is_empty() {
        let names = d.claims.iter().map(|c| c.name.as_str());
        let mut message = format!("no file claims the skill name \"{name}\"");
        match skillpipe::core::suggest::closest(name, names) {
            Some(near) => message.push_str(&format!("; did you mean \"{near}\"?")),
            None => message.push_str(" (`skillpipe list --all` shows every name)"),
        }
        return Err(Failure {
            code: "unknown-skill",
            exit: 1,
            message,
            bare: None,
        }
        .into());
    }
    let mut w = out::styled();
    let links = Links::of(&found, name);
    if json {
        let claims: Vec<Value> = list.iter().map(|e| entry_json(e, &found)).collect();
        let mut doc = json!({ "name": name, "claims": claims });
        links.add_json(&mut doc);
        writeln!(w, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        let fit = Fit::stdout(skillpipe.home());
        let n = list.len();
        writeln!(
            w,
            "{}: {n} file{} claim{} it, in pipeline order",
            term::escape(name),
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" }
        )?;
        for (i, e) in list.iter().enumerate() {
            let level = match &e.outcome {
                Outcome::Loaded(s) => format!("/{}", s.source.level),
                Outcome::Copy(c) => format!("/{}", c.skill.source.level),
                _ => String::new(),
            };
            writeln!(
                w,
                "{}. {} ({}{level})",
                i + 1,
                fit.path(e.file_path),
                term::escape(e.provider)
            )?;
            match &e.outcome {
                Outcome::Loaded(s) => {
                    writeln!(w, "   {}{}", out::heading("loaded"), loaded_note(s, &found))?;
                    for d in own_diagnostics(d, s) {
                        writeln!(
                            w,
                            "     {}[{}] {}",
                            out::paint(d.severity.as_str()),
                            term::escape(d.code.as_str()),
                            term::escape(&d.message)
                        )?;
                    }
                }
                Outcome::Copy(c) => writeln!(w, "   {}", describe(&c.fate, &fit))?,
                Outcome::NotASkill(diags) => {
                    writeln!(w, "   {}", out::heading("not a skill"))?;
                    for d in *diags {
                        writeln!(
                            w,
                            "     {}[{}] {}",
                            out::paint(d.severity.as_str()),
                            term::escape(d.code.as_str()),
                            term::escape(&d.message)
                        )?;
                    }
                }
                Outcome::Dropped => writeln!(
                    w,
                    "   not loaded (a managed skill whose name an authored skill has, or a file met again)"
                )?,
            }
        }
        links.write_text(&mut w)?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn entry_json(e: &Entry<'_>, found: &Discovered) -> Value {
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

/// What the `loaded` line adds: the visibility a setting gave, and no
/// slash command for `user-invocable: false`.
fn loaded_note(s: &Skill, found: &Discovered) -> String {
    let mut notes = Vec::new();
    if !s.visibility.is_on() {
        let rule = found
            .visibility_rule(&s.name)
            .map_or_else(String::new, |r| {
                format!(": skills.visibility \"{}\" (from {})", r.pattern, r.layer)
            });
        notes.push(format!("{}{rule}", s.visibility));
    }
    if !s.user_invocable() {
        notes.push("no slash command: user-invocable: false".to_owned());
    }
    match notes.is_empty() {
        true => String::new(),
        false => term::escape(&format!(" ({})", notes.join("; "))).into_owned(),
    }
}

/// The diagnostics discovery reported on a loaded skill's file (its
/// field warnings, `missing-dependency`, …).
fn own_diagnostics<'d>(d: &'d Discovery, s: &Skill) -> Vec<&'d Diagnostic> {
    d.diagnostics
        .iter()
        .filter(|x| x.path == s.file_path)
        .collect()
}

/// Both directions of `metadata.requires` for a name: what its loaded
/// skill requires (each loaded or not) and which loaded skills require it.
struct Links<'a> {
    requires: Vec<(&'a str, bool)>,
    required_by: Vec<&'a str>,
}

impl<'a> Links<'a> {
    fn of(found: &'a Discovered, name: &str) -> Self {
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

    fn add_json(&self, doc: &mut Value) {
        if !self.requires.is_empty() {
            doc["requires"] = self
                .requires
                .iter()
                .map(|(name, loaded)| json!({ "name": name, "loaded": loaded }))
                .collect();
        }
        if !self.required_by.is_empty() {
            doc["required_by"] = json!(self.required_by);
        }
    }

    fn write_text(&self, w: &mut impl Write) -> std::io::Result<()> {
        if !self.requires.is_empty() {
            let list: Vec<String> = self
                .requires
                .iter()
                .map(|(name, loaded)| {
                    let state = if *loaded { "loaded" } else { "not loaded" };
                    format!("{} ({state})", term::escape(name))
                })
                .collect();
            writeln!(w, "requires: {}", list.join(", "))?;
        }
        if !self.required_by.is_empty() {
            let list: Vec<String> = self
                .required_by
                .iter()
                .map(|n| term::escape(n).into_owned())
                .collect();
            writeln!(w, "required by: {}", list.join(", "))?;
        }
        Ok(())
    }
}
