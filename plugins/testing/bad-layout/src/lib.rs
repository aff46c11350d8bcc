//! Test fixture: the root module of `skillpipe-plugin-api` with the right
//! version but a different `new` signature (it takes a settings string), as
//! a plugin built against an edited copy of the interface would have.
//! abi_stable's layout check must refuse it, and the host must condense the
//! long report into one short `plugin-error`.

use abi_stable::library::RootModule;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RErr, RResult, RStr, RString};
use abi_stable::{StableAbi, declare_root_module_statics, export_root_module};
use skillpipe_plugin_api::FfiProviderBox;

/// `skillpipe_plugin_api::PluginMod`, with one parameter too many.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModRef)))]
#[sabi(missing_field(panic))]
pub struct PluginMod {
    /// Never called.
    #[sabi(last_prefix_field)]
    pub new: extern "C" fn(settings: RStr<'_>) -> RResult<FfiProviderBox, RString>,
}

impl RootModule for PluginModRef {
    declare_root_module_statics! {PluginModRef}
    const BASE_NAME: &'static str = skillpipe_plugin_api::ROOT_MODULE_NAME;
    const NAME: &'static str = skillpipe_plugin_api::ROOT_MODULE_NAME;
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(skillpipe_plugin_api::ABI_VERSION);
}

extern "C" fn new(_settings: RStr<'_>) -> RResult<FfiProviderBox, RString> {
    RErr("test-bad-layout: must never be built".into())
}

/// The root module.
#[export_root_module]
pub fn root_module() -> PluginModRef {
    PluginMod { new }.leak_into_prefix()
}
