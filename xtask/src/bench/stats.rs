//! Timings and what a probe reports: median, median absolute deviation,
//! min and max.

use anyhow::{Context, Result, bail};
use serde_json::Value;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Stats {
    pub median: f64,
    pub mad: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    pub(crate) fn of(samples: &[f64]) -> Stats {
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

/// The median of `v` (0 for none); sorts `v`. The one median of every
/// bench line.
pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    median_sorted(v)
}

/// The fastest of `v` (infinity for none): what a target is held to,
/// since a busy neighbour's time slice doubles a millisecond's median.
pub(crate) fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
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

pub(crate) struct Measured {
    /// Every timed run, in milliseconds.
    pub times: Vec<f64>,
    pub stats: Stats,
    /// CPU time per run (all threads), when known.
    pub cpu_ms: f64,
    pub skills: u64,
    pub diagnostics: u64,
    pub peak_rss_kb: u64,
}

pub(crate) fn measured(doc: &Value) -> Result<Measured> {
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
