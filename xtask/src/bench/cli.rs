//! The CLI as a whole process: `skillpipe list --json` timed, its skills
//! counted and its peak RSS taken through `/usr/bin/time`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::stats::{Measured, Stats};
use super::tree::extra_roots;

use crate::command;

fn cli_command(cli: &Path, profile: &str, tree: &Path) -> Command {
    command_on_tree(cli, profile, tree, &["list", "--json"])
}

/// The CLI with the tree's global flags (as `list --json` has them), then
/// `args`.
pub(super) fn command_on_tree(cli: &Path, profile: &str, tree: &Path, args: &[&str]) -> Command {
    let mut cmd = command(cli);
    cmd.env_clear()
        .env("HOME", tree.join("home"))
        .args(["--profile", profile, "--home"])
        .arg(tree.join("home"))
        .arg("--cwd")
        .arg(tree.join("project"));
    for r in extra_roots(profile, tree) {
        cmd.args(["--skill", &r]);
    }
    cmd.args(args);
    cmd
}

/// Times `skillpipe list --json` as a whole process; one more run (piped,
/// untimed) counts the skills, and one under `/usr/bin/time` (when there)
/// gives the peak RSS.
pub(super) fn time_cli(cli: &Path, profile: &str, tree: &Path, reps: usize) -> Result<Measured> {
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
pub(super) fn time_cli_pair(
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
    let mut wrapped = command(time);
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
