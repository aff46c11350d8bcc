//! The `skillpipe` command, as a library: [`run_with`] is the whole
//! command line, for the `skillpipe` binary and for a host that ships a
//! `skillpipe` of its own with its providers built in.
//!
//! ```no_run
//! use std::process::ExitCode;
//!
//! use skillpipe::{Conventional, DiscoveryContext, Level, ProviderInfo, Root, RootItem};
//!
//! fn roots(cx: &DiscoveryContext) -> Vec<RootItem> {
//!     vec![Root::new(cx.home.join("team-skills"), Level::User).into()]
//! }
//!
//! fn main() -> ExitCode {
//!     let team = Conventional::new(ProviderInfo::plugin("team", "Team skills", 60), roots);
//!     // `team-host providers` lists `team` beside the built-ins, and every
//!     // other command sees its skills.
//!     skillpipe_cli::run_with(std::env::args_os(), |builder| builder.provider(team.clone()))
//! }
//! ```
//!
//! The command is a thin layer over the `skillpipe` library: it reads the
//! process environment (the only place that does), parses flags, and prints
//! what the library returns.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use skillpipe::Builder;
use skillpipe::settings::TrustChange;

use crate::args::{Cli, ColorWhen, Command, Global};
use crate::world::{Host, Plugins, names_a_world, skillpipe};

mod args;
mod commands;
mod not_loaded;
mod out;
mod output;
mod term;
mod world;

/// Runs the `skillpipe` command line `args` (the program's name first, as
/// [`std::env::args_os`] gives them) and returns the exit code: what
/// `skillpipe`'s `main` does, with `host` applied to every library the
/// command builds. The hook gets the [`Builder`] of the chosen profile
/// before the command line's flags are applied (so `--home`, `--set` and
/// the others win over what it sets), and adds what a host of its own
/// needs, typically its providers: `|b| b.provider(team())`
/// ([`Builder::provider`]; a provider whose id is taken ends the run with
/// exit 2, as a bad setting does). It is a `Fn`, called for each library
/// built (once a run): make the provider in it, or clone one.
///
/// Call it once, from `main`: it sets the colour choice and a tracing
/// subscriber for the whole process, and `watch` installs a Ctrl-C handler.
pub fn run_with<I, T>(args: I, host: impl Fn(Builder) -> Builder) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
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
    let result = run(cli, &host);
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
fn run(cli: Cli, host: Host<'_>) -> anyhow::Result<ExitCode> {
    let global = &cli.global;
    let load = || skillpipe(global, host, Plugins::Load);
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
            let skillpipe = skillpipe(global, host, Plugins::None)?;
            commands::settings::run(skillpipe.settings(), json)
        }
        Command::Trust { dir } => {
            commands::trust::run(global, host, dir.as_ref(), TrustChange::Trust)
        }
        Command::Untrust { dir } => {
            commands::trust::run(global, host, dir.as_ref(), TrustChange::Untrust)
        }
        Command::Watch { json } => commands::watch::run(&load()?, json),
        Command::Mcp {
            no_watch,
            http,
            allow_remote,
        } => {
            // The server's digest cache hears of each skill file discovery
            // reads, so that its first listing reads no `SKILL.md` again.
            let digests = std::sync::Arc::new(skillpipe_mcp::Digests::new());
            let limits = skillpipe_mcp::Limits::default();
            let hearing = |b| digests.hearing(host(b), limits);
            let skillpipe = skillpipe(global, &hearing, Plugins::Load)?;
            commands::mcp::run(&skillpipe, digests, !no_watch, http, allow_remote)
        }
        Command::Completions { shell } => commands::completions::run(shell),
        Command::Man { dir } => commands::man::run(&dir),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::process::ExitCode;

    use skillpipe::{Conventional, ProviderInfo};

    use super::run_with;

    #[test]
    fn every_library_the_command_builds_goes_through_the_host_s_hook() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_str().unwrap();
        // A provider whose id is a built-in's: the build fails before any
        // output, and the run ends as for a bad setting. `providers` loads
        // the plugins, `settings` and `trust` do not: each path builds
        // through the hook.
        for command in ["providers", "settings", "trust"] {
            let calls = Cell::new(0);
            let code = run_with(["skillpipe", "--home", dir, "--cwd", dir, command], |b| {
                calls.set(calls.get() + 1);
                b.provider(Conventional::new(
                    ProviderInfo::plugin("claude", "Not Claude", 1),
                    |_| Vec::new(),
                ))
            });
            assert_eq!(code, ExitCode::from(2), "{command}");
            assert_eq!(calls.get(), 1, "{command}");
        }
    }
}
