//! Provider `opencode` ("OpenCode", priority 55): `~/.config/opencode/skills`
//! (`XDG_CONFIG_HOME` moves `~/.config`), then `<cwd>/.opencode/skills`
//! (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider,
    Toggle, one_level,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let config = cx
        .var("XDG_CONFIG_HOME")
        .map_or_else(|| cx.home.join(".config"), PathBuf::from);
    vec![
        one_level(
            config.join("opencode").join("skills"),
            Level::User,
            false,
            Toggle::Fallback,
        ),
        one_level(
            cx.cwd.join(".opencode").join("skills"),
            Level::Project,
            false,
            Toggle::Fallback,
        ),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin("opencode", "OpenCode", 55, vec![Toggle::Fallback]),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "opencode", build: provider } }
