//! The live-reload watcher on the 10k tree: after one `SKILL.md` is
//! edited (its description), the time from the write to the event, with
//! the debounce interval that is part of it reported apart, and the cost
//! of the watcher's incremental update against a full discovery (target:
//! at most a tenth); then the CPU an idle watcher uses.
//!
//! Runs in a child process of the (release) bench binary, `bench --probe
//! watch`, so that its threads, watches and figures are its own. Each
//! edited file is put back (and that change waited for) before the next.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use skillpipe::Skillpipe;
use skillpipe_watch::{WatchOptions, Watcher};

use super::report::Report;
use super::stats::median;

use crate::command;

/// Runs the probe in a child process, prints its line, and adds its
/// summary and its target to `report`.
pub(super) fn report(
    profile: &str,
    label: &str,
    tree: &Path,
    reps: usize,
    report: &mut Report,
) -> Result<()> {
    let exe = std::env::current_exe()?;
    let out = command(exe)
        .args(["bench", "--probe", "watch", "--profile", profile, "--tree"])
        .arg(tree)
        .args(["--reps", &reps.to_string()])
        .env_clear()
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("the watch probe failed with {}", out.status);
    }
    let doc: Value = serde_json::from_slice(&out.stdout).context("watch probe output")?;
    let series = |k: &str| -> Vec<f64> {
        doc[k]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect()
    };
    let (latency, update, discovery, full) = (
        median(&mut series("latency_ms")),
        median(&mut series("update_ms")),
        median(&mut series("discovery_ms")),
        median(&mut series("full_ms")),
    );
    let debounce = doc["debounce_ms"].as_f64().unwrap_or(0.0);
    let roots = median(&mut series("roots_read"));
    let idle = doc["idle_cpu_ms_per_s"].as_f64().unwrap_or(f64::NAN);
    let ratio = update / full;
    let line = format!(
        "watch {profile} {label}: write -> event {latency:.1} ms (of which the debounce {debounce:.0} ms), \
         incremental update {update:.1} ms (discovery over the cache {discovery:.1} ms, {roots:.0} root read) \
         against a full discovery {full:.1} ms: ratio {ratio:.3}; idle CPU {idle:.1} ms/s ({} edits, {} skills)",
        series("latency_ms").len(),
        doc["skills"]
    );
    println!("{line}");
    report.summary(format!("summary: {line}"));
    report.verdict(
        &format!("{profile} {label} watcher incremental/full <= 0.1"),
        ratio <= 0.1,
        format!("{ratio:.3}"),
    );
    Ok(())
}

/// The probe: full discoveries, then `reps` edits under a running watcher,
/// then two idle seconds. Prints one JSON document.
pub(super) fn probe(
    profile: &str,
    tree: &Path,
    extra: &[String],
    reps: usize,
    cpu_ms: fn() -> u64,
) -> Result<()> {
    let skillpipe = Skillpipe::builder(profile.parse()?)
        .home(tree.join("home"))
        .cwd(tree.join("project"))
        .env::<String, String>([])
        .skill_paths(extra.iter().map(PathBuf::from))
        .build()?;
    let mut full = Vec::with_capacity(reps);
    for i in 0..=reps {
        let t = Instant::now();
        let found = skillpipe.discover();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if i > 0 {
            full.push(ms);
        }
        drop(found);
    }

    let options = WatchOptions::default();
    let debounce = options.debounce;
    let (watcher, events) = Watcher::channel(&skillpipe, options)?;
    let skills = watcher.current().skills().to_vec();
    if skills.is_empty() {
        bail!("no skills in {}", tree.display());
    }
    let wait = |name: &str| -> Result<()> {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let e = events
                .recv_timeout(left)
                .with_context(|| format!("no event for {name} within a minute"))?;
            if e.changed.iter().any(|s| s.name == name) {
                return Ok(());
            }
        }
    };
    let (mut latency, mut update, mut discovery, mut roots) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..reps {
        // Spread over the tree's roots.
        let s = &skills[(i * 7919 + 11) % skills.len()];
        let file = &s.file_path;
        let original = fs::read(file)?;
        let text = String::from_utf8_lossy(&original);
        let edited = match text.find("description:") {
            Some(at) => format!(
                "{}description: edited {i}{}",
                &text[..at],
                &text[at + "description:".len()..]
            ),
            None => format!("{text}\nedited {i}\n"),
        };
        let before = watcher.stats();
        let t = Instant::now();
        fs::write(file, edited)?;
        wait(&s.name)?;
        latency.push(t.elapsed().as_secs_f64() * 1e3);
        let after = watcher.stats();
        update.push(after.last_update.as_secs_f64() * 1e3);
        discovery.push(after.last_discovery.as_secs_f64() * 1e3);
        roots.push((after.roots_scanned - before.roots_scanned) as f64);
        // Put it back, and let the watcher see it.
        fs::write(file, &original)?;
        wait(&s.name)?;
    }

    let cpu = cpu_ms();
    let idle = Duration::from_secs(2);
    std::thread::sleep(idle);
    let idle_ms_per_s = (cpu_ms() - cpu) as f64 / idle.as_secs_f64();
    drop(watcher);

    let doc = json!({
        "latency_ms": latency,
        "update_ms": update,
        "discovery_ms": discovery,
        "full_ms": full,
        "roots_read": roots,
        "debounce_ms": debounce.as_secs_f64() * 1e3,
        "idle_cpu_ms_per_s": idle_ms_per_s,
        "skills": skills.len(),
    });
    println!("{doc}");
    Ok(())
}
