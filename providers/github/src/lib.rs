//! Provider `github` ("GitHub Copilot", priority 30): `<cwd>/.github/skills`
//! (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider,
    Toggle, one_level,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    vec![one_level(
        cx.cwd.join(".github").join("skills"),
        Level::Project,
        true,
        Toggle::Fallback,
    )]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin("github", "GitHub Copilot", 30, vec![Toggle::Fallback]),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "github", build: provider } }
