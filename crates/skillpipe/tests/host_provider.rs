//! A host's own provider, added in process with `Builder::provider`
//! (issue 20): it loads like a plugin's, its toggle switches it from every
//! settings layer, the environment included (which the toggle spellings,
//! once built before such providers were known, missed), it shows in the
//! `providers` document, and an id already taken fails the build.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};

use skillpipe::core::types::Level;
use skillpipe::{
    Conventional, DiscoveryContext, Error, Profile, ProviderInfo, Root, RootItem, Skillpipe,
    Toggle, provider_json,
};

/// The team's skills in `~/team-skills`, switched by `skills.enableTeamSkills`.
fn team() -> Conventional {
    fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
        vec![
            Root::new(cx.home.join("team-skills"), Level::User)
                .toggle(Toggle::key("enableTeamSkills"))
                .into(),
        ]
    }
    Conventional::new(
        ProviderInfo::plugin("team", "Team skills", 60).toggles([Toggle::key("enableTeamSkills")]),
        roots,
    )
}

fn skill(dir: &Path, name: &str) {
    let dir = dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\nbody\n"),
    )
    .unwrap();
}

fn home() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().to_path_buf();
    skill(&home.join("team-skills"), "deploy");
    (t, home)
}

fn names(sp: &Skillpipe) -> Vec<(String, String)> {
    sp.discover()
        .skills()
        .iter()
        .map(|s| (s.name.to_string(), s.source.provider.clone()))
        .collect()
}

fn builder(profile: Profile, home: &Path, env: &[(&str, &str)]) -> skillpipe::Builder {
    Skillpipe::builder(profile)
        .home(home)
        .cwd(home)
        .env(env.iter().copied())
        .no_plugins()
}

#[test]
fn a_hosts_provider_loads_in_process_and_shows_in_the_providers_document() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let (_t, home) = home();
        let sp = builder(profile, &home, &[])
            .provider(team())
            .build()
            .unwrap();
        assert_eq!(
            names(&sp),
            [("deploy".to_owned(), "team".to_owned())],
            "{profile}"
        );
        let team = sp.providers().find(|p| p.info().id == "team").unwrap();
        let doc = provider_json(&sp, team);
        assert_eq!(doc["origin"], "plugin", "{profile}: {doc}");
        assert_eq!(doc["display_name"], "Team skills", "{profile}: {doc}");
        let toggle = doc["toggle"][0].as_str().unwrap_or("");
        assert!(toggle.ends_with("enableTeamSkills"), "{profile}: {doc}");
        assert!(sp.warnings().is_empty(), "{profile}: {:?}", sp.warnings());
    }
}

#[test]
fn its_toggle_switches_it_from_the_environment_as_from_set() {
    let (_t, home) = home();
    for env in [
        &[("SKILLPIPE_SKILLS__ENABLETEAMSKILLS", "false")][..],
        &[("SKILLPIPE_skills__enableteamskills", "false")][..],
    ] {
        let sp = builder(Profile::Musepi, &home, env)
            .provider(team())
            .build()
            .unwrap();
        assert!(names(&sp).is_empty(), "{env:?}: {:?}", names(&sp));
        assert!(sp.warnings().is_empty(), "{env:?}: {:?}", sp.warnings());
        assert!(!sp.settings().toggle("enableTeamSkills"));
    }
    let set = builder(Profile::Musepi, &home, &[])
        .set("skills.enableTeamSkills=false")
        .provider(team())
        .build()
        .unwrap();
    assert!(names(&set).is_empty());
    // Switched on again by `--set`, which outranks the environment.
    let both = builder(
        Profile::Musepi,
        &home,
        &[("SKILLPIPE_SKILLS__ENABLETEAMSKILLS", "false")],
    )
    .set("skills.enableTeamSkills=true")
    .provider(team())
    .build()
    .unwrap();
    assert_eq!(names(&both).len(), 1);
}

#[test]
fn a_taken_id_fails_the_build_unless_disabled_providers_frees_it() {
    let (_t, home) = home();
    fn as_claude() -> Conventional {
        let mut p = team();
        p.info.id = "claude".to_owned();
        p
    }
    let err = builder(Profile::Musepi, &home, &[])
        .provider(as_claude())
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateProvider(id) if id == "claude"),
        "{err}"
    );
    assert!(err.to_string().contains("disabledProviders"), "{err}");
    let twice = builder(Profile::Musepi, &home, &[])
        .provider(team())
        .provider(team())
        .build()
        .unwrap_err();
    assert!(matches!(twice, Error::DuplicateProvider(_)));
    // Listed in disabledProviders, the built-in gives its place.
    let replaced = builder(Profile::Musepi, &home, &[])
        .set("disabledProviders=[\"claude\"]")
        .provider(as_claude())
        .build()
        .unwrap();
    assert_eq!(
        names(&replaced),
        [("deploy".to_owned(), "claude".to_owned())]
    );
}
