//! `skillpipe explain NAME`: every file that claims a name, in pipeline
//! order, and what became of it.

use std::io::Write;
use std::process::ExitCode;

use skillpipe::explain::{Links, Outcome, claims_of, own_diagnostics};
use skillpipe::{Discovered, Skill, Skillpipe};

use crate::out::{self, Failure};
use crate::output::{Fit, describe};
use crate::term;

/// `explain NAME [--json]`: exit 1 when no file claims the name.
pub(crate) fn run(skillpipe: &Skillpipe, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let found = skillpipe.discover_all();
    let d = found.discovery();
    let list = claims_of(d, name);
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
    if json {
        let doc = skillpipe::explain::document(&found, name, &list);
        writeln!(w, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        let links = Links::of(&found, name);
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
        write_links(&links, &mut w)?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
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

/// The `requires:` and `required by:` lines.
fn write_links(links: &Links<'_>, w: &mut impl Write) -> std::io::Result<()> {
    if !links.requires.is_empty() {
        let list: Vec<String> = links
            .requires
            .iter()
            .map(|(name, loaded)| {
                let state = if *loaded { "loaded" } else { "not loaded" };
                format!("{} ({state})", term::escape(name))
            })
            .collect();
        writeln!(w, "requires: {}", list.join(", "))?;
    }
    if !links.required_by.is_empty() {
        let list: Vec<String> = links
            .required_by
            .iter()
            .map(|n| term::escape(n).into_owned())
            .collect();
        writeln!(w, "required by: {}", list.join(", "))?;
    }
    Ok(())
}
