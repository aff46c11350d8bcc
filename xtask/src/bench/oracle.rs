//! The reference implementation: pi's own `loadSkills` in node, installed
//! from `../shared/oracle/pi` under `target/bench-oracle`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::stats::{Measured, measured};
use super::tree::extra_roots;
use crate::{command, run_cmd};

/// Installs pi's oracle under `target/bench-oracle` (once) and writes the
/// timing script there.
pub(super) fn setup(root: &Path) -> Result<PathBuf> {
    let src = root.join("../shared/oracle/pi");
    if !src.join("package.json").is_file() {
        bail!("no ../shared/oracle/pi");
    }
    for tool in ["node", "npm"] {
        let ok = command(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            bail!("`{tool}` is not available");
        }
    }
    let dir = root.join("target/bench-oracle");
    fs::create_dir_all(&dir)?;
    let manifest = fs::read(src.join("package.json"))?;
    let installed = dir.join("node_modules/@mariozechner/pi-coding-agent/package.json");
    let same = fs::read(dir.join("package.json")).is_ok_and(|m| m == manifest);
    if !same || !installed.is_file() {
        // A copy of the oracle's files (not its node_modules), installed there.
        for entry in fs::read_dir(&src)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                fs::copy(entry.path(), dir.join(entry.file_name()))?;
            }
        }
        run_cmd(
            command("npm")
                .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
                .arg("--prefix")
                .arg(&dir),
        )?;
    }
    let version: Value = serde_json::from_slice(&fs::read(&installed)?)?;
    println!(
        "pi oracle: @mariozechner/pi-coding-agent {} in {}",
        version["version"].as_str().unwrap_or("?"),
        dir.display()
    );
    fs::write(dir.join("bench.mjs"), ORACLE_SCRIPT)?;
    Ok(dir)
}

/// Times pi's `loadSkills` in process: the module is imported once, then
/// one warm-up call and `reps` timed calls. Written beside the oracle's
/// `node_modules` (as `bench.mjs`) so that its `import` resolves there.
const ORACLE_SCRIPT: &str = include_str!("../../scripts/bench-oracle.mjs");

pub(super) fn time_oracle(dir: &Path, tree: &Path, reps: usize) -> Result<Measured> {
    let home = tree.join("home");
    let cfg = json!({
        "cwd": tree.join("project"),
        "agentDir": home.join(".pi/agent"),
        "skillPaths": extra_roots("pi", tree),
        "reps": reps,
    });
    let path = std::env::var_os("PATH").unwrap_or_default();
    let out = command("node")
        .arg(dir.join("bench.mjs"))
        .arg(cfg.to_string())
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &home)
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("node failed with {}", out.status);
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("oracle output")?;
    measured(&doc)
}
