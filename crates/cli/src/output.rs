//! Human-readable tables for the terminal.
//!
//! On a terminal, paths under the home are shown `~/`-relative and a
//! table fits the terminal's width, long paths shortened in the middle;
//! piped, everything is shown in full (`--json` always is).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillpipe::{Discovery, Fate, Severity};

use crate::{out, term};

/// How text is fitted to where it goes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fit {
    /// The terminal's width, when stdout is one.
    pub width: Option<usize>,
    /// The home, to show paths under it as `~/…` (terminal only).
    pub home: Option<PathBuf>,
}

impl Fit {
    /// For stdout: a terminal's width (`COLUMNS` when the terminal says
    /// none) and the home; nothing when piped.
    pub(crate) fn stdout(home: &Path) -> Fit {
        if !out::stdout_is_terminal() {
            return Fit::default();
        }
        let width = terminal_size::terminal_size_of(io::stdout())
            .map(|(w, _)| usize::from(w.0))
            .or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
            .filter(|w| *w > 0);
        Fit {
            width,
            home: Some(home.to_path_buf()),
        }
    }

    /// A path for the terminal: `~/…` under the home, escaped.
    pub(crate) fn path(&self, p: &Path) -> String {
        if let Some(rest) = self.home.as_deref().and_then(|h| p.strip_prefix(h).ok())
            && !rest.as_os_str().is_empty()
        {
            return term::path(&Path::new("~").join(rest));
        }
        term::path(p)
    }
}

/// A fate for the terminal: the winner's path fitted.
pub(crate) fn describe(fate: &Fate, fit: &Fit) -> String {
    let text = fate.describe();
    let text = match fate.winner() {
        Some(w) => {
            let full = w.file_path.display().to_string();
            text.replace(&full, &fit.path(&w.file_path))
        }
        None => text,
    };
    term::escape(&text).into_owned()
}

/// `text` cut to at most `max` characters by putting `…` in its middle
/// (a path keeps its root and its file name).
pub(crate) fn shorten_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let tail = (max - 1) / 2;
    let head = max - 1 - tail;
    let mut out: String = text.chars().take(head).collect();
    out.push('…');
    out.extend(text.chars().skip(n - tail));
    out
}

/// A loaded skill's flags: `hidden`; its visibility when a setting gave
/// one (`name-only`, `user-only`: hidden by it); `no-command` for
/// `user-invocable: false`.
fn flags(s: &skillpipe::Skill) -> String {
    let mut flags: Vec<&str> = Vec::new();
    if s.hidden && s.visibility != skillpipe::Visibility::UserOnly {
        flags.push("hidden");
    }
    if !s.visibility.is_on() {
        flags.push(s.visibility.as_str());
    }
    if !s.user_invocable() {
        flags.push("no-command");
    }
    flags.join(",")
}

/// `list` without `--json`: one row per skill, then the diagnostics.
/// With `all`, the skills that did not load follow, each flagged with its
/// fate, and a line per fate below the diagnostics.
pub(crate) fn list_table(
    out: &mut impl Write,
    discovery: &Discovery,
    fit: &Fit,
    all: bool,
) -> io::Result<()> {
    let not_loaded = match all {
        true => crate::not_loaded::not_loaded(discovery),
        false => Vec::new(),
    };
    let mut rows: Vec<[String; 4]> = discovery
        .skills
        .iter()
        .map(|s| {
            [
                term::escape(&s.name).into_owned(),
                term::escape(&format!("{}/{}", s.source.provider, s.source.level)).into_owned(),
                fit.path(&s.file_path),
                flags(s),
            ]
        })
        .collect();
    rows.extend(not_loaded.iter().map(|c| {
        let s = &c.skill;
        [
            term::escape(&s.name).into_owned(),
            term::escape(&format!("{}/{}", s.source.provider, s.source.level)).into_owned(),
            fit.path(&s.file_path),
            c.fate.kind().to_owned(),
        ]
    }));
    table(
        out,
        ["NAME", "SOURCE", "PATH", "FLAGS"],
        rows,
        Some(2),
        fit.width,
    )?;
    let (errors, warnings) =
        discovery
            .diagnostics
            .iter()
            .fold((0, 0), |(e, w), d| match d.severity {
                Severity::Error => (e + 1, w),
                Severity::Warning => (e, w + 1),
            });
    let removed = match all {
        true => format!(", {} not loaded", not_loaded.len()),
        false => String::new(),
    };
    writeln!(
        out,
        "\n{} skill{}{removed}, {errors} error{}, {warnings} warning{}",
        discovery.skills.len(),
        plural(discovery.skills.len()),
        plural(errors),
        plural(warnings)
    )?;
    if discovery.skills.is_empty() {
        let n = discovery.roots_scanned;
        writeln!(
            out,
            "looked in {n} root{} (`skillpipe providers` lists them, `skillpipe -v list` tells what each held)",
            plural(n)
        )?;
    }
    for d in &discovery.diagnostics {
        let at = match (d.line, d.column) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "{}[{}] {}{at}: {}{}",
            out::paint(d.severity.as_str()),
            term::escape(d.code.as_str()),
            fit.path(&d.path),
            term::escape(&d.message),
            collision_why(discovery, d, fit)
        )?;
    }
    for c in &not_loaded {
        writeln!(
            out,
            "{}: {} {}",
            term::escape(&c.skill.name),
            fit.path(&c.skill.file_path),
            describe(&c.fate, fit)
        )?;
    }
    Ok(())
}

/// For a `collision`: who kept the name, and why (the winner came first
/// in the pipeline: an earlier pass, a higher priority, or an earlier
/// root or file of the same provider).
fn collision_why(discovery: &Discovery, d: &skillpipe::Diagnostic, fit: &Fit) -> String {
    let Some(c) = &d.collision else {
        return String::new();
    };
    let fate = discovery
        .shadowed
        .iter()
        .find(|s| s.skill.file_path == d.path && s.fate.winner().is_some())
        .map(|s| &s.fate);
    let Some(w) = fate.and_then(|f| f.winner()) else {
        return format!(
            "; kept by {} {}",
            term::escape(&c.winner_provider),
            fit.path(&c.winner_path)
        );
    };
    let priority = w
        .priority
        .map_or_else(String::new, |p| format!(", priority {p}"));
    let reason = if c.winner_provider == c.loser_provider {
        "an earlier root or file of the same provider".to_owned()
    } else {
        format!("{} comes first in the pipeline", term::escape(&w.provider))
    };
    format!(
        "; kept by {}/{} ({} pass{priority}) {}: {reason}",
        term::escape(&w.provider),
        w.level,
        w.pass.as_str(),
        fit.path(&w.file_path)
    )
}

/// `providers` without `--json`.
pub(crate) fn providers_table(out: &mut impl Write, providers: &[Value]) -> io::Result<()> {
    for p in providers {
        let s = |k: &str| term::escape(p[k].as_str().unwrap_or_default()).into_owned();
        let toggles: Vec<&str> = p["toggle"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        writeln!(
            out,
            "{} ({}) priority {}, {}{}",
            out::heading(&s("id")),
            s("display_name"),
            p["priority"],
            s("origin"),
            if toggles.is_empty() {
                String::new()
            } else {
                format!(", toggles: {}", term::escape(&toggles.join(", ")))
            }
        )?;
        for r in p["roots"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "  {:<8} {}",
                term::escape(r["level"].as_str().unwrap_or_default()),
                term::escape(r["path"].as_str().unwrap_or_default())
            )?;
        }
    }
    Ok(())
}

/// The narrowest a shrinking column gets.
const MIN_SHRUNK: usize = 16;

/// Writes a table with a bold head. When `width` is known and the table is
/// wider, column `shrink` is narrowed (not below [`MIN_SHRUNK`]), its
/// cells shortened in the middle.
pub(crate) fn table<const N: usize>(
    out: &mut impl Write,
    head: [&str; N],
    mut rows: Vec<[String; N]>,
    shrink: Option<usize>,
    width: Option<usize>,
) -> io::Result<()> {
    let mut widths = head.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    if let (Some(col), Some(width)) = (shrink, width) {
        // Each column but the last is followed by two spaces.
        let total: usize = widths.iter().sum::<usize>() + 2 * (N - 1);
        if total > width && col < N {
            let others = total - widths[col];
            let room = width.saturating_sub(others).max(MIN_SHRUNK);
            if room < widths[col] {
                widths[col] = room.max(head[col].len());
                for row in &mut rows {
                    row[col] = shorten_middle(&row[col], widths[col]);
                }
            }
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.trim_end().to_owned()
    };
    writeln!(out, "{}", out::heading(&line(head.to_vec())))?;
    for row in &rows {
        writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `prompt --report`: what the budget cut, for stderr.
pub(crate) fn catalog_report(
    out: &mut impl Write,
    fitted: &skillpipe::FittedCatalog,
) -> io::Result<()> {
    match fitted.budget {
        Some(budget) => writeln!(out, "catalogue: {} of {budget} characters", fitted.length)?,
        None => writeln!(out, "catalogue: {} characters, no budget", fitted.length)?,
    }
    let names = |list: &[skillpipe::Text]| {
        term::escape(&skillpipe::core::budget::some_names(list)).into_owned()
    };
    if !fitted.pinned.is_empty() {
        writeln!(
            out,
            "pinned, descriptions whole: {} ({})",
            fitted.pinned.len(),
            names(&fitted.pinned)
        )?;
    }
    if !fitted.searchable.is_empty() {
        writeln!(
            out,
            "left to search: {} skill{} ({})",
            fitted.searchable.len(),
            if fitted.searchable.len() == 1 {
                ""
            } else {
                "s"
            },
            names(&fitted.searchable)
        )?;
    }
    for r in &fitted.roots {
        writeln!(
            out,
            "root {}: {}",
            term::escape(&r.name),
            term::path(&r.path)
        )?;
    }
    if !fitted.cut_anything() && !fitted.over_budget() {
        return writeln!(out, "nothing cut");
    }
    writeln!(out, "{}", term::escape(&fitted.summary()))?;
    for t in &fitted.truncated {
        writeln!(
            out,
            "  shortened: {} ({} → {} characters)",
            term::escape(&t.name),
            t.from,
            t.to
        )?;
    }
    for name in &fitted.omitted {
        writeln!(out, "  left out: {}", term::escape(name))?;
    }
    Ok(())
}

/// `search` without `--json`: one row per skill found, best first, the
/// description cut to the terminal's width.
pub(crate) fn search_table(
    out: &mut impl Write,
    hits: &[skillpipe::SearchHit<'_>],
    fit: &Fit,
) -> io::Result<()> {
    let mut rows: Vec<[String; 3]> = hits
        .iter()
        .map(|h| {
            [
                term::escape(&h.skill.name).into_owned(),
                format!("{:.2}", h.score),
                term::escape(
                    &h.skill
                        .description
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                )
                .into_owned(),
            ]
        })
        .collect();
    if let Some(width) = fit.width {
        let name = rows
            .iter()
            .map(|r| r[0].chars().count())
            .max()
            .unwrap_or(0)
            .max(4);
        let score = rows
            .iter()
            .map(|r| r[1].chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let room = width.saturating_sub(name + score + 4).max(MIN_SHRUNK);
        for row in &mut rows {
            row[2] = skillpipe::core::budget::cut(&row[2], room);
        }
    }
    table(out, ["NAME", "SCORE", "DESCRIPTION"], rows, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn paths_shorten_in_the_middle_and_home_becomes_tilde() {
        assert_eq!(shorten_middle("/a/b/c/SKILL.md", 9), "/a/b…L.md");
        assert_eq!(shorten_middle("short", 9), "short");
        let fit = Fit {
            width: Some(40),
            home: Some("/home/me".into()),
        };
        // `~` joined to the rest by the platform's separator.
        assert_eq!(
            fit.path(Path::new("/home/me/.claude/skills/x")),
            format!("~{}.claude/skills/x", std::path::MAIN_SEPARATOR)
        );
        assert_eq!(fit.path(Path::new("/home/meme/x")), "/home/meme/x");
        assert_eq!(fit.path(Path::new("/home/me")), "/home/me");
    }

    #[test]
    fn a_wide_table_fits_the_width() {
        let rows = vec![[
            "pdf".to_owned(),
            "claude/user".to_owned(),
            format!("/home/me/{}/SKILL.md", "deep/".repeat(20)),
            String::new(),
        ]];
        let mut out = Vec::new();
        table(
            &mut out,
            ["NAME", "SOURCE", "PATH", "FLAGS"],
            rows.clone(),
            Some(2),
            Some(60),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let plain = anstream::adapter::strip_str(&text).to_string();
        for line in plain.lines() {
            assert!(line.chars().count() <= 60, "{line:?}");
        }
        assert!(plain.contains('…') && plain.contains("SKILL.md"), "{plain}");
        // Unknown width (piped): in full.
        let mut out = Vec::new();
        table(
            &mut out,
            ["NAME", "SOURCE", "PATH", "FLAGS"],
            rows,
            Some(2),
            None,
        )
        .unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains(&"deep/".repeat(20))
        );
    }

    proptest! {
        #[test]
        fn shortened_text_fits_and_keeps_both_ends(text in "\\PC{0,80}", max in 1usize..60) {
            let short = shorten_middle(&text, max);
            let n = text.chars().count();
            prop_assert!(short.chars().count() <= max);
            if n <= max {
                prop_assert_eq!(&short, &text);
            } else {
                let first: String = text.chars().take(1).collect();
                prop_assert!(max < 2 || short.starts_with(&first));
                prop_assert!(short.contains('…'));
            }
        }
    }
}
