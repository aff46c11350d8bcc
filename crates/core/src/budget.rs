//! A catalogue that fits its budget (`skills.catalogBudget`, `prompt
//! --budget N`), and its layout (`skills.catalogMode`, `catalogPins`,
//! `catalogMinDescription`, `catalogPaths`).
//!
//! A budget counts the characters (Unicode scalar values) of the whole
//! catalogue text, in the profile's format. When the full catalogue fits,
//! it is the text of [`render_catalog`], byte for byte. When it does not,
//! descriptions are shortened by water-filling: one common cap, the
//! largest that fits; a description no longer than the cap is untouched,
//! a longer one is cut to at most the cap at a word boundary, ending in
//! `…`. The order never changes, and no name is dropped while the names
//! alone (every description empty) fit. Only when they do not are skills
//! left out, from the end of the pipeline order, until they do; what room
//! is left then goes to the descriptions of those kept. Everything cut is
//! reported ([`FittedCatalog`]).
//!
//! The layout ([`Layout`]) adds to that:
//! - pins: a pinned skill keeps its whole description and its place under
//!   any budget (its entry counts as fixed; when the pins alone do not
//!   fit, they stay and the text is over the budget, reported);
//! - a floor (`min_description`): when the common cap would fall below
//!   it, skills are left out from the end of the pipeline order (pins
//!   never) until the cap of the rest reaches it, instead of cutting every
//!   description to nothing;
//! - search mode: only the pinned skills are listed, followed by a fixed
//!   line saying how many more there are for the host's search tool;
//! - compact paths (pi's format, the only one that shows locations): when
//!   locations share long roots, each such root is written once in a
//!   `<skill_roots>` table and the locations under it as `r0/…`, as Codex
//!   does; the budget counts the shorter text.
//!
//! The cap counts the description's own characters, as the profile shows
//! them before escaping (pi: as written; musepi: whitespace collapsed);
//! the budget counts the text as printed, escapes included.

use std::borrow::Cow;
use std::path::{MAIN_SEPARATOR_STR, PathBuf};

use serde::{Deserialize, Serialize};
use skillpipe_types::{Skill, Text};

use crate::runtime::{
    CatalogOptions, ReadTool, Style, catalog_head, catalog_tail, collapse_whitespace, escape_xml,
    push_entry, render_catalog,
};

/// Which skills the catalogue lists (`skills.catalogMode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CatalogMode {
    /// Every visible skill (the default).
    #[default]
    List,
    /// The pinned skills, then a fixed line saying how many more skills
    /// there are, for the host's search tool to find.
    Search,
}

/// How the catalogue writes locations (`skills.catalogPaths`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CatalogPaths {
    /// Each location in full (the default: the reference hosts' text).
    #[default]
    Absolute,
    /// Long shared roots written once, locations relative to them.
    Compact,
}

/// The catalogue's layout beyond its budget (see the module's docs).
#[derive(Clone, Copy)]
pub struct Layout<'a> {
    /// Which skills are listed.
    pub mode: CatalogMode,
    /// How locations are written.
    pub paths: CatalogPaths,
    /// Whether a skill is pinned (`skills.catalogPins`).
    pub pinned: &'a dyn Fn(&Skill) -> bool,
    /// No description is cut below this many characters
    /// (`skills.catalogMinDescription`; 0: no floor).
    pub min_description: usize,
}

impl Default for Layout<'_> {
    fn default() -> Self {
        Layout {
            mode: CatalogMode::List,
            paths: CatalogPaths::Absolute,
            pinned: &unpinned,
            min_description: 0,
        }
    }
}

fn unpinned(_: &Skill) -> bool {
    false
}

/// Whether `name` matches one of the pins' name globs
/// (`skills.catalogPins`), as the name filters match.
pub fn matches_pin(pins: &[String], name: &str) -> bool {
    pins.iter().any(|g| glob_match::glob_match(g, name))
}

/// Whether a skill is pinned by `pins` ([`Layout::pinned`]). Without pins
/// it does not read the name: a large library's names lie in as many
/// buffers, and the catalogue asks of every skill.
pub fn pinned_by(pins: &[String]) -> impl Fn(&Skill) -> bool + '_ {
    move |s| !pins.is_empty() && matches_pin(pins, &s.name)
}

/// A root that compact locations are relative to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogRoot {
    /// Its name in the catalogue (`r0`, `r1`, …).
    pub name: String,
    /// The root.
    pub path: PathBuf,
}

/// A catalogue fitted to a budget, and what fitting it cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FittedCatalog {
    /// The catalogue text.
    pub text: String,
    /// The budget, in characters; `None` for no budget.
    pub budget: Option<usize>,
    /// The text's length in characters.
    pub length: usize,
    /// The common cap of the descriptions, when any was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<usize>,
    /// The descriptions shortened, in catalogue order.
    pub truncated: Vec<Truncation>,
    /// The skills left out, in catalogue order (names shared with the
    /// skills, not copied).
    pub omitted: Vec<Text>,
    /// The pinned skills listed, their descriptions whole, in catalogue
    /// order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<Text>,
    /// The floor, when keeping to it left skills out (they are among
    /// `omitted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_description: Option<usize>,
    /// Search mode: the visible skills not listed, left to the host's
    /// search tool, in pipeline order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searchable: Vec<Text>,
    /// Compact paths: the roots locations are written relative to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<CatalogRoot>,
}

impl FittedCatalog {
    /// Whether the budget cut anything.
    pub fn cut_anything(&self) -> bool {
        !self.truncated.is_empty() || !self.omitted.is_empty()
    }

    /// Whether the text is longer than the budget (the pins alone do not
    /// fit it).
    pub fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.length > b)
    }

    /// One sentence on what the budget cut, e.g. `the catalogue is over
    /// its budget of 8000 characters: 3 descriptions shortened to 41
    /// characters, 2 skills left out (a, b)`.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "the catalogue is over its budget of {} characters: ",
            self.budget.unwrap_or(0)
        );
        let mut parts = Vec::new();
        if !self.truncated.is_empty() {
            let mut part = plural(self.truncated.len(), "description", "descriptions");
            part.push_str(" shortened");
            if let Some(cap) = self.cap {
                part.push_str(&format!(" to {cap} characters"));
            }
            parts.push(part);
        }
        if !self.omitted.is_empty() {
            let mut part = format!(
                "{} left out ({})",
                plural(self.omitted.len(), "skill", "skills"),
                some_names(&self.omitted)
            );
            if let Some(floor) = self.min_description {
                part.push_str(&format!(
                    " to keep every description at {floor} characters or more"
                ));
            }
            parts.push(part);
        }
        if self.over_budget() {
            parts.push(format!(
                "the pinned descriptions keep it at {} characters",
                self.length
            ));
        }
        if parts.is_empty() {
            parts.push("nothing cut".to_owned());
        }
        out.push_str(&parts.join(", "));
        out
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first few of `names`, then how many more.
pub fn some_names(names: &[Text]) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = names.iter().take(SHOWN).map(Text::to_string).collect();
    if names.len() > SHOWN {
        shown.push(format!("and {} more", names.len() - SHOWN));
    }
    shown.join(", ")
}

/// One shortened description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// The skill.
    pub name: Text,
    /// The description's length before, in characters.
    pub from: usize,
    /// Its length after (the `…` included).
    pub to: usize,
}

impl Entry<'_> {
    /// Its description as the profile shows it, and its length.
    fn measure(&mut self, style: Style) {
        if !self.measured {
            self.description = shown(style, self.skill);
            self.len = chars(&self.description);
            self.measured = true;
        }
    }
}

/// One listed skill, measured.
struct Entry<'a> {
    skill: &'a Skill,
    /// The description as the profile shows it, before escaping.
    description: Cow<'a, str>,
    /// Its length in characters.
    len: usize,
    /// The location as the catalogue writes it, before escaping.
    location: Cow<'a, str>,
    pinned: bool,
    /// Whether `description` and `len` are set.
    measured: bool,
}

/// The catalogue of `skills` within `budget` characters (0: no budget,
/// the text of [`render_catalog`]). `rank` gives a skill's place in the
/// pipeline order (providers by priority, then custom directories, then
/// managed skills): when the names alone do not fit, the highest ranks
/// are left out first, and among equal ranks the later in the list.
pub fn fit_catalog(
    skills: &[Skill],
    opts: CatalogOptions,
    budget: usize,
    rank: &dyn Fn(&Skill) -> usize,
) -> FittedCatalog {
    fit_catalog_with(skills, opts, budget, rank, &Layout::default())
}

/// [`fit_catalog`] with a [`Layout`]: pins, a floor, search mode, compact
/// paths. With the default layout it is [`fit_catalog`].
pub fn fit_catalog_with(
    skills: &[Skill],
    opts: CatalogOptions,
    budget: usize,
    rank: &dyn Fn(&Skill) -> usize,
    layout: &Layout<'_>,
) -> FittedCatalog {
    let mut fitted = FittedCatalog {
        text: String::new(),
        budget: (budget > 0).then_some(budget),
        length: 0,
        cap: None,
        truncated: Vec::new(),
        omitted: Vec::new(),
        pinned: Vec::new(),
        min_description: None,
        searchable: Vec::new(),
        roots: Vec::new(),
    };
    let visible: Vec<&Skill> = skills.iter().filter(|s| !s.hidden).collect();
    if opts.read_tool == ReadTool::Absent || visible.is_empty() {
        return fitted;
    }
    let plain = layout.mode == CatalogMode::List
        && (layout.paths == CatalogPaths::Absolute || opts.style == Style::Musepi);
    if budget == 0 && plain {
        fitted.text = render_catalog(skills, opts);
        fitted.length = chars(&fitted.text);
        fitted.pinned = visible
            .iter()
            .filter(|s| (layout.pinned)(s))
            .map(|s| s.name.clone())
            .collect();
        return fitted;
    }
    let style = opts.style;
    let pins: Vec<bool> = visible.iter().map(|s| (layout.pinned)(s)).collect();
    let mut listed: Vec<(&Skill, bool)> = Vec::with_capacity(visible.len());
    for (s, &pinned) in visible.iter().zip(&pins) {
        if layout.mode == CatalogMode::List || pinned {
            listed.push((s, pinned));
        } else {
            fitted.searchable.push(s.name.clone());
        }
    }
    let (locations, roots) = locate(style, &listed, layout.paths);
    let head = head(style, &roots);
    let tail = catalog_tail(style);
    let note = search_note(style, fitted.searchable.len());
    fitted.roots = roots;
    // Descriptions are measured when needed: the pins' now, the others'
    // once it is known which are kept (a large library keeps few).
    let mut entries: Vec<Entry<'_>> = listed
        .iter()
        .zip(locations)
        .map(|(&(s, pinned), location)| {
            let mut e = Entry {
                skill: s,
                description: Cow::Borrowed(""),
                len: 0,
                location,
                pinned,
                measured: false,
            };
            if pinned {
                e.measure(style);
            }
            e
        })
        .collect();
    fitted.pinned = entries
        .iter()
        .filter(|e| e.pinned)
        .map(|e| e.skill.name.clone())
        .collect();
    if budget == 0 {
        entries.iter_mut().for_each(|e| e.measure(style));
        let kept = vec![true; entries.len()];
        fitted.text = render(style, &head, tail, &note, &entries, &kept, None).0;
        fitted.length = chars(&fitted.text);
        return fitted;
    }

    // What no cap shortens: the frame of each entry, its name and
    // location, and a pinned description.
    let bare = entry_frame(style);
    let fixed_of = |e: &Entry<'_>| {
        let pinned = if e.pinned {
            described_len(style, &e.description)
        } else {
            0
        };
        bare + fixed_len(style, e) + pinned
    };
    // Left out, when the names alone do not fit: by rank, the last first,
    // pins never. Each rank is computed once; the order is (rank, place).
    let mut order: Vec<(usize, usize)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.pinned)
        .map(|(i, e)| (rank(e.skill), i))
        .collect();
    order.sort_unstable();
    // The pins and the frame, then the others in that order while their
    // names fit: the longest run that fits is what leaving out the last
    // until the rest fit keeps, and the names of the skills left out
    // (most of a large library) are never measured.
    let mut fixed = vec![0; entries.len()];
    let mut kept = vec![false; entries.len()];
    let mut names = chars(&head) + chars(tail) + chars(&note);
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.pinned) {
        if let (Some(f), Some(k)) = (fixed.get_mut(i), kept.get_mut(i)) {
            *f = fixed_of(e);
            *k = true;
            names += *f;
        }
    }
    let mut taken = 0;
    for &(_, i) in &order {
        let (Some(e), Some(f), Some(k)) = (entries.get(i), fixed.get_mut(i), kept.get_mut(i))
        else {
            continue;
        };
        let len = fixed_of(e);
        if names + len > budget {
            break;
        }
        names += len;
        *f = len;
        *k = true;
        taken += 1;
    }
    let dropped = order.len() - taken;
    let none_kept = dropped > 0 && kept.iter().all(|k| !k);
    if (names > budget || none_kept) && !entries.iter().any(|e| e.pinned) {
        // Not even the frame and one entry fit: the empty catalogue.
        fitted.omitted = visible.iter().map(|s| s.name.clone()).collect();
        fitted.searchable.clear();
        fitted.roots.clear();
        return fitted;
    }
    for (e, _) in entries.iter_mut().zip(&kept).filter(|(_, k)| **k) {
        e.measure(style);
    }
    let entries = entries;
    let room = budget.saturating_sub(names);
    let cuttable = |kept: &[bool]| -> Vec<&Entry<'_>> {
        entries
            .iter()
            .zip(kept)
            .filter(|(e, k)| **k && !e.pinned)
            .map(|(e, _)| e)
            .collect()
    };
    let full = |list: &[&Entry<'_>]| -> usize {
        list.iter()
            .map(|e| described_len(style, &e.description))
            .sum()
    };
    let cap_for = |list: &[&Entry<'_>], room: usize| -> Option<usize> {
        (full(list) > room).then(|| largest_cap(style, list, room))
    };
    let mut cap = cap_for(&cuttable(&kept), room);
    if dropped == 0 && cap.is_none() && plain {
        // The full text fits: the plain renderer's, byte for byte.
        fitted.text = render_catalog(skills, opts);
        fitted.length = chars(&fitted.text);
        return fitted;
    }

    // The floor: rather than a cap below it, leave out more skills from
    // the end, the fewest that lift the cap of the rest to it (dropping
    // more never lowers the cap, so the search halves).
    let floor = layout.min_description;
    if cap.is_some_and(|c| c < floor) {
        // The skills kept and not pinned, the last first.
        let rest: Vec<usize> = order.iter().take(taken).rev().map(|&(_, i)| i).collect();
        let with_out = |k: usize| -> (Vec<bool>, usize) {
            let mut kept = kept.clone();
            let mut room = room;
            for &i in rest.iter().take(k) {
                if let Some(x) = kept.get_mut(i) {
                    *x = false;
                }
                room += fixed.get(i).copied().unwrap_or(0);
            }
            (kept, room)
        };
        let meets = |k: usize| {
            let (kept, room) = with_out(k);
            cap_for(&cuttable(&kept), room).is_none_or(|c| c >= floor)
        };
        let (mut lo, mut hi) = (1, rest.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if meets(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let (fewer, room) = with_out(lo);
        kept = fewer;
        cap = cap_for(&cuttable(&kept), room);
        fitted.min_description = Some(floor);
    }

    let (text, truncated) = render(style, &head, tail, &note, &entries, &kept, cap);
    fitted.length = chars(&text);
    fitted.text = text;
    fitted.cap = cap;
    fitted.truncated = truncated;
    // Counted first: a large library leaves out thousands, and a list
    // grown as it goes moves them again at each doubling.
    fitted.omitted = Vec::with_capacity(kept.iter().filter(|k| !**k).count());
    fitted.omitted.extend(
        entries
            .iter()
            .zip(&kept)
            .filter(|(_, k)| !**k)
            .map(|(e, _)| e.skill.name.clone()),
    );
    fitted
}

/// The text of the entries kept, descriptions not pinned cut to `cap`,
/// and the descriptions that were cut.
fn render(
    style: Style,
    head: &str,
    tail: &str,
    note: &str,
    entries: &[Entry<'_>],
    kept: &[bool],
    cap: Option<usize>,
) -> (String, Vec<Truncation>) {
    let mut text = String::new();
    let mut truncated = Vec::new();
    text.push_str(head);
    for (e, _) in entries.iter().zip(kept).filter(|(_, k)| **k) {
        let description = match cap {
            Some(cap) if !e.pinned && e.len > cap => {
                let cut = cut(&e.description, cap);
                truncated.push(Truncation {
                    name: e.skill.name.clone(),
                    from: e.len,
                    to: chars(&cut),
                });
                Cow::Owned(cut)
            }
            _ => Cow::Borrowed(e.description.as_ref()),
        };
        push_entry(&mut text, style, &e.skill.name, &description, &e.location);
    }
    text.push_str(tail);
    text.push_str(note);
    (text, truncated)
}

/// The line after a search-mode catalogue: how many skills it does not
/// list, and how to find them (none when it lists them all).
fn search_note(style: Style, more: usize) -> String {
    if more == 0 {
        return String::new();
    }
    let count = plural(more, "more skill is", "more skills are");
    match style {
        Style::Musepi => format!(
            "\n{count} not listed: search for the task with the skill search tool, then read the match's `skill://<name>` first."
        ),
        Style::Pi => format!(
            "\n{count} not listed: search for the task with the skill search tool, then read the matching skill's file."
        ),
    }
}

/// pi's sentence on compact locations, after its preamble.
const ROOTS_NOTE: &str = "\nA location that starts with a root name (r0, r1, …) is relative to that root, listed in <skill_roots>: join the two for the absolute path.";

/// The catalogue's text before its first entry, with the roots table of
/// compact locations (pi) when there are roots.
fn head(style: Style, roots: &[CatalogRoot]) -> Cow<'static, str> {
    let plain = catalog_head(style);
    let list = "\n\n<available_skills>";
    match (style, plain.strip_suffix(list)) {
        (Style::Pi, Some(preamble)) if !roots.is_empty() => {
            let mut out = String::from(preamble);
            out.push_str(ROOTS_NOTE);
            out.push_str("\n\n<skill_roots>");
            for r in roots {
                push_root_line(&mut out, &r.name, &r.path.to_string_lossy());
            }
            out.push_str("\n</skill_roots>");
            out.push_str(list);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(plain),
    }
}

fn push_root_line(out: &mut String, name: &str, path: &str) {
    out.push_str("\n  <root name=\"");
    out.push_str(name);
    out.push_str("\">");
    out.push_str(&escape_xml(path));
    out.push_str("</root>");
}

/// Each listed skill's location as the catalogue writes it, and the roots
/// of compact locations. A root is used only when writing it once saves
/// more than its line costs, and compact locations only when the roots
/// together save more than the table and its sentence cost; a skill
/// whose file is not under its source's root keeps its full location.
fn locate<'a>(
    style: Style,
    listed: &[(&'a Skill, bool)],
    paths: CatalogPaths,
) -> (Vec<Cow<'a, str>>, Vec<CatalogRoot>) {
    if style != Style::Pi {
        // A musepi entry names no location (`skill://<name>` finds it).
        return (vec![Cow::Borrowed(""); listed.len()], Vec::new());
    }
    let mut locations: Vec<Cow<'a, str>> = listed
        .iter()
        .map(|(s, _)| {
            // Checked as UTF-8 at once (the lossy form goes piece by piece).
            let path = s.file_path.as_os_str();
            path.to_str()
                .map_or_else(|| path.to_string_lossy(), Cow::Borrowed)
        })
        .collect();
    if paths == CatalogPaths::Absolute {
        return (locations, Vec::new());
    }
    // The roots, in order of first use, each with its skills' relative
    // locations.
    let mut groups: Vec<(PathBuf, Vec<(usize, String)>)> = Vec::new();
    for (i, (s, _)) in listed.iter().enumerate() {
        let Some(root) = s.source.root.as_deref() else {
            continue;
        };
        let Ok(rel) = s.file_path.strip_prefix(root) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let rel = rel.to_string_lossy().into_owned();
        match groups.iter_mut().find(|(r, _)| r == root) {
            Some((_, list)) => list.push((i, rel)),
            None => groups.push((root.to_path_buf(), vec![(i, rel)])),
        }
    }
    let mut roots = Vec::new();
    let mut aliased: Vec<(usize, String)> = Vec::new();
    let mut saved = 0usize;
    for (root, list) in groups {
        let name = format!("r{}", roots.len());
        let mut line = String::new();
        push_root_line(&mut line, &name, &root.to_string_lossy());
        let cost = chars(&line);
        let mut gain = 0usize;
        let written: Vec<(usize, String)> = list
            .into_iter()
            .map(|(i, rel)| {
                let short = format!("{name}{MAIN_SEPARATOR_STR}{rel}");
                let long = locations.get(i).map_or(0, |l| escaped_len(l));
                gain += long.saturating_sub(escaped_len(&short));
                (i, short)
            })
            .collect();
        if gain > cost {
            saved += gain - cost;
            aliased.extend(written);
            roots.push(CatalogRoot { name, path: root });
        }
    }
    let overhead = chars(ROOTS_NOTE) + chars("\n\n<skill_roots>\n</skill_roots>");
    if saved <= overhead {
        return (locations, Vec::new());
    }
    for (i, short) in aliased {
        if let Some(l) = locations.get_mut(i) {
            *l = Cow::Owned(short);
        }
    }
    (locations, roots)
}

/// The largest cap whose descriptions fit in `room` characters. The
/// length of a cut description never falls as the cap grows, so the
/// search halves; cap 0 (every description empty) always fits.
fn largest_cap(style: Style, entries: &[&Entry<'_>], room: usize) -> usize {
    // Descriptions by length: those no longer than a cap count whole,
    // from a running sum; only the longer ones are cut to measure.
    let mut by_len: Vec<&Entry<'_>> = entries.to_vec();
    by_len.sort_by_key(|e| e.len);
    let mut sums = Vec::with_capacity(by_len.len() + 1);
    sums.push(0usize);
    for e in &by_len {
        let last = sums.last().copied().unwrap_or(0);
        sums.push(last + described_len(style, &e.description));
    }
    let fits = |cap: usize| {
        let short = by_len.partition_point(|e| e.len <= cap);
        let mut total = sums.get(short).copied().unwrap_or(0);
        for e in by_len.get(short..).unwrap_or_default() {
            total += described_len(style, &cut(&e.description, cap));
            if total > room {
                return false;
            }
        }
        total <= room
    };
    let (mut lo, mut hi) = (0, by_len.last().map_or(0, |e| e.len));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The description as the profile shows it, before escaping.
pub(crate) fn shown<'a>(style: Style, s: &'a Skill) -> Cow<'a, str> {
    match style {
        // `skills.visibility` "name-only": listed without it.
        _ if s.visibility == skillpipe_types::Visibility::NameOnly => Cow::Borrowed(""),
        Style::Pi => Cow::Borrowed(&s.description),
        Style::Musepi => Cow::Owned(collapse_whitespace(&s.description)),
    }
}

/// `text` cut to at most `cap` characters: whole when it fits; else the
/// longest run of whole words that leaves room for `…` (a first word too
/// long for it is cut inside), trailing whitespace dropped, then `…`.
pub fn cut(text: &str, cap: usize) -> String {
    if text.chars().nth(cap).is_none() {
        return text.to_owned();
    }
    if cap == 0 {
        return String::new();
    }
    let keep = text
        .char_indices()
        .nth(cap - 1)
        .map_or(text.len(), |(i, _)| i);
    let (prefix, rest) = text.split_at(keep);
    let at_boundary =
        rest.starts_with(char::is_whitespace) || prefix.ends_with(char::is_whitespace);
    let words = if at_boundary {
        prefix
    } else {
        prefix
            .rfind(char::is_whitespace)
            .map_or("", |i| prefix.get(..i).unwrap_or(""))
    };
    let mut body = words.trim_end();
    if body.is_empty() {
        body = prefix.trim_end();
    }
    let mut out = String::with_capacity(body.len() + 3);
    out.push_str(body);
    out.push('…');
    out
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The characters of an entry with an empty name, description and
/// location.
fn entry_frame(style: Style) -> usize {
    let mut out = String::new();
    push_entry(&mut out, style, "", "", "");
    chars(&out)
}

/// The characters an entry's name and location add to it.
fn fixed_len(style: Style, e: &Entry<'_>) -> usize {
    match style {
        Style::Pi => escaped_len(&e.skill.name) + escaped_len(&e.location),
        Style::Musepi => chars(&e.skill.name),
    }
}

/// The characters a shown description takes in its entry.
fn described_len(style: Style, description: &str) -> usize {
    match style {
        Style::Pi => escaped_len(description),
        // `‹`/`›` replace `<`/`>` one for one; a space before a non-empty one.
        Style::Musepi if description.is_empty() => 0,
        Style::Musepi => 1 + chars(description),
    }
}

/// The length of `escape_xml(s)`, in characters: its characters, plus
/// what each escape adds (all five are ASCII, so bytes tell; this runs
/// over every path of a large catalogue).
fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| usize::from(ESCAPED_LEN[usize::from(b)]))
        .sum()
}

/// What a byte adds to [`escaped_len`]: a character unless it continues
/// one (`0b10xx_xxxx`), and what its escape adds.
const ESCAPED_LEN: [u8; 256] = {
    let mut len = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let starts = (b & 0xC0 != 0x80) as u8;
        let extra = match b as u8 {
            b'&' => 4,
            b'<' | b'>' => 3,
            b'"' | b'\'' => 5,
            _ => 0,
        };
        len[b] = starts + extra;
        b += 1;
    }
    len
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    use proptest::prelude::*;
    use skillpipe_types::{Level, Source};

    fn skill(name: &str, description: &str, provider: &str, hidden: bool) -> Skill {
        Skill {
            name: name.to_owned().into(),
            description: description.to_owned().into(),
            file_path: PathBuf::from(format!("/s/{provider}/{name}/SKILL.md")).into(),
            base_dir: PathBuf::from(format!("/s/{provider}/{name}")).into(),
            source: Arc::new(Source {
                provider: provider.to_owned(),
                level: Level::User,
                root: None,
            }),
            hidden,
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

    /// Rank by the provider's digit (`p0` first).
    fn rank(s: &Skill) -> usize {
        s.source
            .provider
            .trim_start_matches('p')
            .parse()
            .unwrap_or(0)
    }

    /// The catalogue with every visible description cut to `cap` (as the
    /// profile shows it), through the plain renderer: what a fitted
    /// catalogue with that cap must be, byte for byte.
    fn rendered_with_cap(skills: &[Skill], style: Style, cap: usize) -> String {
        let cut_skills: Vec<Skill> = skills
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.description = cut(&shown(style, &s), cap).into();
                s
            })
            .collect();
        render_catalog(&cut_skills, opts(style))
    }

    fn names_only(skills: &[Skill], style: Style) -> usize {
        chars(&rendered_with_cap(skills, style, 0))
    }

    fn arb_style() -> impl Strategy<Value = Style> {
        prop_oneof![Just(Style::Pi), Just(Style::Musepi)]
    }

    /// Descriptions of words (some long, some with characters that are
    /// escaped or replaced, some multi-byte) and assorted whitespace.
    fn arb_description() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            "[a-z]{1,8}",
            "[a-zé]{9,30}",
            Just("<b>".to_owned()),
            Just("R&D".to_owned()),
            Just("\"q\"".to_owned()),
            Just("it's".to_owned()),
            Just("日本語".to_owned()),
        ];
        let gap = prop_oneof![Just(" "), Just("  "), Just("\n"), Just("\t ")];
        prop::collection::vec((word, gap), 0..25).prop_map(|parts| {
            let mut out = String::new();
            for (w, g) in parts {
                out.push_str(&w);
                out.push_str(g);
            }
            out.trim_end().to_owned()
        })
    }

    fn arb_skills() -> impl Strategy<Value = Vec<Skill>> {
        prop::collection::vec(
            (
                "[a-z][a-z0-9-]{0,11}",
                arb_description(),
                0..4usize,
                prop::bool::weighted(0.1),
            ),
            0..14,
        )
        .prop_map(|list| {
            // Names are unique after discovery.
            let mut seen = std::collections::HashSet::new();
            list.into_iter()
                .filter(|(n, ..)| seen.insert(n.clone()))
                .map(|(n, d, p, h)| skill(&n, &d, &format!("p{p}"), h))
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn a_budget_the_full_text_fits_changes_nothing(
            skills in arb_skills(),
            style in arb_style(),
            extra in 0..50usize,
        ) {
            let full = render_catalog(&skills, opts(style));
            let budget = chars(&full) + extra;
            prop_assume!(budget > 0);
            let fitted = fit_catalog(&skills, opts(style), budget, &rank);
            prop_assert_eq!(&fitted.text, &full);
            prop_assert!(!fitted.cut_anything());
            prop_assert_eq!(fitted.cap, None);
            // No budget: the same text.
            let unlimited = fit_catalog(&skills, opts(style), 0, &rank);
            prop_assert_eq!(&unlimited.text, &full);
            prop_assert_eq!(unlimited.budget, None);
        }

        #[test]
        fn while_names_fit_every_name_stays_and_the_text_fits(
            skills in arb_skills(),
            style in arb_style(),
            slack in 0..400usize,
        ) {
            let names = names_only(&skills, style);
            let budget = names + slack;
            prop_assume!(budget > 0);
            let fitted = fit_catalog(&skills, opts(style), budget, &rank);
            prop_assert!(fitted.length <= budget, "{} > {budget}", fitted.length);
            prop_assert_eq!(fitted.length, chars(&fitted.text));
            prop_assert!(fitted.omitted.is_empty());
            // Every visible name, in order, in the profile's own format and
            // escaping: the plain renderer's text for the common cap.
            match fitted.cap {
                None => prop_assert_eq!(&fitted.text, &render_catalog(&skills, opts(style))),
                Some(cap) => {
                    prop_assert_eq!(&fitted.text, &rendered_with_cap(&skills, style, cap));
                    // The cap is the largest that fits.
                    let wider = rendered_with_cap(&skills, style, cap + 1);
                    prop_assert!(chars(&wider) > budget, "cap {} fits too", cap + 1);
                    // Exactly the descriptions over the cap were cut.
                    let over: Vec<&str> = skills
                        .iter()
                        .filter(|s| !s.hidden && chars(&shown(style, s)) > cap)
                        .map(|s| s.name.as_str())
                        .collect();
                    let cut_names: Vec<&str> =
                        fitted.truncated.iter().map(|t| t.name.as_str()).collect();
                    prop_assert_eq!(cut_names, over);
                    for t in &fitted.truncated {
                        prop_assert!(t.to <= cap && t.from > cap);
                    }
                }
            }
        }

        #[test]
        fn when_names_do_not_fit_the_last_in_pipeline_order_go_first(
            skills in arb_skills(),
            style in arb_style(),
            short in 1..200usize,
        ) {
            let names = names_only(&skills, style);
            prop_assume!(names > short);
            let budget = names - short;
            let fitted = fit_catalog(&skills, opts(style), budget, &rank);
            prop_assert!(fitted.length <= budget);
            prop_assert!(!fitted.omitted.is_empty());
            let visible: Vec<(usize, &Skill)> =
                skills.iter().filter(|s| !s.hidden).enumerate().collect();
            let key = |i: usize, s: &Skill| (rank(s), i);
            let (out, kept): (Vec<_>, Vec<_>) = visible
                .iter()
                .partition(|(_, s)| fitted.omitted.contains(&s.name));
            if let (Some(first_out), Some(last_kept)) = (
                out.iter().map(|(i, s)| key(*i, s)).min(),
                kept.iter().map(|(i, s)| key(*i, s)).max(),
            ) {
                prop_assert!(first_out > last_kept);
            }
            // The kept ones, in their order, with their cut descriptions.
            if !kept.is_empty() {
                let kept_skills: Vec<Skill> = kept.iter().map(|(_, s)| (*s).clone()).collect();
                let expected = match fitted.cap {
                    None => render_catalog(&kept_skills, opts(style)),
                    Some(cap) => rendered_with_cap(&kept_skills, style, cap),
                };
                prop_assert_eq!(&fitted.text, &expected);
                // One fewer left out would not fit.
                let mut one_more = kept_skills.clone();
                if let Some((_, back)) = out.iter().min_by_key(|(i, s)| key(*i, s)) {
                    one_more.push((*back).clone());
                    one_more.sort_by_key(|s| {
                        visible.iter().position(|(_, v)| v.name == s.name && v.file_path == s.file_path)
                    });
                    prop_assert!(names_only(&one_more, style) > budget);
                }
            } else {
                prop_assert_eq!(&fitted.text, "");
            }
        }

        #[test]
        fn a_cut_text_is_a_word_prefix_within_the_cap(
            text in arb_description(),
            cap in 0..80usize,
        ) {
            let out = cut(&text, cap);
            if chars(&text) <= cap {
                prop_assert_eq!(out, text);
            } else if cap == 0 {
                prop_assert_eq!(out, "");
            } else {
                prop_assert!(chars(&out) <= cap);
                let body = out.strip_suffix('…').unwrap_or_else(|| panic!("{out:?}"));
                prop_assert!(text.starts_with(body));
                prop_assert_eq!(body, body.trim_end());
                // A body ends where a word does, unless the first word alone
                // is too long (then the cut is inside it).
                let rest = &text[body.len()..];
                let inside_first_word = !body.contains(char::is_whitespace)
                    && !rest.starts_with(char::is_whitespace);
                prop_assert!(
                    rest.starts_with(char::is_whitespace) || inside_first_word,
                    "{text:?} -> {out:?}"
                );
            }
        }
    }

    #[test]
    fn water_filling_leaves_the_short_descriptions_alone() {
        let skills = [
            skill("a", "short one", "p0", false),
            skill("b", &"long words here ".repeat(10), "p0", false),
            skill("c", &"more long words ".repeat(20), "p1", false),
            skill("secret", &"hidden ".repeat(100), "p1", true),
        ];
        let full = render_catalog(&skills, opts(Style::Musepi));
        let budget = chars(&full) - 200;
        let fitted = fit_catalog(&skills, opts(Style::Musepi), budget, &rank);
        assert!(fitted.length <= budget);
        assert!(fitted.text.contains("- a: short one\n"), "{}", fitted.text);
        assert!(!fitted.text.contains("secret"));
        let cap = fitted.cap.unwrap();
        let cut: Vec<(&str, usize, usize)> = fitted
            .truncated
            .iter()
            .map(|t| (t.name.as_str(), t.from, t.to))
            .collect();
        assert_eq!(cut.len(), 2, "{cut:?}");
        assert!(cut.iter().all(|(_, from, to)| *from > cap && *to <= cap));
        assert!(fitted.text.contains('…'));
        let json = serde_json::to_value(&fitted).unwrap();
        for key in ["text", "budget", "length", "truncated", "omitted"] {
            assert!(json.get(key).is_some(), "{key}: {json}");
        }
        assert_eq!(json["truncated"][0]["name"], "b");
        assert!(fitted.summary().contains("2 descriptions shortened"));
    }

    #[test]
    fn pi_escapes_count_against_the_budget() {
        let skills = [skill("x", &"a&b ".repeat(30), "p0", false)];
        let full = render_catalog(&skills, opts(Style::Pi));
        let budget = chars(&full) - 40;
        let fitted = fit_catalog(&skills, opts(Style::Pi), budget, &rank);
        assert!(fitted.length <= budget);
        assert!(fitted.text.contains("a&amp;b a&amp;b"), "{}", fitted.text);
        assert!(fitted.text.contains("…</description>"), "{}", fitted.text);
    }

    #[test]
    fn escaped_lengths_are_the_escaped_texts() {
        for s in ["", "plain", "a&b<c>d\"e'f", "é&日本<", "&&&''\"\""] {
            assert_eq!(
                escaped_len(s),
                chars(&crate::runtime::escape_xml(s)),
                "{s:?}"
            );
        }
    }

    #[test]
    fn without_room_for_the_frame_the_catalogue_is_empty() {
        let skills = [skill("x", "d", "p0", false), skill("y", "d", "p1", false)];
        let fitted = fit_catalog(&skills, opts(Style::Musepi), 10, &rank);
        assert_eq!(fitted.text, "");
        assert_eq!(fitted.omitted, ["x", "y"]);
        assert!(fitted.summary().contains("2 skills left out (x, y)"));
    }

    fn layout<'a>(pinned: &'a dyn Fn(&Skill) -> bool) -> Layout<'a> {
        Layout {
            pinned,
            ..Layout::default()
        }
    }

    fn rooted(name: &str, root: &str, description: &str) -> Skill {
        let mut s = skill(name, description, "p0", false);
        s.file_path = PathBuf::from(format!("{root}/{name}/SKILL.md")).into();
        s.base_dir = PathBuf::from(format!("{root}/{name}")).into();
        s.source = Arc::new(Source {
            provider: "p0".to_owned(),
            level: Level::User,
            root: Some(PathBuf::from(root)),
        });
        s
    }

    #[test]
    fn a_skill_is_pinned_by_a_glob_of_the_pins_only() {
        let pdf = skill("pdf-forms", "Fills PDF forms.", "p0", false);
        let none: Vec<String> = Vec::new();
        assert!(!pinned_by(&none)(&pdf));
        assert!(pinned_by(&["pdf-*".to_owned()])(&pdf));
        assert!(pinned_by(&["docx".to_owned(), "pdf-forms".to_owned()])(
            &pdf
        ));
        assert!(!pinned_by(&["pdf".to_owned()])(&pdf));
    }

    #[test]
    fn pins_keep_their_whole_description_and_their_place() {
        for style in [Style::Musepi, Style::Pi] {
            let long = "words of a long description ".repeat(8);
            let skills = [
                skill("a", &long, "p0", false),
                skill("keep-me", &long, "p1", false),
                skill("c", &long, "p1", false),
            ];
            let is_pin = |s: &Skill| glob_match::glob_match("keep-*", &s.name);
            let full = render_catalog(&skills, opts(style));
            let budget = chars(&full) - 200;
            let fitted = fit_catalog_with(&skills, opts(style), budget, &rank, &layout(&is_pin));
            assert!(fitted.length <= budget, "{style:?}");
            assert_eq!(fitted.pinned, ["keep-me"]);
            assert!(
                fitted.text.contains(long.trim_end()),
                "{style:?}: the pin cut"
            );
            let cut: Vec<&str> = fitted.truncated.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(cut, ["a", "c"], "{style:?}");
            // A budget the pins alone overflow: they stay, the rest go,
            // and the report says so.
            let tiny = fit_catalog_with(&skills, opts(style), 50, &rank, &layout(&is_pin));
            assert_eq!(tiny.omitted, ["a", "c"], "{style:?}");
            assert!(tiny.text.contains("keep-me") && tiny.text.contains(long.trim_end()));
            assert!(tiny.over_budget());
            assert!(
                tiny.summary().contains("pinned descriptions keep it at"),
                "{}",
                tiny.summary()
            );
            // Without pins the same budget cuts "keep-me" like the others.
            let none = fit_catalog(&skills, opts(style), budget, &rank);
            assert_eq!(none.truncated.len(), 3, "{style:?}");
        }
    }

    #[test]
    fn below_the_floor_skills_go_from_the_end_instead() {
        for style in [Style::Musepi, Style::Pi] {
            let skills: Vec<Skill> = (0..6)
                .map(|i| {
                    skill(
                        &format!("s{i}"),
                        &"a fairly long description ".repeat(4),
                        &format!("p{i}"),
                        false,
                    )
                })
                .collect();
            let names = names_only(&skills, style);
            // Room for about ten characters of description each.
            let budget = names + 6 * 12;
            let plain = fit_catalog(&skills, opts(style), budget, &rank);
            assert!(
                plain.cap.is_some_and(|c| c < 40),
                "{style:?}: {:?}",
                plain.cap
            );
            assert!(plain.omitted.is_empty());
            let floor = Layout {
                min_description: 40,
                ..Layout::default()
            };
            let fitted = fit_catalog_with(&skills, opts(style), budget, &rank, &floor);
            assert!(fitted.length <= budget, "{style:?}");
            assert!(
                fitted.cap.is_none_or(|c| c >= 40),
                "{style:?}: {:?}",
                fitted.cap
            );
            assert!(!fitted.omitted.is_empty(), "{style:?}");
            assert_eq!(fitted.min_description, Some(40));
            // Left out from the end of the pipeline order, and the fewest:
            // one more skill back would bring the cap under the floor.
            let n = fitted.omitted.len();
            let expected: Vec<String> = (6 - n..6).map(|i| format!("s{i}")).collect();
            assert_eq!(fitted.omitted, expected, "{style:?}");
            let one_more = fit_catalog(&skills[..7 - n], opts(style), budget, &rank);
            assert!(one_more.cap.is_some_and(|c| c < 40), "{style:?}");
            assert!(
                fitted.summary().contains("at 40 characters or more"),
                "{}",
                fitted.summary()
            );
        }
    }

    #[test]
    fn search_mode_lists_the_pins_and_says_how_many_more() {
        let skills = [
            skill("alpha", "First.", "p0", false),
            skill("beta", "Second.", "p0", false),
            skill("gamma", "Third.", "p0", false),
            skill("quiet", "Hidden.", "p0", true),
        ];
        let is_pin = |s: &Skill| s.name == "beta";
        let search = Layout {
            mode: CatalogMode::Search,
            pinned: &is_pin,
            ..Layout::default()
        };
        let musepi = fit_catalog_with(&skills, opts(Style::Musepi), 0, &rank, &search);
        assert_eq!(
            musepi.text,
            "# Skills & Rules\nMatching skill → MUST read `skill://<name>` first.\n<skills>\n- beta: Second.\n</skills>\n2 more skills are not listed: search for the task with the skill search tool, then read the match's `skill://<name>` first."
        );
        assert_eq!(musepi.searchable, ["alpha", "gamma"]);
        let pi = fit_catalog_with(&skills, opts(Style::Pi), 0, &rank, &search);
        assert!(
            pi.text.contains("<name>beta</name>") && !pi.text.contains("alpha"),
            "{}",
            pi.text
        );
        assert!(pi.text.ends_with("</available_skills>\n2 more skills are not listed: search for the task with the skill search tool, then read the matching skill's file."), "{}", pi.text);
        // The line counts against a budget; everything pinned: no line.
        let budget = musepi.length;
        assert_eq!(
            fit_catalog_with(&skills, opts(Style::Musepi), budget, &rank, &search).text,
            musepi.text
        );
        let all = Layout {
            mode: CatalogMode::Search,
            pinned: &|_| true,
            ..Layout::default()
        };
        let every = fit_catalog_with(&skills, opts(Style::Musepi), 0, &rank, &all);
        assert_eq!(every.text, render_catalog(&skills, opts(Style::Musepi)));
        // No read tool: nothing at all.
        let none = CatalogOptions {
            style: Style::Pi,
            read_tool: ReadTool::Absent,
        };
        assert_eq!(fit_catalog_with(&skills, none, 0, &rank, &search).text, "");
    }

    #[test]
    fn compact_paths_write_long_roots_once() {
        let root = "/home/someone/projects/a-rather-long-checkout/.pi/skills";
        let skills: Vec<Skill> = ["pdf", "docx", "xlsx", "pptx", "csv", "html", "svg", "epub"]
            .iter()
            .map(|n| rooted(n, root, "Files."))
            .chain([skill("lone", "No root.", "p0", false)])
            .collect();
        let compact = Layout {
            paths: CatalogPaths::Compact,
            ..Layout::default()
        };
        let full = render_catalog(&skills, opts(Style::Pi));
        let fitted = fit_catalog_with(&skills, opts(Style::Pi), 0, &rank, &compact);
        assert!(fitted.length < chars(&full), "{}", fitted.text);
        assert_eq!(
            fitted.roots,
            [CatalogRoot {
                name: "r0".into(),
                path: root.into()
            }]
        );
        assert!(
            fitted.text.contains(&format!(
                "<skill_roots>\n  <root name=\"r0\">{root}</root>\n</skill_roots>"
            )),
            "{}",
            fitted.text
        );
        assert!(
            fitted.text.contains(&format!(
                "<location>r0{MAIN_SEPARATOR_STR}pdf/SKILL.md</location>"
            )),
            "{}",
            fitted.text
        );
        assert!(
            fitted
                .text
                .contains("<location>/s/p0/lone/SKILL.md</location>")
        );
        // Every location leads back to the file.
        for s in &skills {
            let written = fitted.roots.iter().find_map(|r| {
                let rel = s.file_path.strip_prefix(&r.path).ok()?;
                Some(format!("{}{MAIN_SEPARATOR_STR}{}", r.name, rel.display()))
            });
            let location = written.unwrap_or_else(|| s.file_path.display().to_string());
            assert!(
                fitted
                    .text
                    .contains(&format!("<location>{location}</location>")),
                "{location}"
            );
        }
        // The budget counts the shorter text: one that the compact text
        // fits, the absolute one would not.
        let budget = fitted.length;
        assert!(chars(&full) > budget);
        let fits = fit_catalog_with(&skills, opts(Style::Pi), budget, &rank, &compact);
        assert_eq!(fits.text, fitted.text);
        assert!(!fits.cut_anything());
        // Short roots are not worth a table; musepi names no paths.
        let short: Vec<Skill> = ["pdf"].iter().map(|n| rooted(n, "/s", "Files.")).collect();
        assert_eq!(
            fit_catalog_with(&short, opts(Style::Pi), 0, &rank, &compact).text,
            render_catalog(&short, opts(Style::Pi))
        );
        assert_eq!(
            fit_catalog_with(&skills, opts(Style::Musepi), 0, &rank, &compact).text,
            render_catalog(&skills, opts(Style::Musepi))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any layout: pins whole and never left out, the text within the
        /// budget unless the pins alone overflow it, the cap at the floor
        /// or above, and the report true to the text.
        #[test]
        fn any_layout_keeps_its_promises(
            skills in arb_skills(),
            style in arb_style(),
            pins in prop::collection::vec(any::<bool>(), 14),
            floor in prop_oneof![Just(0usize), 1..60usize],
            search in any::<bool>(),
            compact in any::<bool>(),
            budget in 0..1500usize,
        ) {
            let is_pin = |s: &Skill| {
                skills.iter().position(|x| x.name == s.name).is_some_and(|i| pins[i])
            };
            let layout = Layout {
                mode: if search { CatalogMode::Search } else { CatalogMode::List },
                paths: if compact { CatalogPaths::Compact } else { CatalogPaths::Absolute },
                pinned: &is_pin,
                min_description: floor,
            };
            let fitted = fit_catalog_with(&skills, opts(style), budget, &rank, &layout);
            prop_assert_eq!(fitted.length, chars(&fitted.text));
            let visible: Vec<&Skill> = skills.iter().filter(|s| !s.hidden).collect();
            let pinned: Vec<&Skill> = visible.iter().copied().filter(|s| is_pin(s)).collect();
            for p in &pinned {
                prop_assert!(!fitted.omitted.contains(&p.name) || fitted.text.is_empty() && pinned.is_empty());
                prop_assert!(!fitted.truncated.iter().any(|t| t.name == p.name));
            }
            if budget > 0 && !fitted.over_budget() {
                prop_assert!(fitted.length <= budget);
            }
            if fitted.over_budget() {
                prop_assert!(!pinned.is_empty());
                prop_assert!(fitted.truncated.is_empty());
            }
            if floor > 0 && !fitted.truncated.is_empty() {
                prop_assert!(fitted.cap.is_some_and(|c| c >= floor));
            }
            if search {
                let unlisted: Vec<String> = visible.iter().filter(|s| !is_pin(s)).map(|s| s.name.to_string()).collect();
                if !fitted.text.is_empty() {
                    prop_assert_eq!(&fitted.searchable, &unlisted);
                }
            } else {
                prop_assert!(fitted.searchable.is_empty());
            }
            // No layout: the plain fitter.
            if !search && (!compact || style == Style::Musepi) && floor == 0 && pinned.is_empty() {
                prop_assert_eq!(&fitted, &fit_catalog(&skills, opts(style), budget, &rank));
            }
        }
    }
}
