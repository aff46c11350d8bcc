//! What the benchmark prints: a line per measurement as it is taken, then
//! the summaries and the verdicts on the targets, gathered in [`Report`]
//! and printed at the end.

use std::fs;
use std::thread;

use super::stats::Measured;

/// The summary lines and verdicts, printed after every measurement.
#[derive(Default)]
pub(super) struct Report {
    summaries: Vec<String>,
    verdicts: Vec<String>,
}

impl Report {
    pub(super) fn summary(&mut self, line: String) {
        self.summaries.push(line);
    }

    /// A target, met or not, with the figure that decides it.
    pub(super) fn verdict(&mut self, what: &str, ok: bool, figure: String) {
        self.verdicts.push(format!(
            "target: {what}: {} ({figure})",
            if ok { "met" } else { "NOT met" }
        ));
    }

    /// A blank line, the summaries, the verdicts.
    pub(super) fn print(self) {
        println!();
        for s in self.summaries {
            println!("{s}");
        }
        for v in self.verdicts {
            println!("{v}");
        }
    }
}

/// The machine's cores and load average, first: the machine may be shared.
pub(super) fn machine() {
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "machine: {cores} cores, load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
}

/// The in-process probes of one profile on one tree.
pub(super) fn probes(profile: &str, tree: &str, pipe: &Measured, scan: &Measured, base: &Measured) {
    println!(
        "pipeline {profile} {tree}: {} skills, {} diagnostics: {} (in process, {} reps, CPU {:.0} ms a run, peak RSS {})",
        pipe.skills,
        pipe.diagnostics,
        pipe.stats,
        pipe.times.len(),
        pipe.cpu_ms,
        mb(pipe.peak_rss_kb)
    );
    println!(
        "scanners {profile} {tree}: {} skills: {} (in process, {} reps, CPU {:.0} ms a run; the shared scanners and loader alone, no pipeline passes)",
        scan.skills,
        scan.stats,
        scan.times.len(),
        scan.cpu_ms
    );
    println!(
        "baseline {profile} {tree}: {} skill files read: {} (in process, {} reps, CPU {:.0} ms a run)",
        base.skills,
        base.stats,
        base.times.len(),
        base.cpu_ms
    );
}

/// A peak RSS in MB, or `n/a` when unknown (0).
pub(super) fn mb(kb: u64) -> String {
    if kb == 0 {
        "n/a".into()
    } else {
        format!("{:.1} MB", kb as f64 / 1024.0)
    }
}
