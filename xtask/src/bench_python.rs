//! `cargo xtask bench-python [--reps N]`: the Python binding's
//! `discover()` on the 10k tree, against the Rust pipeline in process, the
//! CLI's `list --json` and deepagents' own skills loader on the same roots
//! (`bindings/python/bench/discover.py`). `cargo xtask bench` runs it last
//! (unless `--no-oracle`). Linux only, as the bench.
//!
//! It makes a virtual environment of its own (`target/bench-python`) with
//! maturin and deepagents when missing, builds and installs the wheel in
//! release, and generates the tree as the bench does (`target/bench/tree-10k`,
//! the same arguments and stamp, so either task reuses the other's).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::bench::stats::median;
use crate::bench::tree::{self, TREE_ROOTS, TREES};
use crate::{command, pip_install, root, run_cmd, wheel_in};

/// The targets of the issue: the binding within this factor of the Rust
/// pipeline, and at least this many times faster than the Python loader.
const WITHIN_PIPELINE: f64 = 1.5;
const OVER_LOADER: f64 = 20.0;

/// What the bench's environment installs (as CI's `python` step pins them).
const TOOLS: &[&str] = &["maturin==1.16.0", "deepagents==0.7.32"];

/// Called by `cargo xtask bench` after its own measurements, in its
/// release process only.
pub(crate) fn after_bench(args: &[String]) -> Result<()> {
    if cfg!(debug_assertions) || args.iter().any(|a| a == "--no-oracle" || a == "--probe") {
        return Ok(());
    }
    let reps = if args.iter().any(|a| a == "--quick") {
        5
    } else {
        9
    };
    if let Err(e) = measure(reps) {
        println!("python binding: not measured ({e:#})");
    }
    Ok(())
}

/// `cargo xtask bench-python [--reps N]`.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut reps = 9;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--reps" => reps = it.next().context("--reps needs a number")?.parse()?,
            other => bail!("unknown argument `{other}` (cargo xtask bench-python [--reps N])"),
        }
    }
    if cfg!(debug_assertions) {
        // The pipeline is timed in this process: run the release build.
        return run_cmd(
            command(crate::cargo())
                .args([
                    "run",
                    "--quiet",
                    "--release",
                    "-p",
                    "xtask",
                    "--",
                    "bench-python",
                ])
                .args(args),
        );
    }
    measure(reps)
}

fn measure(reps: usize) -> Result<()> {
    let venv = root().join("target/bench-python");
    let py = venv.join("bin/python");
    if !py.is_file() {
        run_cmd(command("python3").args(["-m", "venv"]).arg(&venv))?;
        pip_install(&py, TOOLS)?;
    }
    let dir = root().join("bindings/python");
    let wheels = root().join("target/bench-python/wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run_cmd(
        command(venv.join("bin/maturin"))
            .args(["build", "--release", "--quiet", "--interpreter"])
            .arg(&py)
            .arg("--out")
            .arg(&wheels)
            .current_dir(&dir),
    )?;
    let wheel = wheel_in(&wheels)?;
    pip_install(
        &py,
        [
            std::ffi::OsStr::new("--force-reinstall"),
            std::ffi::OsStr::new("--no-deps"),
            wheel.as_os_str(),
        ],
    )?;
    let cli = root().join("target/release/skillpipe");
    if !cli.is_file() {
        bail!(
            "{} is missing: cargo build --release -p skillpipe-cli",
            cli.display()
        );
    }

    let spec = TREES
        .iter()
        .find(|t| t.label == "10k")
        .context("the 10k tree")?;
    let out = root().join("target/bench");
    std::fs::create_dir_all(&out)?;
    let tree = std::fs::canonicalize(tree::generate(&out, spec)?)?;
    let skills = tree::extra_roots("musepi", &tree);
    // The pipeline is timed before and after the Python runs: a neighbour
    // that loads the machine for a while weighs on both sides alike.
    let before = rust_pipeline(&tree, &skills, reps)?;

    let mut script = command(&py);
    script
        .arg(dir.join("bench/discover.py"))
        .arg("--tree")
        .arg(&tree)
        .arg("--cli")
        .arg(&cli)
        .args(["--reps", &reps.to_string()]);
    for r in TREE_ROOTS {
        script.arg("--root").arg(tree.join(r));
    }
    for s in &skills {
        script.arg("--skill").arg(s);
    }
    let got = script.stderr(Stdio::inherit()).output()?;
    if !got.status.success() {
        bail!("the Python bench failed with {}", got.status);
    }
    let doc: Value = serde_json::from_slice(&got.stdout).context("the Python bench's output")?;
    let after = rust_pipeline(&tree, &skills, reps)?;
    let mut times = [before.times, after.times].concat();
    let pipeline = Pipeline {
        median: median(&mut times),
        skills: after.skills,
        times: Vec::new(),
    };
    let ms = |k: &str| doc[k]["median_ms"].as_f64().unwrap_or(f64::NAN);
    let n = |k: &str| doc[k]["skills"].as_u64().unwrap_or(0);
    let binding = ms("binding");
    println!(
        "python 10k (musepi), medians: binding discover() + every skill's fields {binding:.1} ms ({} skills); \
         Rust pipeline in process {:.1} ms ({} skills, {} runs before and after); CLI list --json + json.loads {:.1} ms; \
         deepagents' loader {:.0} ms ({} skills, of {} runs)",
        n("binding"),
        pipeline.median,
        pipeline.skills,
        2 * reps,
        ms("cli"),
        ms("deepagents"),
        n("deepagents"),
        doc["deepagents"]["runs"],
    );
    let within = binding / pipeline.median;
    let over = ms("deepagents") / binding;
    println!(
        "target: python binding/pipeline <= {WITHIN_PIPELINE}: {} ({within:.2}x)",
        met(within <= WITHIN_PIPELINE)
    );
    println!(
        "target: python deepagents' loader/binding >= {OVER_LOADER}: {} ({over:.2}x)",
        met(over >= OVER_LOADER)
    );
    Ok(())
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

/// The pipeline's median over `reps` runs (after one warm-up), in this
/// process, with the binding's configuration.
struct Pipeline {
    median: f64,
    skills: usize,
    times: Vec<f64>,
}

fn rust_pipeline(tree: &Path, skills: &[String], reps: usize) -> Result<Pipeline> {
    let mut times = Vec::with_capacity(reps);
    let mut count = 0;
    for i in 0..=reps {
        let t = Instant::now();
        let found = skillpipe::Skillpipe::builder(skillpipe::Profile::Musepi)
            .home(tree.join("home"))
            .cwd(tree.join("project"))
            .env([("HOME", tree.join("home").to_string_lossy().into_owned())])
            .skill_paths(skills.iter().map(PathBuf::from))
            .build()?
            .discover();
        let took = t.elapsed().as_secs_f64() * 1000.0;
        count = found.skills().len();
        drop(found);
        if i > 0 {
            times.push(took);
        }
    }
    Ok(Pipeline {
        median: median(&mut times.clone()),
        skills: count,
        times,
    })
}
