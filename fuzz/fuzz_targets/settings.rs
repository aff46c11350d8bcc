//! Settings parsing on an arbitrary user settings file.
//!
//! The first byte picks the file (even: `settings.json`, odd:
//! `settings.toml`), the rest is its content, written to
//! `<scratch>/home/.musepi/agent/`; then `skillpipe_settings::load` runs for
//! the musepi profile (and, reading `<scratch>/home/.pi/agent/`, for pi).
//! Checks: no panic (a `SettingsError` is fine); an error names a source.

#![no_main]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillpipe_fuzz::scratch;
use skillpipe_settings::Request;

struct World {
    home: PathBuf,
    cwd: PathBuf,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = scratch("settings");
        let home = dir.join("home");
        let cwd = dir.join("project");
        for app in [".musepi", ".pi"] {
            fs::create_dir_all(home.join(app).join("agent")).unwrap();
        }
        fs::create_dir_all(cwd.join(".git")).unwrap();
        World { home, cwd }
    })
}

fn write(agent: &Path, json: bool, content: &[u8]) {
    let (name, other) = if json {
        ("settings.json", "settings.toml")
    } else {
        ("settings.toml", "settings.json")
    };
    let _ = fs::remove_file(agent.join(other));
    fs::write(agent.join(name), content).unwrap();
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, content)) = data.split_first() else {
        return;
    };
    let w = world();
    let json = first % 2 == 0;
    for profile in ["musepi", "pi"] {
        let app = if profile == "pi" { ".pi" } else { ".musepi" };
        write(&w.home.join(app).join("agent"), json, content);
        let request = Request {
            profile: profile.into(),
            home: w.home.clone(),
            cwd: w.cwd.clone(),
            ..Request::default()
        };
        if let Err(err) = skillpipe_settings::load(&request) {
            assert!(!err.to_string().is_empty());
        }
    }
});
