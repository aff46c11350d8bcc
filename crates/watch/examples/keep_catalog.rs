//! A host that keeps its system prompt's skill catalogue current.
//!
//! ```text
//! cargo run -p skillpipe-watch --example keep_catalog -- [--profile pi] [--cwd DIR] [--events N]
//! ```
//!
//! It builds the catalogue once, then rebuilds its prompt only when an
//! event carries a new catalogue (a description edit, a skill added or
//! removed), and keeps its own name index current from `added`,
//! `changed` and `removed` without listing the skills again. It stops
//! after N events (default: never).

use std::collections::BTreeMap;
use std::path::PathBuf;

use skillpipe::{Profile, SharedPath, Skillpipe, Text};
use skillpipe_watch::{WatchOptions, Watcher};

/// What the host keeps: the prompt it sends, and where each skill is
/// (names and paths as the skills hold them: cloned without a copy).
struct Host {
    system_prompt: String,
    files: BTreeMap<Text, SharedPath>,
}

impl Host {
    fn prompt(catalog: &str) -> String {
        format!("You are a coding agent.\n\n{catalog}")
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut profile = Profile::Musepi;
    let mut cwd = None;
    let mut limit = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--profile" => profile = value()?.parse()?,
            "--cwd" => cwd = Some(PathBuf::from(value()?)),
            "--events" => limit = value()?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let mut builder = Skillpipe::builder(profile);
    if let Some(cwd) = cwd {
        builder = builder.cwd(cwd);
    }
    let skillpipe = builder.build()?;
    let (watcher, events) = Watcher::channel(&skillpipe, WatchOptions::default())?;

    let mut host = Host {
        system_prompt: Host::prompt(&watcher.catalog()),
        files: watcher
            .current()
            .skills()
            .iter()
            .map(|s| (s.name.clone(), s.file_path.clone()))
            .collect(),
    };
    println!(
        "{} skills, prompt of {} bytes; watching",
        host.files.len(),
        host.system_prompt.len()
    );
    for event in events.iter().take(limit) {
        for s in event.added.iter().chain(&event.changed) {
            host.files.insert(s.name.clone(), s.file_path.clone());
        }
        for s in &event.removed {
            host.files.remove(s.name.as_str());
        }
        match &event.catalog {
            Some(catalog) => {
                host.system_prompt = Host::prompt(catalog);
                println!(
                    "prompt rebuilt: {} skills, {} bytes",
                    host.files.len(),
                    host.system_prompt.len()
                );
            }
            None => println!("skills changed, prompt unchanged (cache kept)"),
        }
        for d in &event.diagnostics {
            eprintln!("{}: {}: {}", d.code, d.path.display(), d.message);
        }
    }
    Ok(())
}
