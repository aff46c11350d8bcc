//! Plugins loaded for real: the libraries under `plugins/` are built first
//! (`cargo test` builds a `cdylib` but does not copy it out of `deps/`, so
//! the test runs `cargo build -p …` itself and reads the artifact paths
//! from `--message-format=json`), then loaded through the host and through
//! the `skillpipe` binary. `SKILLPIPE_TEST_ARTIFACTS` may name a file of
//! cargo's messages instead, from a build run beforehand (`cargo test
//! --no-run` of the workspace builds them all): `.ci/windows` does so,
//! since under Wine the test cannot start the Linux cargo.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;
use skillpipe_core::pipeline::{self, FinalOrder, Options, PipelineRules};
use skillpipe_core::provider::scan_with;
use skillpipe_core::types::{Diagnostic, Level, Severity};
use skillpipe_core::{
    Conventional, Description, DiscoveryContext, EnabledField, Found, ProviderInfo, Root, RootItem,
    SkillProvider,
};
use skillpipe_plugin_host::{load_plugin, load_plugins};

const PACKAGES: &[&str] = &[
    "skillpipe-cli",
    "skillpipe-plugin-categories",
    "skillpipe-plugin-builtin-claude",
    "skillpipe-testplugin-panics",
    "skillpipe-testplugin-errors",
    "skillpipe-testplugin-wrong-version",
    "skillpipe-testplugin-bad-layout",
    "skillpipe-testplugin-not-a-plugin",
    "team-skills",
];

/// Package name → its built library (or, for the CLI, binary).
fn artifacts() -> &'static BTreeMap<String, PathBuf> {
    static BUILT: OnceLock<BTreeMap<String, PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let messages = match std::env::var_os("SKILLPIPE_TEST_ARTIFACTS") {
            Some(file) => {
                fs::read(&file).unwrap_or_else(|e| panic!("SKILLPIPE_TEST_ARTIFACTS {file:?}: {e}"))
            }
            None => build_messages(),
        };
        let mut found = BTreeMap::new();
        for line in String::from_utf8_lossy(&messages).lines() {
            let Ok(msg) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            // Not a test harness (`cargo test --no-run`'s messages have them).
            if msg["reason"] != "compiler-artifact" || msg["profile"]["test"] == true {
                continue;
            }
            let name = msg["target"]["name"].as_str().unwrap_or_default();
            let package = PACKAGES.iter().find(|p| {
                p.replace('-', "_") == name.replace('-', "_")
                    || (**p == "skillpipe-cli" && name == "skillpipe")
            });
            let Some(package) = package else { continue };
            let file = msg["executable"].as_str().map(PathBuf::from).or_else(|| {
                msg["filenames"]
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|f| f.ends_with(std::env::consts::DLL_SUFFIX))
                    .map(PathBuf::from)
            });
            if let Some(file) = file {
                // Absolute for this process: under Wine, the Linux cargo's
                // `/work/…` has no drive, and a child whose current
                // directory is on another drive would look for it there.
                let file = std::path::absolute(&file).unwrap_or(file);
                found.insert((*package).to_owned(), file);
            }
        }
        for p in PACKAGES {
            assert!(found.contains_key(*p), "no artifact for {p}: {found:?}");
        }
        found
    })
}

/// `cargo build --message-format=json` of the packages: its stdout.
fn build_messages() -> Vec<u8> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--message-format=json-render-diagnostics"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for p in PACKAGES {
        cmd.args(["-p", p]);
    }
    let out = cmd.output().expect("cargo build runs");
    assert!(
        out.status.success(),
        "building the plugins failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn lib(package: &str) -> PathBuf {
    artifacts()[package].clone()
}

fn assert_short_plugin_error(d: &Diagnostic, library: &Path) {
    assert_eq!(d.code, "plugin-error");
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.path, library);
    assert!(
        d.message.lines().count() <= 3,
        "more than three lines:\n{}",
        d.message
    );
    assert!(
        d.message.contains(&library.display().to_string()),
        "the message does not name the file:\n{}",
        d.message
    );
}

#[test]
fn every_broken_library_gives_one_short_plugin_error_and_nothing_else() {
    let missing = PathBuf::from("/nonexistent/libnothing.so");
    let not_a_plugin = lib("skillpipe-testplugin-not-a-plugin");
    let wrong_version = lib("skillpipe-testplugin-wrong-version");
    let bad_layout = lib("skillpipe-testplugin-bad-layout");
    let good = lib("skillpipe-plugin-categories");
    let paths = vec![
        missing.clone(),
        not_a_plugin.clone(),
        wrong_version.clone(),
        good,
        bad_layout.clone(),
    ];
    let (providers, diagnostics) = load_plugins(&paths);

    let ids: Vec<String> = providers.iter().map(|(_, p)| p.info().id.clone()).collect();
    assert_eq!(ids, ["categories"]);
    assert_eq!(diagnostics.len(), 4, "{diagnostics:#?}");
    for (d, path) in diagnostics
        .iter()
        .zip([&missing, &not_a_plugin, &wrong_version, &bad_layout])
    {
        assert_short_plugin_error(d, path);
    }
    assert!(
        diagnostics[0].message.contains("not found"),
        "{}",
        diagnostics[0].message
    );
    assert!(
        diagnostics[1].message.contains("not a skillpipe plugin"),
        "{}",
        diagnostics[1].message
    );
    let version = &diagnostics[2].message;
    assert!(
        version.contains("expected: skillpipe-plugin-api 0.1.0")
            && version.contains("found: skillpipe-plugin-api 0.0.1"),
        "{version}"
    );
    let layout = &diagnostics[3].message;
    assert!(
        layout.contains("layout mismatch")
            && layout.contains("expected: ")
            && layout.contains("found: "),
        "{layout}"
    );
}

#[test]
fn a_text_file_is_refused_as_a_library() {
    let t = tempfile::tempdir().unwrap();
    // This platform's suffix, or the host refuses it for its name alone.
    let fake = t
        .path()
        .join(format!("libfake{}", std::env::consts::DLL_SUFFIX));
    fs::write(&fake, "not a library").unwrap();
    let err = load_plugin(&fake).unwrap_err();
    let d = err.to_diagnostic();
    assert_short_plugin_error(&d, &fake);
    assert!(d.message.contains("cannot load"), "{}", d.message);
}

fn musepi_profile() -> Options {
    Options::new(
        PipelineRules {
            order: FinalOrder::Name,
            custom_pass: false,
            honor_enabled: true,
            fallback_toggles: vec!["enablePiUser".into()],
        },
        skillpipe_settings::SettingsShape::Musepi.setting_keys(),
    )
}

/// A built-in-like provider: `<home>/skills`, always on.
fn builtin_like() -> Box<dyn SkillProvider> {
    fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
        vec![
            Root::new(cx.home.join("skills"), Level::User)
                .description(Description::Required)
                .into(),
        ]
    }
    Box::new(Conventional::new(
        ProviderInfo::builtin("local", "Local", 60),
        roots,
    ))
}

fn write_skill(dir: &Path, name: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {name} does things\n---\nbody\n"),
    )
    .unwrap();
}

/// A discovery run in `dir` with home `home`, everything on.
fn context(dir: &Path, home: &Path) -> DiscoveryContext {
    DiscoveryContext {
        cwd: dir.to_path_buf(),
        home: home.to_path_buf(),
        enabled_field: EnabledField::Honored,
        providers: serde_json::json!({}),
        ..DiscoveryContext::default()
    }
}

#[test]
fn a_panic_or_an_error_at_run_time_costs_only_that_plugin() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    write_skill(&home.join("skills/kept"), "kept");
    // The panicking plugin's root holds a skill it will never deliver.
    write_skill(&home.join("panic-skills/lost"), "lost");
    let cx = context(t.path(), &home);
    let alone = pipeline::run(&[builtin_like()], &cx, &musepi_profile(), Vec::new());

    for (package, during) in [
        ("skillpipe-testplugin-panics", "scanning"),
        ("skillpipe-testplugin-errors", "listing its roots"),
    ] {
        let library = lib(package);
        let plugin = load_plugin(&library).unwrap();
        let providers: Vec<Box<dyn SkillProvider>> = vec![builtin_like(), Box::new(plugin)];
        let with = pipeline::run(&providers, &cx, &musepi_profile(), Vec::new());
        assert_eq!(
            with.skills, alone.skills,
            "{package}: other providers' skills changed"
        );
        assert_eq!(
            with.diagnostics.len(),
            1,
            "{package}: {:#?}",
            with.diagnostics
        );
        let d = &with.diagnostics[0];
        assert_short_plugin_error(d, &library);
        assert!(d.message.contains(during), "{package}: {}", d.message);
    }

    // Panicking while listing roots (configured) is caught the same way.
    let library = lib("skillpipe-testplugin-panics");
    let plugin = load_plugin(&library).unwrap();
    let cx = DiscoveryContext {
        providers: serde_json::json!({"test-panics": {"panic_in": "roots"}}),
        ..cx
    };
    let providers: Vec<Box<dyn SkillProvider>> = vec![builtin_like(), Box::new(plugin)];
    let with = pipeline::run(&providers, &cx, &musepi_profile(), Vec::new());
    assert_eq!(with.skills, alone.skills);
    assert_eq!(with.diagnostics.len(), 1, "{:#?}", with.diagnostics);
    assert!(
        with.diagnostics[0].message.contains("panicked at"),
        "{}",
        with.diagnostics[0].message
    );
}

/// The `test-panics` plugin seen through a wrapper that adds a root of its
/// own before the plugin's: that root is scanned here (with the shared
/// scanners, as the plugin's own skills), the plugin's root by the plugin,
/// which panics. The host must turn the panic into `Found::Failed`, and the
/// pipeline then drop what the first root found too.
#[derive(Debug)]
struct ExtraRoot {
    plugin: Box<dyn SkillProvider>,
    extra: PathBuf,
}

impl SkillProvider for ExtraRoot {
    fn info(&self) -> &ProviderInfo {
        self.plugin.info()
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        let mut roots = vec![
            Root::new(self.extra.clone(), Level::User)
                .description(Description::Required)
                .into(),
        ];
        roots.extend(self.plugin.roots(cx));
        roots
    }

    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        if root.path == self.extra {
            scan_with(&self.info().id, cx, root)
        } else {
            self.plugin.scan_root(cx, root)
        }
    }
}

#[test]
fn a_plugin_failing_on_one_root_loses_its_other_roots_too() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    write_skill(&home.join("skills/kept"), "kept");
    // Found in the wrapper's own root, which scans fine: lost all the same.
    write_skill(&home.join("extra-skills/early"), "early");
    write_skill(&home.join("panic-skills/lost"), "lost");
    let cx = context(t.path(), &home);
    let library = lib("skillpipe-testplugin-panics");
    let plugin = load_plugin(&library).unwrap();
    // Its scan of the panicking root is the failure signal itself.
    let root = Root::new(home.join("panic-skills"), Level::User).description(Description::Required);
    let found = plugin.scan_root(&cx, &root);
    assert!(
        matches!(&found[..], [Found::Failed(d)] if d.code == "plugin-error"),
        "{found:?}"
    );

    let wrapped = ExtraRoot {
        plugin: Box::new(plugin),
        extra: home.join("extra-skills"),
    };
    // Its own root alone loads `early`.
    let extra = Root::new(wrapped.extra.clone(), Level::User).description(Description::Required);
    let early = wrapped.scan_root(&cx, &extra);
    assert!(
        early
            .iter()
            .any(|f| matches!(f, Found::Candidate { candidate, .. }
            if candidate.skill.as_ref().is_some_and(|s| s.name == "early"))),
        "{early:?}"
    );

    let alone = pipeline::run(&[builtin_like()], &cx, &musepi_profile(), Vec::new());
    // Before and after another provider: its neighbours are unchanged.
    for first in [true, false] {
        let mut providers: Vec<Box<dyn SkillProvider>> = vec![builtin_like()];
        let plugin = ExtraRoot {
            plugin: Box::new(load_plugin(&library).unwrap()),
            extra: home.join("extra-skills"),
        };
        if first {
            providers.insert(0, Box::new(plugin));
        } else {
            providers.push(Box::new(plugin));
        }
        let with = pipeline::run(&providers, &cx, &musepi_profile(), Vec::new());
        assert_eq!(with.skills, alone.skills, "first: {first}");
        assert!(
            with.skills
                .iter()
                .all(|s| s.source.provider != "test-panics")
        );
        assert_eq!(with.diagnostics.len(), 1, "{:#?}", with.diagnostics);
        let d = &with.diagnostics[0];
        assert_short_plugin_error(d, &library);
        assert!(
            d.message.contains("scanning") && d.message.contains("panicked at"),
            "{}",
            d.message
        );
    }
}

// ---------------------------------------------------------------------------
// Through the `skillpipe` binary.

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        fs::create_dir_all(root.join("project/.git")).unwrap();
        Tree { _dir: dir, root }
    }

    /// Runs `skillpipe --home home --cwd project ARGS` from `from`, with a
    /// clean environment; returns stdout parsed as JSON.
    fn json(&self, from: &Path, args: &[&str]) -> Value {
        let out = Command::new(lib("skillpipe-cli"))
            .args(["--home", self.root.join("home").to_str().unwrap()])
            .args(["--cwd", self.root.join("project").to_str().unwrap()])
            .args(args)
            .current_dir(from)
            .env_clear()
            .env("HOME", self.root.join("home"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "skillpipe {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn names(list: &Value) -> Vec<String> {
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

fn provider<'a>(providers: &'a Value, id: &str) -> &'a Value {
    providers["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no provider {id} in {providers}"))
}

#[test]
fn only_a_plugin_that_scans_itself_may_fail_a_scan() {
    // The host scans the categories plugin's roots; the panicking one
    // reads its own, and its failure must drop all it found.
    let host_scanned = load_plugin(&lib("skillpipe-plugin-categories")).unwrap();
    let self_scanned = load_plugin(&lib("skillpipe-testplugin-panics")).unwrap();
    assert!(!host_scanned.may_fail());
    assert!(self_scanned.may_fail());
}

#[test]
fn a_plugin_from_its_own_crate_adds_skills_to_list() {
    let tree = Tree::new();
    write_skill(&tree.root.join("home/library/writing/essay"), "essay");
    write_skill(
        &tree.root.join("home/library/engineering/rust-review"),
        "rust-review",
    );
    write_skill(&tree.root.join("home/.claude/skills/pdf"), "pdf");
    let plugin = lib("skillpipe-plugin-categories");
    // `--plugin` is relative to the process's working directory, not `--cwd`.
    let dir = plugin.parent().unwrap();
    let file = plugin.file_name().unwrap().to_str().unwrap();
    let settings = r#"providers.categories={"roots": ["~/library"]}"#;

    let without = tree.json(dir, &["--set", settings, "list", "--json"]);
    assert_eq!(names(&without), ["pdf"]);

    let with = tree.json(
        dir,
        &["--set", settings, "--plugin", file, "list", "--json"],
    );
    assert_eq!(names(&with), ["essay", "pdf", "rust-review"]);
    let essay = &with["skills"][0];
    assert_eq!(essay["source"]["provider"], "categories");
    assert_eq!(essay["source"]["level"], "user");
    assert_eq!(with["diagnostics"], serde_json::json!([]));

    let providers = tree.json(
        dir,
        &["--set", settings, "--plugin", file, "providers", "--json"],
    );
    let cats = provider(&providers, "categories");
    assert_eq!(cats["origin"], "plugin");
    assert_eq!(cats["display_name"], "Skill Categories");
    assert_eq!(cats["roots"].as_array().unwrap().len(), 2);
    assert_eq!(provider(&providers, "claude")["origin"], "builtin");
}

#[test]
fn a_builtin_is_replaced_only_when_disabled_and_then_loads_the_same() {
    let tree = Tree::new();
    write_skill(&tree.root.join("home/.claude/skills/pdf"), "pdf");
    write_skill(&tree.root.join("project/.claude/skills/lint"), "lint");
    let plugin = lib("skillpipe-plugin-builtin-claude");
    let plugin = plugin.to_str().unwrap();
    let here = tree.root.clone();

    let builtin = tree.json(&here, &["list", "--json"]);
    assert_eq!(names(&builtin), ["lint", "pdf"]);

    // Same id while the built-in is active: refused, nothing else changes.
    let clash = tree.json(&here, &["--plugin", plugin, "list", "--json"]);
    assert_eq!(clash["skills"], builtin["skills"]);
    let diags = clash["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{clash}");
    assert_eq!(diags[0]["code"], "plugin-error");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("already active")
    );

    // Disabled built-in: the plugin takes its place and finds the same.
    let replace = [
        "--set",
        r#"disabledProviders=["claude"]"#,
        "--plugin",
        plugin,
    ];
    let replaced = tree.json(&here, &[&replace[..], &["list", "--json"]].concat());
    assert_eq!(replaced, builtin);
    let providers = tree.json(&here, &[&replace[..], &["providers", "--json"]].concat());
    let claude = provider(&providers, "claude");
    assert_eq!(claude["origin"], "plugin");
    let ids: Vec<&str> = providers["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        &ids[..3],
        ["native", "omp-plugins", "claude"],
        "replacement keeps its place"
    );
}

/// The plugin of the guide's "Adding a provider", built from
/// `examples/team-plugin` (whose code is the guide's, `tests/readme.rs`
/// checks): loaded with `--plugin`, listed by `providers`, its skills found
/// by the host's scanners where its settings say.
#[test]
fn the_readme_plugin_loads_and_finds_its_skills() {
    let tree = Tree::new();
    write_skill(&tree.root.join("home/team-skills/deploy"), "deploy");
    write_skill(&tree.root.join("srv/skills/review"), "review");
    let plugin = lib("team-skills");
    let plugin = plugin.to_str().unwrap();
    let here = tree.root.clone();

    let providers = tree.json(&here, &["--plugin", plugin, "providers", "--json"]);
    let team = provider(&providers, "team");
    assert_eq!(team["origin"], "plugin");
    assert_eq!(team["display_name"], "Team skills");

    let listed = tree.json(&here, &["--plugin", plugin, "list", "--json"]);
    assert_eq!(names(&listed), ["deploy"]);
    assert_eq!(listed["skills"][0]["source"]["provider"], "team");

    let dir = format!(
        r#"providers.team={{"dir": {:?}}}"#,
        tree.root.join("srv/skills").display().to_string()
    );
    let moved = tree.json(
        &here,
        &["--plugin", plugin, "--set", &dir, "list", "--json"],
    );
    assert_eq!(names(&moved), ["review"]);

    let bad = tree.json(
        &here,
        &[
            "--plugin",
            plugin,
            "--set",
            "providers.team=7",
            "list",
            "--json",
        ],
    );
    assert_eq!(bad["skills"], serde_json::json!([]));
    assert_eq!(bad["diagnostics"][0]["code"], "plugin-error");
}
