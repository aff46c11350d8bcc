//! The two orders of the pipeline: providers by priority and profile
//! list ([`order_providers`]), and the final list by name (musepi).

use std::borrow::Cow;

use skillpipe_types::Skill;

use crate::provider::SkillProvider;
use crate::util::lowercase;

/// By name lower-cased (Unicode), then exact name; each lower-cased name is
/// computed once, and not at all for a name that is lower case already.
pub(super) fn sort_by_name(skills: &mut Vec<Skill>) {
    // The keys travel with the indices, so comparing never goes back to
    // the skills.
    let mut keys: Vec<(Cow<'_, str>, &str, usize)> = skills
        .iter()
        .enumerate()
        .map(|(i, s)| (lowercase(&s.name), s.name.as_str(), i))
        .collect();
    // Stable: each root's skills come in name order already, and the
    // stable sort merges such runs in near-linear time.
    keys.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let order: Vec<usize> = keys.into_iter().map(|(_, _, i)| i).collect();
    // Each skill moved once, to its place in a new list.
    let mut slots: Vec<Option<Skill>> = std::mem::take(skills).into_iter().map(Some).collect();
    *skills = order
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect();
}

/// Orders providers for a profile: by priority (higher first); equal
/// priorities keep the order of `profile_order` (the profile's provider
/// list), then plugins in load order.
pub fn order_providers(
    mut providers: Vec<Box<dyn SkillProvider>>,
    profile_order: &[String],
) -> Vec<Box<dyn SkillProvider>> {
    let rank = |p: &dyn SkillProvider| {
        let id = &p.info().id;
        profile_order
            .iter()
            .position(|x| x == id)
            .unwrap_or(usize::MAX)
    };
    // A stable sort keeps load order among plugins of equal priority.
    providers.sort_by_key(|p| (std::cmp::Reverse(p.info().priority), rank(p.as_ref())));
    providers
}
