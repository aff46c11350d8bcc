//! Search over the skills (`skillpipe search`, `Discovered::search`): the
//! skills ranked by relevance to a query, for hosts whose catalogue lists
//! only some skills and leaves the rest to a search tool.
//!
//! Ranking is BM25 with field weights (a simple BM25F): a skill is one
//! document of its name (weight [`NAME_WEIGHT`]), its description and its
//! frontmatter `when_to_use` (as the loader typed it, `invocation`; weight 1 each), the term frequencies and the
//! document length counted with those weights; `k1` = 1.2, `b` = 0.75, and
//! the IDF `ln(1 + (N - df + 0.5) / (df + 0.5))`, never negative.
//! Hidden skills are not indexed (they are not in the catalogue either),
//! and a name-only one (`skills.visibility`) by its name alone.
//!
//! Text is cut into tokens for English and for identifiers:
//! - a run of letters and digits is a word; runs joined by `-`, `_` or `.`
//!   (no space) are one identifier, whose parts are words too, as are the
//!   parts of a camelCase word: `pdf-forms`, `pdf_forms` and `pdfForms`
//!   each give `pdf` and `forms`, and also the whole identifier `pdfforms`
//!   (unless a part is a number, which tells it apart already:
//!   `skill-0042`), so a query naming the identifier finds it first;
//! - words are lower-cased (Unicode), common English words (`the`, `use`,
//!   `when`, …: [`STOP_WORDS`]) are dropped, and the rest are stemmed with
//!   Snowball's English stemmer (`creating` and `create` are one term).
//!
//! The index is built once per discovery; a query costs a pass over the
//! postings of its terms. Results come best first; equal scores in
//! pipeline order (their order in the list the index was built from), so
//! the same query over the same skills always gives the same list.
//!
//! Why not the `bm25` crate: its scorer keeps an inverted index of
//! `HashSet`s and allocates a `String` per token; on the 10k-skill bench
//! tree it took about 200 ms to index and 6-18 ms a query (a loaded
//! 2-core machine), against discovery's ~50 ms, and its matches come in
//! hash order. This index is a term dictionary (word or stem → term, so
//! each distinct word is stemmed once; words with digits, identifiers
//! such as `skill-0042`, are not stemmed) and one posting list per term.
//!
//! What building it costs is reading the text: ASCII text is classified
//! sixteen bytes at a time (SSE2 on x86-64, a `u64` elsewhere) into bit
//! masks, whose words give the starts of the tokens of 64 bytes at once
//! and a token's end and capitals with a shift; a short word reaches the
//! term table packed in a `u64` read in one load; a word repeated in one
//! skill adds to that skill's posting; the texts of the skills ahead are
//! touched together, since each is an allocation of its own; and a large
//! list is read on two threads, which take it in chunks from either end
//! until they meet, each sorting its own postings, which stay where they
//! were sorted (a query reads a term's list in each part; only the
//! dictionaries are merged).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use rust_stemmers::{Algorithm, Stemmer};
use serde::Serialize;
use skillpipe_types::{Skill, Visibility};

use crate::schedule;

/// How much more a word of the name counts than one of the description.
pub const NAME_WEIGHT: f32 = 3.0;
const K1: f32 = 1.2;
const B: f32 = 0.75;
/// A query word also matches the words that start with it, or that it
/// starts with (`fail` and `failure`), both at least this long, at
/// [`PREFIX_WEIGHT`] of the score.
const MIN_PREFIX: usize = 4;
const PREFIX_WEIGHT: f32 = 0.5;
/// Longest identifier kept whole as a token of its own (its parts always
/// are).
const MAX_COMPOUND: usize = 64;
/// The dictionary's mark for a stop word.
const STOP: u32 = u32::MAX;

/// English words too common in skill descriptions to tell skills apart.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "being", "but", "by", "can", "could", "do", "does", "e", "each", "eg", "etc", "for",
    "from", "g", "had", "has", "have", "how", "i", "ie", "if", "in", "into", "is", "it", "its",
    "like", "may", "me", "might", "must", "my", "no", "not", "of", "on", "or", "our", "s",
    "should", "so", "some", "such", "t", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "up", "us", "use", "used", "uses", "using", "via",
    "want", "wants", "was", "we", "were", "what", "when", "whenever", "where", "which", "while",
    "who", "why", "will", "with", "would", "you", "your",
    // What is left of a contraction (`don't` → `don`, `t`).
    "aren", "couldn", "d", "didn", "doesn", "don", "isn", "ll", "m", "re", "shouldn", "ve", "wasn",
    "won", "wouldn",
];

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Word → term. A word of at most eight bytes is keyed by its bytes
/// packed in a `u64` (exact: no token holds a NUL), so the common lookup
/// hashes one number and compares one; a longer word by its text.
#[derive(Clone, Default)]
struct Dictionary {
    short: Map<u64, u32>,
    long: Map<Box<str>, u32>,
}

/// A word as the dictionary keys it (see [`Dictionary`]).
enum Key {
    Short(u64),
    Long(Box<str>),
}

/// `word`'s bytes packed in a `u64`, when it has at most eight: byte `i`
/// at bits `8 * i`, the rest zero. Read as two overlapping halves (whose
/// shared bytes agree) rather than byte by byte.
fn pack(word: &str) -> Option<u64> {
    pack_bytes(word.as_bytes())
}

/// [`pack`] of a word's bytes.
fn pack_bytes(b: &[u8]) -> Option<u64> {
    let n = b.len();
    let le = |at: usize, width: usize| -> u64 {
        b.get(at..at + width).map_or(0, |s| {
            s.iter().rev().fold(0u64, |p, &x| (p << 8) | u64::from(x))
        })
    };
    match n {
        0 => Some(0),
        1..=3 => Some(le(0, 1) | le(n / 2, 1) << (8 * (n / 2)) | le(n - 1, 1) << (8 * (n - 1))),
        4..=8 => {
            let (lo, hi) = (read_u32(b, 0), read_u32(b, n - 4));
            Some(u64::from(lo) | u64::from(hi) << (8 * (n - 4)))
        }
        _ => None,
    }
}

/// `bytes[start..start + len]` packed as [`pack`] packs it, read with one
/// load where eight bytes follow `start` (every word of a text but its
/// last), masked to its own.
fn pack_at(bytes: &[u8], start: usize, len: usize) -> Option<u64> {
    if len > 8 {
        return None;
    }
    match bytes.get(start..start + 8) {
        Some(eight) if len > 0 => {
            let x = u64::from_le_bytes(<[u8; 8]>::try_from(eight).unwrap_or_default());
            Some(x & (u64::MAX >> (64 - 8 * len)))
        }
        _ => pack_bytes(bytes.get(start..start + len)?),
    }
}

/// A token as the tokenizer hands it on: its text, and that text packed
/// (see [`pack`]) when it has at most eight bytes, so that the index
/// finds a common word without reading it again.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    packed: Option<u64>,
}

impl<'a> Token<'a> {
    fn of(text: &'a str) -> Token<'a> {
        Token {
            text,
            packed: pack(text),
        }
    }
}

/// The four bytes of `b` at `at`, little-endian (zero past its end).
fn read_u32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map_or(0, u32::from_le_bytes)
}

impl Dictionary {
    fn with_capacity(short: usize) -> Dictionary {
        Dictionary {
            short: Map::with_capacity_and_hasher(short, Default::default()),
            long: Map::default(),
        }
    }

    fn get(&self, word: &str) -> Option<u32> {
        match pack(word) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(word).copied(),
        }
    }

    fn insert(&mut self, word: &str, term: u32) {
        match pack(word) {
            Some(k) => self.short.insert(k, term),
            None => self.long.insert(word.into(), term),
        };
    }

    fn get_key(&self, key: &Key) -> Option<u32> {
        match key {
            Key::Short(k) => self.short.get(k).copied(),
            Key::Long(k) => self.long.get(k).copied(),
        }
    }

    fn insert_key(&mut self, key: Key, term: u32) {
        match key {
            Key::Short(k) => self.short.insert(k, term),
            Key::Long(k) => self.long.insert(k, term),
        };
    }

    fn keep_key(&mut self, key: Key, term: u32) {
        match key {
            Key::Short(k) => self.short.entry(k).or_insert(term),
            Key::Long(k) => self.long.entry(k).or_insert(term),
        };
    }

    fn into_keys(self) -> impl Iterator<Item = (Key, u32)> {
        let short = self.short.into_iter().map(|(k, t)| (Key::Short(k), t));
        short.chain(self.long.into_iter().map(|(k, t)| (Key::Long(k), t)))
    }
}

/// One skill's share of a term.
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    /// The weighted term frequency.
    tf: f32,
}

/// The search index of a list of skills.
#[derive(Clone)]
pub struct SearchIndex {
    /// Each document's skill: its place in the list.
    skills: Vec<u32>,
    /// `k1 * (1 - b + b * len / avg_len)` of each document.
    norms: Vec<f32>,
    /// Lower-cased word, or stem, → term ([`STOP`] for a stop word).
    words: Dictionary,
    /// The terms of words of letters alone, as stems: what a query word
    /// may be a prefix of, or start with.
    plain: Vec<(Box<str>, u32)>,
    /// The postings, as each part sorted them on its thread (one part, or
    /// two for a large list): a term's postings are its lists in every
    /// segment, in segment order (which is document order).
    segments: Vec<Sorted>,
    /// How many terms there are.
    terms: usize,
}

/// An index being built: its dictionary and documents, and each
/// document's terms in reading order (made into [`Sorted`] postings once,
/// by a counting sort, rather than pushed to a list per term).
struct Part {
    skills: Vec<u32>,
    /// Each document's weighted length.
    lens: Vec<f32>,
    words: Dictionary,
    plain: Vec<(Box<str>, u32)>,
    /// How many terms there are.
    terms: u32,
    /// Each term of each document, once: its term and document, and its
    /// weight summed over the document's words.
    hits: Vec<(u32, Posting)>,
    /// Per term, the document that last had it (plus one: `0` for none)
    /// and where in [`Part::hits`] that document's hit is, so a word
    /// repeated in a document adds to its hit instead of making another;
    /// and how many documents have it (its postings, counted for
    /// [`Part::sorted`] as the hits are made).
    last: Vec<(u32, u32, u32)>,
    /// The term last found for a short word in each of [`RECENT`] slots
    /// (its packed bytes hashed to a slot, `0` for none: no word packs
    /// to it): the common words of the descriptions are found here, in a
    /// table small enough to stay in the cache, without the dictionary.
    recent: Vec<(u64, u32)>,
}

/// A part's postings by term: term `t`'s are `postings[starts[t]..starts[t
/// + 1]]`, in document order.
#[derive(Clone)]
struct Sorted {
    postings: Vec<Posting>,
    starts: Vec<u32>,
    /// This segment's term of each term of the index ([`STOP`]: none);
    /// empty when they are the same.
    terms: Vec<u32>,
    /// What its documents' numbers are after, in the index.
    offset: u32,
}

impl Sorted {
    /// Term `t`'s postings here, with the offset of their documents.
    fn list(&self, t: u32) -> &[Posting] {
        let t = if self.terms.is_empty() {
            t
        } else {
            match self.terms.get(t as usize) {
                Some(&STOP) | None => return &[],
                Some(&mine) => mine,
            }
        };
        let start = self.starts.get(t as usize).copied().unwrap_or(0) as usize;
        let end = self.starts.get(t as usize + 1).copied().unwrap_or(0) as usize;
        self.postings.get(start..end).unwrap_or(&[])
    }
}

/// How many slots [`Part::recent`] has (a power of two).
const RECENT: usize = 512;

/// `packed`'s slot in [`Part::recent`].
fn recent_slot(packed: u64) -> usize {
    // Fibonacci hashing: the top bits of the product.
    (packed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RECENT.trailing_zeros())) as usize
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("skills", &self.skills.len())
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}

impl Part {
    /// `other`'s terms and documents after these (its documents' skills
    /// come after these in the list, in the order it read them), with
    /// both parts' postings.
    fn merged(mut self, mine: Sorted, other: Part, mut theirs: Sorted) -> (Part, Vec<Sorted>) {
        let offset = u32::try_from(self.skills.len()).unwrap_or(u32::MAX);
        let known = self.terms as usize;
        let mut remap = vec![STOP; other.terms as usize];
        let mut new_keys = Vec::with_capacity(other.terms as usize);
        for (key, term) in other.words.into_keys() {
            if term == STOP {
                self.words.keep_key(key, STOP);
                continue;
            }
            match self.words.get_key(&key) {
                Some(mine) => {
                    if let Some(r) = remap.get_mut(term as usize)
                        && *r == STOP
                    {
                        *r = mine;
                    }
                }
                None => new_keys.push((key, term)),
            }
        }
        for (key, term) in new_keys {
            let mine = match remap.get(term as usize) {
                Some(&STOP) | None => {
                    let mine = self.new_term();
                    if let Some(r) = remap.get_mut(term as usize) {
                        *r = mine;
                    }
                    mine
                }
                Some(&mine) => mine,
            };
            self.words.insert_key(key, mine);
        }
        for (stem, term) in other.plain {
            if let Some(&mine) = remap.get(term as usize)
                && mine as usize >= known
            {
                self.plain.push((stem, mine));
            }
        }
        self.skills.extend(other.skills);
        self.lens.extend(other.lens);
        match index_terms(&remap, self.terms) {
            Some(terms) => {
                // Each part's postings stay where its thread sorted them.
                theirs.terms = terms;
                theirs.offset = offset;
                (self, vec![mine, theirs])
            }
            None => {
                // Two of the other part's terms are one here (a stem
                // whose own stem differs, met in another order): both
                // parts' postings sorted again as one list.
                let mut hits = unsorted(&mine, Some, 0);
                hits.extend(unsorted(
                    &theirs,
                    |t| remap.get(t as usize).copied(),
                    offset,
                ));
                let sorted = sort_hits(hits, self.terms);
                (self, vec![sorted])
            }
        }
    }

    /// An empty part, made ready for the words of `room` skills (the
    /// first part's dictionary takes the second's in when merged), so that
    /// it does not grow step by step; a skill brings about one word no
    /// other has (its name's number, on the bench tree).
    fn new(room: usize) -> Part {
        let mut index = Part {
            skills: Vec::with_capacity(room),
            lens: Vec::with_capacity(room),
            words: Dictionary::with_capacity(room + STOP_WORDS.len()),
            plain: Vec::new(),
            terms: 0,
            // About twenty terms a skill.
            hits: Vec::with_capacity(room * 20),
            last: Vec::with_capacity(room),
            recent: vec![(0, 0); RECENT],
        };
        for word in STOP_WORDS {
            index.words.insert(word, STOP);
        }
        index
    }

    /// Reads the words of `skills`, the first of them at `offset` in the
    /// list, as the next documents.
    fn read(&mut self, skills: &[Skill], offset: usize) {
        let index = self;
        let stemmer = Stemmer::create(Algorithm::English);
        let mut tokenizer = Tokenizer::default();
        for (i, s) in skills.iter().enumerate() {
            if i % AHEAD == 0 {
                touch(skills.get(i + AHEAD..i + 2 * AHEAD).unwrap_or(&[]));
            }
            if s.hidden {
                continue;
            }
            let Ok(doc) = u32::try_from(index.skills.len()) else {
                break;
            };
            index
                .skills
                .push(u32::try_from(offset + i).unwrap_or(u32::MAX));
            let mut len = 0.0f32;
            let mut add = |word: Token<'_>, weight: f32| {
                let term = index.term_for(word, &stemmer);
                if term == STOP {
                    return;
                }
                len += weight;
                index.add(term, doc, weight);
            };
            tokenizer.run_tokens(&s.name, |w| add(w, NAME_WEIGHT));
            // `skills.visibility` "name-only": found by its name alone.
            if s.visibility != Visibility::NameOnly {
                tokenizer.run_tokens(&s.description, |w| add(w, 1.0));
                if let Some(when) = s.invocation.as_ref().and_then(|i| i.when_to_use.as_deref()) {
                    tokenizer.run_tokens(when, |w| add(w, 1.0));
                }
            }
            index.lens.push(len);
        }
    }

    /// The term of a lower-cased word, added when new.
    fn term_for(&mut self, token: Token<'_>, stemmer: &Stemmer) -> u32 {
        let word = token.text;
        let Some(packed) = token.packed else {
            return self.look_up(word, stemmer);
        };
        let slot = recent_slot(packed);
        if let Some(&(seen, term)) = self.recent.get(slot)
            && seen == packed
        {
            return term;
        }
        let term = self.look_up(word, stemmer);
        if let Some(entry) = self.recent.get_mut(slot) {
            *entry = (packed, term);
        }
        term
    }

    /// [`Part::term_for`] in the dictionary.
    fn look_up(&mut self, word: &str, stemmer: &Stemmer) -> u32 {
        if let Some(term) = self.words.get(word) {
            return term;
        }
        if !word.chars().all(char::is_alphabetic) {
            // An identifier or a number: itself.
            let term = self.new_term();
            self.words.insert(word, term);
            return term;
        }
        let stem = stemmer.stem(word);
        let stem = stem.as_ref();
        if stem == word {
            let term = self.new_term();
            self.words.insert(word, term);
            self.plain.push((word.into(), term));
            return term;
        }
        // The stem of a stop word is one too (`doing`, `do`).
        let term = match self.words.get(stem) {
            Some(term) => term,
            None => {
                let term = self.new_term();
                self.words.insert(stem, term);
                self.plain.push((stem.into(), term));
                term
            }
        };
        self.words.insert(word, term);
        term
    }

    fn new_term(&mut self) -> u32 {
        let term = self.terms;
        if term != STOP {
            self.terms += 1;
            self.last.push((0, 0, 0));
        }
        term
    }

    /// `doc`'s word of `term`, of `weight`: a hit, or added to the
    /// document's hit of the term.
    fn add(&mut self, term: u32, doc: u32, weight: f32) {
        let t = term as usize;
        let Some(last) = self.last.get_mut(t) else {
            return;
        };
        if last.0 == doc + 1
            && let Some((_, hit)) = self.hits.get_mut(last.1 as usize)
        {
            hit.tf += weight;
            return;
        }
        *last = (
            doc + 1,
            u32::try_from(self.hits.len()).unwrap_or(u32::MAX),
            last.2 + 1,
        );
        self.hits.push((term, Posting { doc, tf: weight }));
    }

    /// This part's postings: its hits sorted by term, with the counts
    /// made as they were read (a part's hits have no repeats to sum).
    fn sorted(&self) -> Sorted {
        let (postings, starts) = scatter(&self.hits, self.last.iter().map(|l| l.2));
        Sorted {
            postings,
            starts,
            terms: Vec::new(),
            offset: 0,
        }
    }

    /// The index of this part and its postings: each document's norm
    /// from its length.
    fn finish(self, segments: Vec<Sorted>) -> SearchIndex {
        let avg = if self.lens.is_empty() {
            1.0
        } else {
            (self.lens.iter().sum::<f32>() / self.lens.len() as f32).max(f32::MIN_POSITIVE)
        };
        SearchIndex {
            skills: self.skills,
            norms: self
                .lens
                .iter()
                .map(|len| K1 * (1.0 - B + B * len / avg))
                .collect(),
            words: self.words,
            plain: self.plain,
            segments,
            terms: self.terms as usize,
        }
    }
}

/// How many skills ahead of the one being read [`Part::read`] touches the
/// texts of, [`AHEAD`] at a time.
const AHEAD: usize = 16;

/// Reads a byte of every 64 of the names and descriptions of `skills`:
/// each text is an allocation of its own, met in an order unrelated to
/// where it lies, and these loads, which do not wait for one another, make
/// the memory fetch them together, instead of one by one as the
/// tokenizer reaches each (a quarter of the index's time on the 10k tree).
fn touch(skills: &[Skill]) {
    let mut seen = 0u8;
    for s in skills {
        for text in [s.name.as_bytes(), s.description.as_bytes()] {
            for line in text.chunks(64) {
                seen ^= line.first().copied().unwrap_or(0);
            }
        }
    }
    std::hint::black_box(seen);
}

/// `hits` as postings by term, each term's in document order, a term's
/// repeats in one document summed. A comparison sort: only a merge whose
/// parts stemmed differently comes here (see [`Part::merged`]), and there
/// a document can have a hit of each of two terms that become one.
fn sort_hits(mut hits: Vec<(u32, Posting)>, terms: u32) -> Sorted {
    hits.sort_by_key(|&(term, p)| (term, p.doc));
    let terms = terms as usize;
    let mut postings: Vec<Posting> = Vec::with_capacity(hits.len());
    let mut starts = Vec::with_capacity(terms + 1);
    let mut last = None;
    for (term, p) in hits {
        let at = u32::try_from(postings.len()).unwrap_or(u32::MAX);
        while starts.len() <= term as usize {
            starts.push(at);
        }
        match postings.last_mut() {
            Some(same) if last == Some((term, p.doc)) => same.tf += p.tf,
            _ => postings.push(p),
        }
        last = Some((term, p.doc));
    }
    let end = u32::try_from(postings.len()).unwrap_or(u32::MAX);
    starts.resize(terms + 1, end);
    Sorted {
        postings,
        starts,
        terms: Vec::new(),
        offset: 0,
    }
}

/// `hits` by term, stably, each term's `counts` of them: the postings and
/// where each term's start (one more than there are terms: the end).
fn scatter(
    hits: &[(u32, Posting)],
    counts: impl IntoIterator<Item = u32>,
) -> (Vec<Posting>, Vec<u32>) {
    let mut starts = Vec::new();
    let mut at = 0u32;
    for n in counts {
        starts.push(at);
        at += n;
    }
    starts.push(at);
    let mut next = starts.clone();
    let mut sorted = vec![Posting { doc: 0, tf: 0.0 }; hits.len()];
    for &(term, p) in hits {
        if let Some(at) = next.get_mut(term as usize) {
            if let Some(slot) = sorted.get_mut(*at as usize) {
                *slot = p;
            }
            *at += 1;
        }
    }
    (sorted, starts)
}

/// The postings of `sorted` as hits again, each term through `term` and
/// each document moved by `offset`.
fn unsorted(
    sorted: &Sorted,
    term: impl Fn(u32) -> Option<u32>,
    offset: u32,
) -> Vec<(u32, Posting)> {
    let mut hits = Vec::with_capacity(sorted.postings.len());
    for (t, w) in sorted.starts.windows(2).enumerate() {
        let Some(to) = u32::try_from(t).ok().and_then(&term) else {
            continue;
        };
        for p in sorted
            .postings
            .get(w[0] as usize..w[1] as usize)
            .unwrap_or(&[])
        {
            hits.push((
                to,
                Posting {
                    doc: p.doc + offset,
                    tf: p.tf,
                },
            ));
        }
    }
    hits
}

/// The other part's term of each merged term, from `remap` (the merged
/// term of each of its terms); `None` when two of its terms map to one.
fn index_terms(remap: &[u32], terms: u32) -> Option<Vec<u32>> {
    let mut theirs = vec![STOP; terms as usize];
    for (t, &to) in remap.iter().enumerate() {
        if to == STOP {
            continue;
        }
        let slot = theirs.get_mut(to as usize)?;
        if *slot != STOP {
            return None;
        }
        *slot = u32::try_from(t).ok()?;
    }
    Some(theirs)
}

/// One match: the skill's place in the list the index was built from,
/// and its score (higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// The skill's index in the list.
    pub index: usize,
    /// The BM25 score.
    pub score: f32,
}

/// A skill found, with its score: serialises as the skill (the shape of
/// `list --json`) with a `score`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit<'a> {
    /// The skill.
    #[serde(flatten)]
    pub skill: &'a Skill,
    /// Its BM25 score (higher is better; comparable within one query),
    /// written to four decimals.
    #[serde(serialize_with = "four_decimals")]
    pub score: f32,
}

fn four_decimals<S: serde::Serializer>(score: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((f64::from(*score) * 1e4).round() / 1e4)
}

/// From this many skills on, the index is built on two threads, this one
/// and one of its own, each reading a part of the list into a [`Part`] and
/// sorting it by term where it was read; their dictionaries are then
/// merged (see [`Part::merged`]). The threads take the list [`CHUNK`]
/// skills at a time, this one from the front and the other from the back,
/// until they meet: so a thread that starts late, or runs on a slower core,
/// reads less instead of keeping the other waiting.
const HALVES_FROM: usize = 2048;

/// How many skills a thread takes of the list at a time (see
/// [`HALVES_FROM`]): about a fifth of a millisecond's reading.
const CHUNK: usize = 256;

impl SearchIndex {
    /// The index of `skills` (hidden ones left out).
    pub fn build(skills: &[Skill]) -> SearchIndex {
        if skills.len() < HALVES_FROM {
            return SearchIndex::whole(skills);
        }
        let chunks = skills.len().div_ceil(CHUNK);
        // The chunks no thread has taken yet: `front..back`.
        let left = Mutex::new((0, chunks));
        let take = |front: bool| {
            let mut left = left.lock().unwrap_or_else(PoisonError::into_inner);
            let (next, end) = &mut *left;
            if *next >= *end {
                return None;
            }
            let c = if front {
                *next += 1;
                *next - 1
            } else {
                *end -= 1;
                *end
            };
            let start = c * CHUNK;
            Some((skills.get(start..skills.len().min(start + CHUNK))?, start))
        };
        let read = |front: bool, room: usize| {
            let mut part = Part::new(room);
            while let Some((chunk, offset)) = take(front) {
                part.read(chunk, offset);
            }
            let sorted = part.sorted();
            (part, sorted)
        };
        let (back, front) = schedule::side_by_side(
            "skillpipe-search",
            || read(false, skills.len() / 2),
            || read(true, skills.len()),
        );
        let (back, theirs) = back.unwrap_or_else(|| {
            // No second thread (this one has read the whole list), or it
            // panicked: what lies past where this one stopped is read
            // again here.
            let mut left = left.lock().unwrap_or_else(PoisonError::into_inner);
            left.1 = chunks;
            drop(left);
            read(false, skills.len() / 2)
        });
        let (part, segments) = front.0.merged(front.1, back, theirs);
        part.finish(segments)
    }

    /// The index of `skills` read as one part, on this thread.
    fn whole(skills: &[Skill]) -> SearchIndex {
        let mut part = Part::new(skills.len());
        part.read(skills, 0);
        let sorted = part.sorted();
        part.finish(vec![sorted])
    }

    /// The index of `skills` read in two parts, in chunks of `chunk`: the
    /// chunks before `split` from the front, the rest from the back, as
    /// two threads that met there would have read them.
    #[cfg(test)]
    fn build_split(skills: &[Skill], chunk: usize, split: usize) -> SearchIndex {
        let chunks: Vec<(&[Skill], usize)> = skills
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| (part, c * chunk))
            .collect();
        let (front, back) = chunks.split_at(split.min(chunks.len()));
        let mut first = Part::new(skills.len());
        for &(chunk, offset) in front {
            first.read(chunk, offset);
        }
        let mut second = Part::new(skills.len());
        for &(chunk, offset) in back.iter().rev() {
            second.read(chunk, offset);
        }
        let (mine, theirs) = (first.sorted(), second.sorted());
        let (part, segments) = first.merged(mine, second, theirs);
        part.finish(segments)
    }

    /// How many skills the index holds.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Term `t`'s postings: a list from each segment, with the offset of
    /// its documents.
    fn term_postings(&self, t: u32) -> impl Iterator<Item = (&[Posting], u32)> + Clone {
        self.segments.iter().map(move |s| (s.list(t), s.offset))
    }

    /// The terms a lower-cased query word matches, with their weights:
    /// its own term, and the plain terms its stem is a prefix of or that
    /// are a prefix of it (both at least [`MIN_PREFIX`] long) at
    /// [`PREFIX_WEIGHT`].
    fn find_terms(&self, word: &str, stemmer: &Stemmer, out: &mut Vec<(u32, f32)>) {
        let mut add = |term: u32, weight: f32| match out.iter_mut().find(|(t, _)| *t == term) {
            Some((_, w)) => *w = w.max(weight),
            None => out.push((term, weight)),
        };
        let alphabetic = word.chars().all(char::is_alphabetic);
        let stem = if alphabetic {
            stemmer.stem(word)
        } else {
            std::borrow::Cow::Borrowed(word)
        };
        let own = self
            .words
            .get(word)
            .or_else(|| self.words.get(stem.as_ref()));
        match own {
            Some(STOP) => return,
            Some(term) => add(term, 1.0),
            None => {}
        }
        let stem = stem.as_ref();
        if !alphabetic || stem.chars().nth(MIN_PREFIX - 1).is_none() {
            return;
        }
        // In the order of their text, not of the list: which part of the
        // index met a word first changes where it is in the list, and
        // the order that scores are summed in changes their last bits.
        let mut prefixed: Vec<(&str, u32)> = Vec::new();
        for (other, term) in &self.plain {
            let (short, long) = if other.len() < stem.len() {
                (other.as_ref(), stem)
            } else {
                (stem, other.as_ref())
            };
            if short.len() < long.len()
                && long.starts_with(short)
                && short.chars().nth(MIN_PREFIX - 1).is_some()
            {
                prefixed.push((other, *term));
            }
        }
        prefixed.sort_unstable();
        for (_, term) in prefixed {
            add(term, PREFIX_WEIGHT);
        }
    }

    /// At most `limit` skills matching `query`, best first; equal scores
    /// in list order. A query of stop words alone, or of words no skill
    /// has, matches nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Scored> {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut terms: Vec<(u32, f32)> = Vec::new();
        Tokenizer::default().run(query, |w| {
            let mut found = Vec::new();
            self.find_terms(w, &stemmer, &mut found);
            for (t, weight) in found {
                match terms.iter_mut().find(|(x, _)| *x == t) {
                    Some((_, w)) => *w = w.max(weight),
                    None => terms.push((t, weight)),
                }
            }
        });
        if terms.is_empty() || limit == 0 {
            return Vec::new();
        }
        // Summed in the query's order (prefix matches in the order of
        // their text), never the dictionary's hash order.
        let n = self.skills.len() as f32;
        let mut scores = vec![0.0f32; self.skills.len()];
        for (t, weight) in terms {
            let lists = self.term_postings(t);
            let df = lists.clone().map(|(list, _)| list.len()).sum::<usize>() as f32;
            let idf = weight * (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (list, offset) in lists {
                for p in list {
                    let doc = p.doc as usize + offset as usize;
                    let norm = self.norms.get(doc).copied().unwrap_or(K1);
                    if let Some(score) = scores.get_mut(doc) {
                        *score += idf * p.tf * (K1 + 1.0) / (p.tf + norm);
                    }
                }
            }
        }
        // By skill: a document's number says which part read it first.
        let mut hits: Vec<(u32, f32)> = scores
            .into_iter()
            .zip(&self.skills)
            .filter(|(s, _)| *s > 0.0)
            .map(|(s, &skill)| (skill, s))
            .collect();
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(skill, score)| Scored {
                index: skill as usize,
                score,
            })
            .collect()
    }
}

/// Cuts text into lower-cased tokens (see the module's docs), with
/// buffers reused from one text to the next.
#[derive(Debug, Default)]
pub struct Tokenizer {
    /// The token being lower-cased.
    buf: String,
    /// The parts of the identifier being read, as byte ranges of the text.
    parts: Vec<(usize, usize)>,
    /// The text's byte classes as bit masks (see [`Masks`]).
    masks: Masks,
}

impl Tokenizer {
    /// Calls `emit` with each token of `text`.
    pub fn run(&mut self, text: &str, mut emit: impl FnMut(&str)) {
        self.run_tokens(text, |t| emit(t.text));
    }

    /// [`Tokenizer::run`], each token with its packed bytes.
    fn run_tokens(&mut self, text: &str, mut emit: impl FnMut(Token<'_>)) {
        if self.masks.fill(text.as_bytes()) {
            tokens_masked(text, &self.masks, &mut self.buf, &mut self.parts, &mut emit);
        } else {
            tokens_unicode(text, &mut self.buf, &mut self.parts, &mut emit);
        }
    }
}

/// An ASCII text's letters and digits, capitals and joiners (`-`, `_`,
/// `.`) as bits, 64 bytes a word (bit `i % 64` of word `i / 64` is byte
/// `i`), computed sixteen bytes at a time without a branch per byte
/// ([`classify16`]): the common word (small letters and digits, between
/// spaces or punctuation) is then found from the bits and emitted as it
/// is, and only an identifier with a capital or a joiner takes the
/// byte-by-byte path.
#[derive(Debug, Default)]
struct Masks {
    word: Vec<u64>,
    capital: Vec<u64>,
    joiner: Vec<u64>,
}

/// Each byte's lowest bit, and its highest.
#[cfg(any(test, not(target_arch = "x86_64")))]
const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg(any(test, not(target_arch = "x86_64")))]
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all below 0x80) that lies in
/// `lo..=hi`: `b + (0x80 - c)` reaches the high bit exactly when `b >= c`,
/// and carries into no neighbour.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let at_least = |c: u8| x.wrapping_add(ONES * u64::from(0x80 - c));
    at_least(lo) & !at_least(hi + 1) & HIGHS
}

/// The high bits of a word's eight bytes as eight bits, byte 0 lowest.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn high_bits(highs: u64) -> u64 {
    highs.wrapping_mul(0x0002_0408_1020_4081) >> 56
}

/// Sixteen bytes' classes as bit masks, bit `i` for byte `i`: letters
/// and digits, capitals, and joiners (`-`, `.`, `_`); `None` when a byte
/// is not ASCII. Eight bytes at a time in a `u64`, without a branch per
/// byte ([`classify16`] is this with SSE2 on x86-64).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn classify16_swar(block: [u8; 16]) -> Option<[u16; 3]> {
    let mut out = [0u16; 3];
    for (half, eight) in block.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(<[u8; 8]>::try_from(eight).unwrap_or_default());
        if x & HIGHS != 0 {
            return None;
        }
        // A letter whatever its case (`| 0x20` makes a capital small
        // and no other byte a letter); a capital, one without 0x20.
        let letters = in_range(x | (ONES * 0x20), b'a', b'z');
        let caps = letters & !(x << 2);
        let alnum = letters | in_range(x, b'0', b'9');
        let joins = in_range(x, b'-', b'.') | in_range(x, b'_', b'_');
        for (mask, bits) in out.iter_mut().zip([alnum, caps, joins]) {
            // At most eight bits: the cast keeps them all.
            *mask |= (high_bits(bits) as u16) << (8 * half);
        }
    }
    Some(out)
}

#[cfg(not(target_arch = "x86_64"))]
fn classify16(block: [u8; 16]) -> Option<[u16; 3]> {
    classify16_swar(block)
}

/// [`classify16_swar`] with SSE2 (every x86-64 has it): a byte compare
/// per class over all sixteen bytes, and `pmovmskb` for the bits.
#[cfg(target_arch = "x86_64")]
fn classify16(block: [u8; 16]) -> Option<[u16; 3]> {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i,
        cmp_lt_mask_i8_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i, zeroed_m128i,
    };
    let x = m128i::from(block);
    if move_mask_i8_m128i(x) != 0 {
        return None;
    }
    // Every byte is below 0x80 from here, so signed compares order them.
    let splat = |b: u8| set_splat_i8_m128i(i8::try_from(b).unwrap_or(i8::MAX));
    let between = |v: m128i, lo: u8, hi: u8| {
        bitand_m128i(
            cmp_gt_mask_i8_m128i(v, splat(lo - 1)),
            cmp_lt_mask_i8_m128i(v, splat(hi + 1)),
        )
    };
    // A letter whatever its case (`| 0x20` makes a capital small and no
    // other byte a letter); a capital, one without 0x20.
    let letters = between(bitor_m128i(x, splat(0x20)), b'a', b'z');
    let no_small_bit = cmp_eq_mask_i8_m128i(bitand_m128i(x, splat(0x20)), zeroed_m128i());
    let caps = bitand_m128i(letters, no_small_bit);
    let alnum = bitor_m128i(letters, between(x, b'0', b'9'));
    let joins = bitor_m128i(between(x, b'-', b'.'), cmp_eq_mask_i8_m128i(x, splat(b'_')));
    // The mask of sixteen bytes has sixteen bits: the cast keeps them all.
    let bits = |v: m128i| move_mask_i8_m128i(v) as u16;
    Some([bits(alnum), bits(caps), bits(joins)])
}

impl Masks {
    /// The masks of `bytes`; false (and the masks unusable) when the text
    /// is not ASCII.
    fn fill(&mut self, bytes: &[u8]) -> bool {
        self.word.clear();
        self.capital.clear();
        self.joiner.clear();
        let (mut word, mut capital, mut joiner) = (0u64, 0u64, 0u64);
        let chunks = bytes.chunks_exact(16);
        let mut last = [0u8; 16];
        if let Some(head) = last.get_mut(..chunks.remainder().len()) {
            head.copy_from_slice(chunks.remainder());
        }
        let blocks = chunks.map(|c| <[u8; 16]>::try_from(c).unwrap_or([0; 16]));
        for (k, block) in blocks
            .chain((!bytes.len().is_multiple_of(16)).then_some(last))
            .enumerate()
        {
            let Some([alnum, caps, joins]) = classify16(block) else {
                return false;
            };
            let shift = (k % 4) * 16;
            word |= u64::from(alnum) << shift;
            capital |= u64::from(caps) << shift;
            joiner |= u64::from(joins) << shift;
            if k % 4 == 3 {
                self.word.push(std::mem::take(&mut word));
                self.capital.push(std::mem::take(&mut capital));
                self.joiner.push(std::mem::take(&mut joiner));
            }
        }
        if !bytes.len().is_multiple_of(64) {
            self.word.push(word);
            self.capital.push(capital);
            self.joiner.push(joiner);
        }
        true
    }

    /// The first position at or after `from` whose bit is `set` in
    /// `bits`; past the text's end the bits read as clear.
    #[inline]
    fn next(bits: &[u64], from: usize, set: bool) -> usize {
        let mut w = from / 64;
        let flip = if set { 0 } else { u64::MAX };
        let mut m = bits
            .get(w)
            .map_or(0, |b| (b ^ flip) & (u64::MAX << (from % 64)));
        loop {
            if m != 0 {
                return w * 64 + m.trailing_zeros() as usize;
            }
            w += 1;
            match bits.get(w) {
                Some(b) => m = b ^ flip,
                // Set: none; clear: the end, which is clear.
                None => return w * 64,
            }
        }
    }

    /// Whether any bit of `bits` in `from..to` is set; reads only the
    /// words that range covers (a scan to the next set bit would cross
    /// the rest of a text without capitals for each of its words).
    #[inline]
    fn any(bits: &[u64], from: usize, to: usize) -> bool {
        if from >= to {
            return false;
        }
        let (first, last) = (from / 64, (to - 1) / 64);
        (first..=last).any(|w| {
            let mut m = bits.get(w).copied().unwrap_or(0);
            if w == first {
                m &= u64::MAX << (from % 64);
            }
            if w == last {
                m &= u64::MAX >> (63 - (to - 1) % 64);
            }
            m != 0
        })
    }

    #[inline]
    fn has(bits: &[u64], at: usize) -> bool {
        bits.get(at / 64).is_some_and(|b| b >> (at % 64) & 1 == 1)
    }
}

/// [`tokens_unicode`] for ASCII text (what most skills are written in; a
/// property test holds the two to the same tokens), over its [`Masks`]: a
/// run of small letters and digits that no joiner continues is a token as
/// it stands; any other identifier is read byte by byte by
/// [`identifier_ascii`] from its start.
///
/// The tokens' starts are read 64 bytes at a time, as the bits of a mask
/// word whose byte before is not a letter or digit; a token that ends in
/// the same mask word is measured, and checked for capitals, with a
/// shift and a mask each.
fn tokens_masked<F: FnMut(Token<'_>)>(
    text: &str,
    masks: &Masks,
    buf: &mut String,
    parts: &mut Vec<(usize, usize)>,
    emit: &mut F,
) {
    let end = text.len();
    // Where the next token may start: a slow path reads past the token
    // it started at.
    let mut i = 0;
    let mut carry = 0;
    for (w, &word) in masks.word.iter().enumerate() {
        let base = w * 64;
        let mut starts = word & !((word << 1) | carry);
        carry = word >> 63;
        let caps = masks.capital.get(w).copied().unwrap_or(0);
        while starts != 0 {
            let at = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let start = base + at;
            if start < i {
                continue;
            }
            // The first byte after `start` that is not a letter or digit:
            // in this mask word (the shift brings in set bits from above,
            // so an all-clear rest means it runs on), or after it.
            let rest = !word >> at;
            let within = rest != 0;
            let mut stop = if within {
                start + rest.trailing_zeros() as usize
            } else {
                Masks::next(&masks.word, base + 64, false)
            }
            .min(end);
            let capital = if within {
                // `stop - start` is 1..=63 here: the shift is in range.
                caps >> at & ((1u64 << (stop - start)) - 1) != 0
            } else {
                Masks::any(&masks.capital, start, stop)
            };
            let joined =
                |at: usize| Masks::has(&masks.joiner, at) && Masks::has(&masks.word, at + 1);
            if capital {
                i = identifier_ascii(text, start, buf, parts, emit);
                continue;
            }
            if !joined(stop) {
                emit(Token {
                    text: text.get(start..stop).unwrap_or(""),
                    packed: pack_at(text.as_bytes(), start, stop - start),
                });
                i = stop;
                continue;
            }
            // Parts joined by `-`, `_` or `.`, none with a capital: as
            // `identifier_ascii` reads them, without its byte loop.
            parts.clear();
            parts.push((start, stop));
            let mut clean = true;
            while joined(stop) {
                let next = stop + 1;
                stop = Masks::next(&masks.word, next, false).min(end);
                if Masks::any(&masks.capital, next, stop) {
                    clean = false;
                    break;
                }
                parts.push((next, stop));
            }
            if clean {
                emit_identifier(text, parts, true, buf, emit);
                i = stop;
            } else {
                i = identifier_ascii(text, start, buf, parts, emit);
            }
        }
    }
}

/// What [`identifier_ascii`] sees in a byte: a small letter or a digit, a
/// capital, or anything else.
const SMALL: u8 = 1;
const CAPITAL: u8 = 2;
const OTHER: u8 = 0;
const ASCII_CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        class[b] = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            SMALL
        } else if c.is_ascii_uppercase() {
            CAPITAL
        } else {
            OTHER
        };
        b += 1;
    }
    class
};

fn ascii_class(b: u8) -> u8 {
    ASCII_CLASS[usize::from(b)]
}

/// Reads the identifier of ASCII `text` that starts at `i` (a letter or a
/// digit), emits its tokens, and returns where it ends.
fn identifier_ascii<F: FnMut(Token<'_>)>(
    text: &str,
    mut i: usize,
    buf: &mut String,
    parts: &mut Vec<(usize, usize)>,
    emit: &mut F,
) -> usize {
    let bytes = text.as_bytes();
    parts.clear();
    let mut clean = true;
    let mut start = i;
    let mut prev_lower = false;
    loop {
        while let Some(&b) = bytes.get(i) {
            match ascii_class(b) {
                SMALL => prev_lower = true,
                CAPITAL => {
                    clean = false;
                    if prev_lower {
                        parts.push((start, i));
                        start = i;
                    }
                    prev_lower = false;
                }
                _ => break,
            }
            i += 1;
        }
        parts.push((start, i));
        let joined = matches!(bytes.get(i), Some(b'-' | b'_' | b'.'))
            && bytes.get(i + 1).is_some_and(|&b| ascii_class(b) != OTHER);
        if !joined {
            break;
        }
        i += 1;
        start = i;
        prev_lower = false;
    }
    emit_identifier(text, parts, clean, buf, emit);
    i
}

fn tokens_unicode<F: FnMut(Token<'_>)>(
    text: &str,
    buf: &mut String,
    parts: &mut Vec<(usize, usize)>,
    emit: &mut F,
) {
    let bytes = text.as_bytes();
    // The character at `i` (ASCII by its byte) and its width.
    let char_at = |i: usize| -> (char, usize) {
        match bytes.get(i) {
            Some(&b) if b.is_ascii() => (char::from(b), 1),
            Some(_) => {
                let c = text.get(i..).and_then(|t| t.chars().next()).unwrap_or(' ');
                (c, c.len_utf8())
            }
            None => (' ', 1),
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let (c, width) = char_at(i);
        if !c.is_alphanumeric() {
            i += width;
            continue;
        }
        // An identifier: runs of letters and digits, joined by `-`, `_`
        // or `.` (each followed by a letter or digit), split at camelCase.
        parts.clear();
        // Every byte a small ASCII letter or a digit: no lower-casing.
        let mut clean = true;
        let mut start = i;
        let mut prev_lower = false;
        loop {
            while let Some(&b) = bytes.get(i) {
                if b.is_ascii_lowercase() || b.is_ascii_digit() {
                    prev_lower = true;
                    i += 1;
                    continue;
                }
                let (c, width) = char_at(i);
                if !c.is_alphanumeric() {
                    break;
                }
                clean = false;
                // camelCase: a capital after a small letter starts a part.
                if prev_lower && c.is_uppercase() {
                    parts.push((start, i));
                    start = i;
                }
                prev_lower = c.is_lowercase() || c.is_numeric();
                i += width;
            }
            parts.push((start, i));
            let joined = matches!(bytes.get(i), Some(b'-' | b'_' | b'.'))
                && char_at(i + 1).0.is_alphanumeric()
                && i + 1 < bytes.len();
            if !joined {
                break;
            }
            i += 1;
            start = i;
            prev_lower = false;
        }
        emit_identifier(text, parts, clean, buf, emit);
    }
}

/// Emits an identifier's parts (lower-cased unless `clean`: every byte a
/// small ASCII letter or a digit), then the whole identifier.
fn emit_identifier<F: FnMut(Token<'_>)>(
    text: &str,
    parts: &[(usize, usize)],
    clean: bool,
    buf: &mut String,
    emit: &mut F,
) {
    for &(a, b) in parts.iter() {
        let part = text.get(a..b).unwrap_or("");
        if clean {
            emit(Token::of(part));
        } else {
            buf.clear();
            push_lower(part, buf);
            emit(Token::of(buf));
        }
    }
    // The whole identifier, unless a number in it tells it apart
    // already (`skill-0042`).
    if parts.len() > 1 && !parts.iter().any(|&(a, b)| is_number(text.get(a..b))) {
        buf.clear();
        for &(a, b) in parts.iter() {
            push_lower(text.get(a..b).unwrap_or(""), buf);
        }
        if buf.chars().nth(MAX_COMPOUND).is_none() {
            emit(Token::of(buf));
        }
    }
}

fn is_number(part: Option<&str>) -> bool {
    part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn push_lower(word: &str, buf: &mut String) {
    if word.is_ascii() {
        buf.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        for c in word.chars() {
            buf.extend(c.to_lowercase());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    use proptest::prelude::*;
    use skillpipe_types::{Frontmatter, Level, Source};

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
            frontmatter: Frontmatter::default(),
            invocation: None,
            visibility: Default::default(),
        }
    }

    fn all_tokens(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        Tokenizer::default().run(text, |t| out.push(t.to_owned()));
        out
    }

    fn names(skills: &[Skill], hits: &[Scored]) -> Vec<String> {
        hits.iter()
            .map(|h| skills[h.index].name.to_string())
            .collect()
    }

    #[test]
    fn identifiers_give_their_parts_and_themselves() {
        assert_eq!(all_tokens("pdf-forms"), ["pdf", "forms", "pdfforms"]);
        assert_eq!(all_tokens("pdfForms"), ["pdf", "forms", "pdfforms"]);
        assert_eq!(
            all_tokens("snake_case.rs"),
            ["snake", "case", "rs", "snakecasers"]
        );
        assert_eq!(
            all_tokens("Fill PDF forms. Then, p5.js!"),
            ["fill", "pdf", "forms", "then", "p5", "js", "p5js"]
        );
        // Two separators end an identifier; a trailing joiner is dropped.
        assert_eq!(all_tokens("a--b c-"), ["a", "b", "c"]);
        assert_eq!(all_tokens("ÉCRIRE Straße"), ["écrire", "straße"]);
        assert_eq!(all_tokens("K8s HTMLParser"), ["k8s", "htmlparser"]);
        // A number tells an identifier apart: no whole token.
        assert_eq!(all_tokens("api-cache-0042"), ["api", "cache", "0042"]);
        assert!(all_tokens("  \n\t—…").is_empty());
    }

    fn scanned(text: &str, ascii: bool) -> Vec<String> {
        let mut out = Vec::new();
        let mut emit = |t: Token<'_>| {
            // The packed bytes, where given, are the token's.
            assert_eq!(t.packed, pack(t.text), "{:?}", t.text);
            out.push(t.text.to_owned());
        };
        let mut tokenizer = Tokenizer::default();
        if ascii {
            assert!(tokenizer.masks.fill(text.as_bytes()));
            let Tokenizer { buf, parts, masks } = &mut tokenizer;
            tokens_masked(text, masks, buf, parts, &mut emit);
        } else {
            let Tokenizer { buf, parts, .. } = &mut tokenizer;
            tokens_unicode(text, buf, parts, &mut emit);
        }
        out
    }

    proptest! {
        // SSE2's classes are the u64 fallback's, byte for byte, and
        // both refuse a block with a byte of 0x80 or more.
        #[test]
        fn the_sse2_classes_are_the_fallbacks(block in prop::array::uniform16(prop_oneof![0u8..0x80, any::<u8>()])) {
            prop_assert_eq!(classify16(block), classify16_swar(block));
        }

        // A word read with one load, wherever it lies in its text, packs
        // as `pack` packs it.
        #[test]
        fn a_word_packed_in_its_text_is_packed_alone(text in "[a-z -]{0,20}", start in 0usize..20, len in 0usize..12) {
            let bytes = text.as_bytes();
            let word = bytes.get(start..start + len);
            let alone = word.and_then(|w| std::str::from_utf8(w).ok()).and_then(pack);
            let expected = if len > 8 { None } else { alone };
            prop_assert_eq!(pack_at(bytes, start, len), expected);
        }
    }

    #[test]
    fn a_short_word_packs_as_its_bytes_in_order() {
        let fold = |w: &str| w.bytes().rev().fold(0u64, |p, b| (p << 8) | u64::from(b));
        for w in ["", "a", "ab", "abc", "abcd", "abcde", "pdf-doc", "abcdefgh"] {
            assert_eq!(pack(w), Some(fold(w)), "{w}");
        }
        assert_eq!(pack("ab"), Some(0x6261));
        assert_eq!(pack("abcdefghi"), None);
    }

    #[test]
    fn the_masks_mark_each_class_and_refuse_other_text() {
        let mut masks = Masks::default();
        let text = "aZ9-_. x.Y";
        assert!(masks.fill(text.as_bytes()));
        assert_eq!(masks.word, [0b10_1000_0111]);
        assert_eq!(masks.capital, [0b10_0000_0010]);
        assert_eq!(masks.joiner, [0b1_0011_1000]);
        // Words of 64 bytes: the 65th byte is bit 0 of the second.
        let long = format!("{}-B", "a".repeat(63));
        assert!(masks.fill(long.as_bytes()));
        assert_eq!(masks.word, [u64::MAX >> 1, 1]);
        assert_eq!(masks.joiner, [1 << 63, 0]);
        assert_eq!(Masks::next(&masks.word, 0, false), 63);
        assert_eq!(Masks::next(&masks.word, 64, true), 64);
        assert_eq!(Masks::next(&masks.word, 65, true), 128);
        assert!(!masks.fill("naïve".as_bytes()));
        // Every byte value below 0x80, alone, in each place of a word.
        for b in 0u8..0x80 {
            for at in 0..9 {
                let mut bytes = vec![b' '; 9];
                bytes[at] = b;
                assert!(masks.fill(&bytes));
                let class = ASCII_CLASS[usize::from(b)];
                assert_eq!(Masks::has(&masks.word, at), class != OTHER, "{b}");
                assert_eq!(Masks::has(&masks.capital, at), class == CAPITAL, "{b}");
                assert_eq!(Masks::has(&masks.joiner, at), b"-_.".contains(&b), "{b}");
            }
        }
    }

    proptest! {
        // `any` answers what a bit-by-bit look at the range would.
        #[test]
        fn any_is_a_look_at_each_bit_of_the_range(
            bits in prop::collection::vec(any::<u64>().prop_map(|b| b & b.rotate_left(7) & b.rotate_left(19)), 0..4),
            from in 0usize..300,
            len in 0usize..300,
        ) {
            let to = from + len;
            let each = (from..to).any(|at| Masks::has(&bits, at));
            prop_assert_eq!(Masks::any(&bits, from, to), each);
        }
    }

    proptest! {
        // The masked scanner is the Unicode one for ASCII text:
        // identifiers, joiners at either end, camelCase, numbers, any
        // separators, words across the masks' 64-byte words.
        #[test]
        fn the_ascii_scanner_gives_the_unicode_scanners_tokens(
            text in "([a-zA-Z0-9]{0,6}[-_. ,!\n]{0,2}){0,12}|[ -~]{0,40}|[ -~]{60,140}|([a-z0-9]{1,9}[-_. A-Z]){5,30}"
        ) {
            prop_assert_eq!(scanned(&text, true), scanned(&text, false));
        }
    }

    #[test]
    fn the_named_skill_comes_first_and_ties_keep_pipeline_order() {
        let skills = vec![
            skill("forms", "Work with forms in general."),
            skill("pdf-forms", "Fill and extract fields of PDF documents."),
            skill("docx", "Create Word documents."),
            skill("twin-x", "Deploy the service."),
            skill("twin-y", "Deploy the service."),
        ];
        let index = SearchIndex::build(&skills);
        assert_eq!(index.len(), 5);
        let hits = index.search("pdf-forms", 10);
        assert_eq!(names(&skills, &hits)[0], "pdf-forms");
        // Stemmed: "filling" finds "Fill".
        assert_eq!(
            names(&skills, &index.search("filling a PDF", 1)),
            ["pdf-forms"]
        );
        let hits = index.search("deploying services", 10);
        assert_eq!(names(&skills, &hits), ["twin-x", "twin-y"]);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(names(&skills, &index.search("deploy", 1)), ["twin-x"]);
        // Stop words alone, unknown words, limit 0: nothing.
        assert!(index.search("the when use", 10).is_empty());
        assert!(index.search("zebra", 10).is_empty());
        assert!(index.search("pdf", 0).is_empty());
    }

    #[test]
    fn hidden_skills_are_not_found_and_when_to_use_counts() {
        let mut hidden = skill("secret-pdf", "PDF tricks.");
        hidden.hidden = true;
        let mut when = skill("reporter", "Writes reports.");
        // As the loader reads it: the typed field.
        let mut invocation = skillpipe_types::Invocation::default();
        invocation.when_to_use = Some("quarterly invoices".to_owned());
        when.invocation = Some(Box::new(invocation));
        let skills = vec![hidden, skill("pdf", "Read PDF files."), when];
        let index = SearchIndex::build(&skills);
        assert_eq!(index.len(), 2);
        assert_eq!(names(&skills, &index.search("pdf", 10)), ["pdf"]);
        assert_eq!(names(&skills, &index.search("invoice", 10)), ["reporter"]);
        assert!(SearchIndex::build(&[]).search("pdf", 3).is_empty());
    }

    #[test]
    fn a_name_only_skill_is_found_by_its_name_alone() {
        let mut quiet = skill("pdf-tools", "Invoices and receipts.");
        quiet.visibility = Visibility::NameOnly;
        let skills = vec![quiet, skill("ledger", "Invoices.")];
        let index = SearchIndex::build(&skills);
        assert_eq!(names(&skills, &index.search("invoices", 10)), ["ledger"]);
        assert_eq!(
            names(&skills, &index.search("pdf tools", 10)),
            ["pdf-tools"]
        );
    }

    #[test]
    fn two_terms_of_one_half_that_are_one_in_the_other_merge_as_the_whole() {
        // Snowball's stem of a stem can differ (universe → univers →
        // univ): the second half keeps `univers` and `univ` apart, the
        // first has them as one term, so their postings merge.
        let stemmer = Stemmer::create(Algorithm::English);
        let once = stemmer.stem("universe").into_owned();
        let twice = stemmer.stem(&once).into_owned();
        assert_ne!(once, twice);
        assert_eq!(stemmer.stem(&twice), twice);
        // The second part reads `e` first, then `c` and `d`: `e` has a
        // word of each of its two terms, whose hits are summed as one.
        let skills = vec![
            skill("a", &once),
            skill("b", "universe universe"),
            skill("c", "universe"),
            skill("d", &format!("{twice} {twice} {twice}")),
            skill("e", &format!("universe {twice}")),
        ];
        let whole = SearchIndex::whole(&skills);
        let halves = SearchIndex::build_split(&skills, 2, 1);
        for q in [once.as_str(), "universe", twice.as_str()] {
            let hits = halves.search(q, 10);
            assert_eq!(hits.len(), 5, "{q}");
            assert_eq!(hits, whole.search(q, 10), "{q}");
        }
    }

    #[test]
    fn a_large_list_read_on_two_threads_answers_as_one_part() {
        // Past `HALVES_FROM`, the threads meet wherever their timing has
        // them meet: the answers are those of one part all the same.
        let words = [
            "deploy",
            "deploying",
            "cloud",
            "pdf",
            "forms",
            "review",
            "reviews",
        ];
        let skills: Vec<Skill> = (0..HALVES_FROM + 3 * CHUNK + 17)
            .map(|i| {
                let pick = |k: usize| words[(i * k + i / 7) % words.len()];
                let mut s = skill(
                    &format!("{}-{i}", pick(3)),
                    &format!("{} the {} and {} {}", pick(1), pick(5), pick(2), pick(11)),
                );
                s.hidden = i % 13 == 0;
                s
            })
            .collect();
        let whole = SearchIndex::whole(&skills);
        let threads = SearchIndex::build(&skills);
        assert_eq!(whole.len(), threads.len());
        for q in [
            "deploy pdf",
            "review",
            "cloud forms reviewing",
            "deploy-40",
            "revi",
        ] {
            // Every match: ties (skills of the same words) in list order.
            let hits = threads.search(q, skills.len());
            assert!(!hits.is_empty(), "{q}");
            assert_eq!(hits, whole.search(q, skills.len()), "{q}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Read in two parts, wherever the threads met, and merged, the
        /// index answers as read in one piece, score for score.
        #[test]
        fn halves_merge_to_the_whole(
            docs in prop::collection::vec(("[a-z]{1,6}(-[a-z0-9]{1,5}){0,2}", "([a-z]{1,9} ){0,12}", prop::bool::weighted(0.1)), 0..30),
            queries in prop::collection::vec("([a-z]{1,9} ?){1,4}", 1..5),
            chunk in 1usize..5,
            split in 0usize..12,
        ) {
            let skills: Vec<Skill> = docs
                .iter()
                .map(|(n, d, h)| {
                    let mut s = skill(n, d);
                    s.hidden = *h;
                    s
                })
                .collect();
            let whole = SearchIndex::whole(&skills);
            let halves = SearchIndex::build_split(&skills, chunk, split);
            prop_assert_eq!(whole.len(), halves.len());
            for q in &queries {
                prop_assert_eq!(whole.search(q, 50), halves.search(q, 50), "{}", q);
            }
        }

        /// Any text, any query: no panic, at most `limit` results, best
        /// first, ties in list order, every result a visible skill.
        #[test]
        fn results_are_ordered_and_bounded(
            docs in prop::collection::vec(("[a-zA-Z_-]{1,12}", "\\PC{0,80}", prop::bool::weighted(0.2)), 0..12),
            query in "\\PC{0,30}",
            limit in 0..6usize,
        ) {
            let skills: Vec<Skill> = docs
                .iter()
                .map(|(n, d, h)| {
                    let mut s = skill(n, d);
                    s.hidden = *h;
                    s
                })
                .collect();
            let index = SearchIndex::build(&skills);
            let hits = index.search(&query, limit);
            prop_assert!(hits.len() <= limit);
            for w in hits.windows(2) {
                prop_assert!(
                    w[0].score > w[1].score || (w[0].score == w[1].score && w[0].index < w[1].index),
                    "{hits:?}"
                );
            }
            for h in &hits {
                prop_assert!(!skills[h.index].hidden);
                prop_assert!(h.score > 0.0 && h.score.is_finite());
            }
            prop_assert_eq!(&hits, &index.search(&query, limit));
        }
    }
}
