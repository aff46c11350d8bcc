//! `/skill:<name> [args]` expansion (SPEC §9): the skill's body, re-read
//! from its file, wrapped as the agent expects it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Diagnostic, DiagnosticCode};

use super::catalog::Style;
use super::commands::SkillCommands;
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
    /// `skills.enableSkillCommands`: [`SkillCommands::Off`] leaves every
    /// text unchanged in musepi (pi's setting only hides the commands).
    pub commands: SkillCommands,
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

/// The result of [`expand`]: the text to send, and whether (and why not)
/// a skill was expanded. It serialises as `expand --json`'s document,
/// `{expanded, text, skill, delivery, diagnostics?, placeholders?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The resulting text (the input when nothing was expanded).
    pub text: String,
    /// What was expanded, or why nothing was.
    pub outcome: ExpandOutcome,
    /// A read error of the skill file, or the `unknown-skill` warning of
    /// an address with no such copy.
    pub diagnostics: Vec<Diagnostic>,
}

/// Whether [`expand`] expanded a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpandOutcome {
    /// The skill's body replaced the text.
    Expanded {
        /// The skill expanded.
        skill: String,
        /// How to deliver it.
        delivery: Delivery,
        /// With `skills.arguments = "claude"`: the placeholders the
        /// arguments filled.
        placeholders: Option<crate::arguments::Placeholders>,
    },
    /// The text is left as typed.
    NotExpanded {
        /// Why.
        reason: NotExpanded,
    },
}

/// Why [`expand`] left a text as typed, in the order the checks run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotExpanded {
    /// The text does not start with `/skill:`.
    NotACommand,
    /// `/skill:` with no name after it.
    NoName,
    /// musepi's `skills.enableSkillCommands = false`: every text is left
    /// as typed (pi's setting only hides the commands).
    CommandsOff,
    /// No skill, and no copy, has the name.
    UnknownSkill {
        /// The name as typed.
        name: String,
    },
    /// An address, `name@provider[:level]`, whose name has copies, none of
    /// them the one asked for (the `unknown-skill` warning names them).
    NoSuchCopy {
        /// The address as typed.
        address: String,
    },
    /// The skill says `user-invocable: false`: no slash command runs it.
    NotUserInvocable {
        /// The skill's name.
        skill: String,
    },
    /// The skill file could not be read now (the diagnostic says why).
    Unreadable {
        /// The skill's name.
        skill: String,
    },
}

impl Expansion {
    /// Whether a skill was expanded.
    pub fn expanded(&self) -> bool {
        matches!(self.outcome, ExpandOutcome::Expanded { .. })
    }

    /// The skill expanded, if one was.
    pub fn skill(&self) -> Option<&str> {
        match &self.outcome {
            ExpandOutcome::Expanded { skill, .. } => Some(skill),
            ExpandOutcome::NotExpanded { .. } => None,
        }
    }

    /// How to deliver the text; `None` when nothing was expanded.
    pub fn delivery(&self) -> Option<Delivery> {
        match &self.outcome {
            ExpandOutcome::Expanded { delivery, .. } => Some(*delivery),
            ExpandOutcome::NotExpanded { .. } => None,
        }
    }

    /// The placeholders the arguments filled (`skills.arguments =
    /// "claude"`, and a skill was expanded).
    pub fn placeholders(&self) -> Option<&crate::arguments::Placeholders> {
        match &self.outcome {
            ExpandOutcome::Expanded { placeholders, .. } => placeholders.as_ref(),
            ExpandOutcome::NotExpanded { .. } => None,
        }
    }

    /// Why the text was left as typed; `None` when a skill was expanded.
    pub fn not_expanded(&self) -> Option<&NotExpanded> {
        match &self.outcome {
            ExpandOutcome::Expanded { .. } => None,
            ExpandOutcome::NotExpanded { reason } => Some(reason),
        }
    }
}

/// `expand --json`'s document, as it was when these were the fields.
#[derive(Serialize)]
struct ExpansionJson<'a> {
    expanded: bool,
    text: &'a str,
    skill: Option<&'a str>,
    delivery: Option<Delivery>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    diagnostics: &'a [Diagnostic],
    #[serde(skip_serializing_if = "Option::is_none")]
    placeholders: Option<&'a crate::arguments::Placeholders>,
}

impl Serialize for Expansion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ExpansionJson {
            expanded: self.expanded(),
            text: &self.text,
            skill: self.skill(),
            delivery: self.delivery(),
            diagnostics: &self.diagnostics,
            placeholders: self.placeholders(),
        }
        .serialize(s)
    }
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
    let unchanged = |reason: NotExpanded, diagnostics: Vec<Diagnostic>| Expansion {
        text: text.to_owned(),
        outcome: ExpandOutcome::NotExpanded { reason },
        diagnostics,
    };
    let Some(rest) = text.strip_prefix("/skill:") else {
        return unchanged(NotExpanded::NotACommand, Vec::new());
    };
    let end = match opts.style {
        Style::Pi => rest.find(' '),
        Style::Musepi => rest.find(char::is_whitespace),
    }
    .unwrap_or(rest.len());
    let (name, args) = (&rest[..end], rest[end..].trim());
    if name.is_empty() {
        return unchanged(NotExpanded::NoName, Vec::new());
    }
    if opts.style == Style::Musepi && opts.commands == SkillCommands::Off {
        return unchanged(NotExpanded::CommandsOff, Vec::new());
    }
    let skill = match skills.into().find(name) {
        Lookup::Found { skill, .. } => skill,
        Lookup::NoSuchCopy { copies, first } => {
            return unchanged(
                NotExpanded::NoSuchCopy {
                    address: name.to_owned(),
                },
                vec![Diagnostic::warning(
                    DiagnosticCode::UnknownSkill,
                    format!("Unknown skill: {name} (copies: {})", copies.join(", ")),
                    &first.file_path,
                )],
            );
        }
        Lookup::Unknown => {
            return unchanged(
                NotExpanded::UnknownSkill {
                    name: name.to_owned(),
                },
                Vec::new(),
            );
        }
    };
    // `user-invocable: false`: no slash command runs it.
    if !skill.user_invocable() {
        return unchanged(
            NotExpanded::NotUserInvocable {
                skill: skill.name.to_string(),
            },
            Vec::new(),
        );
    }
    let bytes = match read_whole(&skill.file_path, opts.max_file_bytes) {
        Ok(b) => b,
        Err(d) => {
            return unchanged(
                NotExpanded::Unreadable {
                    skill: skill.name.to_string(),
                },
                vec![*d],
            );
        }
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
    Expansion {
        text: out,
        outcome: ExpandOutcome::Expanded {
            skill: skill.name.to_string(),
            delivery: opts.delivery,
            placeholders,
        },
        diagnostics: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    use skillpipe_types::{Invocation, Level, Skill, Source};

    fn skill(dir: &Path, name: &str, invocable: bool) -> Skill {
        let base = dir.join(name);
        let mut invocation = Invocation::default();
        invocation.user_invocable = (!invocable).then_some(false);
        Skill {
            name: name.to_owned().into(),
            description: "d".to_owned().into(),
            file_path: base.join("SKILL.md").into(),
            base_dir: base.into(),
            source: Arc::new(Source {
                provider: "claude".to_owned(),
                level: Level::User,
                root: None,
            }),
            hidden: false,
            frontmatter: Default::default(),
            invocation: Some(Box::new(invocation)),
            visibility: Default::default(),
        }
    }

    fn opts(style: Style, enabled: bool) -> ExpandOptions {
        ExpandOptions {
            style,
            commands: SkillCommands::from(enabled),
            delivery: Delivery::Steer,
            max_file_bytes: 1 << 20,
            arguments: Default::default(),
        }
    }

    #[test]
    fn a_text_left_as_typed_says_why() {
        let t = tempfile::tempdir().unwrap();
        let skills = vec![
            skill(t.path(), "pdf", true),
            skill(t.path(), "hidden", false),
            // No file behind it.
            skill(t.path(), "gone", true),
        ];
        std::fs::create_dir(t.path().join("pdf")).unwrap();
        std::fs::write(
            t.path().join("pdf/SKILL.md"),
            "---\nname: pdf\n---\nBody.\n",
        )
        .unwrap();
        let why = |text: &str, style: Style, enabled: bool| {
            let e = expand(&skills, text, opts(style, enabled));
            assert_eq!(e.text, text, "left as typed");
            assert!(!e.expanded() && e.skill().is_none() && e.delivery().is_none());
            e.not_expanded().cloned().unwrap()
        };
        let pi = Style::Pi;
        assert_eq!(why("pdf", pi, true), NotExpanded::NotACommand);
        assert_eq!(why("/skill: pdf", pi, true), NotExpanded::NoName);
        assert_eq!(
            why("/skill:pdf", Style::Musepi, false),
            NotExpanded::CommandsOff
        );
        // pi's setting only hides the commands.
        assert!(expand(&skills, "/skill:pdf", opts(pi, false)).expanded());
        let unknown = NotExpanded::UnknownSkill { name: "pdx".into() };
        assert_eq!(why("/skill:pdx now", pi, true), unknown);
        assert_eq!(
            why("/skill:hidden", pi, true),
            NotExpanded::NotUserInvocable {
                skill: "hidden".into()
            }
        );
        let e = expand(&skills, "/skill:pdf@codex", opts(pi, true));
        assert_eq!(
            e.not_expanded(),
            Some(&NotExpanded::NoSuchCopy {
                address: "pdf@codex".into()
            })
        );
        assert_eq!(e.diagnostics[0].code, DiagnosticCode::UnknownSkill);
        let e = expand(&skills, "/skill:gone", opts(pi, true));
        assert_eq!(
            e.not_expanded(),
            Some(&NotExpanded::Unreadable {
                skill: "gone".into()
            })
        );
        assert_eq!(e.diagnostics[0].code, DiagnosticCode::ReadError);
    }

    #[test]
    fn expand_json_keeps_its_fields() {
        let t = tempfile::tempdir().unwrap();
        let skills = vec![skill(t.path(), "pdf", true)];
        std::fs::create_dir(t.path().join("pdf")).unwrap();
        std::fs::write(
            t.path().join("pdf/SKILL.md"),
            "---\nname: pdf\n---\nBody.\n",
        )
        .unwrap();
        let e = expand(&skills, "/skill:pdf", opts(Style::Musepi, true));
        assert_eq!(e.not_expanded(), None);
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.starts_with(r#"{"expanded":true,"text":""#), "{json}");
        assert!(
            json.ends_with(r#"","skill":"pdf","delivery":"steer"}"#),
            "{json}"
        );
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["expanded"], true);
        assert_eq!(v["skill"], "pdf");
        assert_eq!(v["delivery"], "steer");
        let e = expand(&skills, "hello", opts(Style::Musepi, true));
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"expanded":false,"text":"hello","skill":null,"delivery":null}"#
        );
    }
}
