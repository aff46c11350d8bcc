//! The in-process probes. The driver runs this binary again as `bench
//! --probe KIND` (so each probe's peak RSS is its own) and reads the JSON
//! it prints: `pipeline` (the library's discovery), `scan` (the shared
//! scanners and loader alone), `baseline` (the lower bound) and
//! `listing-floor` (the lower bound of MCP's first listing: its `skills`
//! are the skill folders, its `diagnostics` the files hashed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::Opts;
use super::baseline;
use super::cold::{self, READERS};
use super::listing_floor;
use super::stats::{Measured, Stats, measured};
use super::tree::{TREE_ROOTS, extra_roots};

use crate::command;

// ---------------------------------------------------------------------------
// In the driver: running the probes.

/// Runs the probes `kinds` in alternation, `rounds` times each with
/// `reps` timed runs a round, and merges each kind's rounds: a neighbour
/// that slows the machine for a while slows every kind alike, so their
/// ratio holds. CPU time is the mean a run, peak RSS the largest.
pub(super) fn probe_rounds(
    kinds: &[&str],
    profile: &str,
    tree: &Path,
    rounds: usize,
    reps: usize,
    cache: Cache,
) -> Result<Vec<Measured>> {
    let mut merged: Vec<Option<Measured>> = kinds.iter().map(|_| None).collect();
    for _ in 0..rounds {
        for (kind, slot) in kinds.iter().zip(merged.iter_mut()) {
            let m = probe_child(kind, profile, tree, reps, cache)?;
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

/// Whether a probe's timed runs find the page cache as the warm-up run
/// left it, or dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cache {
    Warm,
    Dropped,
}

/// Runs this binary as `bench --probe KIND` and reads its JSON report.
fn probe_child(
    kind: &str,
    profile: &str,
    tree: &Path,
    reps: usize,
    cache: Cache,
) -> Result<Measured> {
    let exe = std::env::current_exe()?;
    let mut cmd = command(exe);
    cmd.args(["bench", "--probe", kind, "--profile", profile, "--tree"])
        .arg(tree)
        .args(["--reps", &reps.to_string()]);
    if cache == Cache::Dropped {
        cmd.arg("--cold");
    }
    let out = cmd.env_clear().stderr(Stdio::inherit()).output()?;
    if !out.status.success() {
        bail!("the {kind} probe failed with {}", out.status);
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("probe output")?;
    measured(&doc)
}

// ---------------------------------------------------------------------------
// In the child: the probes themselves.

pub(super) fn probe(kind: &str, opts: &Opts) -> Result<()> {
    let tree = &opts.tree;
    let roots: Vec<PathBuf> = TREE_ROOTS.iter().map(|r| tree.join(r)).collect();
    let recursive = opts.profile == "pi";
    match kind {
        "pipeline" => {
            let profile: skillpipe::Profile = opts.profile.parse()?;
            let paths = extra_roots(&opts.profile, tree);
            timed(
                opts,
                || {
                    let pipeline = pipeline_on(profile, tree, &paths)?;
                    let discovery = pipeline.discover().into_discovery();
                    // Both dropped after the timing.
                    Ok((pipeline, discovery))
                },
                |(_, discovery)| (discovery.skills.len(), discovery.diagnostics.len()),
            )
        }
        "listing-floor" => {
            // The folders a server on this tree lists (the loaded skills'),
            // found by a discovery before the timing.
            let profile: skillpipe::Profile = opts.profile.parse()?;
            let paths = extra_roots(&opts.profile, tree);
            let discovery = pipeline_on(profile, tree, &paths)?
                .discover()
                .into_discovery();
            let folders = listing_floor::skill_folders(&discovery.skills);
            timed(
                opts,
                || Ok(listing_floor::hash_folders(&folders)),
                |hashed| (folders.len(), hashed.files),
            )
        }
        "baseline" => timed(
            opts,
            || Ok(baseline::scan_all(&roots, recursive)),
            |&n| (n, 0),
        ),
        "scan" => {
            // The shared scanners and the loader alone, on the same roots and
            // threads, with no pipeline passes: where the pipeline's time goes.
            let mode = if recursive {
                skillpipe::core::ScanMode::Recursive
            } else {
                skillpipe::core::ScanMode::OneLevel
            };
            timed(
                opts,
                || Ok(scan_roots(&roots, mode)),
                |found| {
                    let skills = found
                        .iter()
                        .flatten()
                        .filter(|f| {
                            matches!(f, skillpipe::core::Found::Candidate { candidate, .. } if candidate.skill.is_some())
                        })
                        .count();
                    (skills, 0)
                },
            )
        }
        "readers" => {
            // The skill files the baseline reads, listed beforehand; only
            // their heads are read, by READERS threads: reading them alone,
            // without a walk, with many reads in flight.
            let files = baseline::skill_files(&roots, recursive);
            timed(
                opts,
                || Ok(baseline::read_heads(&files, READERS)),
                |&n| (n, 0),
            )
        }
        "watch" => {
            let extra = extra_roots(&opts.profile, tree);
            super::watch::probe(&opts.profile, tree, &extra, opts.reps, cpu_ms_self)
        }
        // Issue 24's and the catalogue's figures alone, printed as the
        // whole bench prints them (to work on one without the rest).
        "search" | "catalog" => {
            let paths = extra_roots(&opts.profile, tree);
            if kind == "catalog" {
                let c =
                    crate::catalog_bench::measure(&opts.profile, "tree", tree, &paths, opts.reps)?;
                println!(
                    "{}\ntarget: {}: {} ({})",
                    c.line, c.target.0, c.target.1, c.target.2
                );
                return Ok(());
            }
            let s = crate::search_bench::measure(&opts.profile, "tree", tree, &paths, opts.reps)?;
            for line in s.lines {
                println!("{line}");
            }
            for (what, met, figure) in s.targets {
                println!("target: {what}: {met} ({figure})");
            }
            Ok(())
        }
        // `skillpipe mcp`'s lines alone, against `list --json` timed here
        // (the release CLI beside this program).
        "mcp" => {
            let exe = std::env::current_exe()?;
            let cli = exe.with_file_name("skillpipe");
            let list = super::cli::time_cli(&cli, &opts.profile, tree, opts.reps.min(9))?;
            println!("list --json: {}", list.stats);
            let mut report = super::report::Report::default();
            super::mcp::report(
                &cli,
                &opts.profile,
                "tree",
                tree,
                list.stats.median,
                opts.reps.min(5),
                &mut report,
            )?;
            report.print();
            Ok(())
        }
        other => bail!("unknown probe `{other}`"),
    }
}

/// The library as the bench's CLI runs on `tree`: its home and project,
/// no environment, the profile's extra roots as skill paths.
fn pipeline_on(
    profile: skillpipe::Profile,
    tree: &Path,
    paths: &[String],
) -> Result<skillpipe::Skillpipe> {
    Ok(skillpipe::Skillpipe::builder(profile)
        .home(tree.join("home"))
        .cwd(tree.join("project"))
        .env::<String, String>([])
        .skill_paths(paths.iter().map(PathBuf::from))
        .build()?)
}

/// One warm-up run of `run`, then `opts.reps` timed ones (with `--cold`,
/// each after the page cache is dropped), and the JSON report: the times,
/// the CPU time a timed run, what `count` (skills, diagnostics) says of the
/// last run's result (counted, and dropped, outside the timing), the peak
/// RSS.
fn timed<T>(
    opts: &Opts,
    mut run: impl FnMut() -> Result<T>,
    count: impl Fn(&T) -> (usize, usize),
) -> Result<()> {
    let mut times = Vec::with_capacity(opts.reps);
    let (mut skills, mut diagnostics) = (0, 0);
    let mut cpu_start = 0;
    for i in 0..=opts.reps {
        if opts.cold && i > 0 {
            cold::drop_caches()?;
        }
        let t = Instant::now();
        let result = run()?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if i > 0 {
            times.push(ms);
        } else {
            cpu_start = cpu_ms_self();
        }
        (skills, diagnostics) = count(&result);
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
    let numbered: Vec<(usize, &PathBuf)> = roots.iter().enumerate().collect();
    let threads = baseline::cores().min(roots.len());
    let scanned = baseline::each_on_threads(&numbered, threads, Vec::new, |done, &(i, root)| {
        let found = scan(&ScanSpec {
            root,
            mode,
            source: &source,
            require_description: true,
            honor_enabled: true,
            limits: skillpipe::core::ScanLimits::default(),
            observer: None,
        });
        done.push((i, found));
    });
    let mut results: Vec<Vec<skillpipe::core::Found>> = roots.iter().map(|_| Vec::new()).collect();
    for (i, found) in scanned.into_iter().flatten() {
        if let Some(slot) = results.get_mut(i) {
            *slot = found;
        }
    }
    results
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
