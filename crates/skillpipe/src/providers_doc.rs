//! The document `skillpipe providers --json` prints for each provider: its
//! info, the settings keys that switch it and the roots it lists now.

use serde_json::{Value, json};
use skillpipe_core::{RootItem, SkillProvider};

use crate::host::Skillpipe;

/// A JSON value of a provider's info plus roots, for `providers --json`.
pub fn provider_json(skillpipe: &Skillpipe, provider: &dyn SkillProvider) -> Value {
    let info = provider.info();
    let roots: Vec<Value> = provider
        .roots(skillpipe.pipeline().context())
        .into_iter()
        .filter_map(|item| match item {
            // Lossy: `json!` would panic on a path that is not UTF-8.
            RootItem::Root(r) => Some(json!({"path": r.path.to_string_lossy(), "level": r.level})),
            RootItem::Diagnostic(_) | RootItem::Input(_) => None,
        })
        .collect();
    json!({
        "id": info.id,
        "display_name": info.display_name,
        "priority": info.priority,
        "origin": info.origin,
        "toggle": skillpipe.toggle_keys(info),
        "roots": roots,
    })
}
