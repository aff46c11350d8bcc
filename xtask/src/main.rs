//! Project automation, run as `cargo xtask <task>`.
//!
//! - `ci [--list] [--step NAME]... [--from NAME]`: the CI, every step of
//!   it (`.ci/run` runs this): format, lint, cargo-deny, docs, the user
//!   guide, tests, the shared corpus (built in and as plugins), the Node
//!   binding, MCP's SDK clients, the Python binding, the portable scanner,
//!   the macOS and Windows checks, the tests under Wine, a fuzz smoke run.
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

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

// The bench measures the Linux system calls against their lower bound.
#[cfg(target_os = "linux")]
mod bench;
mod bench_node;
#[cfg(target_os = "linux")]
mod bench_python;
#[cfg(target_os = "linux")]
mod catalog_bench;
mod ci;
#[cfg(target_os = "linux")]
mod dist;
mod fuzz;
mod gen_tree;
mod plugins;
#[cfg(target_os = "linux")]
mod search_bench;
mod validate_parity;

fn main() -> ExitCode {
    match task() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn task() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        bail!(
            "usage: cargo xtask <ci|conformance|dist|bench|bench-node|bench-python|validate-parity|fuzz|man> [args]"
        );
    };
    match task.as_str() {
        "ci" => ci::run(rest),
        "conformance" => conformance(rest),
        #[cfg(target_os = "linux")]
        "bench" => bench::run(rest)
            .and_then(|()| bench_node::after_bench(rest))
            .and_then(|()| bench_python::after_bench(rest)),
        #[cfg(not(target_os = "linux"))]
        "bench" => bail!("cargo xtask bench runs on Linux only"),
        "bench-node" => bench_node::run(rest),
        #[cfg(target_os = "linux")]
        "bench-python" => bench_python::run(rest),
        #[cfg(target_os = "linux")]
        "dist" => dist::run(rest),
        "validate-parity" => validate_parity::run(rest),
        "fuzz" => fuzz::run(rest),
        "man" => man(rest),
        other => {
            bail!(
                "unknown task `{other}` (expected ci, conformance, dist, bench, bench-node, bench-python, validate-parity, fuzz or man)"
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

/// The cargo that runs xtask (`CARGO`, set by cargo), for every cargo
/// call, so that `cargo +nightly xtask …` stays on nightly throughout;
/// `cargo` from `PATH` when xtask was started some other way. A call that
/// picks its own toolchain (`cargo +nightly fuzz`) needs rustup's `cargo`
/// from `PATH` instead: the toolchain's own cargo takes no `+toolchain`.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A command for a child process, in the environment `cargo xtask` was
/// started in: `cargo run` adds xtask's own package variables
/// (`CARGO_PKG_*`, `CARGO_MANIFEST_*`) and its target and toolchain library
/// directories (`LD_LIBRARY_PATH`) to xtask's environment, and those are
/// taken out again, so that a step runs as it would from a shell. `CARGO`
/// stays (see [`cargo`]).
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut cmd = Command::new(program);
    // Set by `cargo run` alone: when it is missing, nothing was added.
    if std::env::var_os("CARGO_MANIFEST_DIR").is_none() {
        return cmd;
    }
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if name.starts_with("CARGO_PKG_") || name.starts_with("CARGO_MANIFEST_") {
            cmd.env_remove(&key);
        }
    }
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        let added = cargo_library_dirs();
        let kept: Vec<PathBuf> = std::env::split_paths(&paths)
            .filter(|p| !added.iter().any(|a| p.starts_with(a)))
            .collect();
        match std::env::join_paths(&kept) {
            Ok(joined) if !kept.is_empty() => cmd.env("LD_LIBRARY_PATH", joined),
            _ => cmd.env_remove("LD_LIBRARY_PATH"),
        };
    }
    cmd
}

/// What `cargo run` puts on `LD_LIBRARY_PATH`: the directory of the binary
/// (`target/debug`, and `deps/` in it) and the toolchain's `lib/` (`CARGO`
/// is `<toolchain>/bin/cargo`).
fn cargo_library_dirs() -> Vec<PathBuf> {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    let toolchain_lib = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .and_then(|c| Some(c.parent()?.parent()?.join("lib")));
    exe_dir.into_iter().chain(toolchain_lib).collect()
}

/// `PYTHON -m pip install --quiet --disable-pip-version-check ARGS…`: into
/// the environment `python` belongs to.
pub fn pip_install<S: AsRef<OsStr>>(
    python: &Path,
    args: impl IntoIterator<Item = S>,
) -> Result<()> {
    run_cmd(
        command(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(args),
    )
}

/// The wheel maturin wrote into `dir`.
pub fn wheel_in(dir: &Path) -> Result<PathBuf> {
    std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .with_context(|| format!("maturin wrote no wheel into {}", dir.display()))
}

/// Runs a command (in the workspace root unless it names a directory),
/// failing on a non-zero exit.
pub fn run_cmd(cmd: &mut Command) -> Result<()> {
    let shown = shell_words(cmd);
    eprintln!("$ {shown}");
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {shown}"))?;
    if !status.success() {
        bail!("{shown} failed with {status}");
    }
    Ok(())
}

/// A command as a shell line: the variables it sets, the program, the
/// arguments (quoted where needed), and the directory it runs in when that
/// is not the root; not what [`command`] takes out, nor `LD_LIBRARY_PATH`
/// (the one xtask was started with).
fn shell_words(cmd: &Command) -> String {
    let quote = |s: &OsStr| {
        let s = s.to_string_lossy();
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=+,:@".contains(c))
        {
            s.into_owned()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    };
    let mut words: Vec<String> = cmd
        .get_envs()
        .filter(|(k, _)| *k != "LD_LIBRARY_PATH")
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), quote(v?))))
        .collect();
    words.push(quote(cmd.get_program()));
    words.extend(cmd.get_args().map(quote));
    let mut line = words.join(" ");
    if let Some(dir) = cmd.get_current_dir() {
        let dir = dir.strip_prefix(root()).unwrap_or(dir);
        line.push_str(&format!("   (in {})", dir.display()));
    }
    line
}

/// The capabilities whose shared acceptance cases must pass, by case prefix.
/// Widen this list as capabilities land, so nothing that passed can break.
pub const LANDED: &[&str] = &["pi-", "musepi-", "runtime-"];

/// `cargo xtask man [--out DIR]`: builds the CLI and has it write its
/// man page (the hidden `skillpipe man DIR`), so the page is always the
/// command line as built.
fn man(args: &[String]) -> Result<()> {
    let out = match args.iter().position(|a| a == "--out") {
        Some(i) => PathBuf::from(args.get(i + 1).context("--out needs a directory")?),
        None => root().join("target/man"),
    };
    run_cmd(
        command(cargo())
            .args(["run", "--quiet", "-p", "skillpipe-cli", "--", "man"])
            .arg(&out),
    )?;
    eprintln!("wrote {}", out.join("skillpipe.1").display());
    Ok(())
}

/// `cargo xtask conformance [--filter PREFIX]`: the shared corpus (every
/// landed capability unless one is named) against the release CLI.
fn conformance(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--plugins") {
        return plugins::conformance(args);
    }
    if ci::shared_run_py().is_none() {
        println!("no ../shared/conformance beside the checkout: skipped");
        return Ok(());
    }
    run_cmd(command(cargo()).args(["build", "--release", "-p", "skillpipe-cli"]))?;
    match args.iter().position(|a| a == "--filter") {
        Some(i) => ci::shared_corpus(&[args.get(i + 1).context("--filter needs a prefix")?]),
        None => ci::shared_corpus(LANDED),
    }
}
