//! The catalogue budget's cost (issue 14): what `prompt --budget 8000`
//! adds to discovery on a tree, against `load()` itself.
//!
//! In this process, alternating: `Skillpipe::discover()` (`load()`), then
//! the catalogue fitted to the budget (`Discovered::fit_catalog`, what
//! `prompt --budget` prints), each timed over `reps` runs. The target compares the fastest
//! runs: a fit takes a few milliseconds, so on a busy machine one lost
//! time slice doubles its median while it hardly moves `load()`'s; the
//! medians are printed beside. It also checks what the
//! budget promises: the text fits, and every visible name is kept when
//! the names alone fit (else skills are left out from the end of the
//! pipeline order, and the report says how many).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use skillpipe::{Profile, ReadTool, Skillpipe};

use crate::bench::stats::median;

/// The budget measured, in characters.
pub(crate) const BUDGET: usize = 8000;

/// What [`measure`] found: a line for the log and one for the summary,
/// and the target's verdict (the budget's share of `load()`, < 5%).
pub(crate) struct Measured {
    /// The detailed line.
    pub line: String,
    /// `(what, met, figure)` of the target.
    pub target: (String, bool, String),
}

/// Times `load()` and the fitted catalogue on `tree` (home `tree/home`,
/// cwd `tree/project`, `skill_paths` as `--skill`) in `profile`.
pub(crate) fn measure(
    profile: &str,
    label: &str,
    tree: &Path,
    skill_paths: &[String],
    reps: usize,
) -> Result<Measured> {
    let skillpipe = Skillpipe::builder(profile.parse::<Profile>()?)
        .home(tree.join("home"))
        .cwd(tree.join("project"))
        .env::<String, String>([])
        .skill_paths(skill_paths.iter().map(PathBuf::from))
        .build()?;
    let mut loads = Vec::with_capacity(reps);
    let mut fits = Vec::with_capacity(reps);
    let mut last = None;
    // One warm-up round, then the timed ones.
    for i in 0..=reps {
        let t = Instant::now();
        let found = skillpipe.discover();
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let fitted = found.fit_catalog(ReadTool::Available, Some(BUDGET));
        let fit_ms = t.elapsed().as_secs_f64() * 1e3;
        if i > 0 {
            loads.push(load_ms);
            fits.push(fit_ms);
        }
        last = Some((found, fitted));
    }
    let Some((found, fitted)) = last else {
        bail!("no run of the catalogue budget");
    };
    if fitted.length > BUDGET {
        bail!(
            "{profile} {label}: the catalogue takes {} characters, over its budget of {BUDGET}",
            fitted.length
        );
    }
    // The names alone: every visible skill with an empty description.
    let bare: Vec<skillpipe::Skill> = found
        .skills()
        .iter()
        .map(|s| skillpipe::Skill {
            description: String::new().into(),
            ..s.clone()
        })
        .collect();
    let style = skillpipe.settings().profile.catalog;
    let names_alone = skillpipe::core::runtime::render_catalog(
        &bare,
        skillpipe::CatalogOptions {
            style,
            read_tool: ReadTool::Available,
        },
    )
    .chars()
    .count();
    let visible = found.skills().iter().filter(|s| !s.hidden).count();
    if names_alone <= BUDGET && !fitted.omitted.is_empty() {
        bail!("{profile} {label}: names fit, yet skills were left out");
    }
    let (load, fit) = (median(&mut loads), median(&mut fits));
    let (load_min, fit_min) = (
        loads.first().copied().unwrap_or(0.0),
        fits.first().copied().unwrap_or(0.0),
    );
    let share = fit_min / load_min * 100.0;
    let line = format!(
        "catalogue {profile} {label}: `prompt --budget {BUDGET}` adds {fit_min:.2} ms to load()'s {load_min:.1} ms ({share:.1}%; fastest of {reps}, medians {fit:.2} and {load:.1} ms); {} of {BUDGET} characters, {} of {visible} names shown, {} descriptions cut (cap {}), {} skills left out (the names alone take {names_alone} characters)",
        fitted.length,
        visible - fitted.omitted.len(),
        fitted.truncated.len(),
        fitted
            .cap
            .map_or_else(|| "none".to_owned(), |c| c.to_string()),
        fitted.omitted.len(),
    );
    Ok(Measured {
        line,
        target: (
            format!("{profile} {label} catalogue budget < 5% of load()"),
            share < 5.0,
            format!("{share:.2}%"),
        ),
    })
}
