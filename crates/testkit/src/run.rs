//! [`Run`]: one provider through the real pipeline, in a profile, on a
//! [`Tree`], and what it loaded as readable lines.
//!
//! The provider is added the way a host adds its own
//! (`skillpipe::Builder::provider`), and every built-in provider is listed
//! in `disabledProviders`: a built-in's id is so freed for the provider
//! under test, which takes its place in the profile's order, and no other
//! provider's skills or diagnostics get into the lines. Settings, trust,
//! toggles, scanning, dedup and ordering are the library's own.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use skillpipe::{Diagnostic, Discovered, Profile, Skill, SkillProvider, Skillpipe};

use crate::Tree;

/// One provider, the profile and the inputs it runs with. The defaults:
/// profile musepi, home `home/`, project `project/`, an empty environment,
/// no plugin libraries, no settings but `disabledProviders`.
#[derive(Clone)]
#[must_use]
pub struct Run {
    provider: Arc<dyn SkillProvider>,
    profile: Profile,
    home: String,
    cwd: String,
    env: Vec<(String, String)>,
    sets: Vec<String>,
    skill_paths: Vec<String>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("provider", &self.provider.info().id)
            .field("profile", &self.profile)
            .field("home", &self.home)
            .field("cwd", &self.cwd)
            .field("env", &self.env)
            .field("sets", &self.sets)
            .field("skill_paths", &self.skill_paths)
            .finish()
    }
}

impl Run {
    /// `provider` alone, in the musepi profile.
    pub fn new(provider: impl SkillProvider + 'static) -> Run {
        Run {
            provider: Arc::new(provider),
            profile: Profile::Musepi,
            home: "home".to_owned(),
            cwd: "project".to_owned(),
            env: Vec::new(),
            sets: Vec::new(),
            skill_paths: Vec::new(),
        }
    }

    /// The profile (default musepi). A built-in provider runs only in the
    /// profile that lists it: pi's in [`Profile::Pi`].
    pub fn profile(mut self, profile: Profile) -> Run {
        self.profile = profile;
        self
    }

    /// The home, relative to the tree (default `home`).
    pub fn home(mut self, rel: &str) -> Run {
        self.home = rel.to_owned();
        self
    }

    /// The project directory, relative to the tree (default `project`).
    pub fn cwd(mut self, rel: &str) -> Run {
        self.cwd = rel.to_owned();
        self
    }

    /// One environment variable (the environment is otherwise empty).
    /// `$TREE` in the value is the tree's root, for variables that hold a
    /// path (`CLAUDE_CONFIG_DIR=$TREE/elsewhere`).
    pub fn env(mut self, name: &str, value: &str) -> Run {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// One setting, as `--set key.path=VALUE`; `$TREE` in it is the tree's
    /// root, written for a quoted JSON or TOML string (`"$TREE/pkg"`: on
    /// Windows its backslashes doubled). Applied after the kit's
    /// `disabledProviders`.
    pub fn set(mut self, assignment: &str) -> Run {
        self.sets.push(assignment.to_owned());
        self
    }

    /// A skill path given as `--skill`, relative to the tree.
    pub fn skill_path(mut self, rel: &str) -> Run {
        self.skill_paths.push(rel.to_owned());
        self
    }

    /// The library, configured for `tree`. Panics with the reason when the
    /// settings are refused or the provider takes no part in the profile.
    pub fn skillpipe(&self, tree: &Tree) -> Skillpipe {
        let root = tree.root().to_string_lossy();
        let id = self.provider.info().id.clone();
        let builtins = skillpipe::builtin_provider_ids();
        let disabled: Vec<String> = builtins.iter().map(|b| format!("{b:?}")).collect();
        let mut builder = Skillpipe::builder(self.profile)
            .home(tree.path(&self.home))
            .cwd(tree.path(&self.cwd))
            .env(
                self.env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.replace("$TREE", &root))),
            )
            .skill_paths(self.skill_paths.iter().map(|p| tree.path(p)))
            .no_plugins()
            .set(format!("disabledProviders=[{}]", disabled.join(",")))
            .provider(Arc::clone(&self.provider));
        for set in &self.sets {
            builder = builder.set(set.replace("$TREE", &root.replace('\\', "\\\\")));
        }
        let sp = builder.build().unwrap_or_else(|e| {
            panic!("testkit: provider `{id}` in profile {}: {e}", self.profile)
        });
        // `disabledProviders` removes a provider of a built-in's id that
        // the profile does not list, rather than let it take a place.
        assert!(
            sp.providers().any(|p| p.info().id == id),
            "testkit: provider `{id}` takes no part in profile {}: it is a built-in of another profile",
            self.profile
        );
        sp
    }

    /// What the provider loaded in `tree`, as lines ([`skill_line`], then
    /// [`diagnostic_line`], then one `setting-warning[code] message` for
    /// each warning the settings gave), for assertions of your own.
    pub fn lines(&self, tree: &Tree) -> Vec<String> {
        let sp = self.skillpipe(tree);
        lines_of(tree, &sp, &sp.discover())
    }

    /// Asserts that the provider loads exactly `expected` in `tree` (the
    /// lines of [`Run::lines`], in order). The panic shows both, as a diff.
    #[track_caller]
    pub fn check(&self, tree: &Tree, expected: &[&str]) {
        let got = self.lines(tree);
        if got != expected {
            panic!(
                "provider `{}` in profile {} loaded other lines than expected (- expected, + got):\n{}",
                self.provider.info().id,
                self.profile,
                diff(expected, &got)
            );
        }
    }
}

/// The lines of a run: skills, diagnostics, the settings' warnings.
pub(crate) fn lines_of(tree: &Tree, sp: &Skillpipe, found: &Discovered) -> Vec<String> {
    let root = tree.root();
    let mut lines: Vec<String> = found.skills().iter().map(|s| skill_line(root, s)).collect();
    lines.extend(found.diagnostics().iter().map(|d| diagnostic_line(root, d)));
    lines.extend(sp.warnings().iter().map(|w| {
        format!(
            "setting-warning[{}] {}",
            w.code,
            relative_text(root, &w.message)
        )
    }));
    lines
}

/// A loaded skill: `skill NAME (PROVIDER/LEVEL) PATH`, the path of its
/// SKILL.md relative to `root`, then ` hidden` when it is, then its
/// visibility when a setting gave one other than `on` (` name-only`).
pub fn skill_line(root: &Path, skill: &Skill) -> String {
    let mut line = format!(
        "skill {} ({}/{}) {}",
        skill.name,
        skill.source.provider,
        skill.source.level,
        relative(root, &skill.file_path)
    );
    if skill.hidden {
        line.push_str(" hidden");
    }
    if !skill.visibility.is_on() {
        let _ = write!(line, " {}", skill.visibility);
    }
    line
}

/// A diagnostic: `SEVERITY[CODE] PATH[:LINE[:COLUMN]]: MESSAGE`, the path
/// relative to `root`, and in the message too.
pub fn diagnostic_line(root: &Path, d: &Diagnostic) -> String {
    let mut at = relative(root, &d.path);
    if let Some(line) = d.line {
        let _ = write!(at, ":{line}");
        if let Some(column) = d.column {
            let _ = write!(at, ":{column}");
        }
    }
    format!(
        "{}[{}] {at}: {}",
        d.severity.as_str(),
        d.code,
        relative_text(root, &d.message)
    )
}

/// `path` relative to `root`, its components joined by `/` on every
/// platform, so that one expected line holds on Windows too.
fn relative(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel
            .iter()
            .map(|c| c.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// `text` with the root and its separator taken out of every path in it.
fn relative_text(root: &Path, text: &str) -> String {
    let root = root.display().to_string();
    text.replace(&format!("{root}{}", std::path::MAIN_SEPARATOR), "")
        .replace(&root, ".")
}

/// A line diff: `  ` both, `- ` expected only, `+ ` got only, in order
/// (a longest common subsequence; the lists are short).
fn diff<E: AsRef<str>, G: AsRef<str>>(expected: &[E], got: &[G]) -> String {
    let (e, g) = (expected, got);
    // lcs[i][j]: the common length of e[i..] and g[j..].
    let mut lcs = vec![vec![0usize; g.len() + 1]; e.len() + 1];
    for i in (0..e.len()).rev() {
        for j in (0..g.len()).rev() {
            lcs[i][j] = match e[i].as_ref() == g[j].as_ref() {
                true => lcs[i + 1][j + 1] + 1,
                false => lcs[i + 1][j].max(lcs[i][j + 1]),
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < e.len() || j < g.len() {
        if i < e.len() && j < g.len() && e[i].as_ref() == g[j].as_ref() {
            let _ = writeln!(out, "    {}", e[i].as_ref());
            (i, j) = (i + 1, j + 1);
        } else if i < e.len() && (j == g.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "  - {}", e[i].as_ref());
            i += 1;
        } else {
            let _ = writeln!(out, "  + {}", g[j].as_ref());
            j += 1;
        }
    }
    if out.is_empty() {
        out.push_str("    (no lines on either side)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[test]
    fn the_diff_marks_what_is_missing_and_what_is_extra_in_order() {
        let d = diff(&["a", "b", "c"], &["a", "x", "c", "d"]);
        assert_eq!(d, "    a\n  - b\n  + x\n    c\n  + d\n");
        assert_eq!(
            diff::<&str, &str>(&[], &[]),
            "    (no lines on either side)\n"
        );
    }
}
