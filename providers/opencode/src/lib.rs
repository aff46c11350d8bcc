//! Provider `opencode` ("OpenCode", priority 55): `~/.config/opencode/skills`
//! (`XDG_CONFIG_HOME` moves `~/.config`), then `<cwd>/.opencode/skills`
//! (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let config = cx
        .var("XDG_CONFIG_HOME")
        .map_or_else(|| cx.home.join(".config"), PathBuf::from);
    vec![
        Root::new(config.join("opencode").join("skills"), Level::User).into(),
        Root::new(cx.cwd.join(".opencode").join("skills"), Level::Project).into(),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(ProviderInfo::builtin("opencode", "OpenCode", 55), roots)
            .toggle(Toggle::Fallback),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
