//! `cargo xtask bench-node [--reps N]`: the Node binding's `loadSkills`
//! against pi 0.73.1's own, in one node process, on the 10k tree
//! (`bindings/node/bench/load-skills.mjs`). `cargo xtask bench` runs it
//! last (unless `--no-oracle`).
//!
//! It installs the binding's npm dependencies (pi among them) when they
//! are missing, builds the add-on in release, and generates the tree as
//! the bench does (`target/bench/tree-10k`, same arguments and stamp, so
//! either task reuses the other's).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{command, root, run_cmd};

/// The tree of `bench.rs`'s 10k case: directory, `gen_tree.py` arguments.
const TREE: (&str, &[&str]) = (
    "tree-10k",
    &["--skills", "10000", "--noise", "20000", "--seed", "7"],
);

/// The target of the issue: the binding at least this many times faster.
const TARGET: f64 = 15.0;

/// Called by `cargo xtask bench` after its own measurements. The bench
/// re-runs itself from a release build; only that one process (the
/// release one) runs this, so it runs once. (Linux only, as the bench.)
#[cfg(target_os = "linux")]
pub(crate) fn after_bench(args: &[String]) -> Result<()> {
    // Not in a probe child (`bench --probe …`): its stdout is its report.
    if cfg!(debug_assertions) || args.iter().any(|a| a == "--no-oracle" || a == "--probe") {
        return Ok(());
    }
    // A median of 15 as for the bench's other targets (5 with --quick).
    let reps = if args.iter().any(|a| a == "--quick") {
        "5"
    } else {
        "15"
    };
    match measure(reps) {
        Ok(()) => Ok(()),
        Err(e) => {
            println!("node binding: not measured ({e:#})");
            Ok(())
        }
    }
}

/// `cargo xtask bench-node [--reps N]`.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut reps = "15".to_owned();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--reps" => reps = it.next().context("--reps needs a number")?.clone(),
            other => bail!("unknown argument `{other}` (cargo xtask bench-node [--reps N])"),
        }
    }
    measure(&reps)
}

fn measure(reps: &str) -> Result<()> {
    let dir = root().join("bindings/node");
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
    if !dir
        .join("node_modules/@mariozechner/pi-coding-agent/package.json")
        .is_file()
    {
        run_cmd(
            command("npm")
                .args([
                    "ci",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                ])
                .arg(&dir),
        )?;
    }
    run_cmd(
        command("node")
            .arg(dir.join("scripts/build.mjs"))
            .arg("--release"),
    )?;
    let tree = generate()?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let out = command("node")
        .arg(dir.join("bench/load-skills.mjs"))
        .arg("--tree")
        .arg(&tree)
        .args(["--reps", reps, "--json"])
        .current_dir(&dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", tree.join("home"))
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("node failed with {}", out.status);
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("bench output")?;
    let ms = |k: &str| doc[k]["median_ms"].as_f64().unwrap_or(f64::NAN);
    let count = |k: &str, what: &str| doc[k][what].as_u64().unwrap_or(0);
    let ratio = doc["ratio"].as_f64().unwrap_or(0.0);
    println!(
        "node 10k: loadSkills in one node process, median of {reps}: pi 0.73.1 {:.0} ms ({} skills, {} diagnostics), binding {:.1} ms ({} skills, {} diagnostics)",
        ms("pi"),
        count("pi", "skills"),
        count("pi", "diagnostics"),
        ms("binding"),
        count("binding", "skills"),
        count("binding", "diagnostics"),
    );
    println!(
        "target: node 10k pi/binding loadSkills >= {TARGET}: {} ({ratio:.2}x)",
        if ratio >= TARGET { "met" } else { "NOT met" }
    );
    Ok(())
}

/// The 10k tree, generated once (the stamp holds its arguments).
fn generate() -> Result<PathBuf> {
    let out = root().join("target/bench");
    fs::create_dir_all(&out)?;
    let (name, args) = TREE;
    canonical(&crate::gen_tree::generate(&out, name, args)?)
}

fn canonical(p: &Path) -> Result<PathBuf> {
    fs::canonicalize(p).with_context(|| format!("cannot resolve {}", p.display()))
}
