//! `cargo xtask conformance --plugins [--filter PREFIX]...`: the shared
//! acceptance corpus run twice, once with the built-in providers linked into
//! `skillpipe` and once with the same providers loaded as plugins
//! (`plugins/builtin/*`), failing on any difference.
//!
//! 1. Builds `skillpipe` and every `skillpipe-plugin-builtin-*` library
//!    explicitly (`cargo build --release -p …`; `cargo test` would leave the
//!    `cdylib`s in `deps/`), reading the artifact paths from cargo's JSON.
//! 2. Asks the binary which providers each profile has
//!    (`providers --json` in an empty tree).
//! 3. Writes two wrapper scripts for `run.py --bin` (the runner scrubs
//!    `SKILLPIPE_*` from the environment, so flags are the reliable way):
//!    - `skillpipe-builtin` runs the binary as it is;
//!    - `skillpipe-plugins` adds `--set disabledProviders=[<the profile's
//!      built-ins>]` and one `--plugin` per built-in, so every provider is
//!      replaced by its plugin. A case's own `disabledProviders` (`--set`
//!      or `SKILLPIPE_DISABLEDPROVIDERS`) is merged in, and those providers'
//!      plugins are not loaded, so the case sees the same provider set.
//!
//!    Both record every invocation (arguments, exit code, stdout, stderr).
//! 4. Runs `run.py -v` per filter in both modes. In plugin mode the cases
//!    come from a mirror of the corpus whose expected `providers` documents
//!    say `"origin": "plugin"` (the one intended difference, so the corpus
//!    also checks that `providers` shows it).
//! 5. Fails unless every run has the same verdict in both modes and every
//!    recorded invocation produced the same exit code, stdout and stderr
//!    (with the origin field of `providers` output set aside). Prints the
//!    skill counts per provider (summed over every `list --json` run) for
//!    both modes.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

use crate::{LANDED, cargo, command, root};

/// The binary's package, and the prefix of the plugin packages.
const CLI: &str = "skillpipe-cli";
const PLUGIN_PREFIX: &str = "skillpipe-plugin-builtin-";

/// Entry point from `conformance` when `--plugins` is given.
pub(crate) fn conformance(args: &[String]) -> Result<()> {
    let shared = root().join("../shared/conformance");
    if !shared.join("run.py").is_file() {
        eprintln!("no ../shared/conformance here: skipping the plugin conformance run");
        return Ok(());
    }
    let shared = shared.canonicalize()?;
    let filters = filters(args);

    let built = build()?;
    let bin = built
        .get(CLI)
        .cloned()
        .context("cargo did not report the skillpipe binary")?;
    let plugins: BTreeMap<String, PathBuf> = built
        .iter()
        .filter_map(|(pkg, path)| Some((pkg.strip_prefix(PLUGIN_PREFIX)?.to_owned(), path.clone())))
        .collect();

    let work = bin
        .parent()
        .context("the binary has no parent directory")?
        .join("conformance-plugins");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("cannot clear {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;

    let profiles = profile_providers(&bin, &work)?;
    for (profile, ids) in &profiles {
        for id in ids {
            ensure!(
                plugins.contains_key(id),
                "profile {profile} has provider {id}, but there is no plugins/builtin/{id} ({PLUGIN_PREFIX}{id})"
            );
        }
    }

    let builtin = Mode::new("builtin", &work, &bin, None, &profiles)?;
    let plugged = Mode::new("plugins", &work, &bin, Some(&plugins), &profiles)?;
    check_providers_are_plugins(&plugged, &profiles, &work)?;
    plugged.clear_log()?;
    let mirror = mirror_cases(&shared.join("cases"), &work.join("shared"), &filters)?;

    let mut differences = Vec::new();
    for filter in &filters {
        let a = builtin.run_corpus(&shared, &shared.join("cases"), filter)?;
        let b = plugged.run_corpus(&shared, &mirror, filter)?;
        println!(
            "{filter:<10} built-in: {:>3} passed, {:>3} failed    plugins: {:>3} passed, {:>3} failed",
            a.passed(),
            a.failed(),
            b.passed(),
            b.failed()
        );
        differences.extend(compare_verdicts(&a, &b));
    }
    let logs = (builtin.log()?, plugged.log()?);
    differences.extend(compare_invocations(&logs.0, &logs.1));
    print_counts(&logs.0, &logs.1);

    if !differences.is_empty() {
        for d in differences.iter().take(40) {
            eprintln!("difference: {d}");
        }
        bail!(
            "{} difference(s) between built-in and plugin providers (logs: {})",
            differences.len(),
            work.display()
        );
    }
    println!(
        "no difference: {} invocations, identical with the providers linked and loaded as plugins",
        logs.0.len()
    );
    Ok(())
}

/// `--filter PREFIX` (repeatable), else every landed capability.
fn filters(args: &[String]) -> Vec<String> {
    let given: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--filter")
        .map(|w| w[1].clone())
        .collect();
    if given.is_empty() {
        LANDED.iter().map(|s| (*s).to_owned()).collect()
    } else {
        given
    }
}

/// Builds the CLI and every built-in plugin; package → artifact.
fn build() -> Result<BTreeMap<String, PathBuf>> {
    let meta = command(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .context("cannot run cargo metadata")?;
    ensure!(meta.status.success(), "cargo metadata failed");
    let meta: Value = serde_json::from_slice(&meta.stdout)?;
    // manifest path → package, for the packages to build.
    let packages: BTreeMap<String, String> = meta["packages"]
        .as_array()
        .context("cargo metadata: no packages")?
        .iter()
        .filter_map(|p| Some((p["manifest_path"].as_str()?, p["name"].as_str()?)))
        .filter(|(_, name)| *name == CLI || name.starts_with(PLUGIN_PREFIX))
        .map(|(m, n)| (m.to_owned(), n.to_owned()))
        .collect();

    let mut cmd = command(cargo());
    cmd.args([
        "build",
        "--release",
        "--message-format=json-render-diagnostics",
    ]);
    for p in packages.values() {
        cmd.args(["-p", p]);
    }
    eprintln!(
        "$ cargo build --release -p {CLI} -p {PLUGIN_PREFIX}… ({} plugin libraries)",
        packages.len() - 1
    );
    let out = cmd
        .current_dir(root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("cannot run cargo build")?;
    ensure!(out.status.success(), "building the plugins failed");

    let mut built = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(pkg) = msg["manifest_path"].as_str().and_then(|m| packages.get(m)) else {
            continue;
        };
        let file = msg["executable"].as_str().map(PathBuf::from).or_else(|| {
            msg["filenames"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .find(|f| f.ends_with(std::env::consts::DLL_SUFFIX))
                .map(PathBuf::from)
        });
        if let Some(file) = file {
            built.insert(pkg.clone(), file);
        }
    }
    for p in packages.values() {
        ensure!(built.contains_key(p), "cargo reported no artifact for {p}");
    }
    Ok(built)
}

/// The built-in providers of each profile, in pipeline order, as the
/// binary reports them in an empty tree.
fn profile_providers(bin: &Path, work: &Path) -> Result<BTreeMap<String, Vec<String>>> {
    let empty = work.join("empty");
    fs::create_dir_all(&empty)?;
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(root().join("crates/settings/config/profiles"))? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let Some(profile) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let doc = providers_json(&command(bin), profile, &empty)?;
        let ids = doc["providers"]
            .as_array()
            .context("providers --json has no providers")?
            .iter()
            .filter_map(|p| p["id"].as_str().map(str::to_owned))
            .collect();
        out.insert(profile.to_owned(), ids);
    }
    Ok(out)
}

fn providers_json(cmd: &Command, profile: &str, tree: &Path) -> Result<Value> {
    let mut cmd = command(cmd.get_program());
    let out = cmd
        .args(["--profile", profile, "--home"])
        .arg(tree)
        .arg("--cwd")
        .arg(tree)
        .args(["providers", "--json"])
        .current_dir(tree)
        .env_clear()
        .env("HOME", tree)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    ensure!(
        out.status.success(),
        "providers --json failed for profile {profile}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// In plugin mode, `providers` must list the profile's providers, in the
/// same order, every one with origin `plugin`.
fn check_providers_are_plugins(
    mode: &Mode,
    profiles: &BTreeMap<String, Vec<String>>,
    work: &Path,
) -> Result<()> {
    let empty = work.join("empty");
    for (profile, ids) in profiles {
        let doc = providers_json(&command(&mode.wrapper), profile, &empty)?;
        let listed: Vec<(String, String)> = doc["providers"]
            .as_array()
            .context("providers --json has no providers")?
            .iter()
            .map(|p| {
                (
                    p["id"].as_str().unwrap_or_default().to_owned(),
                    p["origin"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        let expected: Vec<(String, String)> = ids
            .iter()
            .map(|id| (id.clone(), "plugin".to_owned()))
            .collect();
        ensure!(
            listed == expected,
            "profile {profile}: with plugins, `providers` lists {listed:?}, expected {expected:?}"
        );
        println!(
            "{profile:<10} providers: {} of {} loaded as plugins (origin plugin): {}",
            listed.len(),
            ids.len(),
            ids.join(", ")
        );
    }
    Ok(())
}

/// A way of running `skillpipe`: a wrapper script and its invocation log.
struct Mode {
    name: &'static str,
    wrapper: PathBuf,
    log: PathBuf,
}

impl Mode {
    fn new(
        name: &'static str,
        work: &Path,
        bin: &Path,
        plugins: Option<&BTreeMap<String, PathBuf>>,
        profiles: &BTreeMap<String, Vec<String>>,
    ) -> Result<Mode> {
        let wrapper = work.join(format!("skillpipe-{name}"));
        let log = work.join(format!("{name}.jsonl"));
        fs::write(
            &wrapper,
            wrapper_script(name, bin, &log, plugins, profiles)?,
        )?;
        make_executable(&wrapper)?;
        Ok(Mode { name, wrapper, log })
    }

    fn run_corpus(&self, shared: &Path, cases: &Path, filter: &str) -> Result<Verdicts> {
        let out = command("python3")
            .arg(shared.join("run.py"))
            .arg("--bin")
            .arg(&self.wrapper)
            .arg("--cases")
            .arg(cases)
            .args(["--filter", filter, "-v"])
            .current_dir(root())
            .output()
            .context("cannot run python3")?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            text.lines()
                .any(|l| l.ends_with(" failed") && l.contains(" passed, ")),
            "{} mode: run.py did not finish:\n{text}\n{}",
            self.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let mut runs = BTreeMap::new();
        for line in text.lines() {
            if let Some(label) = line.strip_prefix("ok   ") {
                runs.insert(label.to_owned(), None);
            } else if let Some(rest) = line.strip_prefix("FAIL ") {
                let (label, reason) = rest.split_once(": ").unwrap_or((rest, ""));
                runs.insert(label.to_owned(), Some(reason.to_owned()));
            }
        }
        Ok(Verdicts { runs })
    }

    fn clear_log(&self) -> Result<()> {
        match fs::remove_file(&self.log) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    fn log(&self) -> Result<Vec<Invocation>> {
        let text = match fs::read_to_string(&self.log) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).context(format!("cannot read {}", self.log.display())),
        };
        text.lines()
            .map(|l| Invocation::parse(l, self.name == "plugins"))
            .collect()
    }
}

/// [`WRAPPER`] filled in for one mode.
fn wrapper_script(
    name: &str,
    bin: &Path,
    log: &Path,
    plugins: Option<&BTreeMap<String, PathBuf>>,
    profiles: &BTreeMap<String, Vec<String>>,
) -> Result<String> {
    let plugins_json = match plugins {
        Some(p) => serde_json::to_string(p)?,
        None => "null".to_owned(),
    };
    // Each constant is a JSON document inside a JSON string literal,
    // which Python reads as a string literal too.
    let literal = |json: String| serde_json::to_string(&json);
    Ok(WRAPPER
        .replace("@MODE@", name)
        .replace("\"@BIN@\"", &literal(serde_json::to_string(bin)?)?)
        .replace("\"@LOG@\"", &literal(serde_json::to_string(log)?)?)
        .replace("\"@PLUGINS@\"", &literal(plugins_json)?)
        .replace(
            "\"@PROFILES@\"",
            &literal(serde_json::to_string(profiles)?)?,
        ))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

/// Per run label (`case` or `case run N [args]`): `None` passed, `Some(reason)` failed.
struct Verdicts {
    runs: BTreeMap<String, Option<String>>,
}

impl Verdicts {
    fn passed(&self) -> usize {
        self.runs.values().filter(|v| v.is_none()).count()
    }
    fn failed(&self) -> usize {
        self.runs.len() - self.passed()
    }
}

fn compare_verdicts(a: &Verdicts, b: &Verdicts) -> Vec<String> {
    let mut out = Vec::new();
    for (label, va) in &a.runs {
        match b.runs.get(label) {
            None => out.push(format!("{label}: not run with plugins")),
            Some(vb) if vb != va => out.push(format!(
                "{label}: built-in {}, plugins {}",
                verdict(va),
                verdict(vb)
            )),
            Some(_) => {}
        }
    }
    for label in b.runs.keys().filter(|l| !a.runs.contains_key(*l)) {
        out.push(format!("{label}: run only with plugins"));
    }
    out
}

fn verdict(v: &Option<String>) -> String {
    match v {
        None => "passed".to_owned(),
        Some(reason) => format!("failed ({reason})"),
    }
}

/// One recorded `skillpipe` run, with the case's temporary tree replaced by
/// `$TREE` everywhere.
#[derive(Debug, PartialEq)]
struct Invocation {
    args: Vec<String>,
    exit: i64,
    stdout: String,
    stderr: String,
}

impl Invocation {
    fn parse(line: &str, plugin_mode: bool) -> Result<Invocation> {
        let v: Value = serde_json::from_str(line).context("a bad log line")?;
        let tree = v["tree"].as_str().unwrap_or_default().to_owned();
        let norm = |s: &str| {
            if tree.is_empty() {
                s.to_owned()
            } else {
                s.replace(&tree, "$TREE")
            }
        };
        let args = v["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(norm)
            .collect();
        let mut stdout = norm(v["stdout"].as_str().unwrap_or_default());
        if plugin_mode {
            stdout = builtin_origin(&stdout);
        }
        Ok(Invocation {
            args,
            exit: v["exit"].as_i64().unwrap_or(-1),
            stdout,
            stderr: norm(v["stderr"].as_str().unwrap_or_default()),
        })
    }
}

/// `providers` output with every `origin` of `plugin` written as `builtin`:
/// the one intended difference (checked on its own, and by the mirrored
/// corpus), set aside so the rest of the output can be compared exactly.
fn builtin_origin(stdout: &str) -> String {
    if let Ok(mut doc) = serde_json::from_str::<Value>(stdout) {
        if let Some(list) = doc.get_mut("providers").and_then(Value::as_array_mut) {
            for p in list {
                if p["origin"] == "plugin" {
                    p["origin"] = Value::from("builtin");
                }
            }
            let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            text.push('\n');
            return text;
        }
        return stdout.to_owned();
    }
    stdout
        .lines()
        .map(|l| {
            if l.contains(") priority ") {
                l.replacen(", plugin", ", builtin", 1)
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if stdout.ends_with('\n') { "\n" } else { "" }
}

fn compare_invocations(a: &[Invocation], b: &[Invocation]) -> Vec<String> {
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!(
            "{} invocations with built-ins, {} with plugins",
            a.len(),
            b.len()
        ));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let what = format!("invocation {} [{}]", i + 1, x.args.join(" "));
        if x.args != y.args {
            out.push(format!("{what}: the runs are out of step ({:?})", y.args));
            break;
        }
        if x.exit != y.exit {
            out.push(format!(
                "{what}: exit {} with built-ins, {} with plugins",
                x.exit, y.exit
            ));
        }
        if x.stdout != y.stdout {
            out.push(format!(
                "{what}: stdout differs: {}",
                first_difference(&x.stdout, &y.stdout)
            ));
        }
        if x.stderr != y.stderr {
            out.push(format!(
                "{what}: stderr differs: {}",
                first_difference(&x.stderr, &y.stderr)
            ));
        }
    }
    out
}

fn first_difference(a: &str, b: &str) -> String {
    let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
    match line {
        Some(n) => format!(
            "line {}: {:?} vs {:?}",
            n + 1,
            a.lines().nth(n).unwrap_or_default(),
            b.lines().nth(n).unwrap_or_default()
        ),
        None => format!("{} vs {} lines", a.lines().count(), b.lines().count()),
    }
}

/// Skills per provider over every `list --json` run of a mode.
fn counts(log: &[Invocation]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for inv in log {
        if !(inv.args.iter().any(|a| a == "list") && inv.args.iter().any(|a| a == "--json")) {
            continue;
        }
        let Ok(doc) = serde_json::from_str::<Value>(&inv.stdout) else {
            continue;
        };
        for skill in doc["skills"].as_array().into_iter().flatten() {
            let provider = skill["source"]["provider"].as_str().unwrap_or("?");
            *counts.entry(provider.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

fn print_counts(a: &[Invocation], b: &[Invocation]) {
    let (ca, cb) = (counts(a), counts(b));
    let mut ids: Vec<&String> = ca.keys().chain(cb.keys()).collect();
    ids.sort();
    ids.dedup();
    println!("skills per provider over every `list --json` run:");
    println!("  {:<16} {:>8} {:>8}", "provider", "built-in", "plugins");
    for id in ids {
        let (x, y) = (
            ca.get(id).copied().unwrap_or(0),
            cb.get(id).copied().unwrap_or(0),
        );
        let mark = if x == y { "" } else { "   <- differs" };
        println!("  {id:<16} {x:>8} {y:>8}{mark}");
    }
    println!(
        "  {:<16} {:>8} {:>8}",
        "total",
        ca.values().sum::<usize>(),
        cb.values().sum::<usize>()
    );
}

/// A mirror of the selected cases under `dest/conformance/cases`: every
/// entry a symlink to the original, except expected `providers` documents,
/// rewritten to say `"origin": "plugin"`. `dest/corpus` points at the
/// shared corpus so that `[copy]` sources (`../../../corpus/…`) resolve.
fn mirror_cases(cases: &Path, dest: &Path, filters: &[String]) -> Result<PathBuf> {
    let out = dest.join("conformance/cases");
    fs::create_dir_all(&out)?;
    if let Some(shared) = cases.parent().and_then(Path::parent) {
        let corpus = shared.join("corpus");
        if corpus.exists() {
            symlink(&corpus, &dest.join("corpus"))?;
        }
    }
    for entry in fs::read_dir(cases)? {
        let case = entry?.path();
        let Some(name) = case.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !filters.iter().any(|f| name.starts_with(f.as_str()))
            || !case.join("case.toml").is_file()
        {
            continue;
        }
        let mirror = out.join(name);
        fs::create_dir_all(&mirror)?;
        for item in fs::read_dir(&case)? {
            let item = item?.path();
            let Some(file) = item.file_name() else {
                continue;
            };
            let target = mirror.join(file);
            match plugin_expectation(&item) {
                Some(text) => fs::write(&target, text)?,
                None => symlink(&item, &target)?,
            }
        }
    }
    Ok(out)
}

/// An expected `.json` document listing providers, with their origin set to
/// `plugin`; `None` for every other file.
fn plugin_expectation(path: &Path) -> Option<String> {
    if path.extension().and_then(|e| e.to_str()) != Some("json") {
        return None;
    }
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(path).ok()?).ok()?;
    let list = doc.get_mut("providers")?.as_array_mut()?;
    let mut changed = false;
    for p in list {
        if p.get("origin").is_some_and(|o| o == "builtin") {
            p["origin"] = Value::from("plugin");
            changed = true;
        }
    }
    changed.then(|| serde_json::to_string_pretty(&doc).unwrap_or_default())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .with_context(|| format!("cannot link {} -> {}", link.display(), target.display()))
}

#[cfg(not(unix))]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    if target.is_dir() {
        bail!(
            "cannot mirror directory {} without symlinks",
            target.display()
        );
    }
    fs::copy(target, link)?;
    Ok(())
}

/// The `--bin` given to run.py: runs `skillpipe` (in plugin mode with every
/// built-in replaced by its plugin) and records the invocation. A template:
/// `@MODE@` is the mode's name, and each `"@NAME@"` (a string in the file, so
/// the file itself is valid Python) becomes a JSON document in a string
/// literal (see `Mode::new`).
const WRAPPER: &str = include_str!("../scripts/conformance-wrapper.py");

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    /// Every placeholder is filled, each constant a JSON document in a
    /// string literal that Python's `json.loads` reads back.
    #[test]
    fn the_wrapper_is_the_template_with_every_placeholder_filled() {
        let plugins = BTreeMap::from([("claude".to_owned(), PathBuf::from("/t/libclaude.so"))]);
        let profiles = BTreeMap::from([("pi".to_owned(), vec!["claude".to_owned()])]);
        let script = super::wrapper_script(
            "plugins",
            Path::new("/t/skillpipe"),
            Path::new("/t/plugins.jsonl"),
            Some(&plugins),
            &profiles,
        )
        .unwrap();
        assert!(!script.contains('@'), "{script}");
        for line in [
            "# Generated by `cargo xtask conformance --plugins` (plugins mode): runs",
            r#"BIN = json.loads("\"/t/skillpipe\"")"#,
            r#"LOG = json.loads("\"/t/plugins.jsonl\"")"#,
            r#"PLUGINS = json.loads("{\"claude\":\"/t/libclaude.so\"}")"#,
            r#"PROFILES = json.loads("{\"pi\":[\"claude\"]}")"#,
        ] {
            assert!(script.lines().any(|l| l == line), "no line {line}");
        }
        let builtin = super::wrapper_script(
            "builtin",
            Path::new("/t/skillpipe"),
            Path::new("/t/builtin.jsonl"),
            None,
            &profiles,
        )
        .unwrap();
        assert!(
            builtin
                .lines()
                .any(|l| l == r#"PLUGINS = json.loads("null")"#)
        );
    }
}
