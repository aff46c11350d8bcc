//! Provider `musepi-managed` ("Managed Skills (auto-learn)", priority 5):
//! `<agentDir>/managed-skills`, always on, loaded in pass 3 where any
//! authored skill of the same name shadows it (SPEC §5 step 6).

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    vec![
        Root::new(cx.agent_dir.join("managed-skills"), Level::User)
            .description(Description::Required)
            .into(),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional::new(
        ProviderInfo::builtin("musepi-managed", "Managed Skills (auto-learn)", 5).managed(),
        roots,
    ))
}

inventory::submit! { ProviderDescriptor::new(provider) }
