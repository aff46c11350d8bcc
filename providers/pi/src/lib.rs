//! The pi profile's providers (SPEC §6):
//! - `pi` ("pi"): `<agentDir>/skills` (user) and `<cwd>/.pi/skills`
//!   (project), scanned recursively;
//! - `path` ("Explicit paths"): settings `skills` entries, settings
//!   `packages` (their `pi.skills`, or `<pkg>/skills`), and `--skill` paths.
//!
//! The host hands the raw settings entries over in the context's
//! [`PiSettings`] (`cx.pi`), each with the directory it resolves against
//! and the file that declared it.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillpipe_core::fsio;
use skillpipe_core::head::read_error_file;
use skillpipe_core::paths::{is_within, normalize, resolve_entry};
use skillpipe_core::provider::{reload_with, scan_with};
use skillpipe_core::types::{Diagnostic, DiagnosticCode, Level};
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, Found, NamedBy, PiSettings, ProviderDescriptor,
    ProviderInfo, Root, RootItem, ScanLimits, ScanMode, SkillProvider, SourceRoot, Sources,
};

fn recursive(path: PathBuf, level: Level) -> RootItem {
    Root::new(path, level)
        .mode(ScanMode::Recursive)
        .description(Description::Required)
        .into()
}

fn pi_roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    if cx.sources == Sources::CommandLineOnly {
        return Vec::new();
    }
    vec![
        recursive(cx.agent_dir.join("skills"), Level::User),
        recursive(cx.cwd.join(".pi").join("skills"), Level::Project),
    ]
}

fn unsupported(entry: &str, file: &Path) -> RootItem {
    RootItem::Diagnostic(Diagnostic::warning(
        DiagnosticCode::UnsupportedEntry,
        format!("unsupported settings entry: {entry}"),
        file,
    ))
}

fn is_pattern(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-']) || entry.contains(['*', '?'])
}

/// A root for an explicit path: a directory scans recursively, a `.md` file
/// loads as one skill, anything else is `not-markdown`. `report_missing`
/// says whether a path that does not exist is a `path-not-found`.
fn explicit(path: PathBuf, named_by: NamedBy, report_missing: bool) -> Option<RootItem> {
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(_) => {
            return report_missing.then(|| {
                RootItem::Diagnostic(Diagnostic::warning(
                    DiagnosticCode::PathNotFound,
                    "skill path does not exist",
                    &path,
                ))
            });
        }
    };
    let root = Root::new(path.clone(), Level::Path).description(Description::Required);
    let root = if meta.is_dir() {
        root.mode(ScanMode::Recursive)
    } else if path.extension().is_some_and(|e| e == "md") {
        root.mode(ScanMode::File).source_root(SourceRoot::Omitted)
    } else {
        return Some(RootItem::Diagnostic(Diagnostic::warning(
            DiagnosticCode::NotMarkdown,
            "skill path is not a markdown file",
            &path,
        )));
    };
    Some(root.named_by(named_by).into())
}

/// The roots of the package at `pkg`. Its `package.json` is read as an
/// index file ([`fsio::read_index`]: a regular file, bounded, never
/// blocking, a BOM dropped); one that cannot be read is a `read-error`
/// naming it, and counts, as a missing or malformed one does, as no
/// manifest.
fn package_roots(pkg: &Path, out: &mut Vec<RootItem>) {
    let path = pkg.join("package.json");
    // Watched: a manifest written or edited names other skill folders.
    out.push(RootItem::Input(path.clone()));
    let manifest = match fsio::read_index(&path, fsio::MAX_INDEX_BYTES) {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes).ok(),
        Err(e) if e.is_not_found() => None,
        Err(e) => {
            out.push(RootItem::Diagnostic(read_error_file(&path, &e)));
            None
        }
    };
    match manifest.as_ref().and_then(|m| m.get("pi")) {
        None => out.extend(explicit(pkg.join("skills"), NamedBy::Provider, false)),
        Some(pi) => {
            let entries = pi
                .get("skills")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            for entry in entries.filter_map(Value::as_str) {
                out.extend(explicit(
                    normalize(&pkg.join(entry)),
                    NamedBy::Provider,
                    false,
                ));
            }
        }
    }
}

/// The roots that `skills` and `packages` entries of a project settings
/// file give outside the project (the repository root, else cwd;
/// canonical comparison): they are scanned with no more than the default
/// bounds, whatever the trusted settings allow. (A user entry naming the
/// same path is bounded too: a root is known by its path only.)
fn outside_project_roots(cx: &DiscoveryContext) -> Vec<PathBuf> {
    let mut config = cx.pi.clone();
    config.skills.retain(|e| e.project);
    config.packages.retain(|e| e.project);
    config.cli_skills.clear();
    let project = cx.repo_root.as_deref().unwrap_or(&cx.cwd);
    entry_roots(cx, &config)
        .into_iter()
        .filter_map(|item| match item {
            RootItem::Root(r) => Some(r.path),
            RootItem::Diagnostic(_) | RootItem::Input(_) => None,
        })
        .filter(|p| !is_within(p, project))
        .collect()
}

/// The `path` provider: [`path_roots`], and a root that comes from a
/// project file's entry outside the project is scanned with
/// bounds no higher than the defaults (a cloned repository's settings must not
/// make discovery walk the disk, SPEC §7 as amended in the guide's
/// deliberate differences).
#[derive(Debug)]
struct PathProvider {
    info: ProviderInfo,
}

impl SkillProvider for PathProvider {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        path_roots(cx)
    }

    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        match bounded(cx, root) {
            None => scan_with("path", cx, root),
            Some(bounded) => scan_with("path", &bounded, root),
        }
    }

    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        match bounded(cx, root) {
            None => reload_with("path", cx, root, path),
            Some(bounded) => reload_with("path", &bounded, root, path),
        }
    }

    /// It scans with the shared scanners, which never fail.
    fn may_fail(&self) -> bool {
        false
    }
}

/// The context `root` is scanned with when its bounds must be clamped to
/// the defaults (a project file's entry outside the project); `None` when
/// `cx` serves as it is.
fn bounded(cx: &DiscoveryContext, root: &Root) -> Option<DiscoveryContext> {
    // Only worth finding out when the bounds are above the defaults.
    let bounded_limits = cx.limits.at_most(ScanLimits::default());
    let clamp = root.named_by == NamedBy::Provider
        && bounded_limits != cx.limits
        && outside_project_roots(cx).contains(&root.path);
    clamp.then(|| DiscoveryContext {
        limits: bounded_limits,
        ..cx.clone()
    })
}

fn path_roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    entry_roots(cx, &cx.pi)
}

fn entry_roots(cx: &DiscoveryContext, config: &PiSettings) -> Vec<RootItem> {
    let mut out = Vec::new();
    if cx.sources == Sources::All {
        for e in &config.skills {
            if is_pattern(&e.entry) {
                out.push(unsupported(&e.entry, &e.file));
                continue;
            }
            out.extend(explicit(
                resolve_entry(&e.entry, &e.base, &cx.home),
                NamedBy::Provider,
                false,
            ));
        }
        for e in &config.packages {
            if e.entry.starts_with("npm:") || e.entry.starts_with("git:") {
                out.push(unsupported(&e.entry, &e.file));
                continue;
            }
            let pkg = resolve_entry(&e.entry, &e.base, &cx.home);
            if pkg.is_dir() {
                package_roots(&pkg, &mut out);
            } else {
                out.push(RootItem::Diagnostic(Diagnostic::warning(
                    DiagnosticCode::PathNotFound,
                    "skill path does not exist",
                    &pkg,
                )));
            }
        }
    }
    for arg in &config.cli_skills {
        out.extend(explicit(
            resolve_entry(arg, &cx.cwd, &cx.home),
            NamedBy::CommandLine,
            true,
        ));
    }
    out
}

/// Builds the `pi` provider.
pub fn pi_provider() -> Box<dyn SkillProvider> {
    Box::new(Conventional::new(
        ProviderInfo::builtin("pi", "pi", 100),
        pi_roots,
    ))
}

/// Builds the `path` provider.
pub fn path_provider() -> Box<dyn SkillProvider> {
    Box::new(PathProvider {
        // Its `scan_root` bounds some roots: exported as a plugin, that
        // scan must still be its own.
        info: ProviderInfo::builtin("path", "Explicit paths", 50).scans_itself(),
    })
}

inventory::submit! { ProviderDescriptor::new(pi_provider) }
inventory::submit! { ProviderDescriptor::new(path_provider) }

#[cfg(test)]
mod tests {
    use super::*;
    use skillpipe_core::SettingsEntry;

    /// The `path` provider's roots for one package entry `pkg`.
    fn package_items(pkg: &Path) -> Vec<RootItem> {
        let cx = DiscoveryContext {
            pi: PiSettings {
                packages: vec![SettingsEntry {
                    entry: pkg.display().to_string(),
                    base: "/".into(),
                    file: "/settings.json".into(),
                    project: true,
                }],
                ..PiSettings::default()
            },
            ..DiscoveryContext::default()
        };
        path_provider().roots(&cx)
    }

    fn roots_and_codes(items: &[RootItem]) -> (Vec<PathBuf>, Vec<String>) {
        let mut roots = Vec::new();
        let mut codes = Vec::new();
        for item in items {
            match item {
                RootItem::Root(r) => roots.push(r.path.clone()),
                RootItem::Diagnostic(d) => codes.push(format!("{} {}", d.code, d.message)),
                RootItem::Input(_) => {}
            }
        }
        (roots, codes)
    }

    #[test]
    fn a_package_declares_its_manifest_as_an_input_present_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(pkg.join("skills")).unwrap();
        let inputs = |items: &[RootItem]| -> Vec<PathBuf> {
            items
                .iter()
                .filter_map(|i| match i {
                    RootItem::Input(p) => Some(p.clone()),
                    _ => None,
                })
                .collect()
        };
        // Missing: the watcher still waits for it to be written.
        assert_eq!(inputs(&package_items(&pkg)), [pkg.join("package.json")]);
        std::fs::write(pkg.join("package.json"), "{}").unwrap();
        assert_eq!(inputs(&package_items(&pkg)), [pkg.join("package.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_manifest_that_is_no_regular_file_is_a_read_error_not_a_read() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(pkg.join("skills")).unwrap();
        let manifest = pkg.join("package.json");
        // A link to /dev/zero (git stores links) would be read for ever,
        // a FIFO would block the open: both are refused at once.
        std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
        let (roots, codes) = roots_and_codes(&package_items(&pkg));
        let want = format!(
            "read-error Failed to read {} (not a regular file)",
            manifest.display()
        );
        assert_eq!(codes, std::slice::from_ref(&want));
        // As a missing or malformed manifest: `<pkg>/skills`.
        assert_eq!(roots, [pkg.join("skills")]);
        std::fs::remove_file(&manifest).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&manifest).status();
        assert!(made.unwrap().success());
        let (roots, codes) = roots_and_codes(&package_items(&pkg));
        assert_eq!((roots, codes), (vec![pkg.join("skills")], vec![want]));
    }

    #[test]
    fn a_manifest_too_large_is_a_read_error_and_a_bom_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(pkg.join("docs")).unwrap();
        let manifest = pkg.join("package.json");
        std::fs::write(&manifest, "\u{feff}{\"pi\": {\"skills\": [\"docs\"]}}").unwrap();
        let (roots, codes) = roots_and_codes(&package_items(&pkg));
        assert_eq!((roots, codes), (vec![pkg.join("docs")], vec![]));
        let file = std::fs::File::options()
            .write(true)
            .open(&manifest)
            .unwrap();
        file.set_len(fsio::MAX_INDEX_BYTES + 1).unwrap();
        let (_, codes) = roots_and_codes(&package_items(&pkg));
        assert_eq!(
            codes,
            [format!(
                "read-error Failed to read {} (file exceeds {} bytes ({}))",
                manifest.display(),
                fsio::MAX_INDEX_BYTES,
                fsio::MAX_INDEX_BYTES + 1
            )]
        );
    }

    #[test]
    fn patterns_are_recognised() {
        for p in ["!x", "+x", "-x", "a/*", "b?"] {
            assert!(is_pattern(p), "{p}");
        }
        assert!(!is_pattern("skills/x"));
    }
}
