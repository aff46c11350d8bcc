//! Provider `agents` ("Agents (standard)", priority 70): `<A>/.agent/skills`
//! and `<A>/.agents/skills` for the project ancestors (home skipped), then
//! `~/.agent/skills` and `~/.agents/skills` (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider, key,
    one_level, project_ancestors,
};

const DIRS: [&str; 2] = [".agent", ".agents"];

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots = Vec::new();
    for a in project_ancestors(cx, true) {
        for d in DIRS {
            roots.push(one_level(
                a.join(d).join("skills"),
                Level::Project,
                false,
                key("enableAgentsProject"),
            ));
        }
    }
    for d in DIRS {
        roots.push(one_level(
            cx.home.join(d).join("skills"),
            Level::User,
            false,
            key("enableAgentsUser"),
        ));
    }
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin(
            "agents",
            "Agents (standard)",
            70,
            vec![key("enableAgentsProject"), key("enableAgentsUser")],
        ),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "agents", build: provider } }
