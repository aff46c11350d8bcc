//! Loads skillpipe provider plugins and wraps each as a [`SkillProvider`],
//! so the pipeline (and core) never sees an FFI type.
//!
//! # Sides
//!
//! This crate is the **foreign** side: it calls a provider that lives in
//! another library. The plugin (the **local** side) implements
//! `skillpipe_plugin_api::FfiProvider`, usually through
//! `skillpipe-plugin-sdk`'s `export_provider!`. Values cross as JSON
//! documents (see `skillpipe-plugin-api`); [`wire`] reads them leniently.
//!
//! # Failures are diagnostics
//!
//! Loading never fails as a whole: [`load_plugins`] returns the providers
//! that loaded and one short `plugin-error` diagnostic (severity warning,
//! path = the library, at most three lines) per library that did not: a
//! missing file, a library that is not a plugin, another interface version,
//! a layout mismatch, a provider that could not be built. abi_stable's full
//! report (a layout mismatch prints hundreds of lines) goes to
//! `tracing::debug!` only.
//!
//! At run time, a plugin call that panics (the plugin side catches it) or
//! returns an error gives one `plugin-error` at that point of the visit
//! order, and the provider contributes nothing (SPEC §11): an error while
//! listing roots leaves it without roots; an error while scanning a root is
//! [`Found::Failed`], which makes the pipeline discard everything the
//! provider returned in that discovery, from its other roots too (skills,
//! diagnostics, names). Other providers are unchanged.
//!
//! # Trust
//!
//! Plugins are native code: they are trusted (SPEC §7 says which settings
//! may name them), never unloaded, and a plugin that aborts (or was built
//! with `panic = "abort"`) takes the process down with it. The plugin side
//! catches panics so that they never unwind into the host.

use std::fmt;
use std::path::{Path, PathBuf};

use abi_stable::library::{LibraryError, lib_header_from_path};
use abi_stable::std_types::{RResult, RStr, RString};
use skillpipe_core::provider::{reload_with, scan_with};
use skillpipe_core::types::{Diagnostic, DiagnosticCode};
use skillpipe_core::wire;
use skillpipe_core::{
    DiscoveryContext, Found, ProviderInfo, Root, RootItem, Scanner, SkillProvider,
};
use skillpipe_plugin_api::{FfiProviderBox, PluginModRef, ROOT_MODULE_NAME};

/// The plugin interface version this host speaks (`skillpipe-plugin-api`'s).
pub use skillpipe_plugin_api::ABI_VERSION;

/// The diagnostic code of every plugin failure (SPEC §2.3).
pub const PLUGIN_ERROR: DiagnosticCode = DiagnosticCode::PluginError;

/// The longest text taken from a plugin or a loader error, in characters.
const MAX_DETAIL: usize = 300;

/// A loaded plugin provider and the library it came from.
pub type Loaded = (PathBuf, Box<dyn SkillProvider>);

/// Loads every library of `paths`, in order. Returns each provider with
/// the library it came from, plus one `plugin-error` per library that did
/// not load. Duplicate ids are not checked here (the pipeline knows the
/// active set).
///
/// Paths should be absolute. A relative path is taken relative to the
/// process's working directory, never searched for on the system's library
/// path.
pub fn load_plugins(paths: &[PathBuf]) -> (Vec<Loaded>, Vec<Diagnostic>) {
    let mut providers: Vec<Loaded> = Vec::new();
    let mut diagnostics = Vec::new();
    for path in paths {
        match load_plugin(path) {
            Ok(p) => {
                tracing::debug!(path = %path.display(), id = %p.info.id, "plugin loaded");
                providers.push((path.clone(), Box::new(p)));
            }
            Err(e) => diagnostics.push(e.to_diagnostic()),
        }
    }
    (providers, diagnostics)
}

/// Loads one plugin library.
pub fn load_plugin(path: &Path) -> Result<ForeignProvider, PluginLoadError> {
    let fail = |kind| PluginLoadError {
        path: path.to_path_buf(),
        kind,
    };
    if !path.is_file() {
        return Err(fail(LoadErrorKind::Missing));
    }
    if let Some(found) = foreign_library_kind(path, LibraryKind::HOST) {
        return Err(fail(LoadErrorKind::WrongKind {
            found,
            expected: LibraryKind::HOST,
        }));
    }
    // dlopen searches the system library path for a name without a slash.
    let open_path = if path.is_relative() {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    let header = lib_header_from_path(&open_path).map_err(|e| fail(summarize(&e)))?;
    let module = header
        .init_root_module::<PluginModRef>()
        .map_err(|e| fail(summarize(&e)))?;
    let inner = match (module.new())() {
        RResult::ROk(p) => p,
        RResult::RErr(e) => return Err(fail(LoadErrorKind::Failed(detail(e.as_str())))),
    };
    let info = match inner.info() {
        RResult::ROk(json) => {
            wire::info(json.as_str()).map_err(|e| fail(LoadErrorKind::BadInfo(e)))?
        }
        RResult::RErr(e) => return Err(fail(LoadErrorKind::Failed(detail(e.as_str())))),
    };
    Ok(ForeignProvider {
        path: path.to_path_buf(),
        info,
        inner,
    })
}

/// Why a library did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginLoadError {
    /// The library.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: LoadErrorKind,
}

/// What went wrong loading a plugin library.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// No file at the path.
    Missing,
    /// The file is not a loadable shared library (the loader's reason).
    Open(String),
    /// A shared library without the skillpipe root module.
    NotAPlugin,
    /// Built against another version of the plugin interface.
    Incompatible {
        /// The interface version this host speaks.
        expected: String,
        /// The version the plugin was built against.
        found: String,
    },
    /// Same version, different layout of the interface types.
    Layout {
        /// What differs, from abi_stable's report (e.g. `mismatched package`).
        what: String,
        /// The expected value of what differs.
        expected: String,
        /// The value found in the library.
        found: String,
    },
    /// Built with an incompatible `abi_stable`.
    AbiHeader {
        /// The library's abi_stable ABI version.
        found: String,
    },
    /// A library built for another platform, by its file name (`.so`,
    /// `.dylib`, `.dll`).
    WrongKind {
        /// What the name says it is.
        found: LibraryKind,
        /// What this host loads.
        expected: LibraryKind,
    },
    /// The plugin refused to build its provider (its message).
    Failed(String),
    /// The provider's info document could not be read.
    BadInfo(String),
}

impl PluginLoadError {
    /// The one `plugin-error` diagnostic for this failure: at most three
    /// lines, naming the file and, for incompatibilities, what was expected
    /// and what was found.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::warning(PLUGIN_ERROR, self.to_string(), &self.path)
    }
}

impl fmt::Display for PluginLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.kind {
            LoadErrorKind::Missing => write!(f, "{p}: plugin library not found"),
            LoadErrorKind::Open(reason) => {
                write!(f, "{p}: cannot load the plugin library\n{reason}")
            }
            LoadErrorKind::NotAPlugin => write!(
                f,
                "{p}: not a skillpipe plugin\nexpected: a library exporting the {ROOT_MODULE_NAME} root module (skillpipe-plugin-api)\nfound: a shared library without one"
            ),
            LoadErrorKind::Incompatible { expected, found } => write!(
                f,
                "{p}: plugin built for another skillpipe plugin interface\nexpected: skillpipe-plugin-api {expected}\nfound: skillpipe-plugin-api {found}"
            ),
            LoadErrorKind::Layout {
                what,
                expected,
                found,
            } => write!(
                f,
                "{p}: plugin interface layout mismatch: {what} (rebuild the plugin against skillpipe-plugin-api {ABI_VERSION}; `-v` logs abi_stable's report)\nexpected: {expected}\nfound: {found}"
            ),
            LoadErrorKind::AbiHeader { found } => write!(
                f,
                "{p}: plugin built with an incompatible abi_stable\nexpected: abi_stable 0.11 (library ABI {})\nfound: {found}",
                abi_header_text(&abi_stable::library::AbiHeader::VALUE)
            ),
            LoadErrorKind::WrongKind { found, expected } => write!(
                f,
                "{p}: a plugin library for another platform\nexpected: {expected}\nfound: {found}"
            ),
            LoadErrorKind::Failed(message) => {
                write!(f, "{p}: the plugin could not start its provider\n{message}")
            }
            LoadErrorKind::BadInfo(message) => {
                write!(
                    f,
                    "{p}: the plugin's provider info is unreadable\n{message}"
                )
            }
        }
    }
}

impl std::error::Error for PluginLoadError {}

/// The kinds of shared library a plugin comes as, one per platform family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibraryKind {
    /// `.so`: Linux and the other ELF Unixes.
    Elf,
    /// `.dylib`: macOS.
    MachO,
    /// `.dll`: Windows.
    Dll,
}

impl LibraryKind {
    /// What this host loads.
    pub const HOST: LibraryKind = if cfg!(windows) {
        LibraryKind::Dll
    } else if cfg!(target_vendor = "apple") {
        LibraryKind::MachO
    } else {
        LibraryKind::Elf
    };

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            LibraryKind::Elf => "so",
            LibraryKind::MachO => "dylib",
            LibraryKind::Dll => "dll",
        }
    }
}

impl fmt::Display for LibraryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            LibraryKind::Elf => "a Linux/Unix shared library (.so)",
            LibraryKind::MachO => "a macOS dynamic library (.dylib)",
            LibraryKind::Dll => "a Windows DLL (.dll)",
        };
        f.write_str(what)
    }
}

/// The kind a library's file name says it is, when that is another kind
/// than `host` loads. Names without one of the three extensions (or with
/// a version after `.so`, as `libx.so.1`) are left to the loader.
pub fn foreign_library_kind(path: &Path, host: LibraryKind) -> Option<LibraryKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let kind = [LibraryKind::Elf, LibraryKind::MachO, LibraryKind::Dll]
        .into_iter()
        .find(|k| k.extension() == ext)?;
    (kind != host).then_some(kind)
}

/// Our short form of abi_stable's `LibraryError`; the full report goes to
/// the debug log.
fn summarize(err: &LibraryError) -> LoadErrorKind {
    tracing::debug!("plugin load failed, abi_stable's report:\n{err}");
    match err {
        LibraryError::OpenError { err, .. } => LoadErrorKind::Open(detail(&err.to_string())),
        LibraryError::GetSymbolError { .. } => LoadErrorKind::NotAPlugin,
        LibraryError::IncompatibleVersionNumber {
            expected_version,
            actual_version,
            ..
        } => LoadErrorKind::Incompatible {
            expected: format!(
                "{expected_version} (or a later {}.{}.x)",
                expected_version.major, expected_version.minor
            ),
            found: actual_version.to_string(),
        },
        LibraryError::ParseVersionError(e) => LoadErrorKind::Incompatible {
            expected: ABI_VERSION.to_owned(),
            found: detail(&format!("an unreadable version ({e})")),
        },
        LibraryError::AbiInstability(report) => layout_summary(&report.to_string()),
        LibraryError::InvalidAbiHeader(found) => LoadErrorKind::AbiHeader {
            found: abi_header_text(found),
        },
        LibraryError::InvalidCAbi { .. } => LoadErrorKind::Layout {
            what: "C ABI".to_owned(),
            expected: "this host's C calling convention".to_owned(),
            found: "a library whose C ABI tests disagree".to_owned(),
        },
        LibraryError::RootModule { err, .. } => LoadErrorKind::Failed(detail(&err.to_string())),
        LibraryError::Many(errors) => errors
            .iter()
            .next()
            .map_or(LoadErrorKind::NotAPlugin, summarize),
    }
}

fn abi_header_text(h: &abi_stable::library::AbiHeader) -> String {
    format!("abi_stable library ABI {}.{}", h.abi_major, h.abi_minor)
}

/// The gist of abi_stable's layout report, which ends with the first
/// difference as `Error:<what>` / `Expected:` <lines> / `Found:` <lines>.
fn layout_summary(report: &str) -> LoadErrorKind {
    let lines: Vec<&str> = report.lines().map(str::trim).collect();
    let section = |start: usize, header: &str| -> Option<(usize, String)> {
        let at = start + lines[start..].iter().position(|l| *l == header)?;
        let body: Vec<&str> = lines[at + 1..]
            .iter()
            .take_while(|l| !l.is_empty() && !l.ends_with(':'))
            .copied()
            .collect();
        Some((at, detail(&body.join(" "))))
    };
    let parsed = lines
        .iter()
        .rposition(|l| l.starts_with("Error:"))
        .and_then(|err_at| {
            let what = detail(lines[err_at].trim_start_matches("Error:").trim());
            let (exp_at, expected) = section(err_at, "Expected:")?;
            let (_, found) = section(exp_at, "Found:")?;
            Some(LoadErrorKind::Layout {
                what,
                expected,
                found,
            })
        });
    parsed.unwrap_or_else(|| LoadErrorKind::Layout {
        what: "root module".to_owned(),
        expected: format!("the layout of skillpipe-plugin-api {ABI_VERSION}"),
        found: "another layout".to_owned(),
    })
}

/// The first line of `text`, at most [`MAX_DETAIL`] characters.
fn detail(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX_DETAIL {
        let cut: String = line.chars().take(MAX_DETAIL).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// A provider that lives in a plugin library, seen as a [`SkillProvider`].
pub struct ForeignProvider {
    path: PathBuf,
    info: ProviderInfo,
    inner: FfiProviderBox,
}

impl fmt::Debug for ForeignProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ForeignProvider")
            .field("path", &self.path)
            .field("id", &self.info.id)
            .finish_non_exhaustive()
    }
}

impl ForeignProvider {
    /// The library it came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn runtime_error(&self, during: &str, message: &str) -> Diagnostic {
        Diagnostic::warning(
            PLUGIN_ERROR,
            format!(
                "{}: provider \"{}\" failed {during}\n{}",
                self.path.display(),
                self.info.id,
                detail(message)
            ),
            &self.path,
        )
    }

    fn call_roots(&self, cx: &DiscoveryContext) -> Result<Vec<RootItem>, String> {
        let cx =
            serde_json::to_string(cx).map_err(|e| format!("cannot encode the context: {e}"))?;
        match self.inner.roots(RStr::from_str(&cx)) {
            RResult::ROk(json) => wire::roots(json.as_str()),
            RResult::RErr(e) => Err(RString::into_string(e)),
        }
    }

    fn call_scan(&self, cx: &DiscoveryContext, root: &Root) -> Result<Vec<Found>, String> {
        let cx =
            serde_json::to_string(cx).map_err(|e| format!("cannot encode the context: {e}"))?;
        let root_json = wire::encode_root(root)?;
        match self
            .inner
            .scan_root(RStr::from_str(&cx), RStr::from_str(&root_json))
        {
            RResult::ROk(json) => wire::found(json.as_str(), &self.info.id),
            RResult::RErr(e) => Err(RString::into_string(e)),
        }
    }
}

impl SkillProvider for ForeignProvider {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        self.call_roots(cx).unwrap_or_else(|e| {
            vec![RootItem::Diagnostic(self.runtime_error(
                "listing its roots; it contributes nothing",
                &e,
            ))]
        })
    }

    /// The host's own scanners, unless the plugin scans itself; then a
    /// failed call is [`Found::Failed`]: the whole provider contributes
    /// nothing, not only this root.
    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        if self.info.scanner == Scanner::Host {
            return scan_with(&self.info.id, cx, root);
        }
        self.call_scan(cx, root).unwrap_or_else(|e| {
            let during = format!("scanning {}; it contributes nothing", root.path.display());
            vec![Found::Failed(self.runtime_error(&during, &e))]
        })
    }

    /// A plugin whose roots the host scans: one file loaded again as the
    /// host's scanners load it; one that scans itself is scanned whole.
    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        (self.info.scanner == Scanner::Host).then(|| reload_with(&self.info.id, cx, root, path))?
    }

    /// Only a plugin that scans itself can fail a scan: the host's own
    /// scanners never do, so those roots are taken as each is ready.
    fn may_fail(&self) -> bool {
        self.info.scanner != Scanner::Host
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_of_another_platform_is_named_as_such() {
        use LibraryKind::{Dll, Elf, MachO};
        let kind = |name: &str, host| foreign_library_kind(Path::new(name), host);
        // Each host loads its own kind and names the other two.
        for host in [Elf, MachO, Dll] {
            for lib in [Elf, MachO, Dll] {
                let name = format!("plugins/libcat.{}", lib.extension());
                let want = (lib != host).then_some(lib);
                assert_eq!(kind(&name, host), want, "{name} on {host:?}");
            }
        }
        assert_eq!(kind(r"C:\plugins\CAT.DLL", Elf), Some(Dll), "case ignored");
        assert_eq!(
            kind("libcat.so.1", Dll),
            None,
            "versioned: the loader's call"
        );
        assert_eq!(kind("plugin", MachO), None);
        let err = PluginLoadError {
            path: "x/libcat.dylib".into(),
            kind: LoadErrorKind::WrongKind {
                found: MachO,
                expected: Dll,
            },
        };
        assert_eq!(
            err.to_string(),
            "x/libcat.dylib: a plugin library for another platform\nexpected: a Windows DLL (.dll)\nfound: a macOS dynamic library (.dylib)"
        );
    }
}
