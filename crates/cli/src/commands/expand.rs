//! `skillpipe expand TEXT`: `/skill:<name> [args]` expanded as the agent
//! would before sending it, byte-exact on stdout; a note on stderr says
//! why a text was left as typed.

use std::io::Write;
use std::process::ExitCode;

use skillpipe::{Delivery, NotExpanded, Skill, Skillpipe};

use crate::{out, term};

/// `expand`: the text, expanded or as typed, on stdout; exit 0 either way.
pub(crate) fn run(
    skillpipe: &Skillpipe,
    text: &str,
    streaming: bool,
    follow_up: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let delivery = match (streaming, follow_up) {
        (false, _) => Delivery::Prompt,
        (true, false) => Delivery::Steer,
        (true, true) => Delivery::FollowUp,
    };
    let found = skillpipe.discover();
    let expansion = found.expand(text, delivery);
    for d in &expansion.diagnostics {
        out::say(
            d.severity.as_str(),
            &format!(
                "{}: {}",
                term::escape(d.code.as_str()),
                term::escape(&d.message)
            ),
        );
    }
    if let Some(reason) = expansion.not_expanded()
        && let Some(note) = why_not_expanded(reason, found.skills())
    {
        out::say("note", &term::escape(&note));
    }
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&expansion)?)?;
    } else {
        write!(out, "{}", expansion.text)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Why `/skill:<name>` was left as typed, when the reason is the name (an
/// unknown one, with the nearest loaded name), the skill or skill commands
/// being off. The text itself stays unchanged on stdout, exit 0 (SPEC §9).
/// A text that is no command says nothing, and an address with no such
/// copy or an unreadable file has its diagnostic already.
fn why_not_expanded(reason: &NotExpanded, skills: &[Skill]) -> Option<String> {
    Some(match reason {
        NotExpanded::NotUserInvocable { skill } => format!(
            "skill \"{skill}\" is not user-invocable (user-invocable: false): the text is left as typed"
        ),
        // musepi's skills.enableSkillCommands = false leaves every text
        // as typed (pi's setting only hides the commands, SPEC §9).
        NotExpanded::CommandsOff => {
            "skill commands are off (skills.enableSkillCommands = false): the text is left as typed"
                .to_owned()
        }
        NotExpanded::UnknownSkill { name } => {
            let names = skills.iter().map(|s| s.name.as_str());
            match skillpipe::core::suggest::closest(name, names) {
                Some(near) => format!(
                    "no skill named \"{name}\"; did you mean \"{near}\"? (the text is left as typed)"
                ),
                None => format!(
                    "no skill named \"{name}\" (the text is left as typed; `skillpipe list` shows the skills)"
                ),
            }
        }
        _ => return None,
    })
}
