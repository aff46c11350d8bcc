//! Hooks for live reload (the `skillpipe-watch` crate): rebuilding a
//! [`Skillpipe`] with its providers wrapped, and the files its discovery
//! depends on besides the roots. Hidden from the documentation: they serve
//! the watcher, not hosts, and may change with it.

use std::path::PathBuf;

use skillpipe_core::paths::repo_root_markers;
use skillpipe_core::{RootItem, SkillProvider};

use crate::engine::Pipeline;
use crate::host::{Error, Skillpipe};

/// Turns one provider into another (a caching decorator, say).
pub(crate) type Wrap<'a> = &'a mut dyn FnMut(Box<dyn SkillProvider>) -> Box<dyn SkillProvider>;

impl Skillpipe {
    /// Builds this configuration again (the settings files are read
    /// afresh) with every provider passed through `wrap`, in pipeline
    /// order, the custom pass's provider (musepi: `customDirectories` and
    /// `--skill`, core's `CustomDirectories`) too. Discovery gives what a
    /// plain [`crate::Builder::build`] gives.
    #[doc(hidden)]
    pub fn rebuild_wrapped(&self, wrap: Wrap<'_>) -> Result<Skillpipe, Error> {
        let mut fresh = self.built_from().clone().build()?;
        if let Some(pipeline) = fresh.pipeline_mut() {
            pipeline.wrap_providers(wrap);
        }
        Ok(fresh)
    }

    /// Each active provider's id and roots, listed now (as discovery
    /// lists them: index files read, no skill file): the providers in
    /// pipeline order, then the custom pass's.
    #[doc(hidden)]
    pub fn list_roots(&self) -> Vec<(String, Vec<RootItem>)> {
        let pipeline = self.pipeline();
        let cx = pipeline.context();
        pipeline
            .providers()
            .iter()
            .chain(&pipeline.custom)
            .map(|p| (p.info().id.clone(), p.roots(cx)))
            .collect()
    }

    /// The files discovery depends on besides its roots and what the
    /// providers declare they read ([`RootItem::Input`], in
    /// [`Skillpipe::list_roots`]): every settings file of every layer
    /// (present or not), and the `.git` entries the repository root is found by (of cwd and
    /// each of its ancestors: one created, moved or removed moves the
    /// root, and with it the project's settings files and roots).
    #[doc(hidden)]
    pub fn watched_files(&self) -> Vec<PathBuf> {
        let mut files = self.settings_file_paths().to_vec();
        files.extend(repo_root_markers(&self.pipeline().context().cwd));
        files
    }
}

impl Pipeline {
    fn wrap_providers(&mut self, wrap: Wrap<'_>) {
        self.providers = std::mem::take(&mut self.providers)
            .into_iter()
            .map(&mut *wrap)
            .collect();
        self.custom = self.custom.take().map(wrap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Profile;
    use skillpipe_core::{DiscoveryContext, ProviderInfo, Root};
    use std::path::Path;

    fn skill(dir: &Path, name: &str, description: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n"),
        )
        .unwrap();
    }

    /// A decorator that counts the roots it scans.
    #[derive(Debug)]
    struct Counting(
        Box<dyn SkillProvider>,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    );

    impl SkillProvider for Counting {
        fn info(&self) -> &ProviderInfo {
            self.0.info()
        }
        fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
            self.0.roots(cx)
        }
        fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<skillpipe_core::Found> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.0.scan_root(cx, root)
        }
    }

    /// Custom directories, collisions with them, managed skills shadowed
    /// and `--no-skills`: the wrapped pipeline gives what the plain one does.
    #[test]
    fn a_wrapped_rebuild_discovers_what_the_plain_pipeline_does() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = t.path().join("proj");
        skill(&home.join(".claude/skills/a"), "a", "claude's");
        skill(&home.join("custom/a"), "a", "custom's");
        skill(&home.join("custom/b"), "b", "custom's");
        skill(&home.join("custom/nodesc"), "nodesc", "");
        skill(&t.path().join("cli/c"), "c", "cli's");
        skill(&t.path().join("cli/b"), "b", "cli's");
        skill(&home.join(".musepi/agent/managed-skills/b"), "b", "managed");
        skill(&home.join(".musepi/agent/managed-skills/m"), "m", "managed");
        std::fs::create_dir_all(&proj).unwrap();
        for no_skills in [false, true] {
            let mut b = Skillpipe::builder(Profile::Musepi)
                .home(&home)
                .cwd(&proj)
                .env::<String, String>([])
                .set(format!(
                    "skills.customDirectories=[{:?}]",
                    home.join("custom").display().to_string()
                ))
                .skill_path(t.path().join("cli"));
            if no_skills {
                b = b.no_skills();
            }
            let plain = b.build().unwrap();
            let scans = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let wrapped = plain
                .rebuild_wrapped(&mut |p| Box::new(Counting(p, scans.clone())))
                .unwrap();
            let ids: Vec<String> = wrapped.list_roots().into_iter().map(|(id, _)| id).collect();
            assert_eq!(ids.last().map(String::as_str), Some("custom"));
            assert!(!wrapped.providers().any(|p| p.info().id == "custom"));
            let (want, got) = (plain.discover(), wrapped.discover());
            assert_eq!(want.discovery(), got.discovery(), "no_skills {no_skills}");
            assert!(!want.skills().is_empty());
            // Every root went through the wrapper: custom and cli too.
            let roots = scans.load(std::sync::atomic::Ordering::Relaxed);
            assert!(roots >= if no_skills { 1 } else { 4 }, "{roots}");
        }
    }

    #[test]
    fn watched_files_are_the_settings_layers_and_the_plugin_index_an_input() {
        let t = tempfile::tempdir().unwrap();
        let p = Skillpipe::builder(Profile::Musepi)
            .home(t.path())
            .cwd(t.path())
            .env([("CLAUDE_CONFIG_DIR", "/elsewhere/claude")])
            .build()
            .unwrap();
        let files = p.watched_files();
        assert!(files.contains(&t.path().join(".musepi/agent/settings.json")));
        assert!(files.contains(&t.path().join(".musepi/settings.toml")));
        // Claude Code's plugin index is the claude-plugins provider's own
        // word: an input of its roots, not a guess of the watcher's.
        let index = PathBuf::from("/elsewhere/claude/plugins/installed_plugins.json");
        assert!(!files.contains(&index));
        let inputs: Vec<(String, PathBuf)> = p
            .list_roots()
            .into_iter()
            .flat_map(|(id, items)| {
                items.into_iter().filter_map(move |i| match i {
                    RootItem::Input(path) => Some((id.clone(), path)),
                    _ => None,
                })
            })
            .collect();
        assert_eq!(inputs, [("claude-plugins".to_owned(), index)]);
        // Where the repository root is looked for: cwd and every ancestor.
        for dir in t.path().ancestors() {
            assert!(files.contains(&dir.join(".git")), "{}", dir.display());
        }
    }
}
