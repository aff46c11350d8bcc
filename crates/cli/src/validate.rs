//! `skillpipe validate PATH... [--json]`: the Agent Skills spec check of
//! `skills-ref` (SPEC §12), one verdict per path, in the order given.
//!
//! It needs no settings and no home directory: it checks only the paths
//! given (relative to the current directory).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

/// Prints `Valid skill: <path>` or `Validation failed for <path>:` and one
/// `  - <error>` line per error (an error of several lines is printed as
/// `skills-ref` prints it); with `json`,
/// `{"valid": bool, "results": [{"path", "valid", "errors"}]}`.
/// Exit 1 when any path fails.
pub(crate) fn command(paths: &[PathBuf], json: bool) -> anyhow::Result<ExitCode> {
    let results: Vec<skillpipe::Validation> =
        paths.iter().map(|p| skillpipe::validate(p)).collect();
    let all_valid = results.iter().all(skillpipe::Validation::is_valid);
    let mut out = std::io::stdout().lock();
    if json {
        let list: Vec<_> = results
            .iter()
            .map(|v| {
                json!({
                    "path": v.path.to_string_lossy(),
                    "valid": v.is_valid(),
                    "errors": v.errors,
                })
            })
            .collect();
        let doc = json!({ "valid": all_valid, "results": list });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for v in &results {
            if v.is_valid() {
                writeln!(out, "Valid skill: {}", v.path.display())?;
            } else {
                writeln!(out, "Validation failed for {}:", v.path.display())?;
                for e in &v.errors {
                    writeln!(out, "  - {e}")?;
                }
            }
        }
    }
    out.flush()?;
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
