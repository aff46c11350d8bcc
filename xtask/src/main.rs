//! Project automation, run as `cargo xtask <task>`.
//!
//! - `ci`: what `.ci/run` runs: fmt check, clippy, tests, conformance.
//! - `conformance [--plugins]`: the shared acceptance corpus against the
//!   release binary (and, with `--plugins`, again with the providers loaded
//!   as plugins).
//! - `bench`: discovery benchmarks side by side with a lower bound and the
//!   reference implementation.
//! - `bench-node [--reps N]`: the Node binding's `loadSkills` against pi's
//!   own in one node process (also the last step of `bench`).
//! - `validate-parity`: `skillpipe validate` against the reference
//!   validator `skills-ref` over the project's validate corpus.
//! - `fuzz [--seconds N | --runs N] [--target T]`: the libFuzzer targets
//!   of `fuzz/`, seeded, one after the other, each for N seconds or N
//!   inputs (nightly; installs cargo-fuzz if missing).
//! - `man [--out DIR]`: the man page `skillpipe.1` (default
//!   `target/man/`), from the CLI's own definition (clap_mangen).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

// The bench measures the Linux system calls against their lower bound.
#[cfg(target_os = "linux")]
mod bench;
mod bench_node;
#[cfg(target_os = "linux")]
mod catalog_bench;
mod fuzz;
mod plugins;
#[cfg(target_os = "linux")]
mod search_bench;
mod validate_parity;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        bail!(
            "usage: cargo xtask <ci|conformance|bench|bench-node|validate-parity|fuzz|man> [args]"
        );
    };
    match task.as_str() {
        "ci" => ci(),
        "conformance" => conformance(rest),
        #[cfg(target_os = "linux")]
        "bench" => bench::run(rest).and_then(|()| bench_node::after_bench(rest)),
        #[cfg(not(target_os = "linux"))]
        "bench" => bail!("cargo xtask bench runs on Linux only"),
        "bench-node" => bench_node::run(rest),
        "validate-parity" => validate_parity::run(rest),
        "fuzz" => fuzz::run(rest),
        "man" => man(rest),
        other => {
            bail!(
                "unknown task `{other}` (expected ci, conformance, bench, bench-node, validate-parity, fuzz or man)"
            )
        }
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Runs a command in the workspace root, failing on a non-zero exit.
pub fn run_cmd(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    let status = cmd
        .current_dir(root())
        .status()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// The capabilities whose shared acceptance cases must pass, by case prefix.
/// Widen this list as capabilities land, so nothing that passed can break.
pub const LANDED: &[&str] = &["pi-", "musepi-", "runtime-"];

fn ci() -> Result<()> {
    run_cmd(Command::new("cargo").args(["fmt", "--all", "--check"]))?;
    run_cmd(Command::new("cargo").args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run_cmd(Command::new("cargo").args(["test", "--workspace"]))?;
    conformance(&[])
}

/// `cargo xtask man [--out DIR]`: builds the CLI and has it write its
/// man page (the hidden `skillpipe man DIR`), so the page is always the
/// command line as built.
fn man(args: &[String]) -> Result<()> {
    let out = match args.iter().position(|a| a == "--out") {
        Some(i) => PathBuf::from(args.get(i + 1).context("--out needs a directory")?),
        None => root().join("target/man"),
    };
    run_cmd(
        Command::new("cargo")
            .args(["run", "--quiet", "-p", "skillpipe-cli", "--", "man"])
            .arg(&out),
    )?;
    eprintln!("wrote {}", out.join("skillpipe.1").display());
    Ok(())
}

fn conformance(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--plugins") {
        return plugins::conformance(args);
    }
    let shared = root().join("../shared/conformance");
    if !shared.join("run.py").is_file() {
        eprintln!("no ../shared/conformance here: skipping the shared acceptance corpus");
        return Ok(());
    }
    run_cmd(Command::new("cargo").args(["build", "--release", "-p", "skillpipe-cli"]))?;
    let filters: Vec<String> = match args.iter().position(|a| a == "--filter") {
        Some(i) => args.get(i + 1).into_iter().cloned().collect(),
        None => LANDED.iter().map(|s| (*s).to_owned()).collect(),
    };
    for filter in filters {
        run_cmd(Command::new("python3").arg(shared.join("run.py")).args([
            "--bin",
            "target/release/skillpipe",
            "--filter",
            &filter,
        ]))?;
    }
    Ok(())
}
