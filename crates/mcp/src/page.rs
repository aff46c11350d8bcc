//! Pagination: every list answers in pages, and `nextCursor` is an
//! offset tagged with the list it belongs to (`skills:250`), so a cursor of
//! one list handed to another, or one a client made up, is an error, not a
//! page of something else.

use std::ops::Range;

/// How many entries a `skills/list` page holds. Each entry of a first
/// listing reads and hashes every file of its skill, so a page is smaller
/// than the other lists'; but every page is a round trip, and a client
/// listing every page of 10 000 skills waited on a hundred of them: with
/// 250 a page, 39, and a listing of the bench's 10 000 skills took 7–17%
/// less time warm and 5–10% less on a fresh server than with 100.
pub const SKILLS_PAGE: usize = 250;

/// Which list a cursor belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    /// `skills/list`.
    Skills,
    /// `resources/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
    /// `resources/directory/read`.
    Directory,
}

impl List {
    fn tag(self) -> &'static str {
        match self {
            List::Skills => "skills",
            List::Resources => "resources",
            List::Prompts => "prompts",
            List::Directory => "directory",
        }
    }

    /// How many items one page holds.
    pub(crate) fn page_size(self) -> usize {
        match self {
            List::Skills => SKILLS_PAGE,
            List::Resources | List::Prompts | List::Directory => 500,
        }
    }
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadCursor(pub String);

impl std::fmt::Display for BadCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid cursor {:?}: pass back a nextCursor this server gave for the same list",
            self.0
        )
    }
}

/// The items of the page `cursor` starts (none: the first), out of `len`,
/// and the cursor of the next page, if any.
pub(crate) fn page(
    list: List,
    cursor: Option<&str>,
    len: usize,
) -> Result<(Range<usize>, Option<String>), BadCursor> {
    let start = match cursor {
        None => 0,
        Some(c) => parse(list, c).ok_or_else(|| {
            let shown: String = c.chars().take(64).collect();
            BadCursor(if shown.len() < c.len() {
                format!("{shown}…")
            } else {
                shown
            })
        })?,
    };
    // A list that shrank since the cursor was handed out ends here.
    let start = start.min(len);
    let end = start.saturating_add(list.page_size()).min(len);
    let next = (end < len).then(|| format!("{}:{end}", list.tag()));
    Ok((start..end, next))
}

fn parse(list: List, cursor: &str) -> Option<usize> {
    let offset = cursor.strip_prefix(list.tag())?.strip_prefix(':')?;
    if offset.is_empty() || offset.len() > 19 || !offset.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    offset.parse().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn pages_follow_each_other_to_the_end() {
        let len = 2 * SKILLS_PAGE + 50;
        let mut cursor = None;
        let mut seen = Vec::new();
        loop {
            let (range, next) = page(List::Skills, cursor.as_deref(), len).unwrap();
            seen.extend(range);
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, (0..len).collect::<Vec<_>>());
    }

    #[test]
    fn an_empty_or_exact_list_has_no_next_cursor() {
        let n = SKILLS_PAGE;
        assert_eq!(page(List::Skills, None, 0).unwrap(), (0..0, None));
        assert_eq!(page(List::Skills, None, n).unwrap(), (0..n, None));
        assert_eq!(
            page(List::Skills, None, n + 1).unwrap(),
            (0..n, Some(format!("skills:{n}")))
        );
    }

    #[test]
    fn bad_cursors_are_errors() {
        for bad in [
            "",
            "skills:",
            "skills:0",
            "skills:-1",
            "skills:+5",
            "skills:1e3",
            "skills: 5",
            "resources:100",
            "100",
            "skills:99999999999999999999",
        ] {
            assert!(page(List::Skills, Some(bad), 10).is_err(), "{bad:?}");
        }
        let huge = "x".repeat(1 << 20);
        let err = page(List::Skills, Some(&huge), 10).unwrap_err();
        assert!(
            err.to_string().len() < 200,
            "the message quotes a bounded part"
        );
    }

    #[test]
    fn a_cursor_past_a_shrunk_list_is_an_empty_last_page() {
        assert_eq!(
            page(List::Prompts, Some("prompts:900"), 10).unwrap(),
            (10..10, None)
        );
    }
}
