//! `skillpipe`: see what an agent sees, and why.
//!
//! This binary is a thin layer over the `skillpipe` library: it reads the
//! process environment (the only place that does), parses flags, and prints
//! what the library returns.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{CommandFactory, FromArgMatches};
use serde_json::{Value, json};
use skillpipe::{Contents, Delivery, Diagnostic, Discovery, ReadTool, Skill, Skillpipe};

use crate::args::{Cli, ColorWhen, Command, Global};
use crate::out::Failure;

mod args;
mod docs;
mod explain;
mod out;
mod output;
mod settings_cmd;
mod term;
mod validate;
mod watch;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = out::color_from_args(&args);
    out::init_color(color);
    let clap_color = match color {
        ColorWhen::Auto => clap::ColorChoice::Auto,
        ColorWhen::Always => clap::ColorChoice::Always,
        ColorWhen::Never => clap::ColorChoice::Never,
    };
    let parsed = Cli::command()
        .color(clap_color)
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let json = args.iter().any(|a| a == "--json");
            return out::clap_failure(&e, json);
        }
    };
    init_logging(&cli.global);
    let json = cli.command.json();
    let result = run(cli);
    out::finish(result, json)
}

/// Logging on stderr: `-v` info (each provider and root, the filters),
/// `-vv` debug (each file), `-vvv` trace, `-q` errors only; else the
/// `SKILLPIPE_LOG` directive (an `EnvFilter`, e.g. `skillpipe_core=debug`),
/// else warnings. `RUST_LOG` is the host's, not ours: it is not read.
fn init_logging(global: &Global) {
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::field::MakeExt as _;
    let flag = match (global.quiet, global.verbose) {
        (true, _) => Some("error"),
        (false, 0) => None,
        (false, 1) => Some("info"),
        (false, 2) => Some("debug"),
        (false, _) => Some("trace"),
    };
    let filter = match (flag, std::env::var("SKILLPIPE_LOG")) {
        (Some(level), _) => EnvFilter::new(level),
        (None, Ok(directive)) if !directive.trim().is_empty() => EnvFilter::try_new(&directive)
            .unwrap_or_else(|e| {
                out::say(
                    "warning",
                    &format!(
                        "SKILLPIPE_LOG={}: {e}; logging warnings only",
                        term::escape(&directive)
                    ),
                );
                EnvFilter::new("warn")
            }),
        (None, _) => EnvFilter::new("warn"),
    };
    // What the library logs names files, skills and settings: every field
    // (the message too, span fields too) is escaped as all terminal text
    // is, so a control byte in a path cannot reach the terminal.
    let fields = tracing_subscriber::fmt::format::debug_fn(|w, field, value| {
        let text = format!("{value:?}");
        let text = term::escape(&text);
        match field.name() {
            "message" => std::fmt::Write::write_str(w, &text),
            name => std::fmt::Write::write_fmt(w, format_args!("{name}={text}")),
        }
    })
    .delimited(" ");
    let _ = tracing_subscriber::fmt()
        .fmt_fields(fields)
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(out::stderr_colored())
        .with_target(false)
        .without_time()
        .try_init();
}

/// The library, configured from the flags and the process environment
/// (relative paths are relative to the process's working directory).
fn skillpipe(global: &Global, plugins: Plugins) -> anyhow::Result<Skillpipe> {
    // A directory given on the command line must be one: a typo never
    // silently shows an empty world.
    for (flag, dir) in [("--cwd", &global.cwd), ("--home", &global.home)] {
        if let Some(dir) = dir {
            given_dir(flag, dir)?;
        }
    }
    let profile = match &global.profile {
        Some(p) => p.clone(),
        None => std::env::var("SKILLPIPE_PROFILE").unwrap_or_else(|_| "musepi".to_owned()),
    };
    let mut b =
        Skillpipe::builder(profile.parse()?).skill_paths(global.skill.iter().map(PathBuf::from));
    if let Some(dir) = &global.app_dir {
        b = b.app_dir(dir);
    }
    if let Some(cwd) = &global.cwd {
        b = b.cwd(cwd);
    }
    if let Some(home) = &global.home {
        b = b.home(home);
    }
    for file in &global.config {
        b = b.config(file);
    }
    for set in &global.set {
        b = b.set(set);
    }
    if global.no_skills {
        b = b.no_skills();
    }
    match plugins {
        Plugins::Load => {
            for lib in &global.plugin {
                b = b.plugin(lib);
            }
        }
        Plugins::None => b = b.no_plugins(),
    }
    let skillpipe = b.build().map_err(build_failure)?;
    for w in skillpipe.warnings() {
        out::say(
            "warning",
            &format!("{}: {}", w.code, term::escape(&w.message)),
        );
    }
    Ok(skillpipe)
}

/// Checks that `dir` (relative to the process's working directory) is a
/// directory.
fn given_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    let shown = std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |c| c.join(dir));
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Failure::input(format!("{flag} {}: not a directory", shown.display())).into()),
        Err(e) => Err(Failure::input(format!(
            "{flag} {}: {}",
            shown.display(),
            if e.kind() == std::io::ErrorKind::NotFound {
                "no such directory".to_owned()
            } else {
                e.to_string()
            }
        ))
        .into()),
    }
}

/// What a failed build ends with: settings errors exit 2 as they are; a
/// `--plugin` that did not load exits 2 with the loader's reason.
fn build_failure(err: skillpipe::Error) -> anyhow::Error {
    match err {
        skillpipe::Error::Settings(e) => e.into(),
        skillpipe::Error::Plugin(reason) => Failure {
            code: "plugin",
            exit: 2,
            message: format!("--plugin {reason}"),
            bare: None,
        }
        .into(),
        other => Failure::input(other.to_string()).into(),
    }
}

/// Whether any flag that chooses what discovery sees was given.
fn names_a_world(g: &Global) -> bool {
    g.profile.is_some()
        || g.app_dir.is_some()
        || g.cwd.is_some()
        || g.home.is_some()
        || !g.config.is_empty()
        || !g.set.is_empty()
        || !g.plugin.is_empty()
        || !g.skill.is_empty()
        || g.no_skills
}

/// Whether a command needs the plugins (`trust` only edits settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plugins {
    Load,
    None,
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        // `validate` checks only the paths given: no settings, no home.
        // But a global flag given with it is checked as for any command,
        // so a typo in one exits 2 instead of being ignored.
        Command::Validate { paths, json } => {
            if names_a_world(&cli.global) {
                skillpipe(&cli.global, Plugins::Load)?;
            }
            return validate::command(paths, *json);
        }
        Command::Trust { dir } | Command::Untrust { dir } => {
            let add = matches!(cli.command, Command::Trust { .. });
            return trust(&cli.global, dir.as_ref(), add);
        }
        Command::Settings { json } => {
            let skillpipe = skillpipe(&cli.global, Plugins::None)?;
            return settings_cmd::command(skillpipe.settings(), *json);
        }
        Command::Completions { shell } => {
            docs::completions(*shell, &mut out::raw())?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man { dir } => {
            docs::man_pages(dir)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Watch { json } => {
            let skillpipe = skillpipe(&cli.global, Plugins::Load)?;
            return watch::command(&skillpipe, *json);
        }
        _ => {}
    }
    let skillpipe = skillpipe(&cli.global, Plugins::Load)?;
    let mut out = out::raw();
    match cli.command {
        Command::Explain { name, json } => return explain::command(&skillpipe, &name, json),
        Command::List {
            json,
            deny_warnings,
            all,
        } => {
            let found = match all {
                true => skillpipe.discover_all(),
                false => skillpipe.discover(),
            };
            let discovery = found.discovery();
            if json {
                // Streamed: the list is never copied into a JSON value or a
                // string (half the time and memory of `list` on 10k skills).
                let mut w = std::io::BufWriter::new(&mut out);
                let mut doc = ListJson::new(&skillpipe, discovery);
                if all {
                    doc.removed = Some(
                        explain::not_loaded(discovery)
                            .into_iter()
                            .map(explain::RemovedJson::new)
                            .collect(),
                    );
                }
                serde_json::to_writer_pretty(&mut w, &doc)?;
                writeln!(w)?;
                w.flush()?;
            } else {
                let fit = output::Fit::stdout(skillpipe.home());
                output::list_table(&mut out::styled(), discovery, &fit, all)?;
            }
            if deny_warnings && !discovery.diagnostics.is_empty() {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Providers { json } => {
            let list: Vec<Value> = skillpipe
                .providers()
                .map(|p| skillpipe::provider_json(&skillpipe, p))
                .collect();
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&json!({ "providers": list }))?
                )?;
            } else {
                output::providers_table(&mut out::styled(), &list)?;
            }
        }
        Command::Prompt {
            no_read_tool,
            budget,
            report,
            json,
        } => {
            let read_tool = match no_read_tool {
                true => ReadTool::Absent,
                false => ReadTool::Available,
            };
            let fitted = skillpipe.discover().fit_catalog(read_tool, budget);
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&fitted)?)?;
            } else {
                write!(out, "{}", fitted.text)?;
            }
            if report {
                output::catalog_report(&mut std::io::stderr().lock(), &fitted)?;
            } else if (fitted.cut_anything() || fitted.over_budget()) && !json {
                out::say(
                    "warning",
                    &format!("catalog-truncated: {}", term::escape(&fitted.summary())),
                );
            }
        }
        Command::Search { query, limit, json } => {
            let query = query.join(" ");
            let found = skillpipe.discover();
            let hits = found.search(&query, usize::try_from(limit).unwrap_or(usize::MAX));
            if json {
                let doc = json!({ "query": query, "results": hits });
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            } else if hits.is_empty() {
                out::say(
                    "note",
                    &format!("no skill matches {}", term::escape(&query)),
                );
            } else {
                let fit = output::Fit::stdout(skillpipe.home());
                output::search_table(&mut out::styled(), &hits, &fit)?;
            }
        }
        Command::Expand {
            text,
            streaming,
            follow_up,
            json,
        } => {
            let delivery = match (streaming, follow_up) {
                (false, _) => Delivery::Prompt,
                (true, false) => Delivery::Steer,
                (true, true) => Delivery::FollowUp,
            };
            let found = skillpipe.discover();
            let expansion = found.expand(&text, delivery);
            for d in &expansion.diagnostics {
                out::say(
                    d.severity.as_str(),
                    &format!(
                        "{}: {}",
                        term::escape(d.code.as_str()),
                        term::escape(&d.message)
                    ),
                );
            }
            // An address with no such copy has its own warning already.
            if !expansion.expanded
                && expansion.diagnostics.is_empty()
                && let Some(note) = why_not_expanded(skillpipe.settings(), found.skills(), &text)
            {
                out::say("note", &term::escape(&note));
            }
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&expansion)?)?;
            } else {
                write!(out, "{}", expansion.text)?;
            }
        }
        Command::Resolve { url, json } => {
            // `--json` prints no bytes, so none are read.
            let opts = skillpipe::ResolveOptions {
                contents: match json {
                    true => Contents::Skip,
                    false => Contents::Read,
                },
                ..Default::default()
            };
            match skillpipe.discover().resolve_with(&url, opts) {
                Ok(resource) if json => {
                    writeln!(out, "{}", serde_json::to_string_pretty(&resource)?)?
                }
                Ok(resource) => out.write_all(&resource.content)?,
                Err(err) => return Err(resolve_failure(&err).into()),
            }
        }
        Command::Context { json } => {
            let files = skillpipe.context_files();
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&json!({ "files": files }))?
                )?;
            } else {
                for f in files {
                    writeln!(out, "{}\t{}", f.depth, term::path(&f.path))?;
                }
            }
        }
        Command::Commands { json, all } => {
            let found = skillpipe.discover();
            let commands = match all {
                true => found.all_commands(),
                false => found.commands(),
            };
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&json!({ "commands": commands }))?
                )?;
            } else {
                for c in commands {
                    writeln!(
                        out,
                        "/{}\t{}",
                        term::escape(&c.name),
                        term::escape(&c.description)
                    )?;
                }
            }
        }
        Command::Validate { .. }
        | Command::Trust { .. }
        | Command::Untrust { .. }
        | Command::Settings { .. }
        | Command::Completions { .. }
        | Command::Man { .. }
        | Command::Watch { .. } => {}
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Why `/skill:<name>` was left as typed, when the reason is the name (an
/// unknown one, with the nearest loaded name) or skill commands being off.
/// The text itself stays unchanged on stdout, exit 0 (SPEC §9).
fn why_not_expanded(
    settings: &skillpipe::Settings,
    skills: &[Skill],
    text: &str,
) -> Option<String> {
    let rest = text.strip_prefix("/skill:")?;
    let end = match settings.profile.expansion {
        skillpipe::Style::Pi => rest.find(' '),
        _ => rest.find(char::is_whitespace),
    };
    let name = &rest[..end.unwrap_or(rest.len())];
    if name.is_empty() {
        return None;
    }
    let names = || skills.iter().map(|s| s.name.as_str());
    if skills.iter().any(|s| s.name == name && !s.user_invocable()) {
        return Some(format!(
            "skill \"{name}\" is not user-invocable (user-invocable: false): the text is left as typed"
        ));
    }
    if names().any(|n| n == name) {
        // musepi's skills.enableSkillCommands = false leaves every text
        // as typed (pi's setting only hides the commands, SPEC §9).
        let off = !settings.enable_skill_commands
            && settings.profile.settings_shape == skillpipe::settings::SettingsShape::Musepi;
        return off.then(|| {
            "skill commands are off (skills.enableSkillCommands = false): the text is left as typed"
                .to_owned()
        });
    }
    Some(match skillpipe::core::suggest::closest(name, names()) {
        Some(near) => format!(
            "no skill named \"{name}\"; did you mean \"{near}\"? (the text is left as typed)"
        ),
        None => format!(
            "no skill named \"{name}\" (the text is left as typed; `skillpipe list` shows the skills)"
        ),
    })
}

/// A `skill://` error: its message as SPEC §10 has it, on stderr, exit 1;
/// for an unknown name, a line with the nearest name follows.
fn resolve_failure(err: &skillpipe::ResolveError) -> Failure {
    use skillpipe::ResolveError as E;
    let code = match err {
        E::NotSkillUrl(_) => "not-skill-url",
        E::EmptyName => "empty-name",
        E::UnknownSkill { .. } => "unknown-skill",
        E::Absolute => "absolute-path",
        E::DotDot | E::Escape => "path-traversal",
        E::InvalidSegment(_) => "invalid-segment",
        E::NotFound(_) => "not-found",
        E::NotRegular(_) => "not-regular-file",
        E::TooLarge { .. } => "file-too-large",
        E::Read { .. } => "read-error",
        _ => "resolve-error",
    };
    let mut message = err.to_string();
    // The terminal's text: what came from the URL (a `%0a` decoded to a
    // line end, an escape sequence) is escaped, the message's own line
    // ends are kept.
    let mut shown = match err {
        E::UnknownSkill { name, available } => format!(
            "Unknown skill: {}\nAvailable: {}",
            term::escape(name),
            match available.is_empty() {
                true => "none".to_owned(),
                false => term::escape(&available.join(", ")).into_owned(),
            }
        ),
        other => term::escape(&other.to_string()).into_owned(),
    };
    if let E::UnknownSkill { name, available } = err
        && let Some(near) =
            skillpipe::core::suggest::closest(name, available.iter().map(String::as_str))
    {
        message.push_str(&format!("\nDid you mean: {near}"));
        shown.push_str(&format!("\nDid you mean: {}", term::escape(near)));
    }
    Failure {
        code,
        exit: 1,
        message,
        bare: Some(shown),
    }
}

/// `trust` / `untrust`: edit `trustedProjects` in the user settings of the
/// active profile. DIR is relative to the process's working directory (as
/// `--config` files are); the default is the project.
fn trust(global: &Global, dir: Option<&PathBuf>, add: bool) -> anyhow::Result<ExitCode> {
    let skillpipe = skillpipe(global, Plugins::None)?;
    let settings = skillpipe.settings();
    let dir = match dir {
        Some(d) => std::env::current_dir()
            .context("cannot read the current directory")?
            .join(d),
        None => settings.project_dir.clone(),
    };
    let edit = skillpipe::settings::edit_trusted_projects(settings, skillpipe.home(), &dir, add)?;
    let (dir, file) = (term::path(&edit.dir), term::path(&edit.file));
    let key = edit.key;
    let mut out = out::raw();
    match (add, edit.changed) {
        (true, true) => writeln!(out, "trusted {dir}: added to {key} in {file}")?,
        (true, false) => writeln!(out, "{dir} is already trusted ({key} in {file})")?,
        (false, true) => writeln!(out, "untrusted {dir}: removed from {key} in {file}")?,
        (false, false) => writeln!(out, "{dir} was not trusted (not in {key} of {file})")?,
    }
    out.flush()?;
    if let Some(layer) = &edit.overridden_by {
        out::say(
            "warning",
            &term::escape(&format!(
                "{key} is also set by {layer}, which wins over {} wherever it is given",
                edit.file.display()
            )),
        );
    }
    if settings.project_skills == skillpipe::settings::ProjectSkills::All {
        let mode = skillpipe::settings::TrustKeys::of(settings).project_skills;
        out::say(
            "note",
            &format!(
                "{mode} is \"all\": every project's skills load; set it to \"trusted\" to load only trusted projects' skills"
            ),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The document of `list --json`.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    profile: &'a str,
    skills: &'a [Skill],
    /// `list --all`: the skills that did not load, with their fate.
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<Vec<explain::RemovedJson<'a>>>,
    diagnostics: &'a [Diagnostic],
}

impl<'a> ListJson<'a> {
    fn new(skillpipe: &'a Skillpipe, discovery: &'a Discovery) -> Self {
        ListJson {
            profile: &skillpipe.settings().profile_name,
            skills: &discovery.skills,
            removed: None,
            diagnostics: &discovery.diagnostics,
        }
    }
}
