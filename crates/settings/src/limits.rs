//! Scan bounds a project file may only lower (SPEC §7, trust).

use figment::Figment;
use serde_json::Value;

use crate::error::Warning;
use crate::file::FileLayer;
use crate::layer::{Layer, LayerKind};

/// The scan bounds (`ScanLimits`'s fields), every shape's.
pub(crate) const SCAN_KEYS: [&str; 4] = [
    "scan.max_depth",
    "scan.max_dirs",
    "scan.max_entries",
    "scan.max_file_bytes",
];

/// `scan.*` in a project file may only lower a bound below what the
/// trusted layers before it give: a higher value (or any value when the
/// trusted one is not a number) gets an `untrusted-setting` warning and a
/// layer putting the trusted value back. Trusted layers after the project
/// file (`--config`, environment, `--set`) may still raise it.
pub(crate) fn lower_scan_bounds_only(
    f: &FileLayer,
    trusted: &Figment,
    warnings: &mut Vec<Warning>,
) -> Option<Layer> {
    let mut restored = serde_json::Map::new();
    for dotted in SCAN_KEYS {
        let Some(theirs) = f.get(dotted) else {
            continue;
        };
        let ours = trusted.find_value(dotted).ok();
        let ours_num = ours.as_ref().and_then(figment::value::Value::to_u128);
        let lowers = match (theirs.as_u64(), ours_num) {
            (Some(t), Some(o)) => u128::from(t) <= o,
            // Not a non-negative integer: the type check of the merged
            // value reports it, naming this file (nothing is raised).
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if lowers {
            continue;
        }
        let Some(ours) = ours else { continue };
        let kept = serde_json::to_value(&ours).unwrap_or(Value::Null);
        warnings.push(Warning {
            code: "untrusted-setting",
            message: format!(
                "{dotted} = {theirs} in {} is ignored (project settings can only lower scan bounds); keeping {kept}",
                f.path.display()
            ),
        });
        let key = dotted.strip_prefix("scan.").unwrap_or(dotted);
        restored.insert(key.to_owned(), kept);
    }
    (!restored.is_empty()).then(|| Layer {
        kind: LayerKind::TrustedBound,
        name: format!(
            "the trusted scan bounds that {} tried to raise",
            f.path.display()
        ),
        data: serde_json::json!({ "scan": restored }),
    })
}
