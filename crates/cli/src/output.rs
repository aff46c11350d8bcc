//! Human-readable tables for the terminal.

use std::io::{self, Write};

use serde_json::Value;
use skillpipe::{Discovery, Severity};

use crate::term;

/// `list` without `--json`: one row per skill, then the diagnostics.
pub fn list_table(out: &mut impl Write, discovery: &Discovery) -> io::Result<()> {
    let rows: Vec<[String; 4]> = discovery
        .skills
        .iter()
        .map(|s| {
            [
                term::escape(&s.name).into_owned(),
                term::escape(&format!("{}/{}", s.source.provider, s.source.level)).into_owned(),
                term::path(&s.file_path),
                if s.hidden {
                    "hidden".to_owned()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    table(out, ["NAME", "SOURCE", "PATH", "FLAGS"], &rows)?;
    let (errors, warnings) =
        discovery
            .diagnostics
            .iter()
            .fold((0, 0), |(e, w), d| match d.severity {
                Severity::Error => (e + 1, w),
                Severity::Warning => (e, w + 1),
            });
    writeln!(
        out,
        "\n{} skill{}, {errors} error{}, {warnings} warning{}",
        discovery.skills.len(),
        plural(discovery.skills.len()),
        plural(errors),
        plural(warnings)
    )?;
    for d in &discovery.diagnostics {
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
        )?;
    }
    Ok(())
}

/// `providers` without `--json`.
pub fn providers_table(out: &mut impl Write, providers: &[Value]) -> io::Result<()> {
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
            s("id"),
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

fn table<const N: usize>(
    out: &mut impl Write,
    head: [&str; N],
    rows: &[[String; N]],
) -> io::Result<()> {
    let mut widths = head.map(str::len);
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
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
    writeln!(out, "{}", line(head.to_vec()))?;
    for row in rows {
        writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
