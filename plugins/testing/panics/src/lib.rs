//! Test fixture: provider `test-panics` lists one root, `<home>/panic-skills`,
//! and panics when asked to scan it, or already when asked for its roots
//! if `providers.test-panics.panic_in = "roots"`. The SDK catches the panic
//! on the plugin side; the host must report one `plugin-error` and go on.

use skillpipe_plugin_sdk::core::types::Level;
use skillpipe_plugin_sdk::core::{
    DiscoveryContext, Found, ProviderInfo, Root, RootItem, SkillProvider, Toggle, one_level,
};

/// The panicking provider.
#[derive(Debug)]
pub struct Panics;

impl SkillProvider for Panics {
    fn info(&self) -> ProviderInfo {
        skillpipe_plugin_sdk::plugin_info("test-panics", "Test: panics", 50)
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        if cx.config["providers"]["test-panics"]["panic_in"] == "roots" {
            panic!("test-panics: deliberate panic while listing roots");
        }
        vec![one_level(
            cx.home.join("panic-skills"),
            Level::User,
            true,
            Toggle::Fallback,
        )]
    }

    fn scan_root(&self, _cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        panic!(
            "test-panics: deliberate panic while scanning {}",
            root.path.display()
        );
    }
}

skillpipe_plugin_sdk::export_provider!(Panics);
