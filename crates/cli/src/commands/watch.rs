//! `skillpipe watch [--json]`: the initial summary, then one line per
//! change as the skills change on disk, until Ctrl-C or a closed stdout
//! (which ends it quietly with 0, as `list | head -1` ends).

use std::io::Write;
use std::process::ExitCode;
use std::sync::mpsc;

use anyhow::Context as _;
use serde::Serialize;
use skillpipe::{Diagnostic, Skill, Skillpipe};
use skillpipe_watch::{Event, WatchOptions, Watcher};

use crate::{out, term};

enum Msg {
    Event(Box<Event>),
    Interrupted,
}

/// The first `--json` line: the state as an event from nothing, so that a
/// reader folds every line the same way.
#[derive(Serialize)]
struct Initial<'a> {
    initial: bool,
    added: &'a [Skill],
    changed: [Skill; 0],
    removed: [Skill; 0],
    diagnostics: Vec<Diagnostic>,
    catalog: String,
}

pub(crate) fn run(skillpipe: &Skillpipe, json: bool) -> anyhow::Result<ExitCode> {
    let (tx, rx) = mpsc::channel();
    let interrupted = tx.clone();
    ctrlc::set_handler(move || {
        let _ = interrupted.send(Msg::Interrupted);
    })
    .context("cannot catch Ctrl-C")?;
    let watcher = Watcher::start(skillpipe, WatchOptions::default(), move |e| {
        let _ = tx.send(Msg::Event(Box::new(e)));
    })?;
    let current = watcher.current();
    let mut diagnostics = current.diagnostics().to_vec();
    diagnostics.extend(watcher.warnings());
    // Through `out`'s tracked stdout: a closed pipe ends the run quietly
    // with 0 (`out::finish`), as for every other command.
    let mut out = out::raw();
    if json {
        let initial = Initial {
            initial: true,
            added: current.skills(),
            changed: [],
            removed: [],
            diagnostics: diagnostics.clone(),
            catalog: watcher.catalog(),
        };
        serde_json::to_writer(&mut out, &initial)?;
        writeln!(out)?;
    } else {
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == skillpipe::Severity::Error)
            .count();
        let n = current.skills().len();
        writeln!(
            out,
            "watching {n} skill{} ({}): {errors} error{}, {} warning{}; Ctrl-C to stop",
            plural(n),
            term::escape(&skillpipe.settings().profile_name),
            plural(errors),
            diagnostics.len() - errors,
            plural(diagnostics.len() - errors)
        )?;
        for d in &diagnostics {
            diagnostic_line(&mut out, d)?;
        }
    }
    out.flush()?;
    let mut shown = diagnostics;
    for msg in rx {
        let event = match msg {
            Msg::Event(e) => e,
            Msg::Interrupted => break,
        };
        if json {
            serde_json::to_writer(&mut out, &*event)?;
            writeln!(out)?;
        } else {
            for (sign, list) in [
                ('+', &event.added),
                ('~', &event.changed),
                ('-', &event.removed),
            ] {
                for s in list {
                    writeln!(
                        out,
                        "{sign}{} {}/{} {}",
                        term::escape(&s.name),
                        term::escape(&s.source.provider),
                        s.source.level,
                        term::path(&s.file_path)
                    )?;
                }
            }
            // Diagnostics new since the last line; the rest were shown.
            for d in event.diagnostics.iter().filter(|d| !shown.contains(*d)) {
                diagnostic_line(&mut out, d)?;
            }
            shown.clone_from(&event.diagnostics);
        }
        out.flush()?;
    }
    drop(out);
    watcher.stop();
    Ok(ExitCode::SUCCESS)
}

fn diagnostic_line(out: &mut impl Write, d: &Diagnostic) -> std::io::Result<()> {
    let at = match (d.line, d.column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        _ => String::new(),
    };
    writeln!(
        out,
        "{}[{}] {}{at}: {}",
        d.severity.as_str(),
        term::escape(d.code.as_str()),
        term::path(&d.path),
        term::escape(&d.message)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
