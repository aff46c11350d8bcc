//! Provider `claude` ("Claude Code", priority 80): `~/.claude/skills`
//! (`CLAUDE_CONFIG_DIR` moves it), then `<A>/.claude/skills` for the
//! project ancestors, home itself skipped (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, Home, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle, project_ancestors,
};

/// Gates its user-level roots.
const USER: Toggle = Toggle::key("enableClaudeUser");
/// Gates its project-level roots.
const PROJECT: Toggle = Toggle::key("enableClaudeProject");

/// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR` or `~/.claude`.
pub fn claude_dir(cx: &DiscoveryContext) -> PathBuf {
    cx.var("CLAUDE_CONFIG_DIR")
        .map_or_else(|| cx.home.join(".claude"), PathBuf::from)
}

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots = vec![Root::new(claude_dir(cx).join("skills"), Level::User).into()];
    roots.extend(
        project_ancestors(cx, Home::Skipped)
            .into_iter()
            .map(|a| Root::new(a.join(".claude").join("skills"), Level::Project).into()),
    );
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(
        Conventional::new(ProviderInfo::builtin("claude", "Claude Code", 80), roots)
            .toggle_for(Level::User, USER)
            .toggle_for(Level::Project, PROJECT),
    )
}

inventory::submit! { ProviderDescriptor::new(provider) }
