//! Provider `claude-plugins` ("Claude Code Marketplace", priority 70):
//! `<plugin>/skills` for each user-scope install listed in
//! `~/.claude/plugins/installed_plugins.json` (SPEC §4). A missing index
//! means no roots; an unreadable or malformed one is one `read-error`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillpipe_core::types::{Diagnostic, DiagnosticCode, Level};
use skillpipe_core::{
    Conventional, DiscoveryContext, ProviderDescriptor, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let claude = cx
        .var("CLAUDE_CONFIG_DIR")
        .map_or_else(|| cx.home.join(".claude"), PathBuf::from);
    let index = claude.join("plugins").join("installed_plugins.json");
    match install_paths(&index) {
        Ok(paths) => paths
            .into_iter()
            .map(|p| {
                Root::new(p.join("skills"), Level::User)
                    .toggle(Toggle::Fallback)
                    .into()
            })
            .collect(),
        Err(None) => Vec::new(),
        Err(Some(reason)) => vec![RootItem::Diagnostic(Diagnostic::error(
            DiagnosticCode::ReadError,
            format!("Failed to read {} ({reason})", index.display()),
            &index,
        ))],
    }
}

/// The `installPath`s of user-scope installs, in file order. `Err(None)`
/// when the index does not exist, `Err(Some(reason))` when it cannot be
/// read or parsed.
fn install_paths(index: &Path) -> Result<Vec<PathBuf>, Option<String>> {
    let bytes = match std::fs::read(index) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(e) => return Err(Some(e.to_string())),
    };
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| Some(e.to_string()))?;
    let plugins = doc
        .get("plugins")
        .and_then(Value::as_object)
        .ok_or_else(|| Some("no \"plugins\" object".to_owned()))?;
    let mut out = Vec::new();
    for installs in plugins.values() {
        // Version 2: a list of installs; version 1: one install object.
        let list = match installs {
            Value::Array(list) => list.iter().collect::<Vec<_>>(),
            other => vec![other],
        };
        for install in list {
            let scope = install.get("scope").and_then(Value::as_str);
            if !matches!(scope, None | Some("user")) {
                continue;
            }
            if let Some(path) = install.get("installPath").and_then(Value::as_str) {
                out.push(PathBuf::from(path));
            }
        }
    }
    Ok(out)
}

/// Builds the provider.
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional::new(
        ProviderInfo::builtin("claude-plugins", "Claude Code Marketplace", 70)
            .toggles([Toggle::Fallback]),
        roots,
    ))
}

inventory::submit! { ProviderDescriptor::new(provider) }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_index_versions_in_order_user_scope_only() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("i.json");
        std::fs::write(
            &index,
            r#"{"version":2,"plugins":{
                "b@m":[{"scope":"user","installPath":"/p/b"},{"scope":"project","installPath":"/p/x"}],
                "a@m":{"installPath":"/p/a"}}}"#,
        )
        .unwrap();
        assert_eq!(
            install_paths(&index).unwrap(),
            [PathBuf::from("/p/b"), PathBuf::from("/p/a")]
        );
        assert_eq!(install_paths(&dir.path().join("none.json")), Err(None));
        std::fs::write(&index, "{oops").unwrap();
        assert!(matches!(install_paths(&index), Err(Some(_))));
    }
}
