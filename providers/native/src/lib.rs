//! Provider `native` ("MusePi", priority 100): `<A>/<app>/skills` for each
//! ancestor A of cwd up to the repository root (else home, else the
//! filesystem root), then `<agentDir>/skills` (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, Home, ProviderDescriptor, ProviderInfo, Root,
    RootItem, SkillProvider, Toggle, project_ancestors,
};

/// Gates its project-level roots.
const PROJECT: Toggle = Toggle::key("enablePiProject");
/// Gates its user-level roots.
const USER: Toggle = Toggle::key("enablePiUser");

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots: Vec<RootItem> = project_ancestors(cx, Home::Included)
        .into_iter()
        .map(|a| {
            Root::new(a.join(&cx.app_dir).join("skills"), Level::Project)
                .description(Description::Required)
                .into()
        })
        .collect();
    roots.push(
        Root::new(cx.agent_dir.join("skills"), Level::User)
            .description(Description::Required)
            .into(),
    );
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(ProviderInfo::builtin("native", "MusePi", 100), roots)
            .toggle_for(Level::Project, PROJECT)
            .toggle_for(Level::User, USER),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
