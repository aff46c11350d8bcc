//! `--cold`: discovery with the page cache dropped before each timed run,
//! against the same skill files' heads read by [`READERS`] threads.
//!
//! A host's first start after a reboot, a CI runner and a network file
//! system all meet a cold cache, where what counts is how many reads are in
//! flight, not CPU. The lower bound here is therefore not the bare scanner
//! (as many threads as cores) but the files alone: the list of `SKILL.md`
//! files the bare scanner reads for the profile is made beforehand (warm,
//! untimed), then each timed run drops the cache and reads their heads
//! from [`READERS`] threads. Dropping the cache needs root
//! (`/proc/sys/vm/drop_caches`).

use std::fs;

use anyhow::{Context, Result, bail};

use super::probe::{self, Cache};
use super::report::{self, Report};
use super::tree::{self, TREES};
use super::{Opts, PROFILES};
use crate::root;

/// Concurrent readers of the lower bound.
pub(super) const READERS: usize = 32;

/// Fails unless this process may drop the page cache.
pub(super) fn check_root() -> Result<()> {
    let status = fs::read_to_string("/proc/self/status").context("/proc/self/status")?;
    // `Uid:` real, effective, saved, file system.
    let euid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .context("no Uid in /proc/self/status")?;
    if euid != "0" {
        bail!(
            "--cold drops the page cache (/proc/sys/vm/drop_caches), which needs root; this process runs as uid {euid}"
        );
    }
    Ok(())
}

/// Writes dirty pages out, then drops the page cache, dentries and inodes.
pub(super) fn drop_caches() -> Result<()> {
    rustix::fs::sync();
    fs::write("/proc/sys/vm/drop_caches", "3")
        .context("cannot drop the page cache (/proc/sys/vm/drop_caches)")
}

/// The pipeline of each profile on the 10k tree, cold, `opts.cold_runs`
/// times, alternating with the readers; the ratio of their medians.
pub(super) fn bench_cold(opts: &Opts) -> Result<()> {
    let root = fs::canonicalize(root())?;
    let out = root.join("target/bench");
    fs::create_dir_all(&out)?;
    report::machine();
    report::speed("start");
    let Some(spec) = TREES.iter().find(|t| t.label == "10k") else {
        bail!("no 10k tree");
    };
    let tree = tree::generate(&out, spec)?;
    let mut report = Report::default();
    for profile in PROFILES {
        let m = probe::probe_rounds(
            &["pipeline", "readers"],
            profile,
            &tree,
            opts.cold_runs,
            1,
            Cache::Dropped,
        )?;
        let [pipe, readers] = <[_; 2]>::try_from(m)
            .ok()
            .context("the probes gave no figures")?;
        println!(
            "cold pipeline {profile} {}: {} skills, {} diagnostics: {} (page cache dropped before each of {} runs)",
            spec.label,
            pipe.skills,
            pipe.diagnostics,
            pipe.stats,
            pipe.times.len()
        );
        println!(
            "cold readers {profile} {}: {} SKILL.md heads read by {READERS} threads: {} (page cache dropped before each of {} runs)",
            spec.label,
            readers.skills,
            readers.stats,
            readers.times.len()
        );
        let ratio = pipe.stats.median / readers.stats.median;
        report.summary(format!(
            "summary: cold {profile} {}: pipeline {:.0} ms, {READERS} readers {:.0} ms, ratio {ratio:.2}",
            spec.label, pipe.stats.median, readers.stats.median
        ));
        report.verdict(
            &format!("{profile} 10k cold pipeline/{READERS} readers <= 1.5"),
            ratio <= 1.5,
            format!("{ratio:.2}"),
        );
    }
    report::speed("end");
    report.print();
    Ok(())
}
