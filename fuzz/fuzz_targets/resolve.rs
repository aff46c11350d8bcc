//! `skill://` resolution with symlinks that point out of the skill.
//!
//! The world, built once: `<scratch>/skills/x/` (SKILL.md, ref.md,
//! sub/inner.md, and links: `secret-link` and `abs-secret` to
//! `<scratch>/secret.txt`, `etc-link` to `/etc`, `out` to `<scratch>`,
//! `sub/up` to `<scratch>/skills`, `inside-link` to ref.md) and, outside
//! the skill, `<scratch>/secret.txt` holding a marker. The skill is loaded
//! by the one-level scanner. Each input is tried as `skill://x/<input>`
//! and as a URL on its own. Checks: no panic; a resolved path lies, real,
//! inside the skill's real base directory or is the skill's own file; no
//! resolved content holds the secret's marker.

#![no_main]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use skillpipe_core::runtime::resolve;
use skillpipe_core::scan::{self, Found, ScanSpec};
use skillpipe_core::types::{Level, Skill, Source};
use skillpipe_core::{ScanLimits, ScanMode};
use skillpipe_fuzz::{contains, inside, scratch};

const MARKER: &[u8] = b"SKILLPIPE-FUZZ-MARKER-5d41402abc4b2a76";

struct World {
    skills: Vec<Skill>,
    base_real: PathBuf,
    file_real: PathBuf,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = scratch("resolve");
        let base = dir.join("skills/x");
        fs::create_dir_all(base.join("sub")).unwrap();
        fs::write(dir.join("secret.txt"), MARKER).unwrap();
        fs::write(
            base.join("SKILL.md"),
            "---\nname: x\ndescription: A skill with links out.\n---\nSee ref.md.\n",
        )
        .unwrap();
        fs::write(base.join("ref.md"), "# ref\n").unwrap();
        fs::write(base.join("sub/inner.md"), "inner\n").unwrap();
        symlink("../../secret.txt", base.join("secret-link")).unwrap();
        symlink(dir.join("secret.txt"), base.join("abs-secret")).unwrap();
        symlink("/etc", base.join("etc-link")).unwrap();
        symlink("../..", base.join("out")).unwrap();
        symlink("../..", base.join("sub/up")).unwrap();
        symlink("ref.md", base.join("inside-link")).unwrap();
        let source = Arc::new(Source {
            provider: "fuzz".into(),
            level: Level::User,
            root: None,
        });
        let skills: Vec<Skill> = scan::scan(&ScanSpec {
            root: &dir.join("skills"),
            mode: ScanMode::OneLevel,
            source: &source,
            require_description: true,
            honor_enabled: true,
            limits: ScanLimits::default(),
            observer: None,
        })
        .into_iter()
        .filter_map(|f| match f {
            Found::Candidate { candidate, .. } => candidate.skill,
            _ => None,
        })
        .collect();
        assert_eq!(skills.len(), 1, "the fixture skill did not load");
        World {
            base_real: skills[0].base_dir.canonicalize().unwrap(),
            file_real: skills[0].file_path.canonicalize().unwrap(),
            skills,
        }
    })
}

fn check(w: &World, url: &str) {
    let Ok(resource) = resolve(&w.skills, url) else {
        return;
    };
    let real = resource.path.canonicalize();
    let ok = real.as_ref().is_ok_and(|p| p == &w.file_real) || inside(&resource.path, &w.base_real);
    assert!(
        ok,
        "{url:?} resolved outside the skill: {:?}",
        resource.path
    );
    assert!(
        !contains(&resource.content, MARKER),
        "{url:?} served the secret via {:?}",
        resource.path
    );
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let input = String::from_utf8_lossy(data);
    check(w, &format!("skill://x/{input}"));
    check(w, &input);
});
