//! What the benchmark prints: a line per measurement as it is taken, then
//! the summaries and the verdicts on the targets, gathered in [`Report`]
//! and printed at the end.

use std::collections::HashMap;
use std::fs;
use std::hint::black_box;
use std::thread;
use std::time::Instant;

use super::stats::{Measured, fastest};

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

/// How fast the machine is at `when` (`start`, `end`), by two fixed pieces
/// of work, fastest of five each: a hash map of 200 000 numbers filled and
/// read back (memory and compute, as the pipeline's bookkeeping and the
/// search index) and 20 000 `fstat` calls (the kernel's side, as a scan).
/// A shared virtual machine has slow hours its load average does not show
/// (a neighbour on the host); printed at the start and the end of a run,
/// these tell them from code that got slower.
pub(super) fn speed(when: &str) {
    const KEYS: u64 = 200_000;
    const CALLS: usize = 20_000;
    let timed = |work: &dyn Fn()| {
        let times: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                work();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        fastest(&times)
    };
    // Scattered keys: a multiplicative hash of 0..KEYS.
    let key = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let map = timed(&|| {
        let mut m = HashMap::with_capacity(KEYS as usize);
        for k in 0..KEYS {
            m.insert(key(k), k as u32);
        }
        let mut sum = 0u64;
        for k in 0..KEYS {
            sum += u64::from(m.get(&key(k)).copied().unwrap_or(0));
        }
        black_box(sum);
    });
    let file = std::env::current_exe().and_then(fs::File::open);
    let stat = match &file {
        Ok(f) => format!(
            "{:.1} ms",
            timed(&|| {
                for _ in 0..CALLS {
                    black_box(f.metadata().is_ok());
                }
            })
        ),
        Err(e) => format!("not measured ({e})"),
    };
    println!(
        "machine speed ({when}): a hash map of {KEYS} numbers {map:.1} ms, {CALLS} fstat calls {stat} (fastest of 5; lower is faster, to compare between runs)"
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
