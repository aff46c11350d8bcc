//! Provider `native` ("MusePi", priority 100): `<A>/<app>/skills` for each
//! ancestor A of cwd up to the repository root (else home, else the
//! filesystem root), then `<agentDir>/skills` (SPEC §4).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider, key,
    one_level, project_ancestors,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots: Vec<RootItem> = project_ancestors(cx, false)
        .into_iter()
        .map(|a| {
            one_level(
                a.join(&cx.app_dir).join("skills"),
                Level::Project,
                true,
                key("enablePiProject"),
            )
        })
        .collect();
    roots.push(one_level(
        cx.agent_dir.join("skills"),
        Level::User,
        true,
        key("enablePiUser"),
    ));
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin(
            "native",
            "MusePi",
            100,
            vec![key("enablePiProject"), key("enablePiUser")],
        ),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "native", build: provider } }
