//! Provider plugin `categories`: skill libraries sorted into category
//! folders, `<root>/<group>/<name>/SKILL.md`, which no built-in provider
//! finds (their roots scan one level: `<root>/<name>/SKILL.md`).
//!
//! Configured under `providers.categories` in any settings layer (see
//! README.md):
//!
//! ```toml
//! [providers.categories]
//! roots = ["~/skill-library", { path = "docs/skills", level = "project" }]
//! groups = ["engineering", "writing"]   # optional: default every group folder
//! require_description = true            # optional, the default
//! ```
//!
//! Each `<root>/<group>` is one `one-level` root of the shared scanner, so
//! every rule of SPEC §2-§3 applies to the skills inside, and the pipeline
//! gates, filters and dedups them like any provider's. The provider is
//! gated by the profile's fallback toggle.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use skillpipe_core::head::read_error_dir;
use skillpipe_core::paths::{is_within, resolve_entry};
use skillpipe_core::types::{Diagnostic, Level};
use skillpipe_core::{
    Description, DiscoveryContext, ProviderInfo, Root, RootItem, SkillProvider, Toggle,
};

/// The provider id, and the key of its settings under `providers`.
pub const ID: &str = "categories";

/// The provider.
#[derive(Debug, Default, Clone, Copy)]
pub struct Categories;

/// Who it is: a plugin, gated by the profile's fallback toggle, its roots
/// scanned by the host's scanners.
static INFO: std::sync::LazyLock<ProviderInfo> =
    std::sync::LazyLock::new(|| ProviderInfo::plugin(ID, "Skill Categories", 50));

impl SkillProvider for Categories {
    fn info(&self) -> &ProviderInfo {
        &INFO
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        match cx.provider_config::<Config>(ID) {
            Ok(None) => Vec::new(),
            Ok(Some(config)) => config.roots(cx),
            Err(e) => vec![RootItem::Diagnostic(Diagnostic::warning(
                "plugin-error",
                format!("providers.{ID} is not valid ({e}); provider \"{ID}\" contributes nothing"),
                format!("providers.{ID}"),
            ))],
        }
    }
}

skillpipe_plugin_sdk::export_provider!(Categories);

/// `providers.categories`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    /// Library roots, in order.
    #[serde(default)]
    roots: Vec<RootEntry>,
    /// Group folders to take, in order; absent: every group folder of each
    /// root, in byte order of names.
    groups: Option<Vec<String>>,
    /// Whether a skill without a description is refused.
    #[serde(default = "yes")]
    require_description: bool,
}

fn yes() -> bool {
    true
}

/// A root: a path, or `{ path, level }`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RootEntry {
    Path(String),
    Detailed { path: String, level: Option<Level> },
}

impl Config {
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        let project = cx.repo_root.as_ref().unwrap_or(&cx.cwd);
        let mut out = Vec::new();
        for entry in &self.roots {
            let (path, level) = match entry {
                RootEntry::Path(p) => (p, None),
                RootEntry::Detailed { path, level } => (path, *level),
            };
            // `~` under home; relative entries against the project directory.
            let root = resolve_entry(path, &cx.cwd, &cx.home);
            let level = level.unwrap_or(if is_within(&root, project) {
                Level::Project
            } else {
                Level::User
            });
            let groups = match &self.groups {
                Some(names) => names.clone(),
                None => match group_folders(&root) {
                    Ok(names) => names,
                    Err(diagnostic) => {
                        out.push(RootItem::Diagnostic(*diagnostic));
                        continue;
                    }
                },
            };
            for group in groups {
                if !is_plain_relative(&group) {
                    out.push(RootItem::Diagnostic(Diagnostic::warning(
                        "plugin-error",
                        format!(
                            "providers.{ID}.groups: \"{group}\" is not a folder name under a root; skipped"
                        ),
                        &root,
                    )));
                    continue;
                }
                out.push(
                    Root::new(root.join(&group), level)
                        .description(match self.require_description {
                            true => Description::Required,
                            false => Description::Optional,
                        })
                        .toggle(Toggle::Fallback)
                        .into(),
                );
            }
        }
        out
    }
}

/// The group folders of a library root: entries that are directories
/// (symlinks followed), not starting with `.`, in byte order. A missing
/// root has none; an unreadable one is a `read-error`.
fn group_folders(root: &Path) -> Result<Vec<String>, Box<Diagnostic>> {
    let entries = match fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Box::new(read_error_dir(root, &e))),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| fs::metadata(e.path()).is_ok_and(|m| m.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    Ok(names)
}

/// A non-empty relative path of normal components (`eng` or `eng/backend`).
fn is_plain_relative(group: &str) -> bool {
    let path = PathBuf::from(group);
    !group.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;
    use skillpipe_core::pipeline::{self, FinalOrder, Options, PipelineRules};
    use skillpipe_core::types::Discovery;
    use skillpipe_core::{EnabledField, Root, ScanMode};

    fn write_skill(dir: &Path, name: &str, description: &str) {
        fs::create_dir_all(dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
        )
        .unwrap();
    }

    fn cx(home: &Path, cwd: &Path, settings: serde_json::Value) -> DiscoveryContext {
        DiscoveryContext {
            cwd: cwd.to_path_buf(),
            home: home.to_path_buf(),
            enabled_field: EnabledField::Honored,
            providers: json!({ "categories": settings }),
            ..DiscoveryContext::default()
        }
    }

    fn run(cx: &DiscoveryContext) -> Discovery {
        let profile = PipelineRules {
            order: FinalOrder::Name,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: vec!["enablePiUser".into()],
        };
        let providers: Vec<Box<dyn SkillProvider>> = vec![Box::new(Categories)];
        let keys = skillpipe_settings::SettingsShape::Musepi.setting_keys();
        pipeline::run(&providers, cx, &Options::new(profile, keys), Vec::new())
    }

    fn roots_of(items: &[RootItem]) -> Vec<&Root> {
        items
            .iter()
            .filter_map(|i| match i {
                RootItem::Root(r) => Some(r),
                RootItem::Diagnostic(_) | RootItem::Input(_) => None,
            })
            .collect()
    }

    #[test]
    fn finds_skills_two_levels_down_in_every_group() {
        let t = tempfile::tempdir().unwrap();
        let lib = t.path().join("home/library");
        write_skill(&lib.join("writing/essay"), "essay", "Write essays");
        write_skill(
            &lib.join("engineering/rust-review"),
            "rust-review",
            "Review Rust",
        );
        write_skill(&lib.join("engineering/too/deep"), "deep", "Not found");
        write_skill(
            &lib.join("flat"),
            "flat",
            "A skill directly under the root is not a group",
        );
        write_skill(
            &lib.join(".hidden/secret"),
            "secret",
            "Dot folders are skipped",
        );
        let cx = cx(
            &t.path().join("home"),
            &t.path().join("project"),
            json!({ "roots": ["~/library"] }),
        );
        let d = run(&cx);
        let names: Vec<&str> = d.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["essay", "rust-review"]);
        let essay = &d.skills[0];
        assert_eq!(essay.source.provider, "categories");
        assert_eq!(essay.source.level, Level::User);
        assert_eq!(
            essay.source.root.as_deref(),
            Some(lib.join("writing").as_path())
        );
        assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
    }

    #[test]
    fn configured_groups_are_taken_in_order_and_missing_ones_are_silent() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("project");
        write_skill(&project.join("lib/a/x"), "x", "from a");
        write_skill(&project.join("lib/b/x"), "x", "from b");
        let cx = cx(
            &t.path().join("home"),
            &project,
            json!({ "roots": ["lib"], "groups": ["b", "a", "missing"] }),
        );
        let items = Categories.roots(&cx);
        let roots = roots_of(&items);
        let paths: Vec<PathBuf> = roots.iter().map(|r| r.path.clone()).collect();
        assert_eq!(
            paths,
            [
                project.join("lib/b"),
                project.join("lib/a"),
                project.join("lib/missing")
            ]
        );
        assert!(roots.iter().all(|r| r.level == Level::Project
            && r.mode == ScanMode::OneLevel
            && r.toggle == Toggle::Fallback
            && r.description == Description::Required));
        // The first group listed wins the name; the other is a collision.
        let d = run(&cx);
        assert_eq!(d.skills.len(), 1);
        assert_eq!(d.skills[0].description, "from b");
        assert_eq!(d.diagnostics.len(), 1);
        assert_eq!(d.diagnostics[0].code, "collision");
    }

    #[test]
    fn levels_and_descriptions_follow_the_settings() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("shared");
        write_skill(&elsewhere.join("g/terse"), "terse", "\"\"");
        let cx = cx(
            &t.path().join("home"),
            &t.path().join("project"),
            json!({
                "roots": [{ "path": elsewhere.to_str().unwrap(), "level": "project" }],
                "require_description": false,
            }),
        );
        let d = run(&cx);
        assert_eq!(d.skills.len(), 1, "{:?}", d.diagnostics);
        assert_eq!(d.skills[0].source.level, Level::Project);
        assert_eq!(d.skills[0].description, "");
    }

    #[test]
    fn bad_settings_and_group_names_are_diagnostics() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let bad = cx(&home, &home, json!({ "roots": "not a list" }));
        let items = Categories.roots(&bad);
        assert!(
            matches!(&items[..], [RootItem::Diagnostic(d)] if d.code == "plugin-error"),
            "{items:?}"
        );
        let typo = cx(&home, &home, json!({ "root": ["x"] }));
        assert!(matches!(
            &Categories.roots(&typo)[..],
            [RootItem::Diagnostic(_)]
        ));
        let escape = cx(
            &home,
            &home,
            json!({ "roots": ["x"], "groups": ["../etc", "ok", ""] }),
        );
        let items = Categories.roots(&escape);
        assert_eq!(roots_of(&items).len(), 1);
        assert_eq!(items.len(), 3);
        // Not configured: no roots, no noise.
        assert!(Categories.roots(&cx(&home, &home, json!(null))).is_empty());
    }

    #[test]
    fn info_is_a_fallback_plugin() {
        let info = Categories.info();
        assert_eq!(info.id, "categories");
        assert_eq!(info.toggles, vec![Toggle::Fallback]);
        assert_eq!(info.origin, skillpipe_core::Origin::Plugin);
    }
}
