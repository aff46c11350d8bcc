//! `cargo xtask bench`: discovery timings on generated trees, side by side
//! with a lower bound and the reference implementation.
//!
//! ```text
//! cargo xtask bench [--reps N] [--cli-reps N] [--oracle-reps N] [--no-oracle] [--quick]
//! cargo xtask bench --cold [--cold-runs N]
//! ```
//!
//! Trees come from `../shared/bench/gen_tree.py` (regenerated only when
//! their arguments change) under `target/bench/`. For each tree and
//! profile it measures, with a warm page cache, several repetitions
//! (median, ± median absolute deviation, min..max). The in-process probes
//! run in alternation, three runs each a round, so that a neighbour who
//! slows the machine for a while slows the pipeline and its lower bound
//! alike:
//!
//! 1. **pipeline**: `Skillpipe::builder(..).build()` + `discover()` in process, in a
//!    child process of this binary (so its peak RSS is its own);
//! 2. **baseline**: a bare scanner written for the benchmark, the lower
//!    bound: the same roots and skip rules (dot names, `node_modules`,
//!    ignore files, `SKILL.md` stops recursion, depth bound), on the same
//!    number of threads and with the same kind of system calls (a directory
//!    opened once, what lies in it opened relative to it, entries read with
//!    `getdents64` into a reused buffer), reading only the frontmatter bytes
//!    of each skill file (one 4 KiB read, more only for a longer
//!    frontmatter), no size check, no parsing, no real paths, no dedup, no
//!    allocation per entry or per file;
//! 3. **cli**: `skillpipe list --json` as a whole process (release build),
//!    with its peak RSS from `/usr/bin/time` when there;
//! 4. **pi**: pi 0.73.1's own `loadSkills` in node, in process, on the pi
//!    roots (when `node`/`npm` and `../shared/oracle/pi` are there; the
//!    oracle is copied to and installed in `target/bench-oracle`);
//!
//! and, to show where the pipeline's time goes, the shared scanners and
//! loader alone (`scan::scan` on the same roots and threads, no passes).
//! For each tree and profile it also counts the allocations of one
//! `discover()` (the `count-allocs` binary, whose global allocator counts)
//! and prints them and the pipeline's time per skill, so that growth from
//! 1k to 10k skills shows.
//! On the 10k tree it also times the catalogue budget (`catalog_bench`),
//! search and `catalog_update` after one edit (`search_bench`), the
//! watcher (`watch`), and `skillpipe mcp`'s `skills/list` (first and warm)
//! and `resources/read` (`mcp`), the first listing beside its floor (the
//! same files hashed and nothing else: `listing_floor`).
//!
//! Every tree root is scanned in both profiles, so both find every skill:
//! musepi gets the roots its providers do not cover as `--skill`
//! (custom) directories, pi gets every root besides its own two as
//! `--skill` paths (recursive), and pi's `loadSkills` gets the same paths.
//!
//! The xtask itself is built in debug by `cargo xtask`; the benchmark
//! re-runs itself from a release build first. The machine may be shared:
//! the load average is printed first, with the machine's speed at the
//! start and again at the end (two fixed pieces of work, `report::speed`:
//! a neighbour on a virtual machine's host slows a run where the load
//! average shows nothing), and the pipeline and baseline also report
//! their CPU time (all threads) a run, which other processes move less
//! than wall time.
//!
//!
//! `--cold` measures only the pipeline on the 10k tree with the page cache
//! dropped before each run, against a read of the same skill files' heads
//! by 32 threads (see `cold`; needs root).
//!
//! The modules: `tree` (the generated trees and their roots), `probe` (the
//! in-process probes, run in a child process), `baseline` (the lower
//! bound), `cli` (the CLI as a whole process), `oracle` (pi's
//! `loadSkills`), `cold` (`--cold`), `watch` (the live-reload watcher on
//! the 10k tree), `mcp` (the MCP server on the 10k tree) and
//! `listing_floor` (the lower bound of its first listing), `stats` and `report` (the figures and their printing).

mod baseline;
mod cli;
mod cold;
mod listing_floor;
mod mcp;
mod oracle;
mod probe;
mod report;
pub(crate) mod stats;
pub(crate) mod tree;
mod watch;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::{cargo, command, root, run_cmd};
use report::{Report, mb};
use stats::Measured;
use tree::{SMALL, TREES, TreeSpec};

const PROFILES: [&str; 2] = ["musepi", "pi"];

struct Opts {
    reps: usize,
    cli_reps: usize,
    oracle_reps: usize,
    oracle: bool,
    portable: bool,
    quick: bool,
    cold: bool,
    cold_runs: usize,
    probe: Option<String>,
    profile: String,
    tree: PathBuf,
}

impl Opts {
    fn parse(args: &[String]) -> Result<Self> {
        let mut o = Opts {
            reps: 15,
            cli_reps: 21,
            // The issue's warm targets are judged on medians of at
            // least 15 runs, pi's `loadSkills` among them.
            oracle_reps: 15,
            oracle: true,
            portable: true,
            quick: false,
            cold: false,
            cold_runs: 3,
            probe: None,
            profile: String::new(),
            tree: PathBuf::new(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || {
                it.next()
                    .cloned()
                    .with_context(|| format!("{a} needs a value"))
            };
            let number = |v: String| -> Result<usize> {
                match v.parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => bail!("{a} takes a positive number, not `{v}`"),
                }
            };
            match a.as_str() {
                "--reps" => o.reps = number(value()?)?,
                "--cli-reps" => o.cli_reps = number(value()?)?,
                "--oracle-reps" => o.oracle_reps = number(value()?)?,
                "--no-oracle" => o.oracle = false,
                "--no-portable" => o.portable = false,
                "--quick" => o.quick = true,
                "--cold" => o.cold = true,
                "--cold-runs" => o.cold_runs = number(value()?)?,
                "--probe" => o.probe = Some(value()?),
                "--profile" => o.profile = value()?,
                "--tree" => o.tree = PathBuf::from(value()?),
                "-h" | "--help" => {
                    println!(
                        "cargo xtask bench [--reps N] [--cli-reps N] [--oracle-reps N] [--no-oracle] [--quick]\n\
                         cargo xtask bench --cold [--cold-runs N]\n\
                         \n  --reps N         in-process repetitions (default 15)\
                         \n  --cli-reps N     whole-process repetitions of `skillpipe list --json` (default 21)\
                         \n  --oracle-reps N  repetitions of pi's loadSkills (default 15)\
                         \n  --no-oracle      skip pi's loadSkills (node)\
                         \n  --no-portable    skip the portable scanner (macOS and Windows' path) on the 10k tree\
                         \n  --quick          the 10k tree only, fewer repetitions\
                         \n  --cold           only the pipeline on the 10k tree with the page cache dropped before\
                         \n                   each run, against 32 threads reading the same SKILL.md heads (root)\
                         \n  --cold-runs N    cold runs of each (default 3)"
                    );
                    std::process::exit(0);
                }
                other => bail!("unknown bench argument `{other}` (try --help)"),
            }
        }
        if o.quick {
            o.reps = o.reps.min(7);
            o.cli_reps = o.cli_reps.min(9);
            o.oracle_reps = o.oracle_reps.min(3);
        }
        Ok(o)
    }
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let opts = Opts::parse(args)?;
    if let Some(kind) = &opts.probe {
        return probe::probe(kind, &opts);
    }
    if opts.cold {
        cold::check_root()?;
    }
    if cfg!(debug_assertions) {
        // Timings of unoptimised code mean nothing: run the release build.
        return run_cmd(
            command(cargo())
                .args(["run", "--quiet", "--release", "-p", "xtask", "--", "bench"])
                .args(args),
        );
    }
    if opts.cold {
        return cold::bench_cold(&opts);
    }
    bench(&opts)
}

// ---------------------------------------------------------------------------
// The driver.

fn bench(opts: &Opts) -> Result<()> {
    let root = fs::canonicalize(root())?;
    let out = root.join("target/bench");
    fs::create_dir_all(&out)?;
    report::machine();
    report::speed("start");
    let clis = build_clis(&root, opts)?;
    let trees: Vec<&TreeSpec> = if opts.quick {
        TREES.iter().filter(|t| t.label == "10k").collect()
    } else {
        TREES.iter().collect()
    };
    let small = tree::generate(&out, &SMALL)?;
    let oracle = if opts.oracle {
        match oracle::setup(&root) {
            Ok(dir) => Some(dir),
            Err(e) => {
                println!("pi oracle: not measured ({e:#})");
                None
            }
        }
    } else {
        None
    };

    let mut report = Report::default();
    small_home(&clis.cli, &small, opts, &mut report)?;
    for spec in trees {
        let tree = tree::generate(&out, spec)?;
        let pi = oracle
            .as_deref()
            .and_then(|dir| pi_on_tree(dir, spec, &tree, opts));
        for profile in PROFILES {
            profile_on_tree(&clis, profile, spec, &tree, pi.as_ref(), opts, &mut report)?;
        }
    }
    report::speed("end");
    report.print();
    Ok(())
}

/// The release CLI, and the same CLI through the portable scanner.
struct Clis {
    cli: PathBuf,
    portable: Option<PathBuf>,
}

fn build_clis(root: &Path, opts: &Opts) -> Result<Clis> {
    run_cmd(command(cargo()).args(["build", "--quiet", "--release", "-p", "skillpipe-cli"]))?;
    // `cargo run` built this binary alone: the allocation counter too.
    run_cmd(command(cargo()).args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "xtask",
        "--bin",
        "count-allocs",
    ]))?;
    let cli = root.join("target/release/skillpipe");
    // The same CLI through the portable scanner, in a target dir of its
    // own so that neither build undoes the other.
    let portable = if opts.portable {
        run_cmd(command(cargo()).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "skillpipe-cli",
            "--features",
            "portable-scan",
            "--target-dir",
            "target/portable",
        ]))?;
        Some(root.join("target/portable/release/skillpipe"))
    } else {
        None
    };
    Ok(Clis { cli, portable })
}

/// The CLI on a small home, as a whole process.
fn small_home(cli: &Path, small: &Path, opts: &Opts, report: &mut Report) -> Result<()> {
    let mut small_cli = Vec::new();
    for profile in PROFILES {
        let r = cli::time_cli(cli, profile, small, opts.cli_reps)?;
        println!(
            "cli {profile} {}: `skillpipe list --json`, {} skills: {} (whole process, {} runs)",
            SMALL.label, r.skills, r.stats, opts.cli_reps
        );
        small_cli.push((profile, r));
    }
    report.summary(format!(
        "summary: cli `skillpipe list --json` on a {}-skill home: {}",
        SMALL.label,
        small_cli
            .iter()
            .map(|(p, r)| format!("{p} {:.1} ms (±{:.1})", r.stats.median, r.stats.mad))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for (p, r) in &small_cli {
        report.verdict(
            &format!("cli {p} {}-skill home < 10 ms", SMALL.label),
            r.stats.median < 10.0,
            format!("{:.1} ms", r.stats.median),
        );
    }
    Ok(())
}

/// pi's `loadSkills` on a tree, or `None` (said) when it cannot run.
fn pi_on_tree(dir: &Path, spec: &TreeSpec, tree: &Path, opts: &Opts) -> Option<Measured> {
    match oracle::time_oracle(dir, tree, opts.oracle_reps) {
        Ok(r) => {
            println!(
                "pi {}: loadSkills (pi 0.73.1, node, in process), {} skills, {} diagnostics: {}",
                spec.label, r.skills, r.diagnostics, r.stats
            );
            Some(r)
        }
        Err(e) => {
            println!("pi {}: not measured ({e:#})", spec.label);
            None
        }
    }
}

/// One profile on one tree: the in-process probes, the CLI, the portable
/// CLI (10k tree), then the summary line and the verdicts.
fn profile_on_tree(
    clis: &Clis,
    profile: &str,
    spec: &TreeSpec,
    tree: &Path,
    pi: Option<&Measured>,
    opts: &Opts,
    report: &mut Report,
) -> Result<()> {
    let [pipe, scan, base] = in_process(profile, spec, tree, opts)?;
    let cli_run = cli_on_tree(&clis.cli, profile, spec, tree, opts, &pipe)?;
    if let (Some(portable), "10k") = (&clis.portable, spec.label) {
        portable_on_tree(&clis.cli, portable, profile, spec, tree, report)?;
    }
    let ratio = pipe.stats.median / base.stats.median;
    let mut line = format!(
        "summary: {profile} {}: pipeline {:.1} ms (±{:.1}), baseline {:.1} ms, ratio {ratio:.2} (scanners alone {:.1} ms); ",
        spec.label, pipe.stats.median, pipe.stats.mad, base.stats.median, scan.stats.median
    );
    let pi_ratio = pi.map(|r| r.stats.median / pipe.stats.median);
    match (pi, pi_ratio) {
        (Some(r), Some(x)) => {
            line += &format!("pi/pipeline {x:.1}x (pi {:.0} ms); ", r.stats.median);
        }
        _ => line += "pi/pipeline n/a; ",
    }
    let peak = pipe.peak_rss_kb.max(cli_run.peak_rss_kb);
    line += &format!(
        "cli {:.1} ms; peak RSS {} (pipeline {}, cli {}); {} skills",
        cli_run.stats.median,
        mb(peak),
        mb(pipe.peak_rss_kb),
        mb(cli_run.peak_rss_kb),
        pipe.skills
    );
    report.summary(line);
    let allocs = count_allocs(profile, tree)?;
    let per_skill = |n: f64| n / allocs.skills.max(1) as f64;
    report.summary(format!(
        "summary: {profile} {}: per skill, {:.1} allocations ({:.0} bytes, {:.1} reallocations) in one discover(), {:.2} us of the pipeline",
        spec.label,
        per_skill(allocs.allocations),
        per_skill(allocs.bytes),
        per_skill(allocs.reallocations),
        pipe.stats.median * 1e3 / pipe.skills.max(1) as f64,
    ));
    if spec.label == "10k" {
        report.verdict(
            &format!("{profile} 10k pipeline/baseline <= 1.5"),
            ratio <= 1.5,
            format!("{ratio:.2}"),
        );
        if let Some(x) = pi_ratio {
            report.verdict(
                &format!("{profile} 10k pi/pipeline >= 20"),
                x >= 20.0,
                format!("{x:.2}x"),
            );
        }
        report.verdict(
            &format!("{profile} 10k peak RSS < 64 MB"),
            peak > 0 && peak < 64 * 1024,
            mb(peak),
        );
        let paths = tree::extra_roots(profile, tree);
        let c = crate::catalog_bench::measure(profile, "10k", tree, &paths, opts.reps)?;
        println!("{}", c.line);
        report.summary(format!("summary: {}", c.line));
        report.verdict(&c.target.0, c.target.1, c.target.2);
        let s = crate::search_bench::measure(profile, "10k", tree, &paths, opts.reps)?;
        for line in s.lines {
            println!("{line}");
            report.summary(format!("summary: {line}"));
        }
        for (what, met, figure) in s.targets {
            report.verdict(&what, met, figure);
        }
        watch::report(profile, spec.label, tree, opts.reps.min(9), report)?;
        mcp::report(
            &clis.cli,
            profile,
            spec.label,
            tree,
            cli_run.stats.median,
            opts.reps.min(5),
            report,
        )?;
    }
    Ok(())
}

/// What `count-allocs` counted in one `discover()`.
struct Allocs {
    allocations: f64,
    reallocations: f64,
    bytes: f64,
    skills: usize,
}

/// The allocations of one `discover()` on `tree` in `profile`, from the
/// `count-allocs` binary beside this one (its global allocator counts; this
/// binary's does not, so the timings above pay nothing for the count).
fn count_allocs(profile: &str, tree: &Path) -> Result<Allocs> {
    let exe = std::env::current_exe()?.with_file_name("count-allocs");
    let mut cmd = command(&exe);
    cmd.args(["--profile", profile, "--tree"]).arg(tree);
    for p in tree::extra_roots(profile, tree) {
        cmd.args(["--skill", &p]);
    }
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !out.status.success() {
        bail!("count-allocs failed with {}", out.status);
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("count-allocs output")?;
    let num = |k: &str| {
        doc.get(k)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    Ok(Allocs {
        allocations: num("allocations"),
        reallocations: num("reallocations"),
        bytes: num("bytes"),
        skills: num("skills") as usize,
    })
}

/// Pipeline, scanners and baseline in alternation, a few runs each a
/// round; printed, and returned in that order.
fn in_process(profile: &str, spec: &TreeSpec, tree: &Path, opts: &Opts) -> Result<[Measured; 3]> {
    let per_round = 3;
    let rounds = opts.reps.div_ceil(per_round);
    let m = probe::probe_rounds(
        &["pipeline", "scan", "baseline"],
        profile,
        tree,
        rounds,
        per_round,
        probe::Cache::Warm,
    )?;
    let Ok([pipe, scan, base]) = <[Measured; 3]>::try_from(m) else {
        bail!("the probes gave no figures");
    };
    report::probes(profile, spec.label, &pipe, &scan, &base);
    Ok([pipe, scan, base])
}

/// `skillpipe list --json` on the tree, which must find the pipeline's
/// skills.
fn cli_on_tree(
    cli: &Path,
    profile: &str,
    spec: &TreeSpec,
    tree: &Path,
    opts: &Opts,
    pipe: &Measured,
) -> Result<Measured> {
    let cli_run = cli::time_cli(cli, profile, tree, opts.cli_reps.min(9))?;
    println!(
        "cli {profile} {}: `skillpipe list --json`, {} skills: {} (whole process, peak RSS {})",
        spec.label,
        cli_run.skills,
        cli_run.stats,
        mb(cli_run.peak_rss_kb)
    );
    if cli_run.skills != pipe.skills {
        bail!(
            "the CLI found {} skills, the pipeline {}",
            cli_run.skills,
            pipe.skills
        );
    }
    Ok(cli_run)
}

/// The portable CLI against the Linux one, alternating.
fn portable_on_tree(
    cli: &Path,
    portable: &Path,
    profile: &str,
    spec: &TreeSpec,
    tree: &Path,
    report: &mut Report,
) -> Result<()> {
    let (linux, port) = cli::time_cli_pair(cli, portable, profile, tree, 5, 3)?;
    let x = port.stats.median / linux.stats.median;
    println!(
        "portable {profile} {}: `skillpipe list --json` through std::fs: {} against the Linux path's {} (alternating, identical output)",
        spec.label, port.stats, linux.stats
    );
    report.summary(format!(
        "summary: portable {profile} {}: {:.1} ms against the Linux path's {:.1} ms, ratio {x:.2}",
        spec.label, port.stats.median, linux.stats.median
    ));
    report.verdict(
        &format!("{profile} 10k portable/linux path <= 1.5"),
        x <= 1.5,
        format!("{x:.2}"),
    );
    Ok(())
}
