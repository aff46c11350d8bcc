//! Provider `codex` ("OpenAI Codex", priority 70): `~/.codex/skills`
//! (`CODEX_HOME` moves it), then `<cwd>/.codex/skills` (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider,
    Toggle, key, one_level,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let codex_home = cx
        .var("CODEX_HOME")
        .map_or_else(|| cx.home.join(".codex"), PathBuf::from);
    vec![
        one_level(
            codex_home.join("skills"),
            Level::User,
            false,
            key("enableCodexUser"),
        ),
        one_level(
            cx.cwd.join(".codex").join("skills"),
            Level::Project,
            false,
            Toggle::Fallback,
        ),
    ]
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin(
            "codex",
            "OpenAI Codex",
            70,
            vec![key("enableCodexUser"), Toggle::Fallback],
        ),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "codex", build: provider } }
