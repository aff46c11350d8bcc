//! Test fixture: provider `test-panics` lists one root, `<home>/panic-skills`,
//! and panics when asked to scan it, or already when asked for its roots
//! if `providers.test-panics.panic_in = "roots"`. The SDK catches the panic
//! on the plugin side; the host must report one `plugin-error` and go on.

use skillpipe_plugin_sdk::core::types::Level;
use skillpipe_plugin_sdk::core::{
    Description, DiscoveryContext, Found, ProviderInfo, Root, RootItem, SkillProvider, Toggle,
};

/// The panicking provider (it scans its roots itself, to panic there).
#[derive(Debug)]
pub struct Panics {
    info: ProviderInfo,
}

impl SkillProvider for Panics {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        if cx.providers["test-panics"]["panic_in"] == "roots" {
            panic!("test-panics: deliberate panic while listing roots");
        }
        vec![
            Root::new(cx.home.join("panic-skills"), Level::User)
                .description(Description::Required)
                .toggle(Toggle::Fallback)
                .into(),
        ]
    }

    fn scan_root(&self, _cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        panic!(
            "test-panics: deliberate panic while scanning {}",
            root.path.display()
        );
    }
}

skillpipe_plugin_sdk::export_provider!(Panics {
    info: ProviderInfo::plugin("test-panics", "Test: panics", 50).scans_itself(),
});
