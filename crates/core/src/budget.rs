//! A catalogue that fits its budget (`skills.catalogBudget`, `prompt
//! --budget N`).
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
//! The cap counts the description's own characters, as the profile shows
//! them before escaping (pi: as written; musepi: whitespace collapsed);
//! the budget counts the text as printed, escapes included.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use skillpipe_types::Skill;

use crate::runtime::{
    CatalogOptions, Style, catalog_head, catalog_tail, collapse_whitespace, push_catalog_entry,
    render_catalog,
};

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
    /// The skills left out, in catalogue order.
    pub omitted: Vec<String>,
}

impl FittedCatalog {
    /// Whether the budget cut anything.
    pub fn cut_anything(&self) -> bool {
        !self.truncated.is_empty() || !self.omitted.is_empty()
    }

    /// One sentence on what the budget cut, e.g. `the catalogue is over
    /// its budget of 8000 characters: 3 descriptions shortened to 41
    /// characters, 2 skills left out (a, b)`.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "the catalogue is over its budget of {} characters: ",
            self.budget.unwrap_or(0)
        );
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
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
            const SHOWN: usize = 5;
            let mut names = self.omitted.iter().take(SHOWN).cloned().collect::<Vec<_>>();
            if self.omitted.len() > SHOWN {
                names.push(format!("and {} more", self.omitted.len() - SHOWN));
            }
            parts.push(format!(
                "{} left out ({})",
                plural(self.omitted.len(), "skill", "skills"),
                names.join(", ")
            ));
        }
        if parts.is_empty() {
            parts.push("nothing cut".to_owned());
        }
        out.push_str(&parts.join(", "));
        out
    }
}

/// One shortened description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// The skill.
    pub name: String,
    /// The description's length before, in characters.
    pub from: usize,
    /// Its length after (the `…` included).
    pub to: usize,
}

/// One visible skill, measured.
struct Entry<'a> {
    skill: &'a Skill,
    /// The description as the profile shows it, before escaping.
    description: Cow<'a, str>,
    /// Its length in characters.
    len: usize,
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
    let whole = |text: String| FittedCatalog {
        length: text.chars().count(),
        text,
        budget: (budget > 0).then_some(budget),
        cap: None,
        truncated: Vec::new(),
        omitted: Vec::new(),
    };
    let visible: Vec<&Skill> = skills.iter().filter(|s| !s.hidden).collect();
    if budget == 0 || !opts.read_tool || visible.is_empty() {
        return whole(render_catalog(skills, opts));
    }
    let style = opts.style;
    let frame = chars(catalog_head(style)) + chars(catalog_tail(style));
    let bare = entry_frame(style);
    let fixed: Vec<usize> = visible.iter().map(|s| bare + fixed_len(style, s)).collect();
    let names_only = frame + fixed.iter().sum::<usize>();

    // Left out, when the names alone do not fit: by rank, the last first.
    let mut kept = vec![true; visible.len()];
    let mut names = names_only;
    if names > budget {
        // Each rank computed once; the order is (rank, place in the list).
        let mut order: Vec<(usize, usize)> = visible
            .iter()
            .enumerate()
            .map(|(i, s)| (rank(s), i))
            .collect();
        order.sort_unstable();
        for &(_, i) in order.iter().rev() {
            if names <= budget {
                break;
            }
            if let Some(k) = kept.get_mut(i) {
                *k = false;
            }
            names -= fixed.get(i).copied().unwrap_or(0);
        }
        if kept.iter().all(|k| !k) {
            // Not even the frame fits: the empty catalogue.
            let mut fitted = whole(String::new());
            fitted.omitted = visible.iter().map(|s| s.name.clone()).collect();
            return fitted;
        }
    }
    let entries: Vec<Entry<'_>> = visible
        .iter()
        .zip(&fixed)
        .zip(&kept)
        .filter(|(_, k)| **k)
        .map(|((s, _), _)| {
            let description = shown(style, s);
            Entry {
                skill: s,
                len: chars(&description),
                description,
            }
        })
        .collect();
    let room = budget - names;
    let full: usize = entries
        .iter()
        .map(|e| described_len(style, &e.description))
        .sum();
    if names == names_only && full <= room {
        return whole(render_catalog(skills, opts));
    }
    let cap = if full <= room {
        None
    } else {
        Some(largest_cap(style, &entries, room))
    };

    let mut text = String::with_capacity(budget.min(1 << 20));
    let mut truncated = Vec::new();
    text.push_str(catalog_head(style));
    for e in &entries {
        let cut = match cap {
            Some(cap) if e.len > cap => {
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
        push_catalog_entry(&mut text, style, e.skill, &cut);
    }
    text.push_str(catalog_tail(style));
    let mut omitted = Vec::with_capacity(visible.len() - entries.len());
    omitted.extend(
        visible
            .iter()
            .zip(&kept)
            .filter(|(_, k)| !**k)
            .map(|(s, _)| s.name.clone()),
    );
    FittedCatalog {
        length: chars(&text),
        text,
        budget: Some(budget),
        cap,
        truncated,
        omitted,
    }
}

/// The largest cap whose descriptions fit in `room` characters. The
/// length of a cut description never falls as the cap grows, so the
/// search halves; cap 0 (every description empty) always fits.
fn largest_cap(style: Style, entries: &[Entry<'_>], room: usize) -> usize {
    // Descriptions by length: those no longer than a cap count whole,
    // from a running sum; only the longer ones are cut to measure.
    let mut by_len: Vec<&Entry<'_>> = entries.iter().collect();
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
fn shown<'a>(style: Style, s: &'a Skill) -> Cow<'a, str> {
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

/// The characters of an entry with an empty name, description and path.
fn entry_frame(style: Style) -> usize {
    let bare = Skill {
        name: String::new(),
        description: String::new(),
        file_path: std::path::PathBuf::new(),
        base_dir: std::path::PathBuf::new(),
        source: std::sync::Arc::new(skillpipe_types::Source {
            provider: String::new(),
            level: skillpipe_types::Level::User,
            root: None,
        }),
        hidden: false,
        frontmatter: Default::default(),
        invocation: None,
        visibility: Default::default(),
    };
    let mut out = String::new();
    push_catalog_entry(&mut out, style, &bare, "");
    chars(&out)
}

/// The characters a skill's name and path add to its entry.
fn fixed_len(style: Style, s: &Skill) -> usize {
    match style {
        Style::Pi => escaped_len(&s.name) + escaped_len(&s.file_path.to_string_lossy()),
        Style::Musepi => chars(&s.name),
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
    let extra: usize = s
        .bytes()
        .map(|b| match b {
            b'&' => 4,
            b'<' | b'>' => 3,
            b'"' | b'\'' => 5,
            _ => 0,
        })
        .sum();
    chars(s) + extra
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    use proptest::prelude::*;
    use skillpipe_types::{Level, Source};

    fn skill(name: &str, description: &str, provider: &str, hidden: bool) -> Skill {
        Skill {
            name: name.to_owned(),
            description: description.to_owned(),
            file_path: PathBuf::from(format!("/s/{provider}/{name}/SKILL.md")),
            base_dir: PathBuf::from(format!("/s/{provider}/{name}")),
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
            read_tool: true,
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
                s.description = cut(&shown(style, &s), cap);
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
}
