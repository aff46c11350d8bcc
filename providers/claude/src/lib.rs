//! Provider `claude` ("Claude Code", priority 80): `~/.claude/skills`
//! (`CLAUDE_CONFIG_DIR` moves it), then `<A>/.claude/skills` for the
//! project ancestors, home itself skipped (SPEC §4).

use std::path::PathBuf;

use skillpipe_core::types::Level;
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, RootItem, SkillProvider, key,
    one_level, project_ancestors,
};

/// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR` or `~/.claude`.
pub fn claude_dir(cx: &DiscoveryContext) -> PathBuf {
    cx.var("CLAUDE_CONFIG_DIR")
        .map_or_else(|| cx.home.join(".claude"), PathBuf::from)
}

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let mut roots = vec![one_level(
        claude_dir(cx).join("skills"),
        Level::User,
        false,
        key("enableClaudeUser"),
    )];
    roots.extend(project_ancestors(cx, true).into_iter().map(|a| {
        one_level(
            a.join(".claude").join("skills"),
            Level::Project,
            false,
            key("enableClaudeProject"),
        )
    }));
    roots
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional {
        info: ProviderInfo::builtin(
            "claude",
            "Claude Code",
            80,
            vec![key("enableClaudeUser"), key("enableClaudeProject")],
        ),
        roots,
    })
}

inventory::submit! { ProviderDescriptor { id: "claude", build: provider } }
