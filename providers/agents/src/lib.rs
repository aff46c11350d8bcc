//! Provider `agents` ("Agents (standard)", priority 70): `<A>/.agent/skills`
//! and `<A>/.agents/skills` for the project ancestors (home skipped), then
//! `~/.agent/skills` and `~/.agents/skills` (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, Home, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle, project_ancestors,
};

/// Gates its project-level roots.
const PROJECT: Toggle = Toggle::key("enableAgentsProject");
/// Gates its user-level roots.
const USER: Toggle = Toggle::key("enableAgentsUser");

const DIRS: [&str; 2] = [".agent", ".agents"];

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots = Vec::new();
    for a in project_ancestors(cx, Home::Skipped) {
        for d in DIRS {
            roots.push(Root::new(a.join(d).join("skills"), Level::Project).into());
        }
    }
    for d in DIRS {
        roots.push(Root::new(cx.home.join(d).join("skills"), Level::User).into());
    }
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(
            ProviderInfo::builtin("agents", "Agents (standard)", 70),
            roots,
        )
        .toggle_for(Level::Project, PROJECT)
        .toggle_for(Level::User, USER),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
