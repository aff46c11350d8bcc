//! `cargo xtask validate-parity [--python PY] [--corpus DIR] [--no-build]`:
//! `skillpipe validate` against the reference validator `skills-ref`
//! (`agentskills validate`) on every folder of `tests/validate-corpus`.
//!
//! The reference is pip-installed from PyPI into a scratch virtual
//! environment (`target/validate-parity-venv`, kept between runs). For each
//! folder both validators run on the same relative path from the workspace
//! root; the verdicts (valid or not) and the error lists (every `  - `
//! error with its continuation lines, and the header line) must be equal.
//! Folders named in `known-deviations.txt` of the corpus (one
//! `<folder> <reason>` a line) must only agree on the verdict: they pin the
//! places where skillpipe deliberately says something else (e.g. where
//! `skills-ref` dies with a Python traceback).
//!
//! Prints one line per difference and a summary line; fails on any
//! difference.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{cargo, command, run_cmd};

/// The reference release that peers.md §1.3 describes.
const SKILLS_REF: &str = "skills-ref==0.1.1";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let root = crate::root();
    let mut python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut corpus = root.join("tests/validate-corpus");
    let mut build = true;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--python" => python = it.next().context("--python needs a value")?.clone(),
            "--corpus" => {
                corpus = root.join(it.next().context("--corpus needs a value")?);
            }
            "--no-build" => build = false,
            other => bail!(
                "unknown argument `{other}` (usage: validate-parity [--python PY] [--corpus DIR] [--no-build])"
            ),
        }
    }

    let agentskills = reference(&root, &python)?;
    if build {
        run_cmd(command(cargo()).args(["build", "--release", "-p", "skillpipe-cli"]))?;
    }
    let skillpipe = target_dir(&root).join("release/skillpipe");
    if !skillpipe.is_file() {
        bail!("{} is missing: build it first", skillpipe.display());
    }

    let known = known_deviations(&corpus)?;
    let folders = folders(&corpus)?;
    if folders.is_empty() {
        bail!("no folders in {}", corpus.display());
    }
    let (mut same_verdict, mut same_errors, mut deviations, mut failures) = (0, 0, 0, 0);
    for name in &folders {
        let rel = corpus
            .join(name)
            .strip_prefix(&root)
            .map_or_else(|_| corpus.join(name), Path::to_path_buf);
        let theirs = run_validator(command(&agentskills).arg("validate").arg(&rel))?;
        let ours = run_validator(command(&skillpipe).arg("validate").arg(&rel))?;
        let verdict_ok = theirs.valid == ours.valid;
        let errors_ok = theirs.lines == ours.lines;
        same_verdict += usize::from(verdict_ok);
        same_errors += usize::from(errors_ok);
        if !verdict_ok {
            failures += 1;
            println!(
                "{name}: verdict differs: skills-ref {}, skillpipe {}",
                theirs.verdict(),
                ours.verdict()
            );
            print_diff(&theirs, &ours);
        } else if !errors_ok {
            if let Some(reason) = known.get(name) {
                deviations += 1;
                println!("{name}: known deviation ({reason})");
            } else {
                failures += 1;
                println!("{name}: error lists differ");
                print_diff(&theirs, &ours);
            }
        } else if known.contains_key(name) {
            println!(
                "{name}: listed as a known deviation but now identical; remove it from known-deviations.txt"
            );
            failures += 1;
        }
    }
    let unknown: Vec<&String> = known.keys().filter(|k| !folders.contains(k)).collect();
    for k in &unknown {
        println!("{k}: listed in known-deviations.txt but not in the corpus");
    }
    let n = folders.len();
    let mut summary = format!(
        "validate-parity: {n} folders, {same_verdict} identical verdicts, {same_errors} identical error lists"
    );
    if deviations > 0 {
        let s = if deviations == 1 { "" } else { "s" };
        summary.push_str(&format!(", {deviations} known deviation{s} (same verdict)"));
    }
    println!("{summary}");
    if failures > 0 || !unknown.is_empty() {
        bail!("validate-parity: {failures} differences");
    }
    Ok(())
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The `agentskills` command of a scratch venv, installing it on first use.
fn reference(root: &Path, python: &str) -> Result<PathBuf> {
    let venv = target_dir(root).join("validate-parity-venv");
    let bin = venv.join("bin");
    let agentskills = bin.join("agentskills");
    if agentskills.is_file() {
        return Ok(agentskills);
    }
    run_cmd(command(python).arg("-m").arg("venv").arg(&venv))
        .context("cannot create the scratch virtual environment (is python3-venv installed?)")?;
    run_cmd(
        command(bin.join("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(SKILLS_REF),
    )
    .context("cannot install skills-ref from PyPI")?;
    if !agentskills.is_file() {
        bail!("{} did not install {}", SKILLS_REF, agentskills.display());
    }
    Ok(agentskills)
}

/// The corpus folders, sorted by name.
fn folders(corpus: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in
        fs::read_dir(corpus).with_context(|| format!("cannot read {}", corpus.display()))?
    {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    Ok(out)
}

/// `known-deviations.txt`: `<folder> <reason>` lines; `#` comments.
fn known_deviations(corpus: &Path) -> Result<BTreeMap<String, String>> {
    let path = corpus.join("known-deviations.txt");
    if !path.is_file() {
        return Ok(BTreeMap::new());
    }
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((folder, reason)) => (folder.to_owned(), reason.trim().to_owned()),
            None => (l.to_owned(), String::new()),
        })
        .collect())
}

/// One validator's answer: exit status and report lines.
struct Report {
    valid: bool,
    exit: Option<i32>,
    /// The report: `Valid skill: …` or `Validation failed for …:` and the
    /// error lines (skills-ref writes failures to stderr, skillpipe to
    /// stdout; both are read).
    lines: Vec<String>,
}

impl Report {
    fn verdict(&self) -> String {
        match (self.valid, self.exit) {
            (true, _) => "valid".to_owned(),
            (false, Some(code)) => format!("invalid (exit {code})"),
            (false, None) => "invalid (killed)".to_owned(),
        }
    }
}

fn run_validator(cmd: &mut Command) -> Result<Report> {
    let out = cmd
        .current_dir(crate::root())
        .env("PYTHONUTF8", "1")
        .env("PYTHONIOENCODING", "utf-8")
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(Report {
        valid: out.status.success(),
        exit: out.status.code(),
        lines: text.lines().map(str::to_owned).collect(),
    })
}

fn print_diff(theirs: &Report, ours: &Report) {
    let n = theirs.lines.len().max(ours.lines.len());
    for i in 0..n {
        let (a, b) = (theirs.lines.get(i), ours.lines.get(i));
        if a == b {
            continue;
        }
        if let Some(a) = a {
            println!("    skills-ref | {a}");
        }
        if let Some(b) = b {
            println!("    skillpipe  | {b}");
        }
    }
}
