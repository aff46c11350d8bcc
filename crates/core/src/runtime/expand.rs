//! `/skill:<name> [args]` expansion (SPEC §9): the skill's body, re-read
//! from its file, wrapped as the agent expects it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, DiagnosticCode};

use super::catalog::Style;
use crate::copies::{Copies, Lookup};
use crate::head::read_whole;
use crate::text;

/// How an expanded message is delivered to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    /// A new prompt (the host is idle).
    Prompt,
    /// Steer the running turn (streaming, Enter).
    Steer,
    /// Queue after the running turn (streaming, Ctrl+Enter).
    FollowUp,
}

/// Options of [`expand`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpandOptions {
    /// The format (and the name rule: pi splits at a space, musepi at any whitespace).
    pub style: Style,
    /// musepi `skills.enableSkillCommands`: `false` leaves every text unchanged.
    pub enabled: bool,
    /// How the host would send the text: [`Delivery::Prompt`] when idle;
    /// while it streams a response, `Steer` (Enter) or `FollowUp`
    /// (Ctrl+Enter).
    pub delivery: Delivery,
    /// Largest skill file read.
    pub max_file_bytes: u64,
    /// `skills.arguments` (pi: `arguments`): how the arguments reach the
    /// body.
    pub arguments: crate::arguments::Arguments,
}

/// The result of [`expand`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expansion {
    /// Whether a skill was expanded.
    pub expanded: bool,
    /// The resulting text (the input when nothing was expanded).
    pub text: String,
    /// The skill expanded.
    pub skill: Option<String>,
    /// How to deliver it; `None` when nothing was expanded.
    pub delivery: Option<Delivery>,
    /// A read error of the skill file, when there was one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// With `skills.arguments = "claude"`: the placeholders the arguments
    /// filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholders: Option<crate::arguments::Placeholders>,
}

/// Expands `/skill:<name> [args]` (SPEC §9). The file is re-read now; its
/// body is found by the line rules without parsing the YAML.
///
/// `<name>` may be an address, `name@provider[:level]` (see
/// [`crate::copies`]): given a [`Discovery`](skillpipe_types::Discovery),
/// that reaches the copies that did not load. An address whose name has
/// copies, none of them the one asked for, leaves the text unchanged with
/// an `unknown-skill` warning naming the copies there are.
pub fn expand<'a>(skills: impl Into<Copies<'a>>, text: &str, opts: ExpandOptions) -> Expansion {
    let unchanged = |diagnostics: Vec<Diagnostic>| Expansion {
        expanded: false,
        text: text.to_owned(),
        skill: None,
        delivery: None,
        diagnostics,
        placeholders: None,
    };
    if opts.style == Style::Musepi && !opts.enabled {
        return unchanged(Vec::new());
    }
    let Some(rest) = text.strip_prefix("/skill:") else {
        return unchanged(Vec::new());
    };
    let end = match opts.style {
        Style::Pi => rest.find(' '),
        Style::Musepi => rest.find(char::is_whitespace),
    }
    .unwrap_or(rest.len());
    let (name, args) = (&rest[..end], rest[end..].trim());
    let skill = match skills.into().find(name) {
        Lookup::Found { skill, .. } if !name.is_empty() => skill,
        Lookup::NoSuchCopy { copies, first } => {
            return unchanged(vec![Diagnostic::warning(
                DiagnosticCode::UnknownSkill,
                format!("Unknown skill: {name} (copies: {})", copies.join(", ")),
                &first.file_path,
            )]);
        }
        _ => return unchanged(Vec::new()),
    };
    // `user-invocable: false`: no slash command runs it.
    if !skill.user_invocable() {
        return unchanged(Vec::new());
    }
    let bytes = match read_whole(&skill.file_path, opts.max_file_bytes) {
        Ok(b) => b,
        Err(d) => return unchanged(vec![*d]),
    };
    let decoded = text::decode(&bytes);
    let mut body = Cow::Borrowed(text::split(&decoded.text).body);
    let mut placeholders = None;
    let mut args = args;
    if opts.arguments == crate::arguments::Arguments::Claude {
        // The arguments are the body's now, appended to it when no
        // placeholder took them.
        let names = skill
            .invocation
            .as_ref()
            .and_then(|i| i.arguments.as_deref())
            .unwrap_or(&[]);
        let rendered =
            crate::arguments::render(&body, args, names, &skill.base_dir.to_string_lossy());
        body = Cow::Owned(rendered.text);
        placeholders = Some(rendered.placeholders);
        args = "";
    }
    let file = skill.file_path.to_string_lossy();
    let mut out = match opts.style {
        Style::Pi => format!(
            "<skill name=\"{}\" location=\"{file}\">\nReferences are relative to {}.\n\n{body}\n</skill>",
            skill.name,
            skill.base_dir.to_string_lossy()
        ),
        Style::Musepi => format!("{body}\n\n---\n\nSkill: {file}"),
    };
    if !args.is_empty() {
        match opts.style {
            Style::Pi => out.push_str("\n\n"),
            Style::Musepi => out.push_str("\nUser: "),
        }
        out.push_str(args);
    }
    let delivery = opts.delivery;
    Expansion {
        expanded: true,
        text: out,
        skill: Some(skill.name.clone()),
        delivery: Some(delivery),
        diagnostics: Vec::new(),
        placeholders,
    }
}
