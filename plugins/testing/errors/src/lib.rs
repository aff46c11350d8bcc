//! Test fixture: provider `test-errors`, written against
//! `skillpipe-plugin-api` alone (no skillpipe core, hand-written JSON). Its
//! roots call returns an error value; the host must report one
//! `plugin-error` and go on without it.
//!
//! It doubles as the smallest example of a plugin that does not use the
//! SDK: implement `FfiProvider`, export a `PluginMod`.

// abi_stable's `export_root_module` adds a static without docs beside the
// root module (the SDK's own macro documents it); every item written here
// has its docs.
#![allow(missing_docs)]

use abi_stable::export_root_module;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RErr, ROk, RResult, RStr, RString};
use skillpipe_plugin_api::{FfiProvider, FfiProvider_TO, FfiProviderBox, PluginMod, PluginModRef};

struct Errors;

impl FfiProvider for Errors {
    fn info(&self) -> RResult<RString, RString> {
        ROk(r#"{"id": "test-errors", "display_name": "Test: errors", "priority": 50}"#.into())
    }

    fn roots(&self, _context: RStr<'_>) -> RResult<RString, RString> {
        RErr("test-errors: the skill index is unreachable (deliberate)".into())
    }

    fn scan_root(&self, _context: RStr<'_>, _root: RStr<'_>) -> RResult<RString, RString> {
        RErr("test-errors: never asked to scan".into())
    }
}

extern "C" fn new() -> RResult<FfiProviderBox, RString> {
    ROk(FfiProvider_TO::from_value(Errors, TD_Opaque))
}

/// The root module.
#[export_root_module]
pub fn root_module() -> PluginModRef {
    PluginMod { new }.leak_into_prefix()
}
