//! Test fixture: the root module of `skillpipe-plugin-api`, copied, claiming
//! interface version 0.0.1, as a plugin built before the interface moved to
//! 0.1 would. abi_stable's version check must refuse it before its layout is
//! even looked at, and the host must say so in one short `plugin-error`
//! (expected 0.1.0, found 0.0.1).
//!
//! (abi_stable refuses an older minor or another major by version; a newer
//! minor of a 0.x interface is refused by the layout check instead.)

use abi_stable::library::RootModule;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RErr, RResult, RString};
use abi_stable::{StableAbi, declare_root_module_statics, export_root_module};
use skillpipe_plugin_api::FfiProviderBox;

/// A copy of `skillpipe_plugin_api::PluginMod`.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModRef)))]
#[sabi(missing_field(panic))]
pub struct PluginMod {
    /// Never called.
    #[sabi(last_prefix_field)]
    pub new: extern "C" fn() -> RResult<FfiProviderBox, RString>,
}

impl RootModule for PluginModRef {
    declare_root_module_statics! {PluginModRef}
    const BASE_NAME: &'static str = skillpipe_plugin_api::ROOT_MODULE_NAME;
    const NAME: &'static str = skillpipe_plugin_api::ROOT_MODULE_NAME;
    const VERSION_STRINGS: VersionStrings = VersionStrings::new("0.0.1");
}

extern "C" fn new() -> RResult<FfiProviderBox, RString> {
    RErr("test-wrong-version: must never be built".into())
}

/// The root module.
#[export_root_module]
pub fn root_module() -> PluginModRef {
    PluginMod { new }.leak_into_prefix()
}
