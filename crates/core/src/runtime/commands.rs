//! The `skill:<name>` slash commands a host offers (SPEC §9), and the
//! shadowed copies' commands for listings.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use skillpipe_types::{Skill, Source};

use crate::copies::Copies;

/// One entry of the host's command list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlashCommand {
    /// `skill:<name>` (a shadowed copy: `skill:<address>`).
    pub name: String,
    /// The skill's description.
    pub description: String,
    /// The skill's name.
    pub skill: String,
    /// Where the skill came from.
    pub source: Arc<Source>,
    /// A copy that did not load, reachable by its address (not offered
    /// as a completion): see [`shadowed_commands`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadowed: bool,
    /// A shadowed copy's address, `name@provider[:level]`; for a loaded
    /// skill whose name is another copy's address, its own address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

/// Whether `/skill:` commands are offered and expanded (musepi
/// `skills.enableSkillCommands`, pi `enableSkillCommands`; default on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SkillCommands {
    /// Offered (the default).
    #[default]
    On,
    /// Not offered: musepi leaves every `/skill:` text as typed, pi only
    /// hides the commands.
    Off,
}

impl From<bool> for SkillCommands {
    /// The setting's value: `true` is [`SkillCommands::On`].
    fn from(enabled: bool) -> Self {
        match enabled {
            true => SkillCommands::On,
            false => SkillCommands::Off,
        }
    }
}

/// The `skill:<name>` commands (SPEC §9): every skill, hidden ones
/// included, in pipeline order, but those of `user-invocable: false`;
/// none when skill commands are off.
pub fn slash_commands(skills: &[Skill], commands: SkillCommands) -> Vec<SlashCommand> {
    loaded_commands(Copies::from(skills), commands)
}

/// The loaded skills' commands, each called by what leads to it among
/// `copies` ([`Copies::command_name`]: a skill whose name is another
/// copy's address is called by its own address, given in `address`).
fn loaded_commands(copies: Copies<'_>, commands: SkillCommands) -> Vec<SlashCommand> {
    if commands == SkillCommands::Off {
        return Vec::new();
    }
    copies
        .skills
        .iter()
        .filter(|s| s.user_invocable())
        .map(|s| {
            let called = copies.command_name(s);
            SlashCommand {
                name: format!("skill:{called}"),
                description: s.description.to_string(),
                skill: s.name.to_string(),
                source: s.source.clone(),
                shadowed: false,
                address: (called != s.name).then_some(called),
            }
        })
        .collect()
}

/// [`slash_commands`] and, after each, the copies of its name that did
/// not load, as `skill:<address>` commands with `shadowed: true`; a copy
/// no address reaches (an earlier one of its provider and level takes
/// them) is left out. For listings (`commands --json --all`), not for
/// completion.
pub fn shadowed_commands<'a>(
    copies: impl Into<Copies<'a>>,
    commands: SkillCommands,
) -> Vec<SlashCommand> {
    let copies = copies.into();
    let mut out = Vec::new();
    for command in loaded_commands(copies, commands) {
        let of_name = copies
            .shadowed
            .iter()
            .filter(|c| c.skill.name == command.skill);
        let mut shadowed = Vec::new();
        for c in of_name.filter(|c| c.skill.user_invocable()) {
            if let Some(address) = copies.address_of(c) {
                shadowed.push(SlashCommand {
                    name: format!("skill:{address}"),
                    description: c.skill.description.to_string(),
                    skill: c.skill.name.to_string(),
                    source: c.skill.source.clone(),
                    shadowed: true,
                    address: Some(address),
                });
            }
        }
        out.push(command);
        out.append(&mut shadowed);
    }
    out
}
