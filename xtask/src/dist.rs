//! `cargo xtask dist [--only cli|python|npm]...`: builds what a release
//! ships into `target/dist/`, and checks each artefact by installing it as
//! a user would, in a fresh temporary directory, with no `cargo` or `rustc`
//! on `PATH`:
//!
//! - **cli**: `skillpipe-<version>-x86_64-unknown-linux-gnu.tar.gz`, the
//!   binary built with the `dist` profile (fat LTO, one codegen unit,
//!   stripped), its man page, the bash/zsh/fish completions, the README,
//!   the changelog and the licences; its size and start-up time are printed
//!   against the `release` build's. Checked: unpacked, `--version` and
//!   `list --json` on a one-skill home.
//! - **python**: the abi3 wheel (maturin, `--auditwheel repair`: checked
//!   and tagged for the oldest manylinux it fits). Checked: installed with
//!   pip into a fresh virtual environment, imported, one discovery.
//! - **npm**: the napi-rs layout as `npm pack` tarballs: `skillpipe` (the
//!   JS loader and types, no binary; `optionalDependencies` on the
//!   per-platform packages) and `skillpipe-linux-x64-gnu` (the add-on).
//!   Checked: both installed into an empty project, a `discover()` there.
//!
//! - **crates**: `cargo package` of every crate a Rust host or a plugin
//!   author depends on (those with `publish = true`), in dependency order,
//!   each verified by building it from its packaged sources against the
//!   others'; checked that no packaged dependency is left without a
//!   version (a path-only one), and that the documentation's host program
//!   ("Using the library") builds and runs in a crate of its own that
//!   depends on `skillpipe` by version, patched to the packaged sources.
//!
//! The builds use their own target dir (`target/dist-build`), so a dist
//! never disturbs the development builds; every artefact is written
//! afresh. Linux x86_64 only: the other platforms' recipes are in
//! `bindings/node/npm/README.md`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::{cargo, command, root, run_cmd};

const TRIPLE: &str = "x86_64-unknown-linux-gnu";
/// The npm package of this platform (napi-rs's naming).
const NPM_PLATFORM: &str = "skillpipe-linux-x64-gnu";
/// What the Python check installs from PyPI.
const MATURIN: &str = "maturin==1.16.0";

/// Every platform the npm package declares, as napi-rs names them; this
/// machine builds the first (the recipes for the others are in
/// `bindings/node/npm/README.md`).
const NPM_PLATFORMS: [&str; 5] = [
    "linux-x64-gnu",
    "linux-arm64-gnu",
    "darwin-arm64",
    "darwin-x64",
    "win32-x64-msvc",
];

const PARTS: [&str; 4] = ["cli", "python", "npm", "crates"];

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut only: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => {
                let part = it
                    .next()
                    .context("--only needs cli, python, npm or crates")?;
                let Some(p) = PARTS.iter().find(|p| **p == part) else {
                    bail!("unknown part `{part}` (cli, python, npm or crates)");
                };
                only.push(p);
            }
            other => {
                bail!("unknown argument `{other}` (cargo xtask dist [--only cli|python|npm]...)")
            }
        }
    }
    if only.is_empty() {
        only = PARTS.to_vec();
    }
    let dist = root().join("target/dist");
    if dist.exists() {
        fs::remove_dir_all(&dist)?;
    }
    fs::create_dir_all(&dist)?;
    let version = version()?;
    let mut made: Vec<(PathBuf, String)> = Vec::new();
    for part in only {
        println!("== dist: {part}");
        match part {
            "cli" => made.push(cli(&dist, &version)?),
            "python" => made.push(python(&dist)?),
            "npm" => made.extend(npm(&dist, &version)?),
            _ => made.extend(crates(&dist)?),
        }
    }
    println!("== dist: target/dist/");
    for (file, check) in &made {
        let size = fs::metadata(file)?.len();
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("   {name:<58} {:>9}  {check}", human(size));
    }
    Ok(())
}

/// The workspace version (`[workspace.package] version`).
fn version() -> Result<String> {
    let toml = fs::read_to_string(root().join("Cargo.toml"))?;
    let line = toml
        .lines()
        .skip_while(|l| l.trim() != "[workspace.package]")
        .find(|l| l.trim_start().starts_with("version"))
        .context("no version in [workspace.package]")?;
    Ok(line
        .split('"')
        .nth(1)
        .context("version = \"…\"")?
        .to_owned())
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
    } else {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    }
}

fn build_dir() -> PathBuf {
    root().join("target/dist-build")
}

/// A cargo build with the `dist` profile in the dist target dir.
fn cargo_dist(args: &[&str]) -> Result<()> {
    run_cmd(
        command(cargo())
            .args(["build", "--profile", "dist", "--locked"])
            .args(args)
            .env("CARGO_TARGET_DIR", build_dir()),
    )
}

/// `PATH` for the install checks, as on a machine without a Rust
/// toolchain: the directories holding only Rust's tools (`~/.cargo/bin`)
/// left out, and, first, one where `cargo`, `rustc` and `rustup` are stubs
/// that fail loudly (Debian puts its `cargo` in `/usr/bin`, beside
/// `node` and `python3`, which the checks need).
fn path_without_rust() -> Result<std::ffi::OsString> {
    let stubs = build_dir().join("check/no-rust");
    fs::create_dir_all(&stubs)?;
    for tool in ["cargo", "rustc", "rustup"] {
        let file = stubs.join(tool);
        fs::write(
            &file,
            format!(
                "#!/bin/sh\necho \"{tool}: not available in an install check\" >&2\nexit 127\n"
            ),
        )?;
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&file, fs::Permissions::from_mode(0o755))?;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&path).filter(|d| {
        let rust_only =
            d.join("cargo").exists() && !d.join("sh").exists() && !d.join("node").exists();
        !rust_only
    });
    Ok(std::env::join_paths(std::iter::once(stubs).chain(kept))?)
}

/// A program run in `dir` with the toolchain off `PATH`; its stdout.
fn bare(program: impl AsRef<std::ffi::OsStr>, dir: &Path, args: &[&str]) -> Result<String> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", path_without_rust()?)
        .env("HOME", dir.join("home"))
        .stderr(Stdio::inherit());
    for var in [
        "CARGO",
        "RUSTC",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{:?} {args:?} failed with {}",
            cmd.get_program(),
            out.status
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A fresh scratch directory for an install check, with a home holding
/// one skill (`dist-check`).
fn scratch(name: &str) -> Result<PathBuf> {
    let dir = build_dir().join("check").join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    let skill = dir.join("home/.claude/skills/dist-check");
    fs::create_dir_all(&skill)?;
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: dist-check\ndescription: The install check's skill.\n---\nBody.\n",
    )?;
    fs::create_dir_all(dir.join("project"))?;
    Ok(dir)
}

// ---------------------------------------------------------------------------
// The CLI.

fn cli(dist: &Path, version: &str) -> Result<(PathBuf, String)> {
    cargo_dist(&["-p", "skillpipe-cli"])?;
    let bin = build_dir().join("dist/skillpipe");
    // Today's build, to compare with.
    run_cmd(command(cargo()).args(["build", "--release", "-p", "skillpipe-cli"]))?;
    let release = root().join("target/release/skillpipe");
    let (size_r, size_d) = (fs::metadata(&release)?.len(), fs::metadata(&bin)?.len());
    let (start_r, start_d) = (start_up(&release)?, start_up(&bin)?);
    println!(
        "cli: dist profile {} against release {} ({:.0}%); start-up (`--version`, median of 50) {start_d:.2} ms against {start_r:.2} ms",
        human(size_d),
        human(size_r),
        100.0 * size_d as f64 / size_r as f64
    );

    let name = format!("skillpipe-{version}-{TRIPLE}");
    let stage = build_dir().join("stage").join(&name);
    if stage.exists() {
        fs::remove_dir_all(&stage)?;
    }
    fs::create_dir_all(stage.join("complete"))?;
    fs::copy(&bin, stage.join("skillpipe"))?;
    run_cmd(Command::new(&bin).arg("man").arg(stage.join("man")))?;
    for (shell, file) in [
        ("bash", "skillpipe.bash"),
        ("zsh", "_skillpipe"),
        ("fish", "skillpipe.fish"),
    ] {
        let out = Command::new(&bin).args(["completions", shell]).output()?;
        if !out.status.success() {
            bail!("skillpipe completions {shell} failed");
        }
        fs::write(stage.join("complete").join(file), out.stdout)?;
    }
    for doc in ["README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        fs::copy(root().join(doc), stage.join(doc))?;
    }
    let tarball = dist.join(format!("{name}.tar.gz"));
    run_cmd(
        Command::new("tar")
            .arg("-czf")
            .arg(&tarball)
            .arg("-C")
            .arg(stage.parent().context("stage dir")?)
            .arg(&name),
    )?;

    // Installed as a user would: unpacked, run from where it landed.
    let check = scratch("cli")?;
    run_cmd(
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&check),
    )?;
    let exe = check.join(&name).join("skillpipe");
    let shown = bare(&exe, &check, &["--version"])?;
    if !shown.contains(version) {
        bail!("`skillpipe --version` printed {shown:?}");
    }
    let home = check.join("home").to_string_lossy().into_owned();
    let cwd = check.join("project").to_string_lossy().into_owned();
    let list = bare(
        &exe,
        &check,
        &["--home", &home, "--cwd", &cwd, "list", "--json"],
    )?;
    if !list.contains("\"dist-check\"") {
        bail!("the unpacked CLI did not list the check's skill: {list}");
    }
    if !fs::read_to_string(check.join(&name).join("man/skillpipe.1"))?.starts_with(".ie") {
        // clap_mangen's pages open with the roff prelude.
        println!("note: the man page opens differently than clap_mangen's usual prelude");
    }
    Ok((
        tarball,
        "unpacked; --version and list --json ran without cargo".to_owned(),
    ))
}

/// The median of 50 runs of `bin --version`, in milliseconds.
fn start_up(bin: &Path) -> Result<f64> {
    let mut times = Vec::with_capacity(50);
    for _ in 0..50 {
        let t = Instant::now();
        let status = Command::new(bin)
            .arg("--version")
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("{} --version failed", bin.display());
        }
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(crate::bench::stats::median(&mut times))
}

// ---------------------------------------------------------------------------
// Python.

fn python(dist: &Path) -> Result<(PathBuf, String)> {
    let venv = build_dir().join("py-build");
    if !venv.join("bin/maturin").is_file() {
        run_cmd(command("python3").args(["-m", "venv"]).arg(&venv))?;
        crate::pip_install(&venv.join("bin/python"), [MATURIN])?;
    }
    run_cmd(
        command(venv.join("bin/maturin"))
            .args([
                "build",
                "--profile",
                "dist",
                "--locked",
                "--auditwheel",
                "repair",
            ])
            .arg("--interpreter")
            .arg(venv.join("bin/python"))
            .arg("--out")
            .arg(dist)
            .current_dir(root().join("bindings/python"))
            .env("CARGO_TARGET_DIR", build_dir()),
    )?;
    let wheel = crate::wheel_in(dist)?;

    let check = scratch("python")?;
    run_cmd(
        command("python3")
            .args(["-m", "venv"])
            .arg(check.join("venv")),
    )?;
    let py = check.join("venv/bin/python");
    let wheel_arg = wheel.to_string_lossy().into_owned();
    bare(
        &py,
        &check,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &wheel_arg,
        ],
    )?;
    let script = format!(
        "import skillpipe; d = skillpipe.Skillpipe(home={home:?}, cwd={cwd:?}, env={{}}).discover(); \
         assert [s.name for s in d.skills] == ['dist-check'], d.skills; print(skillpipe.__file__)",
        home = check.join("home").to_string_lossy(),
        cwd = check.join("project").to_string_lossy(),
    );
    let at = bare(&py, &check, &["-c", &script])?;
    if !at.trim().starts_with(&check.to_string_lossy().into_owned()) {
        bail!("imported skillpipe from {at:?}, not the fresh environment");
    }
    Ok((
        wheel,
        "pip-installed in a fresh venv; imported, discovered without cargo".to_owned(),
    ))
}

// ---------------------------------------------------------------------------
// npm.

fn npm(dist: &Path, version: &str) -> Result<Vec<(PathBuf, String)>> {
    cargo_dist(&["-p", "skillpipe-node"])?;
    let addon = build_dir().join("dist/libskillpipe_node.so");
    let node = root().join("bindings/node");
    let stage = build_dir().join("npm");
    if stage.exists() {
        fs::remove_dir_all(&stage)?;
    }
    // The platform package: the add-on alone.
    let platform = stage.join(NPM_PLATFORM);
    fs::create_dir_all(&platform)?;
    fs::copy(&addon, platform.join("skillpipe.linux-x64-gnu.node"))?;
    fs::write(
        platform.join("package.json"),
        serde_json::to_string_pretty(&serde_json::json!({
            "name": NPM_PLATFORM,
            "version": version,
            "description": "The skillpipe add-on for Linux x64 (glibc); installed by the skillpipe package.",
            "license": "MIT OR Apache-2.0",
            "main": "skillpipe.linux-x64-gnu.node",
            "files": ["skillpipe.linux-x64-gnu.node"],
            "os": ["linux"],
            "cpu": ["x64"],
            "libc": ["glibc"],
            "engines": { "node": ">=20" },
        }))?,
    )?;
    // The main package: loader and types, no binary.
    let main = stage.join("skillpipe");
    fs::create_dir_all(&main)?;
    for file in ["index.js", "index.d.ts"] {
        fs::copy(node.join(file), main.join(file))?;
    }
    for doc in ["LICENSE-MIT", "LICENSE-APACHE"] {
        fs::copy(root().join(doc), main.join(doc))?;
    }
    fs::copy(node.join("npm/README.md"), main.join("README.md"))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(node.join("package.json"))?)?;
    let optional: serde_json::Map<String, serde_json::Value> = NPM_PLATFORMS
        .iter()
        .map(|p| (format!("skillpipe-{p}"), serde_json::json!(version)))
        .collect();
    fs::write(
        main.join("package.json"),
        serde_json::to_string_pretty(&serde_json::json!({
            "name": "skillpipe",
            "version": version,
            "description": manifest["description"],
            "license": manifest["license"],
            "main": "index.js",
            "types": "index.d.ts",
            "files": ["index.js", "index.d.ts"],
            "engines": manifest["engines"],
            "optionalDependencies": optional,
        }))?,
    )?;
    let mut packed = Vec::new();
    for dir in [&platform, &main] {
        let out = command("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(dist)
            .current_dir(dir)
            .output()?;
        if !out.status.success() {
            bail!("npm pack failed in {}", dir.display());
        }
        let file = String::from_utf8_lossy(&out.stdout)
            .trim()
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned();
        packed.push(dist.join(file));
    }

    // Installed into an empty project from the two tarballs.
    let check = scratch("npm")?;
    let project = check.join("app");
    fs::create_dir_all(&project)?;
    fs::write(
        project.join("package.json"),
        r#"{"name": "dist-check", "private": true}"#,
    )?;
    let mut args = vec!["install", "--no-audit", "--no-fund", "--loglevel=error"];
    let tarballs: Vec<String> = packed
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    args.extend(tarballs.iter().map(String::as_str));
    bare("npm", &project, &args)?;
    let script = format!(
        "const sp = require('skillpipe'); const d = sp.discover({{ home: {home:?}, cwd: {cwd:?}, env: {{}} }}); \
         if (d.skills.map(s => s.name).join() !== 'dist-check') throw new Error(JSON.stringify(d)); \
         console.log(require.resolve('skillpipe'));",
        home = check.join("home").to_string_lossy(),
        cwd = check.join("project").to_string_lossy(),
    );
    bare("node", &project, &["-e", &script])?;
    let check = "npm-installed together into an empty project; discover() ran without cargo";
    Ok(packed.into_iter().map(|p| (p, check.to_owned())).collect())
}

// ---------------------------------------------------------------------------
// Crates.

/// The workspace's crates with `publish = true`, from `cargo metadata`.
fn published() -> Result<Vec<String>> {
    let out = command(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()?;
    if !out.status.success() {
        bail!("cargo metadata failed");
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let mut names: Vec<String> = doc["packages"]
        .as_array()
        .context("packages")?
        .iter()
        // `publish`: null for any registry, [] for none.
        .filter(|p| p["publish"].is_null())
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}

fn crates(dist: &Path) -> Result<Vec<(PathBuf, String)>> {
    let names = published()?;
    forget_earlier_packages(&names)?;
    let mut cmd = command(cargo());
    cmd.args(["package", "--locked", "--allow-dirty"])
        .env("CARGO_TARGET_DIR", build_dir());
    for n in &names {
        cmd.arg("-p").arg(n);
    }
    run_cmd(&mut cmd)?;
    let packaged = build_dir().join("package");
    let out = dist.join("crates");
    fs::create_dir_all(&out)?;
    let mut made = Vec::new();
    for entry in fs::read_dir(&packaged)? {
        let path = entry?.path();
        let Some(file) = path.file_name().map(|f| f.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(stem) = file.strip_suffix(".crate") else {
            continue;
        };
        let Some(name) = names.iter().find(|n| {
            stem.strip_prefix(n.as_str())
                .and_then(|v| v.strip_prefix('-'))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        }) else {
            continue;
        };
        let manifest = fs::read_to_string(packaged.join(stem).join("Cargo.toml"))?;
        if let Some(dep) = path_only_dependency(&manifest) {
            bail!("{name}: the packaged dependency `{dep}` has no version");
        }
        let dest = out.join(&file);
        fs::copy(&path, &dest)?;
        made.push((dest, "packaged and built from its own sources".to_owned()));
    }
    if made.len() != names.len() {
        bail!("{} crates to package, {} packaged", names.len(), made.len());
    }
    made.sort();
    facade_example(&packaged, &names)?;
    Ok(made)
}

/// The host program of the documentation ("Using the library"), built and
/// run as a crate outside the workspace that depends on `skillpipe` by
/// version, every workspace crate patched to its packaged sources (what
/// crates.io would serve), the workspace's lock file copied so that the
/// third-party versions are those tested. It proves that the published
/// crates are complete enough for the documented example.
fn facade_example(packaged: &Path, names: &[String]) -> Result<()> {
    let version = version()?;
    let program = unhide(&host_example()?);
    let dir = build_dir().join("check/facade-example");
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(dir.join("src"))?;
    let mut manifest = format!(
        "[package]\nname = \"facade-example\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nskillpipe = \"={version}\"\ntempfile = \"3\"\n\n[patch.crates-io]\n"
    );
    for name in names {
        let src = packaged.join(format!("{name}-{version}"));
        if !src.join("Cargo.toml").is_file() {
            bail!("no packaged sources at {}", src.display());
        }
        manifest.push_str(&format!(
            "{name} = {{ path = {:?} }}\n",
            src.display().to_string()
        ));
    }
    manifest.push_str("\n[workspace]\n");
    fs::write(dir.join("Cargo.toml"), manifest)?;
    fs::write(dir.join("src/main.rs"), program)?;
    fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock"))?;
    println!("-- the documented host program against the packaged crates");
    run_cmd(
        command(cargo())
            .args(["run", "--quiet"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", build_dir().join("facade-example")),
    )
}

/// The documentation's host program: the first Rust block, in the README
/// or the guide (`docs/src`), that builds a `Skillpipe` for a home and
/// resolves a `skill://` URL (what `tests/readme.rs` also looks for).
fn host_example() -> Result<String> {
    let mut texts = vec![root().join("README.md")];
    if let Ok(entries) = fs::read_dir(root().join("docs/src")) {
        let mut pages: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        pages.sort();
        texts.extend(
            pages
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    for file in texts {
        let text = fs::read_to_string(&file)?;
        for block in text.split("```rust\n").skip(1) {
            let Some((code, _)) = block.split_once("```\n") else {
                continue;
            };
            if code.contains("Skillpipe::builder")
                && code.contains(".home(&home)")
                && code.contains("found.resolve(")
            {
                return Ok(code.to_owned());
            }
        }
    }
    bail!(
        "no host program (a Rust block with Skillpipe::builder, .home(&home) and found.resolve) in README.md or docs/src"
    )
}

/// A doctest's text as a program: rustdoc's hidden lines (`# code`, a
/// lone `#`) shown; `##` at a line's start stands for a literal `#`.
fn unhide(doctest: &str) -> String {
    doctest
        .lines()
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            let (lead, rest) = line.split_at(indent);
            if rest == "#" {
                String::new()
            } else if let Some(code) = rest.strip_prefix("# ") {
                format!("{lead}{code}")
            } else if let Some(code) = rest.strip_prefix("##") {
                format!("{lead}#{code}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Removes what an earlier `cargo package` of these crates left in
/// cargo's home: it verifies each crate against the others through a
/// temporary registry, and cargo extracts a registry crate once per name
/// and version (`registry/src/*/NAME-VERSION`), taking the extraction as
/// immutable; without this, a second dist of the same version verifies
/// against the first one's sources. None of these crates comes from a
/// real registry (the workspace builds them from its paths).
fn forget_earlier_packages(names: &[String]) -> Result<()> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let version = version()?;
    for kind in ["src", "cache"] {
        let Ok(registries) = fs::read_dir(home.join("registry").join(kind)) else {
            continue;
        };
        for registry in registries.filter_map(|e| e.ok().map(|e| e.path())) {
            for name in names {
                let dir = registry.join(format!("{name}-{version}"));
                let file = registry.join(format!("{name}-{version}.crate"));
                if dir.is_dir() {
                    fs::remove_dir_all(&dir)?;
                }
                if file.is_file() {
                    fs::remove_file(&file)?;
                }
            }
        }
    }
    Ok(())
}

/// The first dependency of a packaged (normalised) manifest that has no
/// `version`: every `[…dependencies.NAME]` table must have one.
fn path_only_dependency(manifest: &str) -> Option<String> {
    let mut current: Option<(String, bool)> = None;
    let mut missing = None;
    for line in manifest.lines().chain(std::iter::once("[end]")) {
        let line = line.trim();
        if line.starts_with('[') {
            if let Some((dep, false)) = current.take() {
                missing.get_or_insert(dep);
            }
            let table = line.trim_matches(|c| c == '[' || c == ']');
            current = table
                .split_once("dependencies.")
                .map(|(_, dep)| (dep.trim_matches('"').to_owned(), false));
        } else if line.starts_with("version =")
            && let Some((_, has)) = current.as_mut()
        {
            *has = true;
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::{path_only_dependency, unhide};

    #[test]
    fn a_doctest_s_hidden_lines_are_shown() {
        let doctest =
            "use a::B;\n# fn main() {\n    # let x = 1;\n#\nlet y = x;\n##[derive(Debug)]\n# }\n";
        assert_eq!(
            unhide(doctest),
            "use a::B;\nfn main() {\n    let x = 1;\n\nlet y = x;\n#[derive(Debug)]\n}\n"
        );
    }

    #[test]
    fn a_packaged_dependency_without_a_version_is_found() {
        let ok = "[package]\nname = \"a\"\n[dependencies.b]\nversion = \"0.1.0\"\n[dev-dependencies.c]\nversion = \"1\"\n";
        assert_eq!(path_only_dependency(ok), None);
        let bad = "[dependencies.b]\nversion = \"0.1.0\"\n[target.'cfg(unix)'.dependencies.d]\npath = \"../d\"\n";
        assert_eq!(path_only_dependency(bad).as_deref(), Some("d"));
    }
}
