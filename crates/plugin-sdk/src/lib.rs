//! Write a skillpipe provider plugin in one line.
//!
//! ```no_run
//! // Cargo.toml: [lib] crate-type = ["cdylib"]; depend on skillpipe-plugin-sdk.
//! use skillpipe_plugin_sdk::core::provider::prelude::*;
//!
//! fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
//!     let root = Root::new(cx.home.join("team-skills"), Level::User);
//!     vec![root.description(Description::Required).into()]
//! }
//!
//! skillpipe_plugin_sdk::export_provider!(Conventional::new(
//!     ProviderInfo::plugin("team", "Team skills", 60),
//!     roots,
//! ));
//! # fn main() {}
//! ```
//!
//! [`export_provider!`] exports the plugin's root module and adapts any
//! [`SkillProvider`] to the plugin ABI of `skillpipe-plugin-api`: the
//! provider's [`ProviderInfo`](skillpipe_core::ProviderInfo), [`roots`](SkillProvider::roots) and
//! [`scan_root`](SkillProvider::scan_root) are called on the plugin side
//! exactly as the host calls a built-in provider, and their results cross
//! as JSON. A plugin is therefore written, and tested, like a built-in
//! provider: against `skillpipe-core`, with the shared scanners available.
//!
//! **Every entry point catches panics** (`std::panic::catch_unwind`) and
//! returns them as errors, so a panic never unwinds into the host (it would
//! abort it); the host turns the error into one `plugin-error` diagnostic.
//! A plugin built with `panic = "abort"` cannot be protected this way.
//!
//! # Why this crate exists
//!
//! The arrows of the workspace forbid `plugin-api` from depending on our
//! core (plugins must be buildable without it) and forbid `plugin-host`
//! from depending on anything but `plugin-api`, core and types. The adapter
//! from core's `SkillProvider` to the ABI needs both core and the ABI, so it
//! lives here, on the plugin side: `plugin-sdk → plugin-api + core`. The
//! host reads the same JSON documents with its own lenient reader
//! (documented in `skillpipe-plugin-api`), so a plugin written against
//! `plugin-api` alone, in any language that can produce them, loads too.

use std::panic::{AssertUnwindSafe, catch_unwind};

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RErr, ROk, RResult, RStr, RString};
use skillpipe_core::wire;
use skillpipe_core::{DiscoveryContext, SkillProvider};
use skillpipe_plugin_api::{FfiProvider, FfiProvider_TO, FfiProviderBox, PluginMod, PluginModRef};

pub use skillpipe_core as core;
pub use skillpipe_plugin_api as api;

/// Exports `$provider` (any expression whose value implements
/// [`SkillProvider`]) as this library's skillpipe plugin.
///
/// The expression is evaluated when the host loads the library, inside a
/// panic guard. A `Box<dyn SkillProvider>` (what a built-in provider
/// crate's `provider()` returns) is a `SkillProvider` too.
///
/// The crate must be a `cdylib`. One library exports one provider.
#[macro_export]
macro_rules! export_provider {
    ($provider:expr $(,)?) => {
        #[doc(hidden)]
        extern "C" fn __skillpipe_plugin_new()
        -> $crate::__private::RResult<$crate::api::FfiProviderBox, $crate::__private::RString> {
            $crate::__private::quiet_panics();
            $crate::new_provider(|| $provider)
        }

        #[doc(hidden)]
        fn __skillpipe_plugin_root() -> $crate::api::PluginModRef {
            $crate::root_module(__skillpipe_plugin_new)
        }

        #[doc(hidden)]
        extern "C" fn __skillpipe_plugin_loader() -> $crate::__private::RootModuleResult {
            $crate::__private::__call_root_module_loader(__skillpipe_plugin_root)
        }

        /// The abi_stable library header the host looks up (what
        /// `#[export_root_module]` would generate, written out so that the
        /// plugin crate needs no direct `abi_stable` dependency).
        #[doc(hidden)]
        #[allow(unsafe_code)]
        // SAFETY: the symbol name is abi_stable 0.11's root-module symbol
        // (checked by a test in skillpipe-plugin-sdk).
        #[unsafe(export_name = "_1as_0lib_1header_0root_bmodule_bloader")]
        pub static __SKILLPIPE_PLUGIN_HEADER: $crate::__private::LibHeader = {
            #[allow(unsafe_code)]
            // SAFETY: `__call_root_module_loader` returns the module of
            // `__skillpipe_plugin_root`, a `PluginModRef`, erased as
            // `from_constructor::<PluginModRef>` requires.
            unsafe {
                $crate::__private::LibHeader::from_constructor::<$crate::api::PluginModRef>(
                    __skillpipe_plugin_loader,
                    $crate::__private::CheckTypeLayout::Yes,
                )
            }
        };
    };
}

/// What the macro expansion names; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use abi_stable::library::{
        __call_root_module_loader, CheckTypeLayout, LibHeader, RootModuleResult,
    };
    pub use abi_stable::std_types::{RResult, RString};

    pub use super::quiet_panics;
}

/// Builds the root module around a `new` function. Used by
/// [`export_provider!`].
#[doc(hidden)]
pub fn root_module(new: extern "C" fn() -> RResult<FfiProviderBox, RString>) -> PluginModRef {
    use abi_stable::prefix_type::PrefixTypeTrait;
    PluginMod { new }.leak_into_prefix()
}

/// Runs `make` inside a panic guard and adapts what it builds to the ABI.
/// Used by [`export_provider!`].
#[doc(hidden)]
pub fn new_provider<P, F>(make: F) -> RResult<FfiProviderBox, RString>
where
    P: SkillProvider + 'static,
    F: FnOnce() -> P,
{
    match catch_unwind(AssertUnwindSafe(make)) {
        Ok(provider) => ROk(FfiProvider_TO::from_value(
            Adapter(Box::new(provider)),
            TD_Opaque,
        )),
        Err(payload) => RErr(panic_text(payload.as_ref()).into()),
    }
}

/// The plugin-side adapter: a [`SkillProvider`] behind the FFI trait.
struct Adapter(Box<dyn SkillProvider>);

impl FfiProvider for Adapter {
    fn info(&self) -> RResult<RString, RString> {
        guard(|| wire::encode_info(self.0.info()))
    }

    fn roots(&self, context: RStr<'_>) -> RResult<RString, RString> {
        guard(|| {
            let cx = context_from(context)?;
            wire::encode_roots(&self.0.roots(&cx))
        })
    }

    fn scan_root(&self, context: RStr<'_>, root: RStr<'_>) -> RResult<RString, RString> {
        guard(|| {
            let cx = context_from(context)?;
            let root = wire::root(root.as_str())
                .map_err(|e| format!("the host sent a root this plugin cannot read: {e}"))?;
            wire::encode_found(&self.0.scan_root(&cx, &root))
        })
    }
}

/// Runs one entry point: its result, its error, or its panic as an error.
fn guard(f: impl FnOnce() -> Result<String, String>) -> RResult<RString, RString> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(json)) => ROk(json.into()),
        Ok(Err(message)) => RErr(message.into()),
        Err(payload) => RErr(panic_text(payload.as_ref()).into()),
    }
}

thread_local! {
    /// What the plugin's panic hook saw last on this thread: the message
    /// with its location.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the panic hook of the plugin library's own copy of `std` (a
/// `cdylib` links its own) by one that prints nothing and keeps the message
/// and location for the error value, so a caught panic becomes one
/// diagnostic instead of a backtrace on the host's stderr. Called by
/// [`export_provider!`] when the host builds the provider; a plugin linked
/// statically (in tests) keeps the process's hook.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let mut text = payload_text(info.payload());
            if let Some(l) = info.location() {
                text = format!("at {}:{}:{}: {text}", l.file(), l.line(), l.column());
            }
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(text));
        }));
    });
}

/// `panicked: <message>` from a panic payload (with the location, when the
/// quiet hook recorded it).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    match LAST_PANIC.with(|last| last.borrow_mut().take()) {
        // "panicked at <file>:<line>:<column>: <message>"
        Some(recorded) => format!("panicked {recorded}"),
        None => format!("panicked: {}", payload_text(payload)),
    }
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string payload".to_owned())
}

fn context_from(context: RStr<'_>) -> Result<DiscoveryContext, String> {
    serde_json::from_str(context.as_str())
        .map_err(|e| format!("the host sent a context this plugin cannot read: {e}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use skillpipe_core::types::{Diagnostic, Level};
    use skillpipe_core::{Description, ProviderInfo, Root, RootItem, ScanMode, Toggle};

    #[test]
    fn the_macro_exports_abi_stables_root_module_symbol() {
        assert_eq!(
            abi_stable::library::ROOT_MODULE_LOADER_NAME,
            "_1as_0lib_1header_0root_bmodule_bloader"
        );
    }

    #[derive(Debug)]
    struct Panicky(ProviderInfo);
    impl SkillProvider for Panicky {
        fn info(&self) -> &ProviderInfo {
            &self.0
        }
        fn roots(&self, _: &DiscoveryContext) -> Vec<RootItem> {
            panic!("no roots today")
        }
    }

    #[derive(Debug)]
    struct Fine(ProviderInfo);
    impl SkillProvider for Fine {
        fn info(&self) -> &ProviderInfo {
            &self.0
        }
        fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
            vec![
                Root::new(cx.home.join("x"), Level::User)
                    .description(Description::Required)
                    .toggle(Toggle::Fallback)
                    .into(),
                RootItem::Diagnostic(Diagnostic::warning("read-error", "m", "/p")),
            ]
        }
    }

    fn fine() -> Fine {
        Fine(ProviderInfo::plugin("fine", "Fine", 1))
    }

    fn cx_json() -> String {
        serde_json::to_string(&DiscoveryContext {
            home: "/h".into(),
            ..DiscoveryContext::default()
        })
        .unwrap()
    }

    #[test]
    fn a_panic_becomes_an_error_value() {
        let p = new_provider(|| Panicky(ProviderInfo::plugin("panicky", "Panicky", 1))).unwrap();
        let cx = cx_json();
        let err = p.roots(RStr::from_str(&cx)).unwrap_err();
        assert_eq!(err.as_str(), "panicked: no roots today");
        let built: RResult<FfiProviderBox, RString> = new_provider(|| -> Fine { panic!("boom") });
        let RErr(e) = built else {
            panic!("built a provider whose constructor panicked")
        };
        assert_eq!(e.as_str(), "panicked: boom");
    }

    #[test]
    fn roots_and_info_cross_as_json() {
        let p = new_provider(fine).unwrap();
        let info: serde_json::Value = serde_json::from_str(p.info().unwrap().as_str()).unwrap();
        assert_eq!(info["id"], "fine");
        assert_eq!(info["toggles"], serde_json::json!(["fallback"]));
        let cx = cx_json();
        let roots: serde_json::Value =
            serde_json::from_str(p.roots(RStr::from_str(&cx)).unwrap().as_str()).unwrap();
        let x = std::path::Path::new("/h").join("x"); // `/h\\x` on Windows
        assert_eq!(roots[0]["root"]["path"], x.to_str().unwrap());
        assert_eq!(roots[0]["root"]["mode"], "one-level");
        assert_eq!(roots[1]["diagnostic"]["code"], "read-error");
        let _ = ScanMode::OneLevel;
    }

    #[test]
    fn bad_input_from_the_host_is_an_error_not_a_panic() {
        let p = new_provider(fine).unwrap();
        let err = p.roots(RStr::from_str("{not json")).unwrap_err();
        assert!(err.as_str().starts_with("the host sent a context"), "{err}");
        let cx = cx_json();
        let err = p
            .scan_root(RStr::from_str(&cx), RStr::from_str("[]"))
            .unwrap_err();
        assert!(err.as_str().starts_with("the host sent a root"), "{err}");
    }
}
