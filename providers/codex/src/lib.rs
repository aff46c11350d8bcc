//! Provider `codex` ("OpenAI Codex", priority 70): `~/.codex/skills`
//! (`CODEX_HOME` moves it), then `<cwd>/.codex/skills` (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

/// Gates its user-level roots.
const USER: Toggle = Toggle::key("enableCodexUser");

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let codex_home = cx
        .var("CODEX_HOME")
        .map_or_else(|| cx.home.join(".codex"), PathBuf::from);
    vec![
        Root::new(codex_home.join("skills"), Level::User).into(),
        Root::new(cx.cwd.join(".codex").join("skills"), Level::Project).into(),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(ProviderInfo::builtin("codex", "OpenAI Codex", 70), roots)
            .toggle_for(Level::User, USER)
            .toggle_for(Level::Project, Toggle::Fallback),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
