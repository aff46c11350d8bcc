//! `skillpipe`: see what an agent sees, and why.
//!
//! This binary is a thin layer over the `skillpipe` library: it reads the
//! process environment (the only place that does), parses flags, and prints
//! what the library returns.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use skillpipe::settings::TrustChange;

use crate::args::{Cli, ColorWhen, Command, Global};
use crate::world::{Plugins, names_a_world, skillpipe};

mod args;
mod commands;
mod not_loaded;
mod out;
mod output;
mod term;
mod world;

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

/// Each command to its module, in the order `--help` lists them. The
/// library is built first, with the plugins unless the command only reads
/// or edits settings.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let global = &cli.global;
    let load = || skillpipe(global, Plugins::Load);
    match cli.command {
        Command::List {
            json,
            deny_warnings,
            all,
        } => commands::list::run(&load()?, json, deny_warnings, all),
        Command::Explain { name, json } => commands::explain::run(&load()?, &name, json),
        Command::Providers { json } => commands::providers::run(&load()?, json),
        Command::Prompt {
            no_read_tool,
            budget,
            report,
            json,
        } => commands::prompt::run(&load()?, no_read_tool, budget, report, json),
        Command::Search { query, limit, json } => {
            commands::search::run(&load()?, &query, limit, json)
        }
        Command::Expand {
            text,
            streaming,
            follow_up,
            json,
        } => commands::expand::run(&load()?, &text, streaming, follow_up, json),
        Command::Resolve { url, json } => commands::resolve::run(&load()?, &url, json),
        Command::Context { json } => commands::context::run(&load()?, json),
        // `validate` checks only the paths given: no settings, no home.
        // But a global flag given with it is checked as for any command,
        // so a typo in one exits 2 instead of being ignored.
        Command::Validate { paths, json } => {
            if names_a_world(global) {
                load()?;
            }
            commands::validate::run(&paths, json)
        }
        Command::Commands { json, all } => commands::slash::run(&load()?, json, all),
        Command::Settings { json } => {
            let skillpipe = skillpipe(global, Plugins::None)?;
            commands::settings::run(skillpipe.settings(), json)
        }
        Command::Trust { dir } => commands::trust::run(global, dir.as_ref(), TrustChange::Trust),
        Command::Untrust { dir } => {
            commands::trust::run(global, dir.as_ref(), TrustChange::Untrust)
        }
        Command::Watch { json } => commands::watch::run(&load()?, json),
        Command::Mcp => commands::mcp::run(&load()?),
        Command::Completions { shell } => commands::completions::run(shell),
        Command::Man { dir } => commands::man::run(&dir),
    }
}
