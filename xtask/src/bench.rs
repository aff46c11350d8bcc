//! `cargo xtask bench`: discovery timings on generated trees, side by side
//! with a lower bound and the reference implementation.
//!
//! ```text
//! cargo xtask bench [--reps N] [--cli-reps N] [--oracle-reps N] [--no-oracle] [--quick]
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
//!
//! Every tree root is scanned in both profiles, so both find every skill:
//! musepi gets the roots its providers do not cover as `--skill`
//! (custom) directories, pi gets every root besides its own two as
//! `--skill` paths (recursive), and pi's `loadSkills` gets the same paths.
//!
//! The xtask itself is built in debug by `cargo xtask`; the benchmark
//! re-runs itself from a release build first. The machine may be shared:
//! the load average is printed first, and the pipeline and baseline also
//! report their CPU time (all threads) a run, which other processes move
//! less than wall time.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde_json::{Value, json};

use crate::{root, run_cmd};

/// Every root `gen_tree.py` spreads skills over (its `ROOTS`), relative to
/// the tree. Checked to exist after generation.
const TREE_ROOTS: [&str; 15] = [
    "home/.musepi/agent/skills",
    "project/.musepi/skills",
    "home/.pi/agent/skills",
    "project/.pi/skills",
    "home/.claude/skills",
    "project/.claude/skills",
    "home/.codex/skills",
    "project/.codex/skills",
    "home/.agents/skills",
    "project/.agents/skills",
    "home/.config/opencode/skills",
    "project/.opencode/skills",
    "project/.github/skills",
    "home/.musepi/agent/managed-skills",
    "home/custom-skills",
];

/// The tree roots no musepi provider scans (SPEC §4, with home =
/// `tree/home` and cwd = `tree/project`): pi's own and the custom directory.
/// musepi gets them as `--skill` directories.
const MUSEPI_EXTRA: [&str; 3] = [
    "home/.pi/agent/skills",
    "project/.pi/skills",
    "home/custom-skills",
];

/// The roots the pi profile scans by itself (SPEC §6).
const PI_OWN: [&str; 2] = ["home/.pi/agent/skills", "project/.pi/skills"];

const PROFILES: [&str; 2] = ["musepi", "pi"];

/// A generated tree: its directory name under `target/bench` and the
/// `gen_tree.py` arguments.
struct TreeSpec {
    label: &'static str,
    dir: &'static str,
    args: &'static [&'static str],
}

const SMALL: TreeSpec = TreeSpec {
    label: "50",
    dir: "tree-50",
    args: &["--skills", "50", "--noise", "50", "--seed", "7"],
};
const TREES: [TreeSpec; 2] = [
    TreeSpec {
        label: "1k",
        dir: "tree-1k",
        args: &["--skills", "1000", "--seed", "7"],
    },
    TreeSpec {
        label: "10k",
        dir: "tree-10k",
        args: &["--skills", "10000", "--noise", "20000", "--seed", "7"],
    },
];

struct Opts {
    reps: usize,
    cli_reps: usize,
    oracle_reps: usize,
    oracle: bool,
    portable: bool,
    quick: bool,
    probe: Option<String>,
    profile: String,
    tree: PathBuf,
}

impl Opts {
    fn parse(args: &[String]) -> Result<Self> {
        let mut o = Opts {
            reps: 15,
            cli_reps: 21,
            oracle_reps: 5,
            oracle: true,
            portable: true,
            quick: false,
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
                "--probe" => o.probe = Some(value()?),
                "--profile" => o.profile = value()?,
                "--tree" => o.tree = PathBuf::from(value()?),
                "-h" | "--help" => {
                    println!(
                        "cargo xtask bench [--reps N] [--cli-reps N] [--oracle-reps N] [--no-oracle] [--quick]\n\
                         \n  --reps N         in-process repetitions (default 15)\
                         \n  --cli-reps N     whole-process repetitions of `skillpipe list --json` (default 21)\
                         \n  --oracle-reps N  repetitions of pi's loadSkills (default 5)\
                         \n  --no-oracle      skip pi's loadSkills (node)\
                         \n  --no-portable    skip the portable scanner (macOS and Windows' path) on the 10k tree\
                         \n  --quick          the 10k tree only, fewer repetitions"
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

pub fn run(args: &[String]) -> Result<()> {
    let opts = Opts::parse(args)?;
    if let Some(kind) = &opts.probe {
        return probe(kind, &opts);
    }
    if cfg!(debug_assertions) {
        // Timings of unoptimised code mean nothing: run the release build.
        return run_cmd(
            Command::new(cargo())
                .args(["run", "--quiet", "--release", "-p", "xtask", "--", "bench"])
                .args(args),
        );
    }
    bench(&opts)
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

// ---------------------------------------------------------------------------
// The driver.

fn bench(opts: &Opts) -> Result<()> {
    let root = fs::canonicalize(root())?;
    let out = root.join("target/bench");
    fs::create_dir_all(&out)?;
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "machine: {cores} cores, load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    run_cmd(Command::new(cargo()).args(["build", "--quiet", "--release", "-p", "skillpipe-cli"]))?;
    let cli = root.join("target/release/skillpipe");
    // The same CLI through the portable scanner, in a target dir of its
    // own so that neither build undoes the other.
    let portable = if opts.portable {
        run_cmd(Command::new(cargo()).args([
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

    let trees: Vec<&TreeSpec> = if opts.quick {
        TREES.iter().filter(|t| t.label == "10k").collect()
    } else {
        TREES.iter().collect()
    };
    let small = generate(&out, &SMALL)?;
    let oracle = if opts.oracle {
        match oracle_setup(&root) {
            Ok(dir) => Some(dir),
            Err(e) => {
                println!("pi oracle: not measured ({e:#})");
                None
            }
        }
    } else {
        None
    };

    let mut summaries = Vec::new();
    let mut verdicts = Vec::new();

    // The CLI on a small home, as a whole process.
    let mut small_cli = Vec::new();
    for profile in PROFILES {
        let r = time_cli(&cli, profile, &small, opts.cli_reps)?;
        println!(
            "cli {profile} {}: `skillpipe list --json`, {} skills: {} (whole process, {} runs)",
            SMALL.label, r.skills, r.stats, opts.cli_reps
        );
        small_cli.push((profile, r));
    }
    summaries.push(format!(
        "summary: cli `skillpipe list --json` on a {}-skill home: {}",
        SMALL.label,
        small_cli
            .iter()
            .map(|(p, r)| format!("{p} {:.1} ms (±{:.1})", r.stats.median, r.stats.mad))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for (p, r) in &small_cli {
        verdicts.push(verdict(
            &format!("cli {p} {}-skill home < 10 ms", SMALL.label),
            r.stats.median < 10.0,
            format!("{:.1} ms", r.stats.median),
        ));
    }

    for spec in trees {
        let tree = generate(&out, spec)?;
        let pi_ref = match &oracle {
            Some(dir) => match time_oracle(dir, &tree, opts.oracle_reps) {
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
            },
            None => None,
        };
        for profile in PROFILES {
            // Pipeline, scanners and baseline in alternation, a few runs
            // each a round.
            let per_round = 3;
            let rounds = opts.reps.div_ceil(per_round);
            let mut m = probe_rounds(
                &["pipeline", "scan", "baseline"],
                profile,
                &tree,
                rounds,
                per_round,
            )?
            .into_iter();
            let (Some(pipe), Some(scan), Some(base)) = (m.next(), m.next(), m.next()) else {
                bail!("the probes gave no figures");
            };
            println!(
                "pipeline {profile} {}: {} skills, {} diagnostics: {} (in process, {} reps, CPU {:.0} ms a run, peak RSS {})",
                spec.label,
                pipe.skills,
                pipe.diagnostics,
                pipe.stats,
                pipe.times.len(),
                pipe.cpu_ms,
                mb(pipe.peak_rss_kb)
            );
            println!(
                "scanners {profile} {}: {} skills: {} (in process, {} reps, CPU {:.0} ms a run; the shared scanners and loader alone, no pipeline passes)",
                spec.label,
                scan.skills,
                scan.stats,
                scan.times.len(),
                scan.cpu_ms
            );
            println!(
                "baseline {profile} {}: {} skill files read: {} (in process, {} reps, CPU {:.0} ms a run)",
                spec.label,
                base.skills,
                base.stats,
                base.times.len(),
                base.cpu_ms
            );
            let cli_run = time_cli(&cli, profile, &tree, opts.cli_reps.min(9))?;
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
            if let (Some(portable), "10k") = (&portable, spec.label) {
                let (linux, port) = time_cli_pair(&cli, portable, profile, &tree, 5, 3)?;
                let x = port.stats.median / linux.stats.median;
                println!(
                    "portable {profile} {}: `skillpipe list --json` through std::fs: {} against the Linux path's {} (alternating, identical output)",
                    spec.label, port.stats, linux.stats
                );
                summaries.push(format!(
                    "summary: portable {profile} {}: {:.1} ms against the Linux path's {:.1} ms, ratio {x:.2}",
                    spec.label, port.stats.median, linux.stats.median
                ));
                verdicts.push(verdict(
                    &format!("{profile} 10k portable/linux path <= 1.5"),
                    x <= 1.5,
                    format!("{x:.2}"),
                ));
            }
            let ratio = pipe.stats.median / base.stats.median;
            let mut line = format!(
                "summary: {profile} {}: pipeline {:.1} ms (±{:.1}), baseline {:.1} ms, ratio {ratio:.2} (scanners alone {:.1} ms); ",
                spec.label, pipe.stats.median, pipe.stats.mad, base.stats.median, scan.stats.median
            );
            let pi_ratio = pi_ref.as_ref().map(|r| r.stats.median / pipe.stats.median);
            match (&pi_ref, pi_ratio) {
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
            summaries.push(line);
            if spec.label == "10k" {
                verdicts.push(verdict(
                    &format!("{profile} 10k pipeline/baseline <= 1.5"),
                    ratio <= 1.5,
                    format!("{ratio:.2}"),
                ));
                if let Some(x) = pi_ratio {
                    verdicts.push(verdict(
                        &format!("{profile} 10k pi/pipeline >= 20"),
                        x >= 20.0,
                        format!("{x:.1}x"),
                    ));
                }
                verdicts.push(verdict(
                    &format!("{profile} 10k peak RSS < 64 MB"),
                    peak > 0 && peak < 64 * 1024,
                    mb(peak),
                ));
            }
        }
    }

    println!();
    for s in summaries {
        println!("{s}");
    }
    for v in verdicts {
        println!("{v}");
    }
    Ok(())
}

fn verdict(what: &str, ok: bool, figure: String) -> String {
    format!(
        "target: {what}: {} ({figure})",
        if ok { "met" } else { "NOT met" }
    )
}

fn mb(kb: u64) -> String {
    if kb == 0 {
        "n/a".into()
    } else {
        format!("{:.1} MB", kb as f64 / 1024.0)
    }
}

/// Generates a tree unless the one there was made with the same arguments.
fn generate(out: &Path, spec: &TreeSpec) -> Result<PathBuf> {
    let dir = out.join(spec.dir);
    let stamp = out.join(format!("{}.args", spec.dir));
    let want = spec.args.join(" ");
    let fresh = fs::read_to_string(&stamp).is_ok_and(|s| s == want) && dir.is_dir();
    if !fresh {
        let _ = fs::remove_file(&stamp);
        run_cmd(
            Command::new("python3")
                .arg(root().join("../shared/bench/gen_tree.py"))
                .arg(&dir)
                .args(spec.args),
        )?;
        fs::write(&stamp, &want)?;
    }
    // A small tree may leave a root without a skill: create it empty, so
    // every run is given the same roots. A big one must have them all.
    let big = spec
        .args
        .windows(2)
        .any(|w| w[0] == "--skills" && w[1].len() > 3);
    for r in TREE_ROOTS {
        if !dir.join(r).is_dir() {
            if big {
                bail!(
                    "{} has no {r}: gen_tree.py's roots changed, update TREE_ROOTS",
                    dir.display()
                );
            }
            fs::create_dir_all(dir.join(r))?;
        }
    }
    Ok(dir)
}

/// The `--skill` arguments that make a profile scan every tree root.
fn extra_roots(profile: &str, tree: &Path) -> Vec<String> {
    TREE_ROOTS
        .iter()
        .filter(|r| {
            if profile == "pi" {
                !PI_OWN.contains(r)
            } else {
                MUSEPI_EXTRA.contains(r)
            }
        })
        .map(|r| tree.join(r).to_string_lossy().into_owned())
        .collect()
}

// ---------------------------------------------------------------------------
// Statistics.

#[derive(Debug, Clone, Copy)]
struct Stats {
    median: f64,
    mad: f64,
    min: f64,
    max: f64,
}

impl Stats {
    fn of(samples: &[f64]) -> Stats {
        let mut v = samples.to_vec();
        v.sort_by(f64::total_cmp);
        let median = median_sorted(&v);
        let mut dev: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
        dev.sort_by(f64::total_cmp);
        Stats {
            median,
            mad: median_sorted(&dev),
            min: v.first().copied().unwrap_or(0.0),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

fn median_sorted(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {:.2} ms (±{:.2}, min {:.2}, max {:.2})",
            self.median, self.mad, self.min, self.max
        )
    }
}

struct Measured {
    /// Every timed run, in milliseconds.
    times: Vec<f64>,
    stats: Stats,
    /// CPU time per run (all threads), when known.
    cpu_ms: f64,
    skills: u64,
    diagnostics: u64,
    peak_rss_kb: u64,
}

fn measured(doc: &Value) -> Result<Measured> {
    let times: Vec<f64> = doc["times_ms"]
        .as_array()
        .context("no times_ms")?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    if times.is_empty() {
        bail!("no timings");
    }
    Ok(Measured {
        stats: Stats::of(&times),
        times,
        cpu_ms: doc["cpu_ms"].as_f64().unwrap_or(0.0),
        skills: doc["skills"].as_u64().unwrap_or(0),
        diagnostics: doc["diagnostics"].as_u64().unwrap_or(0),
        peak_rss_kb: doc["peak_rss_kb"].as_u64().unwrap_or(0),
    })
}

// ---------------------------------------------------------------------------
// Child processes: the probe (this binary), the CLI, node.

/// Runs the probes `kinds` in alternation, `rounds` times each with
/// `reps` timed runs a round, and merges each kind's rounds: a neighbour
/// that slows the machine for a while slows every kind alike, so their
/// ratio holds. CPU time is the mean a run, peak RSS the largest.
fn probe_rounds(
    kinds: &[&str],
    profile: &str,
    tree: &Path,
    rounds: usize,
    reps: usize,
) -> Result<Vec<Measured>> {
    let mut merged: Vec<Option<Measured>> = kinds.iter().map(|_| None).collect();
    for _ in 0..rounds {
        for (kind, slot) in kinds.iter().zip(merged.iter_mut()) {
            let m = probe_child(kind, profile, tree, reps)?;
            *slot = Some(match slot.take() {
                None => m,
                Some(mut all) => {
                    let n = all.times.len() as f64;
                    let k = m.times.len() as f64;
                    all.cpu_ms = (all.cpu_ms * n + m.cpu_ms * k) / (n + k);
                    all.times.extend(m.times);
                    all.stats = Stats::of(&all.times);
                    all.peak_rss_kb = all.peak_rss_kb.max(m.peak_rss_kb);
                    all.skills = m.skills;
                    all.diagnostics = m.diagnostics;
                    all
                }
            });
        }
    }
    merged.into_iter().map(|m| m.context("no rounds")).collect()
}

/// Runs this binary as `bench --probe KIND` and reads its JSON report.
fn probe_child(kind: &str, profile: &str, tree: &Path, reps: usize) -> Result<Measured> {
    let exe = std::env::current_exe()?;
    let out = Command::new(exe)
        .args(["bench", "--probe", kind, "--profile", profile, "--tree"])
        .arg(tree)
        .args(["--reps", &reps.to_string()])
        .env_clear()
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("the {kind} probe failed with {}", out.status);
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("probe output")?;
    measured(&doc)
}

fn cli_command(cli: &Path, profile: &str, tree: &Path) -> Command {
    let mut cmd = Command::new(cli);
    cmd.env_clear()
        .env("HOME", tree.join("home"))
        .args(["--profile", profile, "--home"])
        .arg(tree.join("home"))
        .arg("--cwd")
        .arg(tree.join("project"));
    for r in extra_roots(profile, tree) {
        cmd.args(["--skill", &r]);
    }
    cmd.args(["list", "--json"]);
    cmd
}

/// Times `skillpipe list --json` as a whole process; one more run (piped,
/// untimed) counts the skills, and one under `/usr/bin/time` (when there)
/// gives the peak RSS.
fn time_cli(cli: &Path, profile: &str, tree: &Path, reps: usize) -> Result<Measured> {
    let out = cli_command(cli, profile, tree).output()?;
    if !out.status.success() {
        bail!(
            "skillpipe list failed with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("list --json output")?;
    let skills = doc["skills"].as_array().map_or(0, Vec::len) as u64;
    let diagnostics = doc["diagnostics"].as_array().map_or(0, Vec::len) as u64;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let mut cmd = cli_command(cli, profile, tree);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let t = Instant::now();
        let status = cmd.status()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if !status.success() {
            bail!("skillpipe list failed with {status}");
        }
    }
    let peak_rss_kb = peak_rss_of(cli_command(cli, profile, tree)).unwrap_or(0);
    Ok(Measured {
        stats: Stats::of(&times),
        times,
        cpu_ms: 0.0,
        skills,
        diagnostics,
        peak_rss_kb,
    })
}

/// Times two builds of the CLI in alternation (`rounds` rounds of `reps`
/// runs each), after checking that they print the same document.
fn time_cli_pair(
    a: &Path,
    b: &Path,
    profile: &str,
    tree: &Path,
    rounds: usize,
    reps: usize,
) -> Result<(Measured, Measured)> {
    let (out_a, out_b) = (
        cli_command(a, profile, tree).output()?,
        cli_command(b, profile, tree).output()?,
    );
    if out_a.stdout != out_b.stdout {
        bail!(
            "{} and {} print different documents for the {profile} profile",
            a.display(),
            b.display()
        );
    }
    let mut all: [Option<Measured>; 2] = [None, None];
    for _ in 0..rounds {
        for (cli, slot) in [a, b].into_iter().zip(all.iter_mut()) {
            let m = time_cli(cli, profile, tree, reps)?;
            *slot = Some(match slot.take() {
                None => m,
                Some(mut merged) => {
                    merged.times.extend(m.times);
                    merged.stats = Stats::of(&merged.times);
                    merged
                }
            });
        }
    }
    let [Some(ma), Some(mb)] = all else {
        bail!("no rounds");
    };
    Ok((ma, mb))
}

/// The peak RSS of a command, in KiB, through `/usr/bin/time -f %M`.
fn peak_rss_of(cmd: Command) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let mut wrapped = Command::new(time);
    wrapped
        .args(["-f", "peak-rss-kb %M"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear()
        .envs(
            cmd.get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .stdout(Stdio::null());
    let out = wrapped.output().ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|n| n.trim().parse().ok())
}

/// Installs pi's oracle under `target/bench-oracle` (once) and writes the
/// timing script there.
fn oracle_setup(root: &Path) -> Result<PathBuf> {
    let src = root.join("../shared/oracle/pi");
    if !src.join("package.json").is_file() {
        bail!("no ../shared/oracle/pi");
    }
    for tool in ["node", "npm"] {
        let ok = Command::new(tool)
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
            Command::new("npm")
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
/// one warm-up call and `reps` timed calls.
const ORACLE_SCRIPT: &str = r#"// Written by `cargo xtask bench`: times pi's loadSkills in process.
import { loadSkills } from "@mariozechner/pi-coding-agent";
const cfg = JSON.parse(process.argv[2]);
const times = [];
let skills = 0, diagnostics = 0;
for (let i = 0; i <= cfg.reps; i++) {
  const t0 = performance.now();
  const r = loadSkills({ cwd: cfg.cwd, agentDir: cfg.agentDir, skillPaths: cfg.skillPaths, includeDefaults: true });
  const ms = performance.now() - t0;
  if (i > 0) times.push(ms);
  skills = r.skills.length;
  diagnostics = r.diagnostics.length;
}
console.log(JSON.stringify({ times_ms: times, skills, diagnostics, peak_rss_kb: process.resourceUsage().maxRSS }));
"#;

fn time_oracle(dir: &Path, tree: &Path, reps: usize) -> Result<Measured> {
    let home = tree.join("home");
    let cfg = json!({
        "cwd": tree.join("project"),
        "agentDir": home.join(".pi/agent"),
        "skillPaths": extra_roots("pi", tree),
        "reps": reps,
    });
    let path = std::env::var_os("PATH").unwrap_or_default();
    let out = Command::new("node")
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

// ---------------------------------------------------------------------------
// The probes, run in a child process.

fn probe(kind: &str, opts: &Opts) -> Result<()> {
    let tree = &opts.tree;
    let mut times = Vec::with_capacity(opts.reps);
    let (mut skills, mut diagnostics) = (0, 0);
    let mut cpu_start = 0;
    match kind {
        "pipeline" => {
            let profile: skillpipe::Profile = opts.profile.parse()?;
            let paths = extra_roots(&opts.profile, tree);
            // One warm-up run, then the timed ones.
            for i in 0..=opts.reps {
                let t = Instant::now();
                let pipeline = skillpipe::Skillpipe::builder(profile)
                    .home(tree.join("home"))
                    .cwd(tree.join("project"))
                    .env::<String, String>([])
                    .skill_paths(paths.iter().map(PathBuf::from))
                    .build()?;
                let discovery = pipeline.discover().into_discovery();
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if i > 0 {
                    times.push(ms);
                } else {
                    cpu_start = cpu_ms_self();
                }
                skills = discovery.skills.len();
                diagnostics = discovery.diagnostics.len();
            }
        }
        "baseline" => {
            let recursive = opts.profile == "pi";
            let roots: Vec<PathBuf> = TREE_ROOTS.iter().map(|r| tree.join(r)).collect();
            for i in 0..=opts.reps {
                let t = Instant::now();
                let n = baseline::scan_all(&roots, recursive);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if i > 0 {
                    times.push(ms);
                } else {
                    cpu_start = cpu_ms_self();
                }
                skills = n;
            }
        }
        "scan" => {
            // The shared scanners and the loader alone, on the same roots and
            // threads, with no pipeline passes: where the pipeline's time goes.
            let mode = if opts.profile == "pi" {
                skillpipe::core::ScanMode::Recursive
            } else {
                skillpipe::core::ScanMode::OneLevel
            };
            let roots: Vec<PathBuf> = TREE_ROOTS.iter().map(|r| tree.join(r)).collect();
            for i in 0..=opts.reps {
                let t = Instant::now();
                let found = scan_roots(&roots, mode);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if i > 0 {
                    times.push(ms);
                } else {
                    cpu_start = cpu_ms_self();
                }
                skills = found
                    .iter()
                    .flatten()
                    .filter(|f| {
                        matches!(f, skillpipe::core::Found::Candidate { candidate, .. } if candidate.skill.is_some())
                    })
                    .count();
            }
        }
        other => bail!("unknown probe `{other}`"),
    }
    let cpu_ms = (cpu_ms_self() - cpu_start) as f64 / opts.reps as f64;
    let doc = json!({
        "times_ms": times,
        "cpu_ms": cpu_ms,
        "skills": skills,
        "diagnostics": diagnostics,
        "peak_rss_kb": peak_rss_self(),
    });
    println!("{doc}");
    Ok(())
}

/// The CPU time (user + system, every thread) this process used so far, in
/// milliseconds, at the 10 ms resolution of `/proc/self/stat`.
fn cpu_ms_self() -> u64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses: utime and
    // stime are the 12th and 13th, in ticks of 1/100 s.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) * 10
}

/// Each root scanned with `skillpipe_core::scan::scan`, on the machine's
/// cores.
fn scan_roots(
    roots: &[PathBuf],
    mode: skillpipe::core::ScanMode,
) -> Vec<Vec<skillpipe::core::Found>> {
    use skillpipe::core::scan::{ScanSpec, scan};
    let source = std::sync::Arc::new(skillpipe::Source {
        provider: "bench".into(),
        level: skillpipe::Level::User,
        root: None,
    });
    let next = AtomicUsize::new(0);
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(roots.len());
    let results: Vec<std::sync::Mutex<Vec<skillpipe::core::Found>>> =
        roots.iter().map(|_| std::sync::Mutex::default()).collect();
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(root) = roots.get(i) else { break };
                    let found = scan(&ScanSpec {
                        root,
                        mode,
                        source: &source,
                        require_description: true,
                        honor_enabled: true,
                        limits: skillpipe::core::ScanLimits::default(),
                    });
                    if let Some(slot) = results.get(i)
                        && let Ok(mut slot) = slot.lock()
                    {
                        *slot = found;
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_default())
        .collect()
}

/// This process's peak RSS (`VmHWM`), in KiB.
fn peak_rss_self() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The lower bound: what any scanner of these roots has to do, and no more.
///
/// It makes the same kind of system calls as the real scanners, each no
/// more than once: a directory is opened once and what lies in it is opened
/// relative to it (`openat`); entries are read with `getdents64` into a
/// reused buffer; a skill file is opened, read once (more only for a
/// frontmatter longer than 4 KiB) and closed, with no `stat` for its size.
mod baseline {
    use super::*;
    use rustix::fs::{self as rfs, FileType, Mode, OFlags, RawDir};
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStringExt;

    /// Scans every root, on the machine's cores like the pipeline, and
    /// returns how many skill files were read.
    pub fn scan_all(roots: &[PathBuf], recursive: bool) -> usize {
        let next = AtomicUsize::new(0);
        let total = AtomicUsize::new(0);
        let threads = thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(roots.len());
        thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let mut bufs = Buffers {
                        read: Vec::with_capacity(4096),
                        dents: Vec::with_capacity(32 * 1024),
                    };
                    let mut n = 0;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(root) = roots.get(i) else { break };
                        let Ok(dir) = open_dir(rfs::CWD, root.as_os_str().as_bytes()) else {
                            continue;
                        };
                        let path = root.as_os_str().as_bytes().to_vec();
                        if recursive {
                            let mut w = Walk {
                                bufs: &mut bufs,
                                path,
                                levels: Vec::new(),
                                ignores: Vec::new(),
                                read: 0,
                            };
                            w.visit(&dir, 0);
                            n += w.read;
                        } else {
                            n += one_level(&dir, &mut bufs);
                        }
                    }
                    total.fetch_add(n, Ordering::Relaxed);
                });
            }
        });
        total.into_inner()
    }

    struct Buffers {
        read: Vec<u8>,
        dents: Vec<u8>,
    }

    fn flags() -> OFlags {
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK
    }

    fn open_dir<Fd: std::os::fd::AsFd>(at: Fd, name: &[u8]) -> io::Result<OwnedFd> {
        Ok(rfs::openat(
            at,
            name,
            flags() | OFlags::DIRECTORY,
            Mode::empty(),
        )?)
    }

    fn as_path(bytes: &[u8]) -> &Path {
        Path::new(std::ffi::OsStr::from_bytes(bytes))
    }

    fn push(buf: &mut Vec<u8>, name: &[u8]) {
        if buf.last().is_some_and(|&b| b != b'/') {
            buf.push(b'/');
        }
        buf.extend_from_slice(name);
    }

    fn one_level(dir: &OwnedFd, bufs: &mut Buffers) -> usize {
        let Buffers { read, dents } = bufs;
        let mut rel = Vec::with_capacity(256);
        let mut n = 0;
        let mut entries = RawDir::new(dir, dents.spare_capacity_mut());
        while let Some(Ok(entry)) = entries.next() {
            let name = entry.file_name().to_bytes();
            if name.starts_with(b".") || entry.file_type() == FileType::RegularFile {
                continue;
            }
            rel.clear();
            rel.extend_from_slice(name);
            rel.extend_from_slice(b"/SKILL.md");
            if read_head(dir, &rel, read).is_ok() {
                n += 1;
            }
        }
        n
    }

    /// A directory's entries: names in one buffer, `(start, end, type)`.
    #[derive(Default)]
    struct Level {
        names: Vec<u8>,
        items: Vec<(usize, usize, FileType)>,
    }

    struct Walk<'b> {
        bufs: &'b mut Buffers,
        /// The directory being visited, for the ignore matchers.
        path: Vec<u8>,
        /// Entry lists, one per depth, reused.
        levels: Vec<Level>,
        ignores: Vec<Gitignore>,
        read: usize,
    }

    const IGNORE_FILES: [&str; 3] = [".fdignore", ".ignore", ".gitignore"];

    impl Walk<'_> {
        fn ignored(&self, path: &Path, is_dir: bool) -> bool {
            for g in self.ignores.iter().rev() {
                match g.matched(path, is_dir) {
                    Match::None => {}
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                }
            }
            false
        }

        fn visit(&mut self, dir: &OwnedFd, depth: usize) {
            if self.levels.len() <= depth {
                self.levels.resize_with(depth + 1, Level::default);
            }
            let mut level = std::mem::take(&mut self.levels[depth]);
            level.names.clear();
            level.items.clear();
            let mut ignore_files = Vec::new();
            let mut skill = None;
            {
                let mut entries = RawDir::new(dir, self.bufs.dents.spare_capacity_mut());
                while let Some(Ok(entry)) = entries.next() {
                    let b = entry.file_name().to_bytes();
                    let t = entry.file_type();
                    if b == b"SKILL.md" {
                        skill = Some(t);
                    } else if IGNORE_FILES.iter().any(|f| f.as_bytes() == b) {
                        let mut p = self.path.clone();
                        push(&mut p, b);
                        ignore_files.push(PathBuf::from(std::ffi::OsString::from_vec(p)));
                    }
                    if !b.starts_with(b".") && b != b"node_modules" {
                        let start = level.names.len();
                        level.names.extend_from_slice(b);
                        level.items.push((start, level.names.len(), t));
                    }
                }
            }
            let pushed = !ignore_files.is_empty();
            if pushed {
                let mut builder = GitignoreBuilder::new(as_path(&self.path));
                for f in &ignore_files {
                    let _ = builder.add(f);
                }
                self.ignores
                    .push(builder.build().unwrap_or_else(|_| Gitignore::empty()));
            }
            let dir_len = self.path.len();
            push(&mut self.path, b"SKILL.md");
            let is_skill = match skill {
                Some(FileType::RegularFile) => true,
                Some(FileType::Symlink) => rfs::statat(dir, "SKILL.md", rfs::AtFlags::empty())
                    .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::RegularFile),
                _ => false,
            } && !self.ignored(as_path(&self.path), false);
            if is_skill {
                if read_head(dir, b"SKILL.md", &mut self.bufs.read).is_ok() {
                    self.read += 1;
                }
            } else {
                for &(start, end, t) in &level.items {
                    let name = &level.names[start..end];
                    self.path.truncate(dir_len);
                    push(&mut self.path, name);
                    let is_dir = if t == FileType::Symlink {
                        rfs::statat(dir, name, rfs::AtFlags::empty()).is_ok_and(|st| {
                            FileType::from_raw_mode(st.st_mode) == FileType::Directory
                        })
                    } else {
                        t == FileType::Directory
                    };
                    if self.ignored(as_path(&self.path), is_dir) {
                        continue;
                    }
                    if is_dir {
                        if depth < 12
                            && let Ok(child) = open_dir(dir, name)
                        {
                            self.visit(&child, depth + 1);
                        }
                    } else if depth == 0
                        && name.ends_with(b".md")
                        && read_head(dir, name, &mut self.bufs.read).is_ok()
                    {
                        self.read += 1;
                    }
                }
            }
            self.path.truncate(dir_len);
            if pushed {
                self.ignores.pop();
            }
            self.levels[depth] = level;
        }
    }

    /// Reads a file (relative to `dir`) up to its closing `---` line (or
    /// its end), into `buf`.
    fn read_head(dir: &OwnedFd, rel: &[u8], buf: &mut Vec<u8>) -> io::Result<()> {
        let mut f = File::from(rfs::openat(dir, rel, flags(), Mode::empty())?);
        buf.clear();
        let mut chunk = 4096;
        loop {
            let start = buf.len();
            buf.resize(start + chunk, 0);
            let n = f.read(&mut buf[start..])?;
            buf.truncate(start + n);
            if n == 0 || closing(buf) {
                return Ok(());
            }
            chunk *= 2;
        }
    }

    fn closing(b: &[u8]) -> bool {
        b.len() > 3 && b[3..].windows(4).any(|w| w == b"\n---")
    }
}
