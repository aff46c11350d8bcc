//! Settings loading, end to end on scratch homes.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillpipe_core::ScanLimits;
use skillpipe_core::paths::plain;
use skillpipe_core::runtime::Style;

use super::profile::{PROFILE_FILES, ProfileFile};
use super::*;

#[test]
fn profile_formats_are_typed_and_a_typo_is_an_error() {
    for name in PROFILES {
        let p = profile(name).unwrap();
        let want = if name == "pi" {
            Style::Pi
        } else {
            Style::Musepi
        };
        assert_eq!((p.catalog, p.expansion), (want, want), "{name}");
    }
    assert_eq!(profile("pi").unwrap().settings_shape, SettingsShape::Pi);
    assert_eq!(
        profile("musepi").unwrap().project_settings,
        ProjectSettings::Nearest
    );
    // A misspelt format no longer means musepi's silently.
    let text = PROFILE_FILES[1]
        .1
        .replace("catalog = \"pi\"", "catalog = \"pie\"");
    assert_ne!(text, PROFILE_FILES[1].1, "the pi profile names its catalog");
    let err = toml::from_str::<ProfileFile>(&text)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("pie") && err.contains("catalog"), "{err}");
}

fn request(home: &Path, cwd: &Path) -> Request {
    Request {
        profile: "musepi".into(),
        home: home.into(),
        cwd: cwd.into(),
        ..Request::default()
    }
}

#[test]
fn defaults_enable_everything() {
    let t = tempfile::tempdir().unwrap();
    let s = load(&request(t.path(), t.path())).unwrap();
    assert!(s.enabled && s.skill_commands == skillpipe_core::runtime::SkillCommands::On);
    assert!(s.toggles.values().all(|v| *v));
    assert_eq!(s.limits, ScanLimits::default());
    assert_eq!(s.agent_dir, t.path().join(".musepi/agent"));
}

#[test]
fn wrong_type_names_key_and_file() {
    let t = tempfile::tempdir().unwrap();
    let conf = t.path().join("bad.json");
    std::fs::write(&conf, r#"{"skills": {"enabled": "yes"}}"#).unwrap();
    let mut r = request(t.path(), t.path());
    r.config_files = vec![conf.clone()];
    let err = load(&r).unwrap_err().to_string();
    assert!(err.contains("skills.enabled"), "{err}");
    assert!(err.contains(&conf.display().to_string()), "{err}");
    assert!(err.contains("boolean"), "{err}");
}

#[test]
fn a_later_layer_can_fix_a_bad_value() {
    let t = tempfile::tempdir().unwrap();
    let conf = t.path().join("bad.toml");
    std::fs::write(&conf, "[skills]\nenabled = 3\n").unwrap();
    let mut r = request(t.path(), t.path());
    r.config_files = vec![conf];
    r.sets = vec!["skills.enabled=false".into()];
    assert!(!load(&r).unwrap().enabled);
}

#[test]
fn env_keys_match_case_insensitively_and_set_wins() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.toggle_keys = vec!["enableCodexUser".into()];
    r.env
        .insert("SKILLPIPE_SKILLS__ENABLECODEXUSER".into(), "false".into());
    r.env.insert(
        "SKILLPIPE_SKILLS__IGNOREDSKILLS".into(),
        r#"["a*","b"]"#.into(),
    );
    let s = load(&r).unwrap();
    assert!(!s.toggle("enableCodexUser"));
    assert_eq!(s.ignored_skills, ["a*", "b"]);
    r.sets = vec!["skills.enableCodexUser=true".into()];
    assert!(load(&r).unwrap().toggle("enableCodexUser"));
}

#[test]
fn set_error_names_the_flag() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.sets = vec!["skills.ignoredSkills=7".into()];
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("--set skills.ignoredSkills=7") && err.contains("array"),
        "{err}"
    );
}

#[test]
fn relative_custom_directories_resolve_against_their_file() {
    let t = tempfile::tempdir().unwrap();
    let conf_dir = t.path().join("conf");
    std::fs::create_dir(&conf_dir).unwrap();
    let conf = conf_dir.join("s.toml");
    std::fs::write(
        &conf,
        "[skills]\ncustomDirectories = [\"../team\", \"~/mine\"]\n",
    )
    .unwrap();
    let mut r = request(t.path(), &t.path().join("project"));
    r.config_files = vec![conf];
    let s = load(&r).unwrap();
    assert_eq!(
        s.custom_directories,
        [t.path().join("team"), t.path().join("mine")]
    );
}

#[test]
fn project_settings_cannot_load_plugins() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("p");
    std::fs::create_dir_all(proj.join(".musepi")).unwrap();
    std::fs::write(
        proj.join(".musepi/settings.json"),
        r#"{"plugins": {"paths": ["x.so"]}}"#,
    )
    .unwrap();
    let s = load(&request(t.path(), &proj)).unwrap();
    assert!(s.plugin_paths.is_empty());
    assert_eq!(s.warnings[0].code, "untrusted-setting");
}

#[test]
fn only_trusted_layers_name_mcp_servers() {
    let (t, proj) = project_with(r#"{"mcp": {"servers": {"x": {"command": "rm"}}}}"#);
    let s = load(&request(t.path(), &proj)).unwrap();
    assert!(s.mcp_servers.is_empty());
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert_eq!(s.warnings[0].code, "untrusted-setting");
    assert!(s.warnings[0].message.contains("mcp.servers"));

    let mut r = request(t.path(), &proj);
    r.sets = vec![r#"mcp.servers={"team": {"command": "team-skills", "args": ["serve"]}}"#.into()];
    let s = load(&r).unwrap();
    assert_eq!(s.mcp_servers["team"]["args"][0], "serve");
    let shown = s
        .effective
        .iter()
        .find(|e| e.key.starts_with("mcp.servers"));
    assert!(shown.is_some(), "{:?}", s.effective);

    r.sets = vec!["mcp.servers=[1]".into()];
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("mcp.servers") && err.contains("an object"),
        "{err}"
    );
}

#[test]
fn config_file_must_exist_and_have_a_known_extension() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.config_files = vec![t.path().join("none.json")];
    assert!(matches!(load(&r), Err(SettingsError::File { .. })));
    r.config_files = vec![t.path().join("x.yaml")];
    assert!(matches!(load(&r), Err(SettingsError::File { .. })));
}

fn project_with(settings: &str) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("p");
    std::fs::create_dir_all(proj.join(".musepi")).unwrap();
    std::fs::write(proj.join(".musepi/settings.json"), settings).unwrap();
    (t, proj)
}

#[test]
fn project_settings_may_lower_scan_bounds() {
    let (t, proj) = project_with(r#"{"scan": {"max_depth": 3, "max_dirs": 10}}"#);
    let s = load(&request(t.path(), &proj)).unwrap();
    assert_eq!(s.limits.max_depth, 3);
    assert_eq!(s.limits.max_dirs, 10);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn project_settings_cannot_raise_scan_bounds() {
    let (t, proj) = project_with(
        r#"{"scan": {"max_depth": 100000, "max_file_bytes": 5, "max_entries": 999999999}}"#,
    );
    let s = load(&request(t.path(), &proj)).unwrap();
    let d = ScanLimits::default();
    assert_eq!(s.limits.max_depth, d.max_depth);
    assert_eq!(s.limits.max_entries, d.max_entries);
    assert_eq!(s.limits.max_file_bytes, 5);
    let file = proj
        .join(".musepi")
        .join("settings.json")
        .display()
        .to_string();
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    let w = &s.warnings[0];
    assert_eq!(w.code, "untrusted-setting");
    assert!(w.message.contains("scan.max_depth"), "{}", w.message);
    assert!(w.message.contains(&file), "{}", w.message);
    assert!(w.message.contains("keeping 12"), "{}", w.message);
}

#[test]
fn project_bounds_compare_with_the_user_value_and_later_trusted_layers_win() {
    let (t, proj) = project_with(r#"{"scan": {"max_depth": 40}}"#);
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"scan": {"max_depth": 50}}"#,
    )
    .unwrap();
    let mut r = request(t.path(), &proj);
    // Under the user's 50: kept.
    assert_eq!(load(&r).unwrap().limits.max_depth, 40);
    std::fs::write(
        agent.join("settings.json"),
        r#"{"scan": {"max_depth": 30}}"#,
    )
    .unwrap();
    // Over the user's 30: the user's value.
    assert_eq!(load(&r).unwrap().limits.max_depth, 30);
    // A trusted later layer raises again.
    r.env
        .insert("SKILLPIPE_SCAN__MAX_DEPTH".into(), "60".into());
    assert_eq!(load(&r).unwrap().limits.max_depth, 60);
    r.env.clear();
    r.sets = vec!["scan.max_depth=70".into()];
    assert_eq!(load(&r).unwrap().limits.max_depth, 70);
}

#[test]
fn pi_project_settings_cannot_raise_scan_bounds_and_mark_their_entries() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("p");
    std::fs::create_dir_all(proj.join(".pi")).unwrap();
    std::fs::write(
        proj.join(".pi/settings.json"),
        r#"{"skills": ["/"], "scan": {"max_depth": 100000}}"#,
    )
    .unwrap();
    let agent = t.path().join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(agent.join("settings.json"), r#"{"skills": ["~/mine"]}"#).unwrap();
    let mut r = request(t.path(), &proj);
    r.profile = "pi".into();
    let s = load(&r).unwrap();
    assert_eq!(s.limits.max_depth, 12);
    assert_eq!(s.warnings[0].code, "untrusted-setting");
    let marks: Vec<(&str, bool)> = s
        .pi_skills
        .iter()
        .map(|e| (e.entry.as_str(), e.project))
        .collect();
    assert_eq!(marks, [("~/mine", false), ("/", true)]);
}

#[test]
fn trust_settings_come_from_trusted_layers_only() {
    let (t, proj) =
        project_with(r#"{"skills": {"projectSkills": "all", "trustedProjects": ["."]}}"#);
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"skills": {"projectSkills": "trusted"}}"#,
    )
    .unwrap();
    let s = load(&request(t.path(), &proj)).unwrap();
    assert_eq!(s.project_skills, ProjectSkills::Trusted);
    assert!(s.trusted_projects.is_empty());
    assert!(!s.project_trusted());
    let codes: Vec<&str> = s.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["untrusted-setting", "untrusted-setting"]);
    assert!(s.warnings[1].message.contains("skills.trustedProjects"));
    // The user lists the project (any spelling of it): trusted.
    std::fs::write(
        agent.join("settings.json"),
        format!(
            r#"{{"skills": {{"projectSkills": "trusted", "trustedProjects": [{:?}]}}}}"#,
            format!("{}/../p", proj.display())
        ),
    )
    .unwrap();
    assert!(load(&request(t.path(), &proj)).unwrap().project_trusted());
}

#[test]
fn project_skills_rejects_other_values_naming_the_origin() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.sets = vec!["skills.projectSkills=some".into()];
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("skills.projectSkills") && err.contains("--set") && err.contains("trusted"),
        "{err}"
    );
    r.sets = vec!["skills.projectSkills=trusted".into()];
    let s = load(&r).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.project_skills, ProjectSkills::Trusted);
}

#[cfg(unix)]
#[test]
fn config_that_is_a_directory_or_fifo_says_so() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    let dir = t.path().join("d.json");
    std::fs::create_dir(&dir).unwrap();
    r.config_files = vec![dir];
    let err = load(&r).unwrap_err().to_string();
    assert!(err.contains("d.json: is a directory"), "{err}");
    let fifo = t.path().join("f.json");
    mkfifo(&fifo);
    r.config_files = vec![fifo];
    // Returns (never blocks on the FIFO) with the file's type.
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("f.json: is not a regular file (it is a FIFO)"),
        "{err}"
    );
    r.config_files = vec![t.path().join("none.json")];
    let err = load(&r).unwrap_err().to_string();
    assert!(err.contains("none.json: no such file"), "{err}");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn user_and_project_settings_that_are_not_files_are_errors() {
    let t = tempfile::tempdir().unwrap();
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(agent.join("settings.json")).unwrap();
    let err = load(&request(t.path(), t.path())).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "settings file {}: is a directory",
            agent.join("settings.json").display()
        )
    );
    std::fs::remove_dir(agent.join("settings.json")).unwrap();
    mkfifo(&agent.join("settings.toml"));
    let err = load(&request(t.path(), t.path())).unwrap_err().to_string();
    assert!(
        err.contains("settings.toml: is not a regular file"),
        "{err}"
    );
    std::fs::remove_file(agent.join("settings.toml")).unwrap();

    let proj = t.path().join("p");
    std::fs::create_dir_all(proj.join(".musepi")).unwrap();
    mkfifo(&proj.join(".musepi/settings.json"));
    let err = load(&request(t.path(), &proj)).unwrap_err().to_string();
    assert!(
        err.contains(".musepi/settings.json: is not a regular file"),
        "{err}"
    );
}

#[test]
fn oversized_settings_files_are_errors_naming_the_size() {
    let t = tempfile::tempdir().unwrap();
    let big = t.path().join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_SETTINGS_BYTES + 1).unwrap();
    let mut r = request(t.path(), t.path());
    r.config_files = vec![big];
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("big.json: is 16777217 bytes") && err.contains("16 MiB"),
        "{err}"
    );
}

#[test]
fn a_byte_order_mark_is_dropped() {
    let t = tempfile::tempdir().unwrap();
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        "\u{feff}{\"skills\": {\"enabled\": false}}",
    )
    .unwrap();
    assert!(!load(&request(t.path(), t.path())).unwrap().enabled);
    std::fs::remove_file(agent.join("settings.json")).unwrap();
    std::fs::write(
        agent.join("settings.toml"),
        "\u{feff}[skills]\nenableCodexUser = false\n",
    )
    .unwrap();
    assert!(
        !load(&request(t.path(), t.path()))
            .unwrap()
            .toggle("enableCodexUser")
    );
}

#[test]
fn relative_paths_in_a_project_file_resolve_against_it() {
    let (t, proj) = project_with(r#"{"skills": {"customDirectories": ["team"]}}"#);
    let s = load(&request(t.path(), &proj)).unwrap();
    assert_eq!(s.custom_directories, [proj.join(".musepi/team")]);
}

#[test]
fn trust_edits_keep_every_other_key_in_place() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("p");
    std::fs::create_dir_all(&proj).unwrap();
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let file = agent.join("settings.json");
    std::fs::write(
        &file,
        r#"{"zeta": 1, "skills": {"enabled": true, "ignoredSkills": ["a"]}, "alpha": [2]}"#,
    )
    .unwrap();
    let s = load(&request(t.path(), &proj)).unwrap();
    let edit = edit_trusted_projects(&s, t.path(), &proj.join("."), TrustChange::Trust).unwrap();
    assert!(edit.changed);
    assert_eq!(edit.key, "skills.trustedProjects");
    assert_eq!(edit.file, file);
    // Stored as people write it: on Windows, not canonicalize's `\\?\C:\`.
    let canon = plain(proj.canonicalize().unwrap()).display().to_string();
    let text = std::fs::read_to_string(&file).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["zeta", "skills", "alpha"]);
    let skill_keys: Vec<&String> = doc["skills"].as_object().unwrap().keys().collect();
    assert_eq!(skill_keys, ["enabled", "ignoredSkills", "trustedProjects"]);
    assert_eq!(doc["skills"]["trustedProjects"], serde_json::json!([canon]));
    // Twice: no change; the settings now trust it.
    let s = load(&request(t.path(), &proj)).unwrap();
    assert!(
        !edit_trusted_projects(&s, t.path(), &proj, TrustChange::Trust)
            .unwrap()
            .changed
    );
    assert_eq!(s.trusted_projects, [PathBuf::from(&canon)]);
    let edit = edit_trusted_projects(&s, t.path(), &proj, TrustChange::Untrust).unwrap();
    assert!(edit.changed);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["skills"]["trustedProjects"], serde_json::json!([]));
    assert_eq!(doc["zeta"], 1);
}

#[test]
fn trust_edits_a_lone_toml_and_creates_json_otherwise() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("p");
    std::fs::create_dir_all(&proj).unwrap();
    // pi: top-level key; no user file yet: settings.json is created.
    let mut r = request(t.path(), &proj);
    r.profile = "pi".into();
    let s = load(&r).unwrap();
    let edit = edit_trusted_projects(&s, t.path(), &proj, TrustChange::Trust).unwrap();
    assert_eq!(edit.file, t.path().join(".pi/agent/settings.json"));
    assert_eq!(edit.key, "trustedProjects");
    assert_eq!(load(&r).unwrap().trusted_projects.len(), 1);

    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let toml_file = agent.join("settings.toml");
    std::fs::write(&toml_file, "# mine\n[skills]\nenabled = true # keep\n").unwrap();
    let s = load(&request(t.path(), &proj)).unwrap();
    let edit = edit_trusted_projects(&s, t.path(), &proj, TrustChange::Trust).unwrap();
    assert_eq!(edit.file, toml_file);
    let text = std::fs::read_to_string(&toml_file).unwrap();
    assert!(
        text.starts_with("# mine\n[skills]\nenabled = true # keep\n"),
        "{text}"
    );
    assert!(!agent.join("settings.json").exists());
    assert!(
        load(&request(t.path(), &proj))
            .unwrap()
            .trusted_projects
            .len()
            == 1
    );
    let err = edit_trusted_projects(&s, t.path(), &t.path().join("none"), TrustChange::Trust)
        .unwrap_err();
    assert!(err.to_string().contains("none: no such file"), "{err}");
}

#[test]
fn both_profiles_parse() {
    for p in PROFILES {
        let profile = profile(p).unwrap();
        assert!(!profile.providers.is_empty());
    }
}

#[test]
fn unknown_keys_suggest_the_nearest_known_one() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    // (A misspelt source toggle is the host's to report: which toggles
    // exist depends on the providers, plugins included.)
    r.sets = vec![
        "skills.ignoreSkills=[]".into(),
        "disabledProvider=[\"x\"]".into(),
        "providers.categories.root=\"x\"".into(),
    ];
    r.env.insert("SKILLPIPE_LOG".into(), "debug".into());
    let s = load(&r).unwrap();
    let messages: Vec<&str> = s.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages.iter().any(|m| m.starts_with(
            "skills.ignoreSkills in --set skills.ignoreSkills=[] is not a known setting"
        ) && m.ends_with("(did you mean skills.ignoredSkills?)")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("disabledProvider in --set")
                && m.ends_with("(did you mean disabledProviders?)")),
        "{messages:?}"
    );
    assert!(s.warnings.iter().all(|w| w.code == "unknown-setting"));
}

#[test]
fn every_effective_value_names_its_layer() {
    let (t, proj) =
        project_with(r#"{"skills": {"ignoredSkills": ["p-*"]}, "scan": {"max_depth": 99}}"#);
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.toml"),
        "[skills]\nenableCodexUser = false\n[scan]\nmax_depth = 20\n",
    )
    .unwrap();
    let mut r = request(t.path(), &proj);
    r.env.insert("SKILLPIPE_NOSKILLS".into(), "true".into());
    r.sets = vec!["disabledProviders=[\"codex\"]".into()];
    let s = load(&r).unwrap();
    let of = |key: &str| {
        s.effective
            .iter()
            .find(|e| e.key == key)
            .unwrap_or_else(|| panic!("{key} in {:?}", s.effective))
    };
    assert_eq!(of("skills.enabled").origin.layer, LayerKind::Profile);
    assert_eq!(of("scan.max_entries").origin.layer, LayerKind::Default);
    assert_eq!(of("scan.max_entries").origin.name, "built-in defaults");
    assert_eq!(of("skills.enabled").value, Value::Bool(true));
    assert_eq!(of("skills.enableCodexUser").origin.layer, LayerKind::User);
    assert_eq!(
        of("skills.enableCodexUser").origin.file.as_deref(),
        Some(agent.join("settings.toml").as_path())
    );
    assert_eq!(of("skills.ignoredSkills").origin.layer, LayerKind::Project);
    // The project tried to raise the bound: the user's value, from the user file.
    assert_eq!(of("scan.max_depth").value, Value::from(20));
    assert_eq!(of("scan.max_depth").origin.layer, LayerKind::User);
    assert_eq!(of("noSkills").origin.layer, LayerKind::Env);
    assert_eq!(
        of("noSkills").origin.name,
        "environment variable SKILLPIPE_NOSKILLS"
    );
    assert_eq!(of("disabledProviders").origin.layer, LayerKind::Set);
    assert_eq!(of("skills.projectSkills").value, Value::from("all"));
    assert_eq!(of("disabledExtensions").origin.layer, LayerKind::Profile);
    // The files: the user's two places, the project's found one.
    let files: Vec<(LayerKind, bool)> = s.files.iter().map(|f| (f.layer, f.exists)).collect();
    assert_eq!(
        files,
        [
            (LayerKind::User, false),
            (LayerKind::User, true),
            (LayerKind::Project, true)
        ]
    );
    assert_eq!(s.files[2].path, proj.join(".musepi/settings.json"));
}

#[test]
fn pi_entries_show_once_per_file_and_missing_project_files_where_looked() {
    let t = tempfile::tempdir().unwrap();
    let agent = t.path().join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"skills": ["~/mine"], "theme": "dark"}"#,
    )
    .unwrap();
    let mut r = request(t.path(), t.path());
    r.profile = "pi".into();
    let s = load(&r).unwrap();
    let keys: Vec<&str> = s.effective.iter().map(|e| e.key.as_str()).collect();
    assert!(
        !keys.contains(&"theme"),
        "pi's own keys are not ours: {keys:?}"
    );
    assert!(!keys.iter().any(|k| k.starts_with("skills.")), "{keys:?}");
    let skills = s.effective.iter().find(|e| e.key == "skills").unwrap();
    assert_eq!(skills.value, serde_json::json!(["~/mine"]));
    assert_eq!(skills.origin.layer, LayerKind::User);
    let project = s
        .files
        .iter()
        .find(|f| f.layer == LayerKind::Project)
        .unwrap();
    assert_eq!(
        (project.path.clone(), project.exists),
        (t.path().join(".pi/settings.json"), false)
    );
}

#[test]
fn every_source_toggle_is_read_and_typed_without_a_list() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.sets = vec![
        "skills.enableClaudeUser=false".into(),
        "skills.enableTeamLibrary=false".into(),
    ];
    let s = load(&r).unwrap();
    assert!(!s.toggle("enableClaudeUser"));
    assert!(!s.toggle("enableTeamLibrary"), "a plugin's own toggle");
    assert!(s.toggle("enableCodexUser"), "absent: on");
    assert!(!s.toggles.contains_key("enableSkillCommands"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    r.sets = vec!["skills.enablePiUser=\"no\"".into()];
    let err = load(&r).unwrap_err().to_string();
    assert!(
        err.contains("skills.enablePiUser") && err.contains("--set") && err.contains("boolean"),
        "{err}"
    );
    assert!(is_toggle_key("enableX") && !is_toggle_key("enabled") && !is_toggle_key("enablex"));
}

#[test]
fn settings_files_name_every_layer_a_load_may_read() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("repo");
    let cwd = repo.join("a/b");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    // The nearest project file is at the repository root, above cwd.
    std::fs::create_dir_all(repo.join(".musepi")).unwrap();
    std::fs::write(
        repo.join(".musepi/settings.json"),
        r#"{"scan": {"max_depth": 3}}"#,
    )
    .unwrap();
    let config = t.path().join("extra.toml");
    std::fs::write(&config, "").unwrap();
    let mut req = request(t.path(), &cwd);
    req.config_files = vec![config.clone()];
    let s = load(&req).unwrap();
    assert_eq!(s.limits.max_depth, 3, "the repository's file was read");
    let files = settings_files(&req, &s);
    let agent = t.path().join(".musepi/agent");
    let mut want = vec![agent.join("settings.json"), agent.join("settings.toml")];
    for dir in [cwd.clone(), repo.join("a"), repo.clone()] {
        want.push(dir.join(".musepi/settings.json"));
        want.push(dir.join(".musepi/settings.toml"));
    }
    want.push(config);
    assert_eq!(files, want);

    // pi reads `<cwd>/.pi/settings.json` only.
    req.profile = "pi".into();
    req.config_files.clear();
    let s = load(&req).unwrap();
    let agent = t.path().join(".pi/agent");
    assert_eq!(
        settings_files(&req, &s),
        [
            agent.join("settings.json"),
            agent.join("settings.toml"),
            cwd.join(".pi/settings.json")
        ]
    );
}

#[test]
fn the_catalogue_layout_keys_are_read_in_both_shapes() {
    use skillpipe_core::budget::{CatalogMode, CatalogPaths};
    let t = tempfile::tempdir().unwrap();
    let defaults = load(&request(t.path(), t.path())).unwrap();
    assert_eq!(defaults.catalog, CatalogSettings::default());
    for (profile, prefix) in [("musepi", "skills."), ("pi", "")] {
        let mut r = request(t.path(), t.path());
        r.profile = profile.into();
        r.sets = vec![
            format!("{prefix}catalogMode=search"),
            format!("{prefix}catalogPins=[\"pdf-*\",\"review\"]"),
            format!("{prefix}catalogPaths=compact"),
        ];
        let env = format!(
            "SKILLPIPE_{}CATALOGMINDESCRIPTION",
            if prefix.is_empty() { "" } else { "SKILLS__" }
        );
        r.env.insert(env, "40".into());
        let s = load(&r).unwrap();
        assert_eq!(s.warnings, [], "{profile}");
        assert_eq!(
            s.catalog,
            CatalogSettings {
                mode: CatalogMode::Search,
                pins: vec!["pdf-*".into(), "review".into()],
                min_description: 40,
                paths: CatalogPaths::Compact,
            },
            "{profile}"
        );
        let keys: Vec<&str> = s.effective.iter().map(|e| e.key.as_str()).collect();
        assert!(
            keys.contains(&format!("{prefix}catalogMode").as_str()),
            "{profile}: {keys:?}"
        );
        // A value of no known kind names the key and where it came from.
        r.sets = vec![format!("{prefix}catalogMode=lists")];
        let err = load(&r).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{prefix}catalogMode")) && err.contains("--set"),
            "{err}"
        );
        assert!(err.contains("search"), "{err}");
    }
    // A near miss is named, as for the other keys.
    let mut r = request(t.path(), t.path());
    r.sets = vec!["skills.catalogPin=[]".into()];
    let s = load(&r).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.message.ends_with("(did you mean skills.catalogPins?)")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn wrong_values_say_what_was_written_and_what_was_expected() {
    let max = usize::MAX.to_string();
    let too_large = format!("99999999999999999999 is too large (at most {max})");
    // (settings.json text or a --set flag, what the message says)
    let cases: Vec<(&str, String)> = vec![
        (
            "--set skills=1",
            "`skills` from --set skills=1: expected a table/object of skill settings, found the number 1".into(),
        ),
        (
            r#"--set skills="x""#,
            r#"expected a table/object of skill settings, found a string "x""#.into(),
        ),
        (
            r#"{"skills": null}"#,
            "`skills` from FILE: expected a table/object of skill settings, found null".into(),
        ),
        (
            r#"{"scan": {"max_entries": 99999999999999999999}}"#,
            format!("`scan.max_entries` from FILE: {too_large}"),
        ),
        (
            "--set scan.max_entries=99999999999999999999",
            too_large.clone(),
        ),
        (
            "--set scan=[]",
            "`scan` from --set scan=[]: expected a table/object of scan bounds, found an array".into(),
        ),
        (
            "--set plugins=true",
            "expected a table/object of plugin settings, found the boolean true".into(),
        ),
        (
            "--set scan.max_depth=5.0",
            "expected a non-negative integer, found the number 5.0".into(),
        ),
        (
            "--set scan.max_depth=-1",
            "expected a non-negative integer, found the number -1".into(),
        ),
        (
            "--set skills.enabled=null",
            "expected a boolean, found null".into(),
        ),
        (
            "--set skills.customDirectories=[1]",
            "`skills.customDirectories[0]` from --set skills.customDirectories=[1]: expected a path (a string), found the number 1".into(),
        ),
        (
            "--set skills.enableClaudeUser={}",
            "expected a boolean, found a table/object".into(),
        ),
    ];
    for (input, want) in cases {
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        let mut want = want;
        match input.strip_prefix("--set ") {
            Some(set) => r.sets = vec![set.into()],
            None => {
                let agent = t.path().join(".musepi").join("agent");
                std::fs::create_dir_all(&agent).unwrap();
                let file = agent.join("settings.json");
                std::fs::write(&file, input).unwrap();
                want = want.replace("FILE", &file.display().to_string());
            }
        }
        let err = load(&r).unwrap_err().to_string();
        assert!(err.contains(&want), "{input}:\n  got  {err}\n  want {want}");
        for internal in [
            "struct", "Musepi", "unit", "float", "figment", "sequence", " map",
        ] {
            assert!(!err.contains(internal), "{input}: {internal:?} in {err}");
        }
    }
}

#[test]
fn pi_entries_of_the_wrong_type_say_which_and_what_they_are() {
    let cases = [
        (
            r#"{"skills": [3]}"#,
            "`skills[0]`",
            "expected a path (a string), found the number 3",
        ),
        (
            r#"{"skills": "x"}"#,
            "`skills`",
            r#"expected an array of paths, found a string "x""#,
        ),
        (
            r#"{"packages": [{"src": "a"}]}"#,
            "`packages[0]`",
            r#"found an object without "source""#,
        ),
        (
            r#"{"packages": [{"source": false}]}"#,
            "`packages[0].source`",
            "expected a path (a string), found the boolean false",
        ),
    ];
    for (text, key, want) in cases {
        let t = tempfile::tempdir().unwrap();
        let agent = t.path().join(".pi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("settings.json"), text).unwrap();
        let mut r = request(t.path(), t.path());
        r.profile = "pi".into();
        let err = load(&r).unwrap_err().to_string();
        assert!(err.contains(key) && err.contains(want), "{text}: {err}");
        assert!(!err.contains("another type"), "{err}");
    }
}

#[test]
fn the_app_dir_must_be_one_directory_name() {
    let t = tempfile::tempdir().unwrap();
    for bad in [
        "", "/", "..", ".", "a/b", "/etc", "a\\b", ".musepi/", "x\0y",
    ] {
        let mut r = request(t.path(), t.path());
        r.app_dir = Some(bad.into());
        match load(&r) {
            Err(SettingsError::AppDir { name, reason }) => {
                assert_eq!(name, bad);
                assert!(
                    reason.starts_with("expected one directory name"),
                    "{reason}"
                );
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    let mut r = request(t.path(), t.path());
    r.app_dir = Some(".omp".into());
    assert_eq!(load(&r).unwrap().agent_dir, t.path().join(".omp/agent"));
    assert!(app_dir_problem(".omp").is_none() && app_dir_problem("a b").is_none());
}

/// A home with a user settings file `name` holding `text`, and `n`
/// project directories `p0`, `p1`, …
fn home_with_projects(name: &str, text: &str, n: usize) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let file = agent.join(name);
    std::fs::write(&file, text).unwrap();
    for i in 0..n {
        std::fs::create_dir_all(t.path().join(format!("p{i}"))).unwrap();
    }
    (t, file)
}

#[test]
fn concurrent_trust_edits_lose_no_entry_and_no_other_key() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 4;
    let cases = [
        (
            "settings.json",
            r#"{"skills": {"projectSkills": "trusted"}, "other": {"keep": 1}}"#,
        ),
        (
            "settings.toml",
            "# my settings\n[skills]\nprojectSkills = \"trusted\" # on purpose\n\n[other]\nkeep = 1\n",
        ),
    ];
    for (name, text) in cases {
        for round in 0..ROUNDS {
            let (t, file) = home_with_projects(name, text, THREADS);
            let home = t.path();
            let barrier = std::sync::Barrier::new(THREADS);
            let results: Vec<Result<TrustEdit, SettingsError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..THREADS)
                    .map(|i| {
                        let barrier = &barrier;
                        scope.spawn(move || {
                            let proj = home.join(format!("p{i}"));
                            let s = load(&request(home, &proj))?;
                            barrier.wait();
                            edit_trusted_projects(&s, home, &proj, TrustChange::Trust)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for r in &results {
                assert!(
                    r.as_ref().is_ok_and(|e| e.changed),
                    "{name} round {round}: {r:?}"
                );
            }
            let s = load(&request(home, home)).unwrap();
            assert_eq!(
                s.trusted_projects.len(),
                THREADS,
                "{name} round {round}: {:?}",
                s.trusted_projects
            );
            assert_eq!(s.project_skills, ProjectSkills::Trusted, "{name}");
            let written = std::fs::read_to_string(&file).unwrap();
            if name.ends_with(".toml") {
                for kept in ["# my settings", "# on purpose", "[other]", "keep = 1"] {
                    assert!(written.contains(kept), "{kept:?} lost: {written}");
                }
            } else {
                let doc: Value = serde_json::from_str(&written).unwrap();
                assert_eq!(doc["other"]["keep"], 1, "{written}");
            }
            // Only the file and its lock are left in the directory.
            let mut names: Vec<String> = std::fs::read_dir(file.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            assert_eq!(names, [name.to_owned(), format!("{name}.lock")]);
        }
    }
}

#[test]
fn a_reader_never_sees_a_partly_written_settings_file() {
    const EDITS: usize = 60;
    let cases = [
        (
            "settings.json",
            r#"{"skills": {"projectSkills": "trusted"}}"#,
        ),
        ("settings.toml", "[skills]\nprojectSkills = \"trusted\"\n"),
    ];
    for (name, text) in cases {
        let (t, _file) = home_with_projects(name, text, 1);
        let home = t.path();
        let proj = home.join("p0");
        let done = std::sync::atomic::AtomicBool::new(false);
        let reads = std::thread::scope(|scope| {
            let writer = scope.spawn(|| {
                let s = load(&request(home, &proj)).unwrap();
                for i in 0..EDITS {
                    edit_trusted_projects(
                        &s,
                        home,
                        &proj,
                        match i % 2 {
                            0 => TrustChange::Trust,
                            _ => TrustChange::Untrust,
                        },
                    )
                    .unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            let mut reads = 0;
            // Bounded: the writer ends after EDITS edits; the reader stops then.
            while !done.load(std::sync::atomic::Ordering::SeqCst) && reads < 100_000 {
                let s = load(&request(home, home))
                    .unwrap_or_else(|e| panic!("{name}: read {reads} failed: {e}"));
                assert_eq!(
                    s.project_skills,
                    ProjectSkills::Trusted,
                    "{name}: read {reads}"
                );
                reads += 1;
            }
            writer.join().unwrap();
            reads
        });
        assert!(reads > 0, "{name}");
    }
}

#[test]
fn a_settings_file_held_open_by_a_reader_is_replaced_once_it_is_closed() {
    // Windows without POSIX rename semantics (and Wine) refuses to replace
    // a file that another process has open; the edit waits for the reader.
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("settings.json");
    std::fs::write(&target, "{}").unwrap();
    // Open before the edit starts; closed 150 ms later at the earliest.
    let reader = skillpipe_core::fsio::open_nonblocking(&target).unwrap();
    let holder = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(150));
        drop(reader);
    });
    crate::file::replace_file(&target, r#"{"new": 1}"#).unwrap();
    holder.join().unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), r#"{"new": 1}"#);
    let names: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["settings.json"], "no temporary file is left");
}

#[test]
fn trust_edits_the_user_file_whose_value_wins() {
    // settings.toml is the later layer: when it sets trustedProjects, its
    // list is the one that counts; when only settings.json does, that one.
    let cases = [
        // (json, toml, the file edited)
        (
            r#"{"skills": {"trustedProjects": ["/elsewhere"]}}"#,
            "[skills]\nprojectSkills = \"trusted\"\ntrustedProjects = [\"/somewhere\"]\n",
            "settings.toml",
        ),
        (
            r#"{"skills": {"projectSkills": "trusted"}}"#,
            "[skills]\ntrustedProjects = []\n",
            "settings.toml",
        ),
        (
            r#"{"skills": {"trustedProjects": ["/elsewhere"]}}"#,
            "[skills]\nprojectSkills = \"trusted\"\n",
            "settings.json",
        ),
        (
            "{}",
            "[skills]\nprojectSkills = \"trusted\"\n",
            "settings.json",
        ),
    ];
    for (json, toml_text, edited) in cases {
        let (t, _) = home_with_projects("settings.json", json, 1);
        let agent = t.path().join(".musepi/agent");
        std::fs::write(agent.join("settings.toml"), toml_text).unwrap();
        let proj = t.path().join("p0");
        let canon = plain(proj.canonicalize().unwrap());
        let r = request(t.path(), &proj);
        let s = load(&r).unwrap();
        let edit = edit_trusted_projects(&s, t.path(), &proj, TrustChange::Trust).unwrap();
        assert!(edit.changed);
        assert_eq!(edit.file, agent.join(edited), "{json} / {toml_text}");
        assert_eq!(edit.overridden_by, None);
        let s = load(&r).unwrap();
        assert!(
            s.trusted_projects.contains(&canon),
            "after trust, {edited}: {:?}",
            s.trusted_projects
        );
        let edit = edit_trusted_projects(&s, t.path(), &proj, TrustChange::Untrust).unwrap();
        assert!(edit.changed, "untrust found it in {edited}");
        assert_eq!(edit.file, agent.join(edited));
        let s = load(&r).unwrap();
        assert!(!s.trusted_projects.contains(&canon), "{edited}");
    }
}

#[test]
fn trust_says_when_a_higher_layer_sets_the_list() {
    let t = tempfile::tempdir().unwrap();
    let mut r = request(t.path(), t.path());
    r.sets = vec![r#"skills.trustedProjects=["/x"]"#.into()];
    let s = load(&r).unwrap();
    let edit = edit_trusted_projects(&s, t.path(), t.path(), TrustChange::Trust).unwrap();
    assert!(edit.changed);
    assert_eq!(
        edit.overridden_by.as_deref(),
        Some(r#"--set skills.trustedProjects=["/x"]"#)
    );
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_stays_a_link_and_its_target_is_replaced() {
    let t = tempfile::tempdir().unwrap();
    let dotfiles = t.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let target = dotfiles.join("musepi.json");
    std::fs::write(&target, r#"{"other": 1}"#).unwrap();
    std::fs::set_permissions(&target, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let agent = t.path().join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let link = agent.join("settings.json");
    // A relative link, as dotfile managers make them.
    std::os::unix::fs::symlink("../../dotfiles/musepi.json", &link).unwrap();
    let s = load(&request(t.path(), t.path())).unwrap();
    let edit = edit_trusted_projects(&s, t.path(), t.path(), TrustChange::Trust).unwrap();
    assert!(edit.changed);
    assert_eq!(edit.file, link);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(doc["other"], 1);
    assert_eq!(
        doc["skills"]["trustedProjects"].as_array().unwrap().len(),
        1
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(&target.metadata().unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "the file's permissions are kept");
    // The lock sits beside the file edited; nothing else is left.
    assert!(dotfiles.join("musepi.json.lock").exists());
    assert_eq!(std::fs::read_dir(&dotfiles).unwrap().count(), 2);
}

/// The key tables are the one list: every key the embedded defaults and
/// a profile's preset set is in its shape's table, and the shape's fill
/// reads nothing else (a merged value holding only the table's keys fills
/// the same settings).
#[test]
fn each_shape_reads_the_keys_of_its_table_and_no_other() {
    use super::keys::{Key, known_keys, unknown_key_warnings};
    use super::layers::Stack;
    use super::profile::profile_file;
    use figment::Figment;
    use figment::providers::Serialized;

    for name in PROFILES {
        let ProfileFile {
            profile,
            settings: preset,
        } = profile_file(name).unwrap();
        let shape = profile.settings_shape;
        let base = Stack::base(name, &preset).unwrap().full;
        assert_eq!(unknown_key_warnings(&base, shape.keys()), [], "{name}");
        let known = known_keys([shape.keys()]);
        let top: serde_json::Map<String, Value> = base.extract().unwrap();
        for key in top.keys() {
            assert!(known.contains(key), "{name}: {key} is in no table");
        }

        let mut only = Value::Object(serde_json::Map::new());
        for key in shape.keys().all() {
            if matches!(key, Key::Toggles(_) | Key::PerFile(_)) {
                continue;
            }
            let Ok(value) = base.find_value(key.path()) else {
                continue;
            };
            let mut at = &mut only;
            for part in key.path().split('.') {
                at = at
                    .as_object_mut()
                    .unwrap()
                    .entry(part)
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
            }
            *at = serde_json::to_value(&value).unwrap();
        }
        let only = Figment::from(Serialized::defaults(only));
        let t = tempfile::tempdir().unwrap();
        let mut r = request(t.path(), t.path());
        r.profile = name.into();
        let loaded = load(&r).unwrap();
        let mut again = loaded.clone();
        let resolve = |p: &figment::value::magic::RelativePathBuf| p.relative();
        shape
            .fill(&only, &only, &[], &resolve, &mut again)
            .unwrap_or_else(|e| panic!("{name}: the table misses a key the shape reads: {e}"));
        assert_eq!(again, loaded, "{name}");
    }
}
