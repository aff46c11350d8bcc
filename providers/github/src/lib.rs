//! Provider `github` ("GitHub Copilot", priority 30): `<cwd>/.github/skills`
//! (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    vec![
        Root::new(cx.cwd.join(".github").join("skills"), Level::Project)
            .description(Description::Required)
            .into(),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(ProviderInfo::builtin("github", "GitHub Copilot", 30), roots)
            .toggle(Toggle::Fallback),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
