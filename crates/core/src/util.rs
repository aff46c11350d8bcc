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

    proptest! {
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
}
