//! Loading one directory of skills for a host with its own roots: no
//! settings, no providers, no dedup.

use std::path::Path;

use skillpipe_core::types::{Discovery, Source};
use skillpipe_core::{self as core, Description, DiscoveryContext, EnabledField, Root};

/// `load_skills_from_dir`: one root, one-level scan, no dedup, for hosts with
/// their own roots.
pub fn load_skills_from_dir(dir: &Path, source: Source, limits: core::ScanLimits) -> Discovery {
    let root = Root::new(dir, source.level).description(Description::Required);
    let cx = DiscoveryContext {
        limits,
        enabled_field: EnabledField::Honored,
        ..DiscoveryContext::default()
    };
    let mut out = Discovery::default();
    for found in core::provider::scan_with(&source.provider, &cx, &root) {
        match found {
            core::Found::Diagnostic(d) => out.diagnostics.push(d),
            // Core's scanners never yield it; if one did, only the failure counts.
            core::Found::Failed(d) => {
                return Discovery {
                    diagnostics: vec![d],
                    ..Discovery::default()
                };
            }
            core::Found::Candidate { candidate, .. } => {
                out.diagnostics.extend(candidate.diagnostics);
                out.skills.extend(candidate.skill);
            }
        }
    }
    out
}
