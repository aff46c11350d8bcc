//! Catalogue updates that keep the prompt cache: when skills change, the
//! short message a host appends to the conversation, so that the system
//! prompt (and the cache of everything after it) stays as it was.
//!
//! The message names what changed in the catalogue as the model sees it:
//! skills new to it with their catalogue entries, skills whose entry
//! changed (a description, or in pi's format a location) with the new
//! one, and the names of skills gone from it (removed, or hidden now).
//! In search mode only the pinned skills are listed, so only they are
//! named, and a line gives the new number of skills left to search when
//! it changed. Entries are written in the profile's format, descriptions
//! whole and locations in full.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use skillpipe_types::Skill;

use crate::budget::shown;
use crate::runtime::{CatalogOptions, ReadTool, Style, escape_xml, push_entry};
use crate::schedule;

/// What changed in the catalogue between two discoveries, and the
/// message that tells the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogUpdate {
    /// The text to append to the conversation; empty when nothing the
    /// catalogue shows changed.
    pub message: String,
    /// Skills new to the catalogue, in pipeline order.
    pub added: Vec<String>,
    /// Skills whose entry changed, in pipeline order.
    pub changed: Vec<String>,
    /// Skills gone from the catalogue, in their previous order.
    pub removed: Vec<String>,
    /// Search mode: the number of skills left to search, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searchable: Option<usize>,
    /// Set when the host should render the catalogue again instead of
    /// appending the message (the message is still there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerender: Option<Rerender>,
}

impl CatalogUpdate {
    /// Whether anything the catalogue shows changed.
    pub fn is_empty(&self) -> bool {
        self.message.is_empty()
    }
}

/// Why a host should render the catalogue again rather than append an
/// update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rerender {
    /// The catalogue's settings (format, budget, mode, pins, floor,
    /// paths) differ between the two discoveries: the old text is not
    /// what a new one would be.
    Settings,
    /// More than half of the previous catalogue's entries changed: a new
    /// catalogue is shorter than the old one and its update.
    MostChanged,
    /// With a budget, the previous catalogue and this message together
    /// are longer than the budget.
    BudgetExceeded,
}

/// The update from `previous` to `current`: of the skills `listed` says
/// the catalogue lists (visible ones; in search mode the pinned), with
/// `searchable` the numbers of the others before and after (search mode).
/// The `rerender` decision is the caller's.
pub fn catalog_update(
    previous: &[Skill],
    current: &[Skill],
    opts: CatalogOptions,
    listed: &dyn Fn(&Skill) -> bool,
    searchable: Option<(usize, usize)>,
) -> CatalogUpdate {
    let mut update = CatalogUpdate::default();
    if opts.read_tool == ReadTool::Absent {
        return update;
    }
    let style = opts.style;
    let before: Vec<&Skill> = previous.iter().filter(|s| listed(s)).collect();
    let after: Vec<&Skill> = current.iter().filter(|s| listed(s)).collect();
    let mut added: Vec<&Skill> = Vec::new();
    let mut changed: Vec<&Skill> = Vec::new();
    let mut removed: Vec<&Skill> = Vec::new();
    // The usual case, a few edits: both lists in the same order. Walk
    // them side by side while the names agree; a map for the rest.
    let (same, differ) = same_prefix(style, &before, &after);
    changed.extend(differ.into_iter().map(|i| after[i]));
    let old_rest = before.get(same..).unwrap_or_default();
    let new_rest = after.get(same..).unwrap_or_default();
    if !old_rest.is_empty() || !new_rest.is_empty() {
        let old: HashMap<&str, &Skill, foldhash::fast::RandomState> =
            old_rest.iter().map(|s| (s.name.as_str(), *s)).collect();
        let new: HashMap<&str, (), foldhash::fast::RandomState> =
            new_rest.iter().map(|s| (s.name.as_str(), ())).collect();
        for s in new_rest {
            match old.get(s.name.as_str()) {
                None => added.push(s),
                Some(o) if entry_differs(style, o, s) => changed.push(s),
                Some(_) => {}
            }
        }
        removed.extend(
            old_rest
                .iter()
                .filter(|s| !new.contains_key(s.name.as_str())),
        );
    }
    let count = searchable
        .filter(|(was, now)| was != now)
        .map(|(_, now)| now);
    if added.is_empty() && changed.is_empty() && removed.is_empty() && count.is_none() {
        return update;
    }
    update.message = message(style, &added, &changed, &removed, count);
    update.added = added.iter().map(|s| s.name.to_string()).collect();
    update.changed = changed.iter().map(|s| s.name.to_string()).collect();
    update.removed = removed.iter().map(|s| s.name.to_string()).collect();
    update.searchable = count;
    update
}

/// Pairs at least this many are compared on two threads.
const PARALLEL_FROM: usize = 2048;

/// How many leading pairs of `before` and `after` name the same skills,
/// and the positions among them whose entries differ. Each pair reads
/// four or five strings of two discoveries scattered over the heap, so a
/// long list is waiting on memory: it is split in two halves compared at
/// once (the second half's answer counts only when the first half's names
/// all agree).
fn same_prefix(style: Style, before: &[&Skill], after: &[&Skill]) -> (usize, Vec<usize>) {
    let n = before.len().min(after.len());
    let scan = |from: usize, to: usize| -> (usize, Vec<usize>) {
        let mut differ = Vec::new();
        for i in from..to {
            let (a, b) = (before[i], after[i]);
            if a.name != b.name {
                return (i, differ);
            }
            if entry_differs(style, a, b) {
                differ.push(i);
            }
        }
        (to, differ)
    };
    if n < PARALLEL_FROM {
        return scan(0, n);
    }
    let mid = n / 2;
    let (second, (end, mut differ)) =
        schedule::side_by_side("skillpipe-update", || scan(mid, n), || scan(0, mid));
    if end < mid {
        return (end, differ);
    }
    // No thread to be had, or it panicked: this one does it (and a
    // panic comes again here).
    let second = second.unwrap_or_else(|| scan(mid, n));
    differ.extend(second.1);
    (second.0, differ)
}

/// Whether the catalogue shows `a` and `b` (one name) differently.
fn entry_differs(style: Style, a: &Skill, b: &Skill) -> bool {
    let described = |a: &Skill, b: &Skill| {
        (a.description != b.description || a.visibility != b.visibility)
            && shown(style, a) != shown(style, b)
    };
    match style {
        // The location as written in the entry: its bytes (comparing
        // paths name by name is slower, and blind to a spelling the entry
        // would show).
        Style::Pi => a.file_path.as_os_str() != b.file_path.as_os_str() || described(a, b),
        Style::Musepi => described(a, b),
    }
}

fn message(
    style: Style,
    added: &[&Skill],
    changed: &[&Skill],
    removed: &[&Skill],
    searchable: Option<usize>,
) -> String {
    let mut out = String::new();
    let entries = |out: &mut String, list: &[&Skill]| {
        for s in list {
            let description = shown(style, s);
            push_entry(
                out,
                style,
                &s.name,
                &description,
                &s.file_path.to_string_lossy(),
            );
        }
    };
    let (open, close, intro) = match style {
        Style::Musepi => (
            "# Skills update",
            "",
            "The skills below changed since the list above; the others are as listed.",
        ),
        Style::Pi => (
            "<skills_update>",
            "\n</skills_update>",
            "The skills below changed since the available_skills above; the others are as listed.",
        ),
    };
    out.push_str(open);
    out.push('\n');
    out.push_str(intro);
    for (tag, list) in [("added", added), ("changed", changed)] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("\n<{tag}>"));
        entries(&mut out, list);
        out.push_str(&format!("\n</{tag}>"));
    }
    if !removed.is_empty() {
        out.push_str("\n<removed>");
        for s in removed {
            match style {
                Style::Pi => {
                    out.push_str("\n  <name>");
                    out.push_str(&escape_xml(&s.name));
                    out.push_str("</name>");
                }
                Style::Musepi => {
                    out.push_str("\n- ");
                    out.push_str(&s.name);
                }
            }
        }
        out.push_str("\n</removed>");
    }
    if let Some(n) = searchable {
        out.push_str(&format!(
            "\nSkills not listed, for the skill search tool: {n} now."
        ));
    }
    out.push_str(close);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    use skillpipe_types::{Level, Source};

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.to_owned().into(),
            description: description.to_owned().into(),
            file_path: PathBuf::from(format!("/s/{name}/SKILL.md")).into(),
            base_dir: PathBuf::from(format!("/s/{name}")).into(),
            source: Arc::new(Source {
                provider: "p".to_owned(),
                level: Level::User,
                root: None,
            }),
            hidden: false,
            frontmatter: Default::default(),
            invocation: None,
            visibility: Default::default(),
        }
    }

    fn opts(style: Style) -> CatalogOptions {
        CatalogOptions {
            style,
            read_tool: ReadTool::Available,
        }
    }

    fn visible(s: &Skill) -> bool {
        !s.hidden
    }

    #[test]
    fn the_message_names_what_the_catalogue_shows_changed() {
        let old = vec![
            skill("same", "Stays."),
            skill("edited", "Before."),
            skill("gone", "Bye."),
            skill("spaces", "One  two"),
        ];
        let mut hidden = skill("same", "Stays.");
        hidden.hidden = true;
        let new = vec![
            skill("edited", "After <b>."),
            skill("spaces", "One two"),
            skill("fresh", "New & shiny."),
            hidden,
        ];
        let u = catalog_update(&old, &new, opts(Style::Musepi), &visible, None);
        assert_eq!(u.added, ["fresh"]);
        assert_eq!(u.changed, ["edited"]);
        assert_eq!(u.removed, ["same", "gone"]);
        assert_eq!(
            u.message,
            "# Skills update\nThe skills below changed since the list above; the others are as listed.\n<added>\n- fresh: New & shiny.\n</added>\n<changed>\n- edited: After ‹b›.\n</changed>\n<removed>\n- same\n- gone\n</removed>"
        );
        let pi = catalog_update(&old, &new, opts(Style::Pi), &visible, None);
        // pi shows whitespace as written: "spaces" changed there.
        assert_eq!(pi.changed, ["edited", "spaces"]);
        assert!(pi.message.starts_with("<skills_update>\n"));
        assert!(pi.message.ends_with("\n</skills_update>"));
        assert!(pi.message.contains("<description>New &amp; shiny.</description>\n    <location>/s/fresh/SKILL.md</location>"), "{}", pi.message);
        assert!(
            pi.message
                .contains("<removed>\n  <name>same</name>\n  <name>gone</name>\n</removed>")
        );
        // Nothing changed, or no read tool: no message.
        assert!(catalog_update(&old, &old, opts(Style::Pi), &visible, None).is_empty());
        let none = CatalogOptions {
            style: Style::Pi,
            read_tool: ReadTool::Absent,
        };
        assert!(catalog_update(&old, &new, none, &visible, None).is_empty());
    }

    #[test]
    fn name_only_entries_show_no_description() {
        let old = vec![skill("a", "A."), skill("b", "B.")];
        let mut quiet = skill("a", "A.");
        quiet.visibility = skillpipe_types::Visibility::NameOnly;
        let new = vec![quiet, skill("b", "B.")];
        for style in [Style::Musepi, Style::Pi] {
            let u = catalog_update(&old, &new, opts(style), &visible, None);
            assert_eq!(u.changed, ["a"], "{style:?}");
            assert!(!u.message.contains("A."), "{style:?}: {}", u.message);
        }
        let mut edited = new.clone();
        edited[0].description = "A, edited.".into();
        assert!(catalog_update(&new, &edited, opts(Style::Musepi), &visible, None).is_empty());
    }

    /// A list long enough to be compared on two threads gives what one
    /// thread gives: edits in both halves found in order, and a name out
    /// of place in the first half making the map decide the rest (the
    /// second half's own answer set aside).
    #[test]
    fn a_long_list_is_compared_as_one_thread_would() {
        let n = 3 * PARALLEL_FROM;
        let old: Vec<Skill> = (0..n)
            .map(|i| skill(&format!("s{i:05}"), "Same."))
            .collect();
        let mut new = old.clone();
        for i in [10, n / 2 + 7, n - 1] {
            new[i].description = "Edited.".to_owned().into();
        }
        for style in [Style::Pi, Style::Musepi] {
            let u = catalog_update(&old, &new, opts(style), &visible, None);
            assert_eq!(
                u.changed,
                [
                    "s00010",
                    &format!("s{:05}", n / 2 + 7),
                    &format!("s{:05}", n - 1)
                ]
            );
            assert!(u.added.is_empty() && u.removed.is_empty());
        }
        // One renamed early: the names disagree from there on, and the
        // map finds one added, one removed and the later edits.
        new[20].name = "renamed".to_owned().into();
        let u = catalog_update(&old, &new, opts(Style::Musepi), &visible, None);
        assert_eq!(u.added, ["renamed"]);
        assert_eq!(u.removed, ["s00020"]);
        assert_eq!(
            u.changed,
            [
                "s00010",
                &format!("s{:05}", n / 2 + 7),
                &format!("s{:05}", n - 1)
            ]
        );
    }

    #[test]
    fn a_moved_file_changes_a_pi_entry_only() {
        let old = vec![skill("a", "A.")];
        let mut moved = skill("a", "A.");
        moved.file_path = PathBuf::from("/t/a/SKILL.md").into();
        let new = vec![moved];
        assert_eq!(
            catalog_update(&old, &new, opts(Style::Pi), &visible, None).changed,
            ["a"]
        );
        assert!(catalog_update(&old, &new, opts(Style::Musepi), &visible, None).is_empty());
    }

    #[test]
    fn search_mode_counts_what_is_left_to_search() {
        let old = vec![skill("pinned", "P."), skill("x", "X.")];
        let new = vec![skill("pinned", "P."), skill("x", "X."), skill("y", "Y.")];
        let pinned = |s: &Skill| s.name == "pinned";
        let u = catalog_update(&old, &new, opts(Style::Musepi), &pinned, Some((1, 2)));
        assert!(u.added.is_empty());
        assert_eq!(u.searchable, Some(2));
        assert!(
            u.message
                .ends_with("\nSkills not listed, for the skill search tool: 2 now."),
            "{}",
            u.message
        );
        assert!(catalog_update(&old, &old, opts(Style::Musepi), &pinned, Some((1, 1))).is_empty());
    }
}
