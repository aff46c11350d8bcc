//! Provider `omp-plugins` ("Extension Packages", priority 90): `<pkg>/skills`
//! for each extension package root in the `extensions` setting (SPEC §4).
//! Relative entries were resolved by the settings layer against the file
//! that declared them; here they arrive absolute in `cx.extensions`.

use skillpipe_core::paths::is_within;
use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let project = cx.repo_root.as_ref().unwrap_or(&cx.cwd);
    cx.extensions
        .iter()
        .map(|pkg| {
            let level = if is_within(pkg, project) {
                Level::Project
            } else {
                Level::User
            };
            Root::new(pkg.join("skills"), level)
                .description(Description::Required)
                .into()
        })
        .collect()
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(
            ProviderInfo::builtin("omp-plugins", "Extension Packages", 90),
            roots,
        )
        .toggle(Toggle::Fallback),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
