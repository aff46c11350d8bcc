//! The copies that did not load, in the order the pipeline met them: what
//! `list --all` adds to its table and to its JSON. A leaf, so that the
//! tables and the commands can both use it.

use skillpipe::{Discovery, ShadowedCopy};

/// The copies that did not load (shadowed, then what settings and
/// switched-off sources removed), in pipeline order.
pub(crate) fn not_loaded(d: &Discovery) -> Vec<&ShadowedCopy> {
    skillpipe::core::copies::not_loaded(d)
}
