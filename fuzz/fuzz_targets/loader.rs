//! The loader and scanners on an arbitrary SKILL.md.
//!
//! The input is written to `<scratch>/skills/x/SKILL.md`; the root
//! `<scratch>/skills` is scanned one level deep (as `load_skills_from_dir`
//! does: description required, `enabled: false` honoured), and the file on
//! its own (nothing required, `enabled` ignored). Checks: no panic; every
//! diagnostic and every skill path lies inside the scratch directory; YAML
//! positions are 1-based; a skill's frontmatter mapping (built lazily for
//! flat frontmatter) can be built and is the same from both scans.

#![no_main]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use skillpipe_core::scan::{self, Found, ScanSpec};
use skillpipe_core::types::{Level, Source};
use skillpipe_core::{ScanLimits, ScanMode};
use skillpipe_fuzz::{inside, scratch};

struct World {
    dir: &'static Path,
    skills: PathBuf,
    file: PathBuf,
    source: Arc<Source>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = scratch("loader");
        let skills = dir.join("skills");
        std::fs::create_dir_all(skills.join("x")).unwrap();
        World {
            dir,
            file: skills.join("x/SKILL.md"),
            source: Arc::new(Source {
                provider: "fuzz".into(),
                level: Level::User,
                root: Some(skills.clone()),
            }),
            skills,
        }
    })
}

fn run(
    w: &World,
    root: &Path,
    mode: ScanMode,
    require_description: bool,
    honor_enabled: bool,
) -> Vec<String> {
    let found = scan::scan(&ScanSpec {
        root,
        mode,
        source: &w.source,
        require_description,
        honor_enabled,
        limits: ScanLimits::default(),
        observer: None,
    });
    let mut maps = Vec::new();
    for f in found {
        match f {
            Found::Diagnostic(d) | Found::Failed(d) => {
                assert!(inside(&d.path, w.dir), "diagnostic outside: {d:?}");
            }
            Found::Candidate {
                candidate,
                path,
                real_path,
            } => {
                assert!(inside(&path, w.dir), "candidate path outside: {path:?}");
                assert!(
                    real_path.starts_with(w.dir),
                    "real path outside: {real_path:?}"
                );
                for d in &candidate.diagnostics {
                    assert!(inside(&d.path, w.dir), "diagnostic outside: {d:?}");
                    if let (Some(line), Some(column)) = (d.line, d.column) {
                        assert!(line >= 1 && column >= 1, "position not 1-based: {d:?}");
                    }
                }
                if let Some(skill) = candidate.skill {
                    assert!(inside(&skill.file_path, w.dir), "skill outside: {skill:?}");
                    assert!(inside(&skill.base_dir, w.dir), "base outside: {skill:?}");
                    maps.push(serde_json::to_string(skill.frontmatter.map()).unwrap());
                }
            }
        }
    }
    maps
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    std::fs::write(&w.file, data).unwrap();
    let one = run(w, &w.skills, ScanMode::OneLevel, true, true);
    let file = run(w, &w.file, ScanMode::File, false, false);
    // The same file gives the same mapping whichever scan loaded it (the
    // file scan, with nothing required, loads whatever the other does).
    for map in &one {
        assert!(
            file.contains(map),
            "mapping differs between scans: {map} vs {file:?}"
        );
    }
});
