//! `cargo xtask fuzz [--seconds N] [--target T] [--seed-only]`: the
//! libFuzzer targets of `fuzz/`, one after the other.
//!
//! Installs cargo-fuzz when `cargo fuzz --version` fails, fills
//! `fuzz/corpus/<target>/` with seeds (the SKILL.md files and settings files
//! of the shared conformance cases and real corpus, the committed
//! `fuzz/seeds/<target>/`, and a few long generated inputs: short inputs
//! missed a quadratic reader once), builds every target with nightly, then
//! runs each (or the one named) for N seconds (default 60). Inputs in
//! `fuzz/regressions/<target>/` are replayed with the corpus. Prints one
//! summary line per target (executions, crashes) and fails when any target
//! crashed, hung (`-timeout`) or ran out of memory; what it found is under
//! `fuzz/artifacts/<target>/`, the run's log under `fuzz/target/logs/`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use crate::{cargo, command, run_cmd};

/// Every target, in the order they run.
pub(crate) const TARGETS: &[&str] = &["frontmatter", "loader", "resolve", "validate", "settings"];

/// Longest input libFuzzer makes: above the loader's 1 MiB file limit, and
/// room for the long seeds.
const MAX_LEN: usize = 1_100_000;

/// Seconds one input may take before it counts as a hang.
const TIMEOUT: u32 = 10;

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut seconds: u64 = 60;
    let mut runs: Option<u64> = None;
    let mut max_len = MAX_LEN;
    let mut sanitizer: Option<String> = None;
    let mut only: Option<String> = None;
    let mut seed_only = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                let v = it.next().context("--seconds needs a value")?;
                seconds = v.parse().with_context(|| format!("--seconds {v}"))?;
            }
            "--runs" => {
                let v = it.next().context("--runs needs a value")?;
                runs = Some(v.parse().with_context(|| format!("--runs {v}"))?);
            }
            "--max-len" => {
                let v = it.next().context("--max-len needs a value")?;
                max_len = v.parse().with_context(|| format!("--max-len {v}"))?;
            }
            "--sanitizer" => {
                sanitizer = Some(it.next().context("--sanitizer needs a value")?.clone());
            }
            "--target" => {
                let t = it.next().context("--target needs a value")?;
                if !TARGETS.contains(&t.as_str()) {
                    bail!("unknown fuzz target `{t}` (expected one of {TARGETS:?})");
                }
                only = Some(t.clone());
            }
            "--seed-only" => seed_only = true,
            other => bail!(
                "unknown argument `{other}` (usage: fuzz [--seconds N | --runs N] [--max-len N] [--sanitizer S] [--target T] [--seed-only])"
            ),
        }
    }
    let root = crate::root();
    let fuzz = root.join("fuzz");
    let targets: Vec<&str> = match &only {
        Some(t) => vec![t.as_str()],
        None => TARGETS.to_vec(),
    };

    let counts = seed(&fuzz, &root.join("../shared"))?;
    for (target, n) in &counts {
        eprintln!("seeded fuzz/corpus/{target}: {n} inputs");
    }
    if seed_only {
        return Ok(());
    }

    ensure_cargo_fuzz()?;
    // One build of every target first, so that no run's time goes to it.
    // Both cores at most: the machine is shared.
    // Rustup's `cargo` (see `crate::cargo`): `+nightly` picks the toolchain.
    let mut build = command("cargo");
    build.args(["+nightly", "fuzz", "build"]);
    if let Some(s) = &sanitizer {
        build.args(["--sanitizer", s]);
    }
    if let Some(t) = &only {
        build.arg(t);
    }
    run_cmd(build.env("CARGO_BUILD_JOBS", jobs()))?;

    let logs = fuzz.join("target/logs");
    fs::create_dir_all(&logs)?;
    let mut failed = Vec::new();
    for target in targets {
        let limit = match runs {
            Some(n) => Limit::Runs(n),
            None => Limit::Seconds(seconds),
        };
        let started = std::time::Instant::now();
        let run = Run {
            limit,
            max_len,
            sanitizer: sanitizer.as_deref(),
        };
        let outcome = run_target(&fuzz, &logs, target, &run)?;
        let took = started.elapsed().as_secs();
        println!(
            "fuzz {target}: {} execs in {took} s, {} crash{}, {} slow unit{}",
            outcome
                .execs
                .map_or_else(|| "?".to_owned(), |n| n.to_string()),
            outcome.crashes,
            if outcome.crashes == 1 { "" } else { "es" },
            outcome.slow,
            if outcome.slow == 1 { "" } else { "s" },
        );
        for a in &outcome.artifacts {
            println!("  artifact: {}", a.display());
        }
        if outcome.crashes > 0 {
            println!("  log: {}", outcome.log.display());
            for line in &outcome.told {
                println!("  | {line}");
            }
            failed.push(target);
        }
    }
    if !failed.is_empty() {
        bail!("fuzz targets crashed: {}", failed.join(", "));
    }
    Ok(())
}

/// `CARGO_BUILD_JOBS` as set, else at most two.
fn jobs() -> String {
    std::env::var("CARGO_BUILD_JOBS").unwrap_or_else(|_| {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
        n.to_string()
    })
}

fn ensure_cargo_fuzz() -> Result<()> {
    let present = command(cargo())
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        run_cmd(
            command(cargo())
                .args(["install", "cargo-fuzz", "--locked"])
                .env("CARGO_BUILD_JOBS", jobs()),
        )?;
    }
    let nightly = command("cargo")
        .args(["+nightly", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !nightly {
        bail!("cargo-fuzz needs a nightly toolchain: rustup toolchain install nightly");
    }
    Ok(())
}

struct Outcome {
    execs: Option<u64>,
    /// New crash, timeout, out-of-memory and leak inputs (or 1 when the run
    /// failed without leaving one).
    crashes: usize,
    /// New `slow-unit-*` inputs: slower than `-report_slow_units` but under
    /// the timeout (the sanitizers make everything several times slower), so
    /// reported without failing.
    slow: usize,
    artifacts: Vec<PathBuf>,
    log: PathBuf,
    /// Why it failed, from the log (which stays on the machine that ran
    /// it): see [`why`].
    told: Vec<String>,
}

/// How long one target runs: for a time, or for a number of inputs
/// (`--runs`, for the long runs that are quoted by their count).
#[derive(Debug, Clone, Copy)]
enum Limit {
    Seconds(u64),
    Runs(u64),
}

/// How each target runs.
struct Run<'a> {
    limit: Limit,
    /// libFuzzer's `-max_len`: [`MAX_LEN`] unless `--max-len` (the long
    /// runs take small inputs, so that a million of them fit in minutes;
    /// the long seeds are still there in the short runs).
    max_len: usize,
    /// cargo-fuzz's `--sanitizer` (its default, address, unless given).
    sanitizer: Option<&'a str>,
}

fn run_target(fuzz: &Path, logs: &Path, target: &str, run: &Run<'_>) -> Result<Outcome> {
    let artifacts_dir = fuzz.join("artifacts").join(target);
    let before = files(&artifacts_dir);
    let log = logs.join(format!("{target}.log"));
    let out = fs::File::create(&log).with_context(|| format!("cannot write {}", log.display()))?;
    let err = out.try_clone()?;
    let mut cmd = command("cargo");
    cmd.args(["+nightly", "fuzz", "run"]);
    if let Some(s) = run.sanitizer {
        cmd.args(["--sanitizer", s]);
    }
    cmd.arg(target).arg(fuzz.join("corpus").join(target));
    let regressions = fuzz.join("regressions").join(target);
    if regressions.is_dir() {
        cmd.arg(&regressions);
    }
    cmd.arg("--").arg(match run.limit {
        Limit::Seconds(n) => format!("-max_total_time={n}"),
        Limit::Runs(n) => format!("-runs={n}"),
    });
    cmd.arg(format!("-max_len={}", run.max_len))
        .arg(format!("-timeout={TIMEOUT}"))
        .arg("-print_final_stats=1")
        .current_dir(crate::root())
        .env("CARGO_BUILD_JOBS", jobs())
        .stdout(out)
        .stderr(err);
    eprintln!("$ {cmd:?} > {}", log.display());
    let status = cmd
        .status()
        .with_context(|| format!("cannot run cargo fuzz for {target}"))?;
    let text = String::from_utf8_lossy(&fs::read(&log)?).into_owned();
    let artifacts: Vec<PathBuf> = files(&artifacts_dir).difference(&before).cloned().collect();
    let slow = artifacts
        .iter()
        .filter(|a| file_name(a).starts_with("slow-unit-"))
        .count();
    let mut crashes = artifacts.len() - slow;
    let told: Vec<String> = if !status.success() && crashes == 0 {
        // Died without leaving an input (e.g. the build failed): its tail.
        crashes = 1;
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        tail.into_iter().rev().map(str::to_owned).collect()
    } else if crashes > 0 {
        why(&text).into_iter().map(str::to_owned).collect()
    } else {
        Vec::new()
    };
    Ok(Outcome {
        execs: execs(&text),
        crashes,
        slow,
        artifacts,
        log,
        told,
    })
}

/// What a crashed run says about the failure: the panic and its message
/// (without the backtrace), else libFuzzer's `ERROR` and what follows it,
/// up to a blank line, at most 12 lines of at most 300 bytes (the message
/// can hold the whole input, a megabyte).
fn why(log: &str) -> Vec<&str> {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(" panicked at "))
        .or_else(|| lines.iter().position(|l| l.contains("ERROR: libFuzzer")));
    let Some(start) = start else {
        return Vec::new();
    };
    lines[start..]
        .iter()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("stack backtrace:"))
        .take(12)
        .map(|l| cut(l, 300))
        .collect()
}

/// At most `max` bytes of `line`, cut at a character boundary.
fn cut(line: &str, max: usize) -> &str {
    if line.len() <= max {
        return line;
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// The executions libFuzzer reports: `stat::number_of_executed_units`
/// (`-print_final_stats=1`), else the last `#N` status line.
fn execs(log: &str) -> Option<u64> {
    let stat = log.lines().rev().find_map(|l| {
        l.strip_prefix("stat::number_of_executed_units:")
            .and_then(|n| n.trim().parse().ok())
    });
    stat.or_else(|| {
        log.lines().rev().find_map(|l| {
            let n = l.strip_prefix('#')?.split_whitespace().next()?;
            n.parse().ok()
        })
    })
}

fn files(dir: &Path) -> BTreeSet<PathBuf> {
    fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Inputs gathered for the targets, by target.
#[derive(Default)]
struct Seeds {
    /// SKILL.md files (loader, validate; their frontmatter for frontmatter).
    skill_files: Vec<(String, Vec<u8>)>,
    /// Settings files, with the target's first byte (0: JSON, 1: TOML).
    settings: Vec<(String, Vec<u8>)>,
}

impl Seeds {
    fn add_file(&mut self, name: &str, path: &str, content: &[u8]) {
        let file = path.rsplit('/').next().unwrap_or(path);
        if file.eq_ignore_ascii_case("SKILL.md")
            || (file.ends_with(".md") && content.starts_with(b"---"))
        {
            self.skill_files.push((name.to_owned(), content.to_vec()));
        } else if path.contains("settings") || path.contains("conf/") {
            let first = if file.ends_with(".json") {
                0
            } else if file.ends_with(".toml") {
                1
            } else {
                return;
            };
            let mut input = vec![first];
            input.extend_from_slice(content);
            self.settings.push((name.to_owned(), input));
        }
    }
}

/// Fills `fuzz/corpus/<target>/` (kept between runs: the fuzzer adds what
/// it finds). Returns how many seeds each target got.
fn seed(fuzz: &Path, shared: &Path) -> Result<Vec<(String, usize)>> {
    let mut seeds = Seeds::default();
    let cases = shared.join("conformance/cases");
    if let Ok(rd) = fs::read_dir(&cases) {
        let mut dirs: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for case in dirs {
            let case_name = file_name(&case);
            if let Ok(text) = fs::read_to_string(case.join("case.toml")) {
                let doc: toml::Table = text
                    .parse()
                    .with_context(|| format!("{}/case.toml", case.display()))?;
                if let Some(files) = doc.get("files").and_then(|f| f.as_table()) {
                    for (path, content) in files {
                        if let Some(content) = content.as_str() {
                            let name = format!("case-{case_name}-{}", flat(path));
                            seeds.add_file(&name, path, content.as_bytes());
                        }
                    }
                }
            }
            let tree = case.join("tree");
            for (path, content) in walk(&tree) {
                let name = format!("tree-{case_name}-{}", flat(&path));
                seeds.add_file(&name, &path, &content);
            }
        }
    } else {
        eprintln!(
            "no {} here: seeding without the conformance cases",
            cases.display()
        );
    }
    for (path, content) in walk(&shared.join("corpus/real")) {
        if path.ends_with("SKILL.md") {
            seeds
                .skill_files
                .push((format!("real-{}", flat(&path)), content));
        }
    }

    let mut counts = Vec::new();
    for target in TARGETS {
        let dir = fuzz.join("corpus").join(target);
        fs::create_dir_all(&dir)?;
        let mut inputs: Vec<(String, Vec<u8>)> = match *target {
            "frontmatter" => seeds
                .skill_files
                .iter()
                .map(|(n, c)| (n.clone(), frontmatter_of(c).to_vec()))
                .collect(),
            "loader" | "validate" => seeds.skill_files.clone(),
            "settings" => seeds.settings.clone(),
            _ => Vec::new(),
        };
        inputs.extend(long_seeds(target));
        for (path, content) in walk(&fuzz.join("seeds").join(target)) {
            inputs.push((format!("hand-{}", flat(&path)), content));
        }
        for (name, content) in &inputs {
            let content = &content[..content.len().min(MAX_LEN)];
            fs::write(dir.join(name), content)?;
        }
        counts.push(((*target).to_owned(), inputs.len()));
    }
    Ok(counts)
}

/// The YAML between the opening and closing `---` lines, or all of it.
fn frontmatter_of(file: &[u8]) -> &[u8] {
    let Some(rest) = file
        .strip_prefix(b"---\r\n")
        .or_else(|| file.strip_prefix(b"---\n"))
    else {
        return file;
    };
    let mut at = 0;
    for line in rest.split_inclusive(|&b| b == b'\n') {
        let trimmed = line.strip_suffix(b"\n").unwrap_or(line);
        let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
        if trimmed == b"---" {
            return &rest[..at];
        }
        at += line.len();
    }
    rest
}

/// Long inputs, which short mutations never reach: many keys, a long
/// value, deep nesting, long lists, long lines.
fn long_seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut keys = String::from("name: many-keys\ndescription: d\n");
    for i in 0..10_000 {
        let _ = writeln!(keys, "key{i}: value {i}");
    }
    let mut nested_keys = String::from("name: nested-keys\ndescription: d\nmetadata:\n");
    for i in 0..10_000 {
        let _ = writeln!(nested_keys, "  key{i}: value{i}");
    }
    let mut duplicates = String::from("name: dups\ndescription: d\n");
    for _ in 0..5_000 {
        duplicates.push_str("description: again\n");
    }
    let long_description = format!("name: long\ndescription: {}\n", "word ".repeat(20_000));
    let long_quoted = format!("name: long\ndescription: \"{}\"\n", "x\\t".repeat(30_000));
    let mut deep_block = String::from("name: deep\ndescription: d\n");
    for depth in 0..400 {
        let _ = writeln!(deep_block, "{}k{depth}:", "  ".repeat(depth));
    }
    let deep_flow = format!(
        "name: deep\ndescription: d\nx: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let deep_flow_map = format!("x: {}{}\n", "{a: ".repeat(5_000), "}".repeat(5_000));
    let mut list = String::from("name: list\ndescription: d\nallowed-tools:\n");
    for i in 0..5_000 {
        let _ = writeln!(list, "- tool{i}");
    }
    // Both rewrites of the repair: a `: ` in a plain value, tab indents.
    let mut tabs = String::from("name: tabs\ndescription: a: b # c\nmetadata:\n");
    for i in 0..5_000 {
        let _ = writeln!(tabs, "\tk{i}: v{i}");
    }
    // The same key over and over under tab indents: every repeat is a
    // duplicate-key warning whose column the repair has to map back.
    let mut tab_duplicates = String::from("name: x\ndescription: a: b\nmetadata:\n");
    for _ in 0..50_000 {
        tab_duplicates.push_str("\tk: v\n");
    }
    let one_line = format!("name: {}", "a".repeat(1_000_000));
    let anchors = {
        let mut s = String::from("a0: &a0 [x, x]\n");
        for i in 1..40 {
            let _ = writeln!(s, "a{i}: &a{i} [*a{}, *a{}]", i - 1, i - 1);
        }
        s
    };
    let yaml: Vec<(&str, String)> = vec![
        ("keys", keys),
        ("nested-keys", nested_keys),
        ("duplicates", duplicates),
        ("long-description", long_description),
        ("long-quoted", long_quoted),
        ("deep-block", deep_block),
        ("deep-flow", deep_flow),
        ("deep-flow-map", deep_flow_map),
        ("list", list),
        ("tabs", tabs),
        ("tab-duplicates", tab_duplicates),
        ("one-line", one_line),
        ("anchors", anchors),
    ];
    let named = |prefix: &str, v: Vec<(&str, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        v.into_iter()
            .map(|(n, c)| (format!("{prefix}-{n}"), c))
            .collect()
    };
    match target {
        "frontmatter" => named(
            "long",
            yaml.into_iter().map(|(n, y)| (n, y.into_bytes())).collect(),
        ),
        "loader" | "validate" => {
            let mut v: Vec<(&str, Vec<u8>)> = yaml
                .into_iter()
                .map(|(n, y)| (n, format!("---\n{y}---\nbody\n").into_bytes()))
                .collect();
            v.push((
                "unterminated",
                format!("---\n{}", "k: v\n".repeat(200_000)).into_bytes(),
            ));
            v.push((
                "long-body",
                format!(
                    "---\nname: x\ndescription: d\n---\n{}",
                    "body\n".repeat(200_000)
                )
                .into_bytes(),
            ));
            named("long", v)
        }
        "resolve" => named(
            "long",
            vec![
                ("segments", "a/".repeat(5_000).into_bytes()),
                ("dots", "./".repeat(5_000).into_bytes()),
                ("escapes", "%2e%2e%2f".repeat(5_000).into_bytes()),
                ("name", "x".repeat(100_000).into_bytes()),
            ],
        ),
        "settings" => {
            let mut many = String::from("{\"skills\": {\"customDirectories\": [");
            for i in 0..5_000 {
                let _ = write!(many, "{}\"dir{i}\"", if i > 0 { "," } else { "" });
            }
            many.push_str("]}}");
            let mut toml_tables = String::new();
            for i in 0..5_000 {
                let _ = writeln!(toml_tables, "[t{i}]\nk = {i}");
            }
            let json_deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
            let toml_deep = format!("x = {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
            let toml_inline = format!("x = {}{}\n", "{a = ".repeat(5_000), "}".repeat(5_000));
            let with = |first: u8, s: String| {
                let mut v = vec![first];
                v.extend(s.into_bytes());
                v
            };
            named(
                "long",
                vec![
                    ("json-many", with(0, many)),
                    ("json-deep", with(0, json_deep)),
                    ("toml-tables", with(1, toml_tables)),
                    ("toml-deep", with(1, toml_deep)),
                    ("toml-inline", with(1, toml_inline)),
                ],
            )
        }
        _ => Vec::new(),
    }
}

/// Every file under `dir`, as (path relative to `dir` with `/`, content),
/// in path order; links are not followed.
fn walk(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for entry in rd.flatten() {
            let Ok(ty) = entry.file_type() else { continue };
            let path = entry.path();
            if ty.is_dir() {
                stack.push(path);
            } else if ty.is_file()
                && let Ok(content) = fs::read(&path)
                && let Ok(rel) = path.strip_prefix(dir)
            {
                out.push((rel.to_string_lossy().replace('\\', "/"), content));
            }
        }
    }
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A path as one file name.
fn flat(path: &str) -> String {
    path.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_is_told_by_its_panic_without_the_backtrace_or_the_whole_input() {
        let input = "k".repeat(5_000);
        let log = format!(
            "INFO: Seed: 1\n#2 INITED\nthread '<unnamed>' (7) panicked at fuzz_targets/f.rs:47:25:\n\
             parse_simple accepts {input:?}\nstack backtrace:\n   0: rust_begin_unwind\n\
             ==7== ERROR: libFuzzer: deadly signal\n"
        );
        let told = why(&log);
        assert_eq!(told.len(), 2, "{told:?}");
        assert!(told[0].ends_with("panicked at fuzz_targets/f.rs:47:25:"));
        assert!(told[1].starts_with("parse_simple accepts \"kkk"));
        assert_eq!(told[1].len(), 300);
    }

    #[test]
    fn a_crash_without_a_panic_is_told_by_libfuzzers_error() {
        let log = "#1 INITED\n==9== ERROR: libFuzzer: out-of-memory (malloc(4294967296))\n   #0 0x1 in f\n\nSUMMARY: x\n";
        assert_eq!(
            why(log),
            [
                "==9== ERROR: libFuzzer: out-of-memory (malloc(4294967296))",
                "   #0 0x1 in f"
            ]
        );
        assert!(why("#1 INITED\nDone 1 runs\n").is_empty());
    }

    #[test]
    fn a_cut_line_ends_on_a_character() {
        assert_eq!(cut("ééé", 3), "é");
        assert_eq!(cut("abc", 5), "abc");
    }
}
