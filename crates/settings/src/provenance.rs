//! Where each effective value came from (`skillpipe settings`): every
//! layer is known to figment by its kind ([`LayerKind::label`]) and its
//! name, so a value's tag leads back to the layer that set it.

use figment::{Figment, Metadata, Source};
use serde_json::Value;

use crate::error::origin_of;
use crate::file::FileLayer;
use crate::keys::{CATALOG_KEYS, PLUGINS_KEYS, SCAN_KEYS, SKILLS_KEYS};
use crate::layer::{Effective, LayerKind, Origin};
use crate::trust::TrustKeys;

impl Origin {
    fn of(meta: &Metadata) -> Option<Origin> {
        Some(Origin {
            layer: LayerKind::of(meta)?,
            name: origin_of(meta),
            file: match &meta.source {
                Some(Source::File(path)) => Some(path.clone()),
                _ => None,
            },
        })
    }
}

/// The effective values of the known keys of a shape (and every
/// `providers.*` value), each with its origin. Keys only trusted layers
/// may set are read from the trusted stack; a scan bound a project file
/// tried to raise shows the trusted layer it was kept from.
pub(crate) fn effective(
    full: &Figment,
    trusted: &Figment,
    pi_shape: bool,
    trust_keys: TrustKeys,
    files: &[FileLayer],
) -> Vec<Effective> {
    let mut out = Vec::new();
    let leaf = |stack: &Figment, key: &str, out: &mut Vec<Effective>| {
        if let Ok(value) = stack.find_value(key) {
            leaves(stack, trusted, key, &value, out);
        }
    };
    let shape_keys: &[&str] = if pi_shape {
        &["enableSkillCommands", "disabledProviders", "noSkills"]
    } else {
        &[
            "disabledExtensions",
            "disabledProviders",
            "noSkills",
            "extensions",
        ]
    };
    for k in crate::invocation::KEYS {
        let key = if pi_shape {
            k.to_owned()
        } else {
            format!("skills.{k}")
        };
        leaf(full, &key, &mut out);
    }
    if !pi_shape {
        for k in SKILLS_KEYS {
            let key = format!("skills.{k}");
            if key != trust_keys.project_skills && key != trust_keys.trusted_projects {
                leaf(full, &key, &mut out);
            }
        }
        for k in CATALOG_KEYS {
            leaf(full, &format!("skills.{k}"), &mut out);
        }
        // The source toggles that were set, whichever provider reads them.
        let skills = full.find_value("skills").ok();
        let toggles = skills
            .as_ref()
            .and_then(|v| v.as_dict())
            .into_iter()
            .flat_map(|d| d.keys());
        for k in toggles.filter(|k| crate::keys::is_toggle_key(k)) {
            leaf(full, &format!("skills.{k}"), &mut out);
        }
    }
    for k in shape_keys {
        leaf(full, k, &mut out);
    }
    if pi_shape {
        for k in CATALOG_KEYS {
            leaf(full, k, &mut out);
        }
    }
    for k in SCAN_KEYS {
        leaf(full, &format!("scan.{k}"), &mut out);
    }
    for k in PLUGINS_KEYS {
        leaf(trusted, &format!("plugins.{k}"), &mut out);
    }
    for key in [trust_keys.project_skills, trust_keys.trusted_projects] {
        if trusted.contains(key) {
            leaf(trusted, key, &mut out);
        } else {
            let value = if key == trust_keys.project_skills {
                Value::from("all")
            } else {
                Value::Array(Vec::new())
            };
            out.push(Effective {
                key: key.to_owned(),
                value,
                origin: Origin {
                    layer: LayerKind::Default,
                    name: "built-in defaults".to_owned(),
                    file: None,
                },
            });
        }
    }
    leaf(full, "providers", &mut out);
    if pi_shape {
        for f in files {
            for key in ["skills", "packages"] {
                if let Some(value) = f.get(key).filter(|v| !v.is_null()) {
                    out.push(Effective {
                        key: key.to_owned(),
                        value: value.clone(),
                        origin: f.origin(),
                    });
                }
            }
        }
    }
    out
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
    let mut origin = stack.get_metadata(value.tag()).and_then(Origin::of);
    if origin
        .as_ref()
        .is_some_and(|o| o.layer == LayerKind::TrustedBound)
    {
        origin = trusted.find_metadata(key).and_then(Origin::of);
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
