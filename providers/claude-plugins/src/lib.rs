//! Provider `claude-plugins` ("Claude Code Marketplace", priority 70):
//! `<plugin>/skills` for each user-scope install listed in
//! `~/.claude/plugins/installed_plugins.json` (SPEC §4). A missing index
//! means no roots; an unreadable or malformed one is one `read-error`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillpipe_core::fsio;
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
    // Watched: an install or uninstall rewrites the index.
    let mut items = vec![RootItem::Input(index.clone())];
    match install_paths(&index) {
        Ok(paths) => items.extend(
            paths
                .into_iter()
                .map(|p| Root::new(p.join("skills"), Level::User).into()),
        ),
        Err(None) => {}
        Err(Some(reason)) => items.push(RootItem::Diagnostic(Diagnostic::error(
            DiagnosticCode::ReadError,
            format!("Failed to read {} ({reason})", index.display()),
            &index,
        ))),
    }
    items
}

/// The `installPath`s of user-scope installs, in file order. `Err(None)`
/// when the index does not exist, `Err(Some(reason))` when it cannot be
/// read or parsed. It is read as an index file ([`fsio::read_index`]): a
/// regular file, bounded, never blocking (a FIFO there cannot hang
/// discovery), a leading byte order mark dropped.
fn install_paths(index: &Path) -> Result<Vec<PathBuf>, Option<String>> {
    let bytes = match fsio::read_index(index, fsio::MAX_INDEX_BYTES) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return Err(None),
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
    Box::new(
        Conventional::new(
            ProviderInfo::builtin("claude-plugins", "Claude Code Marketplace", 70),
            roots,
        )
        .toggle(Toggle::Fallback),
    )
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

    #[test]
    fn the_index_may_start_with_a_bom() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("i.json");
        std::fs::write(
            &index,
            "\u{feff}{\"plugins\":{\"a@m\":{\"installPath\":\"/p/a\"}}}",
        )
        .unwrap();
        assert_eq!(install_paths(&index).unwrap(), [PathBuf::from("/p/a")]);
    }

    #[cfg(unix)]
    #[test]
    fn an_index_that_is_no_regular_file_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("installed_plugins.json");
        // A link to /dev/zero would be read for ever, a FIFO would block
        // the open of every discovery.
        std::os::unix::fs::symlink("/dev/zero", &index).unwrap();
        let not_regular = Err(Some("not a regular file".to_owned()));
        assert_eq!(install_paths(&index), not_regular);
        std::fs::remove_file(&index).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&index).status();
        assert!(made.unwrap().success());
        assert_eq!(install_paths(&index), not_regular);
        std::fs::remove_file(&index).unwrap();
        let file = std::fs::File::create(&index).unwrap();
        file.set_len(skillpipe_core::fsio::MAX_INDEX_BYTES + 1)
            .unwrap();
        let too_large = install_paths(&index).unwrap_err().unwrap();
        assert!(
            too_large.starts_with("file exceeds 16777216 bytes"),
            "{too_large}"
        );
    }
}
