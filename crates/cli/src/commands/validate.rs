//! `skillpipe validate PATH... [--json]`: the Agent Skills spec check of
//! `skills-ref` (SPEC §12), one verdict per path, in the order given.
//!
//! A PATH that is a folder of skills (no `SKILL.md` of its own, but
//! sub-folders holding one) stands for each of those skill folders, in
//! name order, and a summary line follows (`25 valid, 1 failed`).
//!
//! It needs no settings and no home directory: it checks only the paths
//! given (relative to the current directory).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;

use crate::{out, term};

/// An error as the terminal shows it: escaped as all terminal text is, so
/// a name holding a line end cannot forge a `Valid skill:` line. Only the
/// YAML parser's report has lines of its own (`  in "<unicode string>",
/// line 3, …`, quoting source lines, which hold no line end), and keeps
/// them.
fn shown(error: &str) -> std::borrow::Cow<'_, str> {
    match error.starts_with("Invalid YAML in frontmatter:") {
        true => term::lines(error).into(),
        false => term::escape(error),
    }
}

/// Whether `dir` holds a skill file itself (as skills-ref looks for one).
fn holds_skill(dir: &Path) -> bool {
    ["SKILL.md", "skill.md"]
        .iter()
        .any(|n| dir.join(n).is_file())
}

/// Whether `dir` cannot be looked into (its skill file's place cannot be
/// read for another reason than its absence): validated on its own, so
/// its verdict says why instead of the folder above it being "missing
/// SKILL.md".
fn unreadable(dir: &Path) -> bool {
    std::fs::metadata(dir.join("SKILL.md")).is_err_and(|e| e.kind() != std::io::ErrorKind::NotFound)
}

/// The skill folders in `dir` (non-hidden sub-folders holding a skill
/// file), in name order; empty when `dir` is a skill folder itself or
/// holds none.
fn skill_folders(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() || holds_skill(dir) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir() && (holds_skill(p) || unreadable(p)))
        .collect();
    found.sort();
    found
}

/// Prints `Valid skill: <path>` or `Validation failed for <path>:` and one
/// `  - <error>` line per error (an error of several lines is printed as
/// `skills-ref` prints it); with `json`,
/// `{"valid": bool, "results": [{"path", "valid", "errors"}]}` (plus
/// `"summary": {"valid", "failed"}` when a folder of skills was given).
/// Exit 1 when any path fails.
pub(crate) fn run(paths: &[PathBuf], json: bool) -> anyhow::Result<ExitCode> {
    let mut expanded = false;
    let mut targets = Vec::new();
    for p in paths {
        let inside = skill_folders(p);
        if inside.is_empty() {
            targets.push(p.clone());
        } else {
            expanded = true;
            targets.extend(inside);
        }
    }
    let results: Vec<skillpipe::Validation> =
        targets.iter().map(|p| skillpipe::validate(p)).collect();
    let all_valid = results.iter().all(skillpipe::Validation::is_valid);
    let valid = results.iter().filter(|v| v.is_valid()).count();
    let failed = results.len() - valid;
    let mut out = out::raw();
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
        let mut doc = json!({ "valid": all_valid, "results": list });
        if expanded {
            doc["summary"] = json!({ "valid": valid, "failed": failed });
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for v in &results {
            if v.is_valid() {
                writeln!(out, "Valid skill: {}", term::path(&v.path))?;
            } else {
                writeln!(out, "Validation failed for {}:", term::path(&v.path))?;
                for e in &v.errors {
                    writeln!(out, "  - {}", shown(e))?;
                }
            }
        }
        if expanded {
            writeln!(out, "{valid} valid, {failed} failed")?;
        }
    }
    out.flush()?;
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
