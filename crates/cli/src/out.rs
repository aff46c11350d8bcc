//! Where output goes, in colour or not, and how a run ends when it fails.
//!
//! - Colour: `--color auto|always|never`; `auto` colours a terminal unless
//!   `NO_COLOR` is set, and `CLICOLOR_FORCE` forces it (anstream's rules,
//!   as clap's). Only our own words are coloured (severities, headings);
//!   `prompt`, `expand`, `resolve` and JSON stay byte-exact, never
//!   styled nor stripped.
//! - Output errors: every write to stdout goes through [`Tracked`], which
//!   remembers the first failure. A closed pipe (`skillpipe list | head
//!   -1`) ends the run quietly with exit 0; any other write error is
//!   reported with exit 1.
//! - Errors: `error: <message>` on stderr, exit 2 (usage, settings, input)
//!   or 1 (the command's subject: an unknown skill URL); with `--json`, one
//!   line `{"error": {"code", "message"}}` on stderr instead, same exit
//!   codes (stdout stays empty, as SPEC §12 and the shared cases want).

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::OnceLock;

use anstream::ColorChoice;
use anstyle::{AnsiColor, Style};

use crate::args::ColorWhen;
use crate::term;

/// The first failed write to stdout: its kind and text.
static OUTPUT_FAILED: OnceLock<(io::ErrorKind, String)> = OnceLock::new();

/// Sets the colour choice for the whole run (stdout and stderr).
pub(crate) fn init_color(when: ColorWhen) {
    let choice = match when {
        ColorWhen::Auto => ColorChoice::Auto,
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
    };
    choice.write_global();
}

/// Whether stderr gets colour (for the log subscriber).
pub(crate) fn stderr_colored() -> bool {
    anstream::AutoStream::choice(&io::stderr()) != ColorChoice::Never
}

/// The `--color` choice before the arguments are parsed (clap's own help
/// and errors follow it too).
pub(crate) fn color_from_args(args: &[std::ffi::OsString]) -> ColorWhen {
    let mut when = ColorWhen::Auto;
    let mut it = args.iter().filter_map(|a| a.to_str());
    while let Some(arg) = it.next() {
        let value = match arg.strip_prefix("--color") {
            Some("") => it.next(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        when = match value {
            Some("always") => ColorWhen::Always,
            Some("never") => ColorWhen::Never,
            Some("auto") => ColorWhen::Auto,
            _ => when,
        };
    }
    when
}

/// A writer that remembers its first failure in [`OUTPUT_FAILED`].
pub(crate) struct Tracked<W>(pub W);

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).inspect_err(record)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().inspect_err(record)
    }
}

fn record(e: &io::Error) {
    let _ = OUTPUT_FAILED.set((e.kind(), e.to_string()));
}

/// Raw stdout, for byte-exact output and JSON.
pub(crate) fn raw() -> Tracked<io::StdoutLock<'static>> {
    Tracked(io::stdout().lock())
}

/// Stdout for text meant for a terminal: styles kept or stripped as the
/// colour choice says.
pub(crate) fn styled() -> Tracked<anstream::AutoStream<io::StdoutLock<'static>>> {
    Tracked(anstream::AutoStream::auto(io::stdout().lock()))
}

/// Whether stdout is a terminal (tables fit its width, paths shorten).
pub(crate) fn stdout_is_terminal() -> bool {
    io::IsTerminal::is_terminal(&io::stdout())
}

/// The style of a severity word: error red, warning yellow, note cyan.
pub(crate) fn severity(word: &str) -> Style {
    let color = match word {
        "error" => AnsiColor::Red,
        "warning" => AnsiColor::Yellow,
        _ => AnsiColor::Cyan,
    };
    Style::new().bold().fg_color(Some(color.into()))
}

/// `word` in its severity's style.
pub(crate) fn paint(word: &str) -> String {
    let style = severity(word);
    format!("{style}{word}{style:#}")
}

/// A heading (table heads, section names).
pub(crate) fn heading(text: &str) -> String {
    let style = Style::new().bold();
    format!("{style}{text}{style:#}")
}

/// A line on stderr: `<severity>: <message>`, the severity coloured. A
/// failing stderr is ignored (there is nowhere left to say so).
pub(crate) fn say(severity_word: &str, message: &str) {
    let mut err = anstream::stderr().lock();
    let _ = writeln!(err, "{}: {message}", paint(severity_word));
}

/// Plain text on stderr (a message with its own layout, SPEC §10's
/// `resolve` errors).
pub(crate) fn say_plain(message: &str) {
    let mut err = anstream::stderr().lock();
    let _ = writeln!(err, "{message}");
}

/// An error that ends the run with its own code and exit status.
#[derive(Debug)]
pub(crate) struct Failure {
    /// Stable code for `--json` (`usage`, `input`, `unknown-skill`, …).
    pub code: &'static str,
    /// Exit status.
    pub exit: u8,
    /// The message (may have several lines).
    pub message: String,
    /// The terminal's text, printed without `error: ` (SPEC §10: the
    /// resolve message as is), its parts already escaped by its maker,
    /// which alone knows which line ends are its own; `--json` carries the
    /// exact `message`.
    pub bare: Option<String>,
}

impl Failure {
    /// A problem with what was asked (exit 2).
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Failure {
            code: "input",
            exit: 2,
            message: message.into(),
            bare: None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Prints a JSON error line on stderr.
fn json_error(code: &str, message: &str) {
    let doc = serde_json::json!({ "error": { "code": code, "message": message } });
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{doc}");
}

/// Ends a run: the exit code of `result`, after reporting its error (a
/// closed stdout ends quietly with 0, another output error with 1).
pub(crate) fn finish(result: anyhow::Result<ExitCode>, json: bool) -> ExitCode {
    if let Some((kind, text)) = OUTPUT_FAILED.get() {
        if *kind == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        let message = format!("cannot write the output: {text}");
        if json {
            json_error("output", &message);
        } else {
            say("error", &term::escape(&message));
        }
        return ExitCode::from(1);
    }
    let err = match result {
        Ok(code) => return code,
        Err(err) => err,
    };
    let (code, exit, message, bare) = if let Some(f) = err.downcast_ref::<Failure>() {
        (f.code, f.exit, f.message.clone(), f.bare.clone())
    } else if let Some(s) = err.downcast_ref::<skillpipe::SettingsError>() {
        ("settings", 2, s.to_string(), None)
    } else {
        ("error", 2, format!("{err:#}"), None)
    };
    if json {
        json_error(code, &message);
    } else if let Some(text) = bare {
        say_plain(&text);
    } else {
        say("error", &term::lines(&message));
    }
    ExitCode::from(exit)
}

/// A command-line error from clap: printed as clap prints it (help and
/// version on stdout, exit 0), or, with `--json` among the arguments, as
/// a JSON error (exit 2).
pub(crate) fn clap_failure(e: &clap::Error, json: bool) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if json {
        let text = e.render().to_string();
        let message = text
            .trim_end()
            .strip_prefix("error: ")
            .unwrap_or(text.trim_end());
        json_error("usage", message);
    } else {
        let _ = e.print();
    }
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn color_is_read_before_parsing_in_both_spellings() {
        let args = |v: &[&str]| -> Vec<OsString> { v.iter().map(OsString::from).collect() };
        assert_eq!(color_from_args(&args(&["list"])), ColorWhen::Auto);
        assert_eq!(
            color_from_args(&args(&["--color", "never", "list"])),
            ColorWhen::Never
        );
        assert_eq!(
            color_from_args(&args(&["list", "--color=always"])),
            ColorWhen::Always
        );
        // The last one wins, as clap takes it.
        assert_eq!(
            color_from_args(&args(&["--color=always", "--color", "never"])),
            ColorWhen::Never
        );
    }

    #[test]
    fn severities_are_coloured_and_reset() {
        let red = paint("error");
        assert!(
            red.starts_with("\u{1b}[") && red.contains("error"),
            "{red:?}"
        );
        assert!(red.ends_with("\u{1b}[0m"), "{red:?}");
        assert_ne!(paint("warning"), paint("error"));
    }
}
