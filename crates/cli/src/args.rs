//! The command line: flags, commands, their help and examples.
//!
//! Each command's help lists its own flags first, then the global ones
//! (under "Global options"), and ends with one example.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  skillpipe list                          what the default (musepi) agent sees here
  skillpipe --profile pi list --json      the pi profile, as JSON
  skillpipe list --deny-warnings          fail (exit 1) on any diagnostic: CI for skill repos
  skillpipe --set skills.enableClaudeUser=false list
  skillpipe providers                     where each provider looks, in pipeline order
  skillpipe settings                      the effective settings and where each came from
  skillpipe trust                         load this project's skills under projectSkills = trusted
  skillpipe --skill ./my-skills list      add a directory of skills for this run";

const GLOBAL: &str = "Global options";

const MCP_ABOUT: &str = "\
Serve the skills to an MCP host over stdin/stdout: the Model Context Protocol,
with SEP-2640's skills extension (io.modelcontextprotocol/skills). The global
flags choose what is served, exactly as for `list`. The server watches the
skills as `watch` does: when they change it serves the new discovery and sends
notifications/resources/list_changed and notifications/prompts/list_changed
(--no-watch: discovery runs once, when the server starts). Digests are cached
by file and hashed again when a file changes. stdout carries the protocol
alone; warnings and logs go to stderr. The server ends when the host closes
stdin.

--http 127.0.0.1:PORT serves MCP's Streamable HTTP transport instead, at
http://127.0.0.1:PORT/mcp, one session per client, until interrupted; port 0
picks a free port and the address is printed on stderr. The address must be a
loopback one (127.0.0.1, ::1) unless --allow-remote is given: the server has no
authentication, and serves every skill's files to whoever connects. At most 256
sessions are open at once (an idle one closes after five minutes).

What a host gets:
  skills/list, skills/get   one entry per loaded skill (hidden ones too), its
                            frontmatter, and each file's size and sha256 digest
                            (at most 512 files and 16 MiB a skill)
  resources/read            any file of a skill, as text or a base64 blob
  resources/directory/read  a skill's folders
  resources/list            every SKILL.md
  prompts                   skill:<name> for each of `skillpipe commands`,
                            argument args: the text of `expand '/skill:<name> args'`
  tool read_skill {uri}     the same read, text only, at most 1 MiB
  instructions              the catalogue, skill:// URIs as locations

URIs: skill://<name>/SKILL.md and skill://<name>/<path> for a loaded skill;
skill://<provider>/<level>/<name>/... for a copy that did not load
(<name>@<provider>:<level> in `expand` and `resolve`). Reads go through the
guards of `resolve`: no .., no absolute paths, nothing outside the skill's
folder, no FIFOs or devices; hidden files (.git, .env) are not served.";

/// Discover Agent Skills the way coding agents do, and show why each one is
/// (or is not) there.
#[derive(Debug, Parser)]
#[command(name = "skillpipe", version, about, long_about = None, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    /// When the output is a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces it).
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Flags that may stand before or after the command.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Which agent's skill system to reproduce: musepi (provider pipeline) or
    /// pi (recursive scan with ignore files). Default: $SKILLPIPE_PROFILE, else musepi.
    #[arg(long, global = true, value_name = "PROFILE", value_parser = ["musepi", "pi"], help_heading = GLOBAL)]
    pub profile: Option<String>,
    /// musepi: the app directory name (default .musepi; e.g. .omp); one
    /// directory name, not a path.
    #[arg(long, global = true, value_name = "NAME", value_parser = app_dir_name, help_heading = GLOBAL)]
    pub app_dir: Option<String>,
    /// The project directory (default: the current directory); must exist.
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub cwd: Option<PathBuf>,
    /// The home directory (default: $HOME); must exist.
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub home: Option<PathBuf>,
    /// A settings file (.json or .toml) layered over user and project settings; repeatable.
    #[arg(long = "config", global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub config: Vec<PathBuf>,
    /// Set one setting, e.g. --set skills.ignoredSkills='["tmp-*"]'; repeatable, wins over all else.
    #[arg(long = "set", global = true, value_name = "KEY=VALUE", help_heading = GLOBAL)]
    pub set: Vec<String>,
    /// Load a provider plugin library; repeatable; one that cannot load is an error (exit 2).
    #[arg(long = "plugin", global = true, value_name = "LIB", help_heading = GLOBAL)]
    pub plugin: Vec<PathBuf>,
    /// Add a skill directory, or one skill's folder (pi: also a .md file); relative to the
    /// current directory; repeatable; loads even with --no-skills.
    #[arg(long = "skill", global = true, value_name = "PATH", help_heading = GLOBAL)]
    pub skill: Vec<String>,
    /// Load no skills except those named with --skill.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_skills: bool,
    /// When to colour the output.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto, help_heading = GLOBAL)]
    pub color: ColorWhen,
    /// Tell the story on stderr: -v each provider and root (scanned,
    /// missing, off), the filters and what they removed; -vv each file.
    /// SKILLPIPE_LOG takes a tracing filter directive instead.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet", help_heading = GLOBAL)]
    pub verbose: u8,
    /// Errors only on stderr.
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub quiet: bool,
}

/// `--app-dir`: one directory name (a usage error otherwise, exit 2).
fn app_dir_name(name: &str) -> Result<String, String> {
    match skillpipe::settings::app_dir_problem(name) {
        Some(reason) => Err(reason),
        None => Ok(name.to_owned()),
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the skills an agent would load, and every diagnostic.
    #[command(after_help = "Example:\n  skillpipe list --json | jq -r '.skills[].name'")]
    List {
        /// Print the JSON document of SPEC §12.
        #[arg(long)]
        json: bool,
        /// Also the skills that did not load: shadowed by another copy,
        /// removed by a setting, or in a switched-off source, each with its
        /// fate (JSON: a "removed" array beside "skills").
        #[arg(long)]
        all: bool,
        /// Exit 1 when any diagnostic was reported.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Every file that claims a skill name, in pipeline order, and what
    /// became of it: loaded, shadowed, removed by a setting, switched off,
    /// not a skill.
    #[command(after_help = "Example:\n  skillpipe explain brainstorming")]
    Explain {
        /// The skill name.
        name: String,
        /// Print {"name", "claims": [{"file_path", "provider", "level", "fate", ...}]}.
        #[arg(long)]
        json: bool,
    },
    /// Show the active providers in pipeline order, with their roots.
    #[command(after_help = "Example:\n  skillpipe --profile pi providers --json")]
    Providers {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the system-prompt catalogue, exactly as the agent would insert it.
    #[command(
        after_help = "Examples:\n  skillpipe prompt --no-read-tool\n  skillpipe prompt --budget 8000 --report    # fitted to 8000 characters; stderr says what was cut"
    )]
    Prompt {
        /// The host has no read tool: the catalogue is empty.
        #[arg(long)]
        no_read_tool: bool,
        /// Fit the catalogue in N characters (0: no budget); default: the
        /// skills.catalogBudget setting.
        #[arg(long, value_name = "N")]
        budget: Option<usize>,
        /// Say on stderr what the budget cut, what was pinned, and what was
        /// left to search.
        #[arg(long)]
        report: bool,
        /// Print {"text", "budget", "length", "truncated", "omitted"}.
        #[arg(long)]
        json: bool,
    },
    /// Find skills by what a task needs: the skills ranked by relevance to
    /// the query (BM25 over name, description and when_to_use), best
    /// first; hidden skills are not found.
    #[command(
        after_help = "Examples:\n  skillpipe search fill in a pdf form\n  skillpipe search --json --limit 3 'review my pull request'"
    )]
    Search {
        /// The query, in words (several arguments are joined by spaces).
        #[arg(required = true, value_name = "QUERY")]
        query: Vec<String>,
        /// Show at most N skills.
        #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
        /// Print {"query", "results": [skill as in `list --json`, with "score"]}.
        #[arg(long)]
        json: bool,
    },
    /// Expand `/skill:<name> [args]` as the agent would before sending it.
    #[command(
        allow_hyphen_values = true,
        after_help = "Example:\n  skillpipe expand '/skill:pdf extract page 3'"
    )]
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
    #[command(after_help = "Example:\n  skillpipe resolve skill://pdf/reference.md")]
    Resolve {
        /// The URL, e.g. skill://pdf/reference.md.
        url: String,
        /// Print {"path", "content_type", "is_dir"} instead of the content.
        #[arg(long)]
        json: bool,
    },
    /// List the AGENTS.md context files, nearest first.
    #[command(after_help = "Example:\n  skillpipe --cwd ~/src/app context")]
    Context {
        /// Print {"files": [{"path", "depth"}]}.
        #[arg(long)]
        json: bool,
    },
    /// Check skill folders (or SKILL.md files, or folders of skill folders)
    /// against the Agent Skills spec, with the rules and messages of the
    /// reference validator skills-ref.
    #[command(
        after_help = "Example:\n  skillpipe validate skills/    # each skill folder in skills/, then a summary"
    )]
    Validate {
        /// Skill folders, SKILL.md files, or folders holding skill folders.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print {"valid", "results": [{"path", "valid", "errors"}]}.
        #[arg(long)]
        json: bool,
    },
    /// List the `skill:<name>` slash commands offered to the host.
    #[command(
        after_help = "Examples:\n  skillpipe commands --json\n  skillpipe commands --json --all    # with the copies other providers shadow"
    )]
    Commands {
        /// Print {"commands": [...]}.
        #[arg(long)]
        json: bool,
        /// Also the copies of each name that did not load, as
        /// skill:<name>@<provider>[:<level>] ("shadowed": true).
        #[arg(long)]
        all: bool,
    },
    /// Show the effective settings, the layer each value came from, and
    /// where the user and project settings files are.
    #[command(after_help = "Example:\n  skillpipe --set skills.enabled=false settings")]
    Settings {
        /// Print {"profile", "files": [...], "settings": [{"key", "value", "origin"}]}.
        #[arg(long)]
        json: bool,
    },
    /// Trust a project: add it to skills.trustedProjects in the user
    /// settings, so its project skills load when skills.projectSkills is
    /// "trusted".
    #[command(after_help = "Example:\n  skillpipe trust ~/src/app")]
    Trust {
        /// The project directory (default: the repository root of --cwd, else --cwd).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Stop trusting a project: remove it from skills.trustedProjects.
    #[command(after_help = "Example:\n  skillpipe untrust")]
    Untrust {
        /// The project directory (default: the repository root of --cwd, else --cwd).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Follow the skills as they change on disk: the initial summary, then
    /// one line per change (`+name`, `~name`, `-name` with provider and
    /// path), until Ctrl-C.
    #[command(after_help = "Example:\n  skillpipe watch --json | jq -c '.added[].name'")]
    Watch {
        /// One JSON document per line: the initial state, then each event
        /// ({"added", "changed", "removed", "diagnostics", "catalog"}).
        #[arg(long)]
        json: bool,
    },
    /// Serve the skills to an MCP host over stdin/stdout (the Model Context
    /// Protocol, with SEP-2640's skills extension), as `list` sees them.
    #[command(
        long_about = MCP_ABOUT,
        after_help = "Examples:\n  skillpipe mcp                           the skills of this directory and $HOME\n  skillpipe --profile pi --cwd ~/src/app mcp\n  skillpipe mcp --http 127.0.0.1:8765       Streamable HTTP at http://127.0.0.1:8765/mcp\n\nAn MCP host's configuration (Claude Code, Cursor, VS Code):\n  {\"command\": \"skillpipe\", \"args\": [\"mcp\"]}"
    )]
    Mcp {
        /// Discover once, when the server starts: no watching, no
        /// list_changed notifications.
        #[arg(long)]
        no_watch: bool,
        /// Serve Streamable HTTP on ADDR (host:port; port 0 picks a free
        /// one, printed on stderr) instead of stdio: a loopback address
        /// unless --allow-remote.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Let --http listen on an address other machines can reach (every
        /// skill's files are served to whoever connects).
        #[arg(long, requires = "http")]
        allow_remote: bool,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  skillpipe completions bash > ~/.local/share/bash-completion/completions/skillpipe"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the man page skillpipe.1 into DIR (`cargo xtask man` runs it).
    #[command(hide = true)]
    Man {
        /// The directory to write them into (created if missing).
        dir: PathBuf,
    },
}

impl Command {
    /// Whether the command was asked for JSON (its errors are JSON too).
    pub(crate) fn json(&self) -> bool {
        match self {
            Command::List { json, .. }
            | Command::Providers { json }
            | Command::Explain { json, .. }
            | Command::Expand { json, .. }
            | Command::Resolve { json, .. }
            | Command::Context { json }
            | Command::Validate { json, .. }
            | Command::Commands { json, .. }
            | Command::Prompt { json, .. }
            | Command::Search { json, .. }
            | Command::Settings { json }
            | Command::Watch { json } => *json,
            Command::Trust { .. }
            | Command::Untrust { .. }
            | Command::Completions { .. }
            | Command::Mcp { .. }
            | Command::Man { .. } => false,
        }
    }
}
