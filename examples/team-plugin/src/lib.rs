//! Provider plugin `team`: the team's shared skills, in `~/team-skills` or
//! wherever `providers.team.dir` says.

use serde::Deserialize;
use skillpipe_plugin_sdk::core::provider::prelude::*;

/// `providers.team` in any settings file.
#[derive(Deserialize)]
struct Config {
    dir: std::path::PathBuf,
}

fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
    let dir = match cx.provider_config::<Config>("team") {
        Ok(Some(config)) => config.dir,
        Ok(None) => cx.home.join("team-skills"),
        Err(e) => {
            let message = format!("providers.team is not valid ({e})");
            return vec![
                Diagnostic::warning(DiagnosticCode::PluginError, message, "providers.team").into(),
            ];
        }
    };
    // `<dir>/<name>/SKILL.md`, each needing a description; the host's own
    // scanners read them.
    let root = Root::new(dir, Level::User);
    vec![root.description(Description::Required).into()]
}

skillpipe_plugin_sdk::export_provider!(Conventional::new(
    ProviderInfo::plugin("team", "Team skills", 60),
    roots,
));
