//! The two orders of the pipeline: providers by priority and profile
//! list ([`order_providers`]), and the final list by name (musepi).

use skillpipe_types::Skill;

use crate::provider::SkillProvider;
use crate::util::{Comes, lowercase_order, lowercase_order_of, permuted};

/// By name lower-cased (Unicode), then exact name, then place (stable).
/// `heads`: each skill's [`crate::util::lowercase_head`], read on the
/// scanning threads (so that this pass, which runs alone at the end of a
/// discovery, reads few names); read here when there are not as many as
/// skills.
pub(super) fn sort_by_name(skills: &mut Vec<Skill>, heads: Vec<(u128, u128)>) {
    let name = |i: usize| skills[i].name.as_str();
    let order = match heads.len() == skills.len() {
        true => {
            let keys = heads.into_iter().enumerate().map(|(i, h)| (h, i)).collect();
            lowercase_order_of(keys, Comes::InRuns, name, name)
        }
        false => lowercase_order(skills.len(), Comes::InRuns, name, name),
    };
    *skills = permuted(std::mem::take(skills), &order);
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
