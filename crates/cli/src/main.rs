//! `skillpipe`: see what an agent sees, and why.
//!
//! This binary is a thin layer over the `skillpipe` library: it reads the
//! process environment (the only place that does), parses flags, and prints
//! what the library returns.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};
use skillpipe::{
    Contents, Delivery, Diagnostic, Discovery, ReadTool, SettingsError, Skill, Skillpipe,
};

mod output;
mod term;
mod validate;

const EXAMPLES: &str = "\
Examples:
  skillpipe list                          what the default (musepi) agent sees here
  skillpipe --profile pi list --json      the pi profile, as JSON
  skillpipe list --deny-warnings          fail (exit 1) on any diagnostic: CI for skill repos
  skillpipe --set skills.enableClaudeUser=false list
  skillpipe providers                     where each provider looks, in pipeline order
  skillpipe trust                         load this project's skills under projectSkills = trusted
  skillpipe --skill ./my-skills list      add a directory of skills for this run";

/// Discover Agent Skills the way coding agents do, and show why each one is
/// (or is not) there.
#[derive(Debug, Parser)]
#[command(name = "skillpipe", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// Flags that may stand before or after the command.
#[derive(Debug, Args)]
struct Global {
    /// Which agent's skill system to reproduce: musepi (provider pipeline) or
    /// pi (recursive scan with ignore files). Default: $SKILLPIPE_PROFILE, else musepi.
    #[arg(long, global = true, value_name = "PROFILE")]
    profile: Option<String>,
    /// musepi: the app directory name (default .musepi; e.g. .omp).
    #[arg(long, global = true, value_name = "NAME")]
    app_dir: Option<String>,
    /// The project directory (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The home directory (default: $HOME).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// A settings file (.json or .toml) layered over user and project settings; repeatable.
    #[arg(long = "config", global = true, value_name = "FILE")]
    config: Vec<PathBuf>,
    /// Set one setting, e.g. --set skills.ignoredSkills='["tmp-*"]'; repeatable, wins over all else.
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Load a provider plugin library; repeatable.
    #[arg(long = "plugin", global = true, value_name = "LIB")]
    plugin: Vec<PathBuf>,
    /// Add a skill directory (or, in pi, a .md file); repeatable; loads even with --no-skills.
    #[arg(long = "skill", global = true, value_name = "PATH")]
    skill: Vec<String>,
    /// Load no skills except those named with --skill.
    #[arg(long, global = true)]
    no_skills: bool,
    /// More logging on stderr (debug).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    verbose: bool,
    /// Errors only on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the skills an agent would load, and every diagnostic.
    List {
        /// Print the JSON document of SPEC §12.
        #[arg(long)]
        json: bool,
        /// Exit 1 when any diagnostic was reported.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Show the active providers in pipeline order, with their roots.
    Providers {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the system-prompt catalogue, exactly as the agent would insert it.
    Prompt {
        /// The host has no read tool: the catalogue is empty.
        #[arg(long)]
        no_read_tool: bool,
    },
    /// Expand `/skill:<name> [args]` as the agent would before sending it.
    #[command(allow_hyphen_values = true)]
    Expand {
        /// The text typed by the user.
        text: String,
        /// The host is streaming a response (Enter steers).
        #[arg(long)]
        streaming: bool,
        /// The submit key was Ctrl+Enter (a follow-up while streaming).
        #[arg(long)]
        follow_up: bool,
        /// Print {"expanded", "text", "skill", "delivery"}.
        #[arg(long)]
        json: bool,
    },
    /// Read a `skill://<name>/<path>` URL: the file's bytes, or a listing.
    Resolve {
        /// The URL, e.g. skill://pdf/reference.md.
        url: String,
        /// Print {"path", "content_type", "is_dir"} instead of the content.
        #[arg(long)]
        json: bool,
    },
    /// List the AGENTS.md context files, nearest first.
    Context {
        /// Print {"files": [{"path", "depth"}]}.
        #[arg(long)]
        json: bool,
    },
    /// Check skill folders (or SKILL.md files) against the Agent Skills
    /// spec, with the rules and messages of the reference validator skills-ref.
    Validate {
        /// Skill folders or SKILL.md files.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print {"valid", "results": [{"path", "valid", "errors"}]}.
        #[arg(long)]
        json: bool,
    },
    /// List the `skill:<name>` slash commands offered to the host.
    Commands {
        /// Print {"commands": [...]}.
        #[arg(long)]
        json: bool,
    },
    /// Trust a project: add it to skills.trustedProjects in the user
    /// settings, so its project skills load when skills.projectSkills is
    /// "trusted".
    Trust {
        /// The project directory (default: the repository root of --cwd, else --cwd).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Stop trusting a project: remove it from skills.trustedProjects.
    Untrust {
        /// The project directory (default: the repository root of --cwd, else --cwd).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    init_logging(&cli.global);
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if let Some(settings) = err.downcast_ref::<SettingsError>() {
                eprintln!("error: {}", term::lines(&settings.to_string()));
            } else {
                eprintln!("error: {}", term::lines(&format!("{err:#}")));
            }
            ExitCode::from(2)
        }
    }
}

fn init_logging(global: &Global) {
    use tracing_subscriber::EnvFilter;
    let default = if global.verbose {
        "debug"
    } else if global.quiet {
        "error"
    } else {
        "warn"
    };
    let filter = std::env::var("RUST_LOG")
        .ok()
        .filter(|_| !global.verbose && !global.quiet)
        .map_or_else(|| EnvFilter::new(default), EnvFilter::new);
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}

/// The library, configured from the flags and the process environment
/// (relative paths are relative to the process's working directory).
fn skillpipe(global: &Global, plugins: Plugins) -> anyhow::Result<Skillpipe> {
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
    let skillpipe = b.build()?;
    for w in skillpipe.warnings() {
        eprintln!("warning: {}: {}", w.code, term::escape(&w.message));
    }
    Ok(skillpipe)
}

/// Whether a command needs the plugins (`trust` only edits settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plugins {
    Load,
    None,
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // `validate` checks only the paths given: no settings, no home.
    if let Command::Validate { paths, json } = &cli.command {
        return validate::command(paths, *json);
    }
    if let Command::Trust { dir } | Command::Untrust { dir } = &cli.command {
        return trust(
            &cli.global,
            dir.as_ref(),
            matches!(cli.command, Command::Trust { .. }),
        );
    }
    let skillpipe = skillpipe(&cli.global, Plugins::Load)?;
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::List {
            json,
            deny_warnings,
        } => {
            let found = skillpipe.discover();
            let discovery = found.discovery();
            if json {
                // Streamed: the list is never copied into a JSON value or a
                // string (half the time and memory of `list` on 10k skills).
                let mut w = std::io::BufWriter::new(&mut out);
                serde_json::to_writer_pretty(&mut w, &ListJson::new(&skillpipe, discovery))?;
                writeln!(w)?;
                w.flush()?;
            } else {
                output::list_table(&mut out, discovery)?;
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
                output::providers_table(&mut out, &list)?;
            }
        }
        Command::Prompt { no_read_tool } => {
            let read_tool = match no_read_tool {
                true => ReadTool::Absent,
                false => ReadTool::Available,
            };
            write!(out, "{}", skillpipe.discover().catalog(read_tool))?;
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
            let expansion = skillpipe.discover().expand(&text, delivery);
            for d in &expansion.diagnostics {
                eprintln!(
                    "{}: {}: {}",
                    d.severity.as_str(),
                    term::escape(d.code.as_str()),
                    term::escape(&d.message)
                );
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
                Err(err) => {
                    eprintln!("{}", term::lines(&err.to_string()));
                    return Ok(ExitCode::from(1));
                }
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
        Command::Validate { paths, json } => return validate::command(&paths, json),
        Command::Trust { .. } | Command::Untrust { .. } => {}
        Command::Commands { json } => {
            let commands = skillpipe.discover().commands();
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
    }
    Ok(ExitCode::SUCCESS)
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
    let mut out = std::io::stdout().lock();
    match (add, edit.changed) {
        (true, true) => writeln!(out, "trusted {dir}: added to {key} in {file}")?,
        (true, false) => writeln!(out, "{dir} is already trusted ({key} in {file})")?,
        (false, true) => writeln!(out, "untrusted {dir}: removed from {key} in {file}")?,
        (false, false) => writeln!(out, "{dir} was not trusted (not in {key} of {file})")?,
    }
    if settings.project_skills == skillpipe::settings::ProjectSkills::All {
        let mode = skillpipe::settings::TrustKeys::of(settings).project_skills;
        eprintln!(
            "note: {mode} is \"all\": every project's skills load; set it to \"trusted\" to load only trusted projects' skills"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The document of `list --json`.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    profile: &'a str,
    skills: &'a [Skill],
    diagnostics: &'a [Diagnostic],
}

impl<'a> ListJson<'a> {
    fn new(skillpipe: &'a Skillpipe, discovery: &'a Discovery) -> Self {
        ListJson {
            profile: &skillpipe.settings().profile_name,
            skills: &discovery.skills,
            diagnostics: &discovery.diagnostics,
        }
    }
}
