//! "Did you mean": the nearest of some known words to a word that is none
//! of them (a mistyped skill name, settings key or provider id).

/// The longest word, in bytes, that is compared at all: four times the
/// longest valid skill name (64 characters), longer than any settings key
/// or provider id. Jaro-Winkler costs the product of the two lengths, so
/// a huge name (a skill called by a million `a`s) or a huge query would
/// otherwise take seconds per command; such a word is no typo of a real
/// one anyway.
pub const MAX_WORD: usize = 256;

/// The candidate nearest to `word`, if one is near enough to be what was
/// meant: Jaro-Winkler similarity of at least 0.8 (case ignored), the
/// same measure and bound as cargo's and clap's suggestions. `word` itself
/// is never suggested; ties go to the first candidate. A word or a
/// candidate longer than [`MAX_WORD`] bytes is never compared.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if word.len() > MAX_WORD {
        return None;
    }
    let lower = word.to_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for c in candidates {
        if c == word || c.len() > MAX_WORD {
            continue;
        }
        let score = strsim::jaro_winkler(&lower, &c.to_lowercase());
        if score >= 0.8 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn typos_find_their_word_and_strangers_find_none() {
        let names = ["systematic-debugging", "brainstorming", "pdf"];
        assert_eq!(
            closest("systematic-debuging", names),
            Some("systematic-debugging")
        );
        assert_eq!(closest("Brainstorming", names), Some("brainstorming"));
        assert_eq!(closest("zzz", names), None);
        assert_eq!(
            closest("pdf", names),
            None,
            "the word itself is no suggestion"
        );
        assert_eq!(
            closest(
                "skills.enableClaudUser",
                ["skills.enableClaudeUser", "skills.enabled"]
            ),
            Some("skills.enableClaudeUser")
        );
        assert_eq!(
            closest("claud", ["claude", "codex", "native"]),
            Some("claude")
        );
    }

    #[test]
    fn huge_words_are_never_compared() {
        let huge = "a".repeat(1_000_000);
        let query = "ab".repeat(5_000);
        assert_eq!(closest(&query, [huge.as_str(), "abab"]), None);
        assert_eq!(closest("aaaa", [huge.as_str()]), None);
        // A word just at the bound is still compared.
        let edge = "x".repeat(MAX_WORD);
        let near = format!("{}y", "x".repeat(MAX_WORD - 1));
        assert_eq!(closest(&near, [edge.as_str()]), Some(edge.as_str()));
        // No timing is asserted: a compare of the huge pair would take
        // minutes in a debug build, so the test would not end in time.
    }

    proptest! {
        #[test]
        fn a_suggestion_is_a_candidate_and_never_the_word(
            word in "[a-z-]{0,12}",
            candidates in proptest::collection::vec("[a-z-]{0,12}", 0..8),
        ) {
            let got = closest(&word, candidates.iter().map(String::as_str));
            if let Some(s) = got {
                prop_assert!(candidates.iter().any(|c| c == s));
                prop_assert_ne!(s, word.as_str());
            }
        }
    }
}
