//! Small general helpers with no domain of their own, used by the
//! scanners and the pipeline.

use std::borrow::Cow;

/// A string lower-cased (Unicode), without a copy when it is lower-case
/// ASCII already.
pub(crate) fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| !b.is_ascii() || b.is_ascii_uppercase()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// How many bytes of a lower-cased name [`lowercase_head`] keeps: most
/// names are shorter, so equal heads are mostly equal names.
const HEAD: usize = 32;

/// The first 32 bytes of `s` lower-cased ([`lowercase`]), padded with
/// zeros, as two big-endian numbers: when two strings' heads differ, they
/// order the lower-cased strings as a whole (a string that ends first is a
/// prefix of the other), so a sort compares whole strings only when the
/// heads are equal. A head of ASCII is lower-cased in place, without a copy.
pub(crate) fn lowercase_head(s: &str) -> (u128, u128) {
    let mut head = [0u8; HEAD];
    let bytes = s.as_bytes();
    let first = &bytes[..bytes.len().min(HEAD)];
    if first.is_ascii() {
        // Lower-casing maps each character on its own (only a final
        // sigma looks at its neighbours, and it is not ASCII), so the
        // first 32 ASCII characters make the first 32 bytes.
        for (h, b) in head.iter_mut().zip(first) {
            *h = b.to_ascii_lowercase();
        }
    } else {
        let lower = s.to_lowercase();
        let first = &lower.as_bytes()[..lower.len().min(HEAD)];
        head[..first.len()].copy_from_slice(first);
    }
    let (hi, lo) = head.split_at(HEAD / 2);
    let word = |half: &[u8]| u128::from_be_bytes(half.try_into().unwrap_or_default());
    (word(hi), word(lo))
}

/// How the list [`lowercase_order`] sorts comes: the sort that suits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comes {
    /// In sorted runs (the pipeline's list: each root's skills sorted):
    /// a stable sort merges them in near-linear time, where an unstable
    /// one took twice as long.
    InRuns,
    /// In no useful order (a root's entries, in directory order): an
    /// unstable sort, the index last, is as stable and twice as fast.
    Unordered,
}

/// The indices `0..n` ordered by `name(i)` lower-cased ([`lowercase`]),
/// then by `then(i)`, then by index (a stable order). Two names are
/// compared by their [`lowercase_head`]s, kept beside the indices; only
/// names whose heads are equal are lower-cased and compared whole, so the
/// sort seldom reads the names themselves.
pub(crate) fn lowercase_order<'a, K: Ord>(
    n: usize,
    comes: Comes,
    name: impl Fn(usize) -> &'a str,
    then: impl Fn(usize) -> K,
) -> Vec<usize> {
    let keys = (0..n).map(|i| (lowercase_head(name(i)), i)).collect();
    lowercase_order_of(keys, comes, name, then)
}

/// [`lowercase_order`] with the heads read already: `keys` holds each
/// index `i` of `0..n` once, with `lowercase_head(name(i))`.
pub(crate) fn lowercase_order_of<'a, K: Ord>(
    mut keys: Vec<((u128, u128), usize)>,
    comes: Comes,
    name: impl Fn(usize) -> &'a str,
    then: impl Fn(usize) -> K,
) -> Vec<usize> {
    let compare = |&(ha, a): &((u128, u128), usize), &(hb, b): &((u128, u128), usize)| {
        ha.cmp(&hb)
            .then_with(|| lowercase(name(a)).cmp(&lowercase(name(b))))
            .then_with(|| then(a).cmp(&then(b)))
            .then(a.cmp(&b))
    };
    match comes {
        Comes::InRuns => keys.sort_by(compare),
        Comes::Unordered => keys.sort_unstable_by(compare),
    }
    keys.into_iter().map(|(_, i)| i).collect()
}

/// The items of `v` in the order of the indices `order` (a permutation of
/// `0..v.len()`), rearranged in place: item `order[k]` moves to `k`.
pub(crate) fn permuted<T>(mut v: Vec<T>, order: &[usize]) -> Vec<T> {
    // `pos[i]`: where the item that belongs at `i` is now.
    let mut pos: Vec<usize> = order.to_vec();
    // `at[j]`: which final slot the item now at `j` belongs to.
    let mut at: Vec<usize> = vec![0; order.len()];
    for (k, &i) in order.iter().enumerate() {
        if let Some(a) = at.get_mut(i) {
            *a = k;
        }
    }
    for k in 0..v.len() {
        let j = pos[k];
        if j != k {
            v.swap(k, j);
            // The item that was at `k` is now at `j`.
            let moved = at[k];
            pos[moved] = j;
            at[j] = moved;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Names with what lower-casing and byte order find hard: upper case,
    /// letters that lower-case to more bytes (`İ`) or by context (`Σ`),
    /// NUL, and heads that tie at 32 bytes.
    fn name() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("a"),
                Just("B"),
                Just("-"),
                Just("İ"),
                Just("Σ"),
                Just("é"),
                Just("\0"),
                Just("pdf-forms-and-more-"),
                Just("PDF-FORMS-AND-MORE-"),
                Just("z"),
            ],
            0..6,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn different_heads_order_the_lowercased_strings(a in name(), b in name()) {
            let (ha, hb) = (lowercase_head(&a), lowercase_head(&b));
            if ha != hb {
                prop_assert_eq!(ha.cmp(&hb), lowercase(&a).cmp(&lowercase(&b)));
            }
        }

        /// The keyed sort gives the plain stable sort's order.
        #[test]
        fn lowercase_order_is_the_plain_stable_sort(
            names in prop::collection::vec(name(), 0..40)
        ) {
            let mut want: Vec<usize> = (0..names.len()).collect();
            want.sort_by(|&a, &b| {
                lowercase(&names[a])
                    .cmp(&lowercase(&names[b]))
                    .then_with(|| names[a].cmp(&names[b]))
            });
            for comes in [Comes::InRuns, Comes::Unordered] {
                prop_assert_eq!(
                    lowercase_order(names.len(), comes, |i| &names[i], |i| &names[i]),
                    want.clone()
                );
            }
        }

        #[test]
        fn permuted_puts_each_item_where_the_order_says(
            order in (0usize..40).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        ) {
            let items: Vec<String> = (0..order.len()).map(|i| format!("item-{i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
            prop_assert_eq!(permuted(items, &order), want);
        }
    }
    #[test]
    fn lowercase_copies_only_when_needed() {
        assert!(matches!(lowercase("pdf-2"), Cow::Borrowed("pdf-2")));
        assert_eq!(lowercase("PDF"), "pdf");
        assert_eq!(lowercase("Ǆemal"), "ǆemal");
    }

    #[test]
    fn lowercase_heads_are_the_first_32_bytes() {
        let head = |s: &str| {
            let (hi, lo) = lowercase_head(s);
            [hi.to_be_bytes(), lo.to_be_bytes()].concat()
        };
        assert_eq!(&head("PDF")[..4], b"pdf\0");
        let long = "abcdefghijklmnopqrstuvwxyz-0123456789";
        assert_eq!(head(&long.to_uppercase()), long.as_bytes()[..32]);
        // `İ` lower-cases to three bytes: the head is the copy's.
        assert_eq!(&head("İx")[..5], "i\u{307}x\0".as_bytes());
        assert_eq!(lowercase_head(""), (0, 0));
    }
}
