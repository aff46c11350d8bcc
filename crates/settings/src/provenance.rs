//! Where each effective value came from (`skillpipe settings`): every
//! layer is known to figment by its kind ([`LayerKind::label`]) and its
//! name, so a value's tag leads back to the layer that set it.

use figment::{Figment, Metadata, Source};
use serde_json::Value;

use crate::error::origin_of;
use crate::file::FileLayer;
use crate::keys::{Key, ShapeKeys, is_toggle_key};
use crate::layer::{Effective, LayerKind, LayerOrigin};
use crate::settings::ProjectSkills;

impl LayerOrigin {
    fn of(meta: &Metadata) -> Option<LayerOrigin> {
        Some(LayerOrigin {
            layer: LayerKind::of(meta)?,
            name: origin_of(meta),
            file: match &meta.source {
                Some(Source::File(path)) => Some(path.clone()),
                _ => None,
            },
        })
    }
}

/// The effective values of the keys of a shape ([`ShapeKeys::all`], every
/// `providers.*` value among them), each with its origin, in the table's
/// order. Keys only trusted layers may set are read from the trusted
/// stack; a scan bound a project file tried to raise shows the trusted
/// layer it was kept from.
pub(crate) fn effective(
    full: &Figment,
    trusted: &Figment,
    shape: &ShapeKeys,
    files: &[FileLayer],
) -> Vec<Effective> {
    let mut out = Vec::new();
    let leaf = |stack: &Figment, key: &str, out: &mut Vec<Effective>| {
        if let Ok(value) = stack.find_value(key) {
            leaves(stack, trusted, key, &value, out);
        }
    };
    let mut per_file = Vec::new();
    for key in shape.all() {
        match key {
            Key::Merged(k) => leaf(full, k, &mut out),
            Key::Unlisted(_) => {}
            // The source toggles that were set, whichever provider reads them.
            Key::Toggles(table) => {
                let value = full.find_value(table).ok();
                let toggles = value
                    .as_ref()
                    .and_then(|v| v.as_dict())
                    .into_iter()
                    .flat_map(|d| d.keys());
                for k in toggles.filter(|k| is_toggle_key(k)) {
                    leaf(full, &format!("{table}.{k}"), &mut out);
                }
            }
            Key::Trusted(k) if trusted.contains(k) => leaf(trusted, k, &mut out),
            Key::Trusted(k) => out.push(Effective {
                key: k.to_owned(),
                value: built_in_default(shape, k),
                origin: LayerOrigin {
                    layer: LayerKind::Default,
                    name: "built-in defaults".to_owned(),
                    file: None,
                },
            }),
            Key::PerFile(k) => per_file.push(k),
        }
    }
    for f in files {
        for key in &per_file {
            if let Some(value) = f.get(key).filter(|v| !v.is_null()) {
                out.push(Effective {
                    key: (*key).to_owned(),
                    value: value.clone(),
                    origin: f.origin(),
                });
            }
        }
    }
    out
}

/// The value of a trusted-only key that no layer sets: `projectSkills`'s
/// default, no servers (`mcp.servers`) or an empty list (`trustedProjects`,
/// `plugins.paths`).
fn built_in_default(shape: &ShapeKeys, key: &str) -> Value {
    if key == shape.trust.project_skills {
        serde_json::to_value(ProjectSkills::default()).unwrap_or(Value::Null)
    } else if key == crate::trust::MCP_SERVERS {
        Value::Object(serde_json::Map::new())
    } else {
        Value::Array(Vec::new())
    }
}

/// Each leaf (scalar or array) of `value` at `key`, with its origin.
fn leaves(
    stack: &Figment,
    trusted: &Figment,
    key: &str,
    value: &figment::value::Value,
    out: &mut Vec<Effective>,
) {
    if let Some(dict) = value.as_dict() {
        for (k, v) in dict {
            leaves(stack, trusted, &format!("{key}.{k}"), v, out);
        }
        return;
    }
    let mut origin = stack.get_metadata(value.tag()).and_then(LayerOrigin::of);
    if origin
        .as_ref()
        .is_some_and(|o| o.layer == LayerKind::TrustedBound)
    {
        origin = trusted.find_metadata(key).and_then(LayerOrigin::of);
    }
    let (Some(origin), Ok(value)) = (origin, serde_json::to_value(value)) else {
        return;
    };
    out.push(Effective {
        key: key.to_owned(),
        value,
        origin,
    });
}
