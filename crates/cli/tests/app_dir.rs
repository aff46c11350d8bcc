//! `--app-dir`, which decides where the user settings are: one directory
//! name, or a usage error.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::process::{Command, Output};

use serde_json::Value;

fn run(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .env_clear()
        .env("HOME", home)
        .arg("--home")
        .arg(home)
        .arg("--cwd")
        .arg(home)
        .arg("--color")
        .arg("never")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn app_dir_must_be_one_directory_name() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    for bad in ["", "/", "..", ".", "a/b", "/etc"] {
        let out = run(home, &["--app-dir", bad, "settings"]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "error: invalid value '{bad}' for '--app-dir <NAME>': expected one directory name (like .musepi or .omp)"
            )),
            "{err}"
        );
        let out = run(home, &["--app-dir", bad, "list", "--json"]);
        assert_eq!(out.status.code(), Some(2));
        let doc: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(doc["error"]["code"], "usage");
        assert!(
            doc["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--app-dir")
        );
    }
    let out = run(home, &["--app-dir", ".omp", "settings", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = [".omp", "agent", "settings.json"].join(std::path::MAIN_SEPARATOR_STR);
    // As a JSON string holds it (Windows' `\\` escaped).
    let file = serde_json::to_string(&file).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(file.trim_matches('"')));
}
