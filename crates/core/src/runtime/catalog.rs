//! The system-prompt catalogue (SPEC §8) in each agent's format, and the
//! entry and escaping rules the budgeted catalogue and catalogue updates
//! reuse, so every listing of skills reads the same.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use skillpipe_types::Skill;

/// Which agent's text formats to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// pi's XML catalogue and `<skill>` expansion.
    Pi,
    /// musepi's `# Skills & Rules` list and `Skill:` expansion.
    Musepi,
}

/// Whether the host gives the model a tool to read files; the catalogue
/// tells the model to use it, so without one it is empty (SPEC §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReadTool {
    /// The model can read files.
    #[default]
    Available,
    /// It cannot: the catalogue is empty.
    Absent,
}

/// Options of [`render_catalog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogOptions {
    /// The format.
    pub style: Style,
    /// Whether the host has a read tool; without one the catalogue is empty.
    pub read_tool: ReadTool,
}

/// The system-prompt catalogue (SPEC §8): hidden skills left out, empty
/// without a read tool or a visible skill, no trailing newline.
pub fn render_catalog(skills: &[Skill], opts: CatalogOptions) -> String {
    let visible: Vec<&Skill> = skills.iter().filter(|s| !s.hidden).collect();
    if opts.read_tool == ReadTool::Absent || visible.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    out.push_str(catalog_head(opts.style));
    for s in visible {
        push_listed_entry(&mut out, opts.style, s);
    }
    out.push_str(catalog_tail(opts.style));
    out
}

/// A visible skill's entry in [`render_catalog`]'s text, on its own: the
/// catalogue is its head, its visible skills' entries in order, and its
/// tail, so a host (or the watcher) can replace one skill's entry in a
/// catalogue it holds.
pub fn render_entry(skill: &Skill, style: Style) -> String {
    let mut out = String::new();
    push_listed_entry(&mut out, style, skill);
    out
}

/// One entry of the full catalogue: the description as the style shows it
/// (none for `skills.visibility` "name-only").
fn push_listed_entry(out: &mut String, style: Style, s: &Skill) {
    let description = match style {
        _ if s.visibility == skillpipe_types::Visibility::NameOnly => Cow::Borrowed(""),
        Style::Pi => Cow::Borrowed(s.description.as_str()),
        Style::Musepi => Cow::Owned(collapse_whitespace(&s.description)),
    };
    push_catalog_entry(out, style, s, &description);
}

/// The catalogue's text before its first entry.
pub(crate) fn catalog_head(style: Style) -> &'static str {
    match style {
        Style::Pi => concat!(
            "\n\n",
            "The following skills provide specialized instructions for specific tasks.\n\
Use the read tool to load a skill's file when the task matches its description.\n\
When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
            "\n\n<available_skills>"
        ),
        Style::Musepi => {
            "# Skills & Rules\nMatching skill → MUST read `skill://<name>` first.\n<skills>"
        }
    }
}

/// The catalogue's text after its last entry.
pub(crate) fn catalog_tail(style: Style) -> &'static str {
    match style {
        Style::Pi => "\n</available_skills>",
        Style::Musepi => "\n</skills>",
    }
}

/// musepi's description text: whitespace runs (Unicode White_Space) as
/// one space, trimmed.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// One skill's entry, with `description` as the catalogue shows it (pi:
/// as written; musepi: whitespace collapsed), escaped here.
pub(crate) fn push_catalog_entry(out: &mut String, style: Style, s: &Skill, description: &str) {
    push_entry(
        out,
        style,
        &s.name,
        description,
        &s.file_path.to_string_lossy(),
    );
}

/// An entry of `name`, `description` (as the catalogue shows it) and
/// `location` (pi only: musepi's entries name no file), escaped here.
pub(crate) fn push_entry(
    out: &mut String,
    style: Style,
    name: &str,
    description: &str,
    location: &str,
) {
    match style {
        Style::Pi => {
            out.push_str("\n  <skill>\n    <name>");
            out.push_str(&escape_xml(name));
            out.push_str("</name>\n    <description>");
            out.push_str(&escape_xml(description));
            out.push_str("</description>\n    <location>");
            out.push_str(&escape_xml(location));
            out.push_str("</location>\n  </skill>");
        }
        Style::Musepi => {
            let d = description.replace('<', "‹").replace('>', "›");
            out.push_str("\n- ");
            out.push_str(name);
            out.push(':');
            if !d.is_empty() {
                out.push(' ');
                out.push_str(&d);
            }
        }
    }
}

/// XML escaping in pi's order: `&`, `<`, `>`, `"`, `'`.
pub fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_order() {
        assert_eq!(escape_xml("a&<b>\"'"), "a&amp;&lt;b&gt;&quot;&apos;");
    }
}
