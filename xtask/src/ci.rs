//! `cargo xtask ci [--list] [--step NAME]... [--from NAME]`: the project's
//! CI, the steps `.ci/run` runs on a clean clone (where `CI=true`), in
//! order, each one function here. Nothing is installed by hand: the
//! machine brings the Rust toolchain (with rustfmt, clippy and nightly),
//! python3, node and npm; cargo-deny, mdBook, cargo-fuzz and Debian's
//! rust-web, mingw-w64 and Wine (for the macOS and Windows steps) are
//! installed by their steps when missing.
//!
//! Each step prints a `== <step>` header; the run stops at the first step
//! that fails, with a non-zero exit naming it, and ends with the time each
//! step took and the total. `--step NAME` (repeatable) runs only the steps
//! named, `--from NAME` that step and the ones after it, both in the CI's
//! order; `--list` names the steps. A step may need what an earlier one
//! built: `node` and `portable-scan`'s corpus run use the release CLI that
//! `conformance` builds.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::{LANDED, cargo, command, fuzz, pip_install, plugins, root, run_cmd, wheel_in};

/// One step of the CI: its name (for `--step`), what it checks (for the
/// header and `--list`) and the function that runs it.
struct Step {
    name: &'static str,
    about: &'static str,
    run: fn() -> Result<()>,
}

/// Every step, in the order CI runs them.
const STEPS: &[Step] = &[
    Step {
        name: "format",
        about: "cargo fmt --check",
        run: format,
    },
    Step {
        name: "lint",
        about: "clippy with -D warnings, the workspace and the library without plugins",
        run: lint,
    },
    Step {
        name: "deny",
        about: "supply chain: licences, banned and duplicate versions, sources (cargo-deny, from crates.io)",
        run: deny,
    },
    Step {
        name: "docs",
        about: "every library crate's rustdoc, broken links and lints denied",
        run: docs,
    },
    Step {
        name: "guide",
        about: "the user guide: mdbook build docs (mdBook from crates.io, pinned)",
        run: guide,
    },
    Step {
        name: "tests",
        about: "the README's test command",
        run: tests,
    },
    Step {
        name: "conformance",
        about: "shared acceptance cases of every landed capability (builds the release CLI)",
        run: conformance,
    },
    Step {
        name: "conformance-plugins",
        about: "the same corpus with every built-in provider loaded as a plugin",
        run: conformance_plugins,
    },
    Step {
        name: "node",
        about: "the Node binding (bindings/node): build, node --test",
        run: node,
    },
    Step {
        name: "mcp",
        about: "the official Python MCP SDK (PyPI `mcp`, pinned) against `skillpipe mcp`",
        run: mcp,
    },
    Step {
        name: "python",
        about: "the Python binding (bindings/python): maturin wheel, installed in a fresh venv, pytest (with deepagents) and mypy --strict",
        run: python,
    },
    Step {
        name: "portable-scan",
        about: "the portable scanner (macOS and Windows' path) on Linux: tests and the shared corpus",
        run: portable_scan,
    },
    Step {
        name: "cross-check",
        about: "macOS and Windows: check and clippy of every target (build-std, Debian's rust-web)",
        run: cross_check,
    },
    Step {
        name: "windows",
        about: "Windows for real: the test suite for x86_64-pc-windows-gnu and the shared corpus, under Wine (.ci/windows)",
        run: windows,
    },
    Step {
        name: "fuzz",
        about: "fuzz smoke run: every target for 20 s (nightly; installs cargo-fuzz if missing)",
        run: fuzz_smoke,
    },
];

const USAGE: &str = "usage: cargo xtask ci [--list] [--step NAME]... [--from NAME]";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let Some(steps) = select(args)? else {
        print!("{}", listing(""));
        return Ok(());
    };
    let started = Instant::now();
    let mut took: Vec<(&str, Duration)> = Vec::new();
    for step in steps {
        println!("== {}: {}", step.name, step.about);
        let t = Instant::now();
        let outcome = (step.run)();
        took.push((step.name, t.elapsed()));
        if let Err(e) = outcome {
            print_times(&took, started.elapsed(), Some(step.name));
            bail!("ci: step `{}` failed: {e:#}", step.name);
        }
    }
    print_times(&took, started.elapsed(), None);
    Ok(())
}

/// The steps the arguments ask for, in the CI's order; `None` for `--list`.
fn select(args: &[String]) -> Result<Option<Vec<&'static Step>>> {
    let mut named: Vec<&str> = Vec::new();
    let mut from: Option<&str> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--list" => return Ok(None),
            "--step" | "--from" => {
                let Some(name) = it.next() else {
                    bail!("{arg} needs a step name ({USAGE})");
                };
                if !STEPS.iter().any(|s| s.name == name) {
                    let names: Vec<&str> = STEPS.iter().map(|s| s.name).collect();
                    bail!("unknown step `{name}` (the steps: {})", names.join(", "));
                }
                if arg == "--step" {
                    named.push(name);
                } else if from.replace(name).is_some() {
                    bail!("--from is given twice ({USAGE})");
                }
            }
            "-h" | "--help" => {
                print!("{USAGE}\n\nThe steps, in order:\n{}", listing("  "));
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}` ({USAGE})"),
        }
    }
    let chosen = match from {
        Some(_) if !named.is_empty() => bail!("--step and --from do not go together ({USAGE})"),
        Some(first) => STEPS.iter().skip_while(|s| s.name != first).collect(),
        None if named.is_empty() => STEPS.iter().collect(),
        None => STEPS.iter().filter(|s| named.contains(&s.name)).collect(),
    };
    Ok(Some(chosen))
}

/// One line a step: its name and what it checks.
fn listing(indent: &str) -> String {
    STEPS
        .iter()
        .map(|s| format!("{indent}{:<20} {}\n", s.name, s.about))
        .collect()
}

/// The time of each step run, and the total; the failed step marked.
fn print_times(took: &[(&str, Duration)], total: Duration, failed: Option<&str>) {
    match failed {
        Some(name) => println!("== ci: stopped, step `{name}` failed"),
        None if took.len() == 1 => println!("== ci: the step passed"),
        None => println!("== ci: all {} steps passed", took.len()),
    }
    for (name, time) in took {
        let mark = if Some(*name) == failed {
            "  FAILED"
        } else {
            ""
        };
        println!("   {name:<20} {:>16}{mark}", seconds(*time));
    }
    println!("   {:<20} {:>16}", "total", seconds(total));
}

/// `12.3 s`, and the minutes beside a longer time: `194.5 s (3:14)`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{:.1} s ({}:{:02})", d.as_secs_f64(), s / 60, s % 60)
    }
}

// ---------------------------------------------------------------------------
// The steps.

fn format() -> Result<()> {
    run_cmd(command(cargo()).args(["fmt", "--all", "--check"]))
}

fn lint() -> Result<()> {
    run_cmd(command(cargo()).args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The library alone, as a host that loads no plugins builds it.
    run_cmd(command(cargo()).args(["clippy", "-p", "skillpipe", "--", "-D", "warnings"]))
}

/// `deny.toml` says why advisories are not checked here (the RustSec
/// database is on GitHub, out of CI's reach).
fn deny() -> Result<()> {
    if !on_path("cargo-deny") {
        run_cmd(command(cargo()).args(["install", "--locked", "cargo-deny@0.20.2"]))?;
    }
    run_cmd(command(cargo()).args(["deny", "check", "bans", "licenses", "sources"]))
}

/// `--lib`: the CLI's binary is named as the library is (cargo#6313).
fn docs() -> Result<()> {
    run_cmd(
        command(cargo())
            .args(["doc", "--workspace", "--no-deps", "--lib"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )
}

/// The guide's links and includes are checked by `tests/readme.rs`; this
/// step proves mdBook builds it (into `target/book`, as `docs/book.toml`
/// says).
fn guide() -> Result<()> {
    if !on_path("mdbook") {
        run_cmd(command(cargo()).args(["install", "--locked", "mdbook@0.5.4"]))?;
    }
    run_cmd(command("mdbook").args(["build", "docs"]))
}

fn tests() -> Result<()> {
    run_cmd(command(cargo()).args(["test", "--workspace"]))
}

/// The release CLI is built even without the shared corpus: the Node
/// binding's tests compare the add-on with it.
fn conformance() -> Result<()> {
    run_cmd(command(cargo()).args(["build", "--release", "-p", "skillpipe-cli"]))?;
    shared_corpus(LANDED)
}

/// Skips itself, with a message, where the shared corpus is missing.
fn conformance_plugins() -> Result<()> {
    plugins::conformance(&[])
}

/// `npm ci` installs typescript and pi 0.73.1 (pi's types for tsc, pi's own
/// functions for the parity tests); the add-on builds into the workspace's
/// target dir (through `CARGO`); the tests compare it with the release CLI
/// that `conformance` built.
fn node() -> Result<()> {
    let dir = root().join("bindings/node");
    run_cmd(
        command("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir),
    )?;
    run_cmd(command("node").arg("scripts/build.mjs").current_dir(&dir))?;
    run_cmd(command("node").args(["--test", "test/"]).current_dir(&dir))
}

/// The Python SDK version the MCP step installs: a client nobody here
/// wrote, pinned so that a new release cannot change the result unseen.
const PYTHON_MCP: &str = "mcp==2.3.0";

/// Real MCP clients against the release binary: the Python SDK over stdio
/// (handshake, resources, prompts, the tools, and SEP-2640's `skills/*` as
/// raw requests), then the TypeScript SDK (`@modelcontextprotocol/sdk`,
/// pinned in `crates/mcp/tests/ts/package-lock.json`, installed with `npm
/// ci`; its client's generic `request` for `skills/list` with every page,
/// `skills/get` and `resources/directory/read`), over stdio and then over
/// `mcp --http 127.0.0.1:0` with its Streamable HTTP client, a skill added
/// and removed while it listens; each checks every digest by reading and
/// hashing the file. Then the other way round: the `mcp` provider reads a
/// server written with the TypeScript SDK (`server.mjs`, driven by
/// `provider.mjs`). Each ends with `N passed, M failed` and fails on any
/// failure.
fn mcp() -> Result<()> {
    run_cmd(command(cargo()).args(["build", "--release", "-p", "skillpipe-cli"]))?;
    pip_install(Path::new("python3"), [PYTHON_MCP])?;
    let script = root().join("crates/mcp/tests/python/sdk_client.py");
    let bin = root().join("target/release/skillpipe");
    run_cmd(command("python3").arg(script).arg("--bin").arg(&bin))?;
    let ts = root().join("crates/mcp/tests/ts");
    run_cmd(
        command("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&ts),
    )?;
    run_cmd(
        command("node")
            .arg("client.mjs")
            .arg("--bin")
            .arg(&bin)
            .arg("--http")
            .current_dir(&ts),
    )?;
    run_cmd(
        command("node")
            .arg("provider.mjs")
            .arg("--bin")
            .arg(&bin)
            .current_dir(&ts),
    )
}

/// What the Python step installs from PyPI, pinned so that a new release
/// cannot change the result unseen: the wheel builder, the test tools, and
/// the agent framework the integration is tested against.
const PYTHON_TOOLS: &[&str] = &[
    "maturin==1.16.0",
    "pytest==9.2.0",
    "mypy==2.4.1",
    "deepagents==0.7.32",
];

/// Builds the abi3 wheel with maturin (into the workspace's target dir, so
/// the release artefacts of `conformance` are reused), installs it into a
/// fresh virtual environment, and runs pytest there from outside the
/// source tree, so the tests see the installed wheel only; then `mypy
/// --strict` on the installed package, the tests and the examples.
fn python() -> Result<()> {
    let dir = root().join("bindings/python");
    let venv = root().join("target/python-ci");
    if venv.exists() {
        std::fs::remove_dir_all(&venv)?;
    }
    run_cmd(command("python3").args(["-m", "venv"]).arg(&venv))?;
    let bin = venv.join("bin");
    let py = bin.join("python");
    pip_install(&py, PYTHON_TOOLS)?;
    let wheels = root().join("target/wheels");
    if wheels.exists() {
        std::fs::remove_dir_all(&wheels)?;
    }
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))?;
    run_cmd(
        command(bin.join("maturin"))
            .args(["build", "--release", "--interpreter"])
            .arg(&py)
            .arg("--out")
            .arg(&wheels)
            .current_dir(&dir)
            .env("PATH", &path),
    )?;
    let wheel = wheel_in(&wheels)?;
    println!("wheel: {}", wheel.display());
    pip_install(&py, [&wheel])?;
    // From the venv's own directory: nothing of the source tree on sys.path.
    run_cmd(
        command(&py)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(dir.join("tests"))
            .current_dir(&venv),
    )?;
    run_cmd(
        command(&py)
            .args(["-m", "mypy", "--strict", "-p", "skillpipe"])
            .current_dir(&venv),
    )?;
    run_cmd(
        command(&py)
            .args(["-m", "mypy", "--strict"])
            .arg(dir.join("tests"))
            .arg(dir.join("examples"))
            .current_dir(&venv),
    )
}

fn portable_scan() -> Result<()> {
    run_cmd(command(cargo()).args([
        "test",
        "--workspace",
        "--features",
        "skillpipe-core/portable-scan",
    ]))?;
    run_cmd(command(cargo()).args([
        "build",
        "--release",
        "-p",
        "skillpipe-cli",
        "--features",
        "portable-scan",
    ]))?;
    shared_corpus(LANDED)
}

/// A script of its own (`.ci/cross-check`, also run alone): it runs
/// Debian's toolchain rather than this one, so it is all environment (PATH,
/// RUSTC, RUSTC_BOOTSTRAP, its own target dir, `/usr/bin/cargo`) and
/// `sudo apt-get`, which is what a shell says best.
fn cross_check() -> Result<()> {
    run_cmd(command("bash").arg(".ci/cross-check"))
}

/// A script of its own (`.ci/windows`, also run alone), for the reasons of
/// `cross_check`; its own target dir (`target/windows`) and Wine prefix.
fn windows() -> Result<()> {
    run_cmd(command("bash").arg(".ci/windows"))
}

/// Crashes, timeouts and the committed `fuzz/regressions` fail the step.
fn fuzz_smoke() -> Result<()> {
    fuzz::run(&["--seconds".to_owned(), "20".to_owned()])
}

// ---------------------------------------------------------------------------
// Helpers.

/// `python3 ../shared/conformance/run.py --bin target/release/skillpipe
/// --filter PREFIX` for each prefix; a message, and success, where there is
/// no `../shared/conformance` beside the checkout.
pub(crate) fn shared_corpus<S: AsRef<str>>(filters: &[S]) -> Result<()> {
    let Some(run_py) = shared_run_py() else {
        println!("no ../shared/conformance beside the checkout: skipped");
        return Ok(());
    };
    for filter in filters {
        run_cmd(command("python3").arg(&run_py).args([
            "--bin",
            "target/release/skillpipe",
            "--filter",
            filter.as_ref(),
        ]))?;
    }
    Ok(())
}

/// The shared corpus's runner, when `../shared/conformance` is beside the
/// checkout.
pub(crate) fn shared_run_py() -> Option<PathBuf> {
    Some(root().join("../shared/conformance/run.py")).filter(|p| p.is_file())
}

/// Whether `PATH` holds a file of that name (`command -v` in the shell).
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests {
    use super::{STEPS, select};

    fn names(args: &[&str]) -> Vec<&'static str> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        select(&args)
            .unwrap()
            .unwrap()
            .iter()
            .map(|s| s.name)
            .collect()
    }

    #[test]
    fn steps_run_in_the_ci_s_order_whatever_the_order_named() {
        assert_eq!(names(&[]).len(), STEPS.len());
        assert_eq!(
            names(&["--step", "tests", "--step", "format"]),
            ["format", "tests"]
        );
        assert_eq!(
            names(&["--from", "cross-check"]),
            ["cross-check", "windows", "fuzz"]
        );
    }

    #[test]
    fn a_wrong_selection_is_an_error() {
        for args in [
            &["--step", "fmt"][..],
            &["--step"],
            &["--from", "docs", "--step", "lint"],
            &["--from", "docs", "--from", "lint"],
            &["--steps", "lint"],
        ] {
            let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
            assert!(select(&args).is_err(), "{args:?}");
        }
        assert!(select(&["--list".to_owned()]).unwrap().is_none());
    }
}
