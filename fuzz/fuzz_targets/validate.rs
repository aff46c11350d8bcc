//! The Agent Skills validator (`skillpipe validate`) on an arbitrary
//! SKILL.md: the input is written to `<scratch>/x/SKILL.md` and validated by
//! folder and by file path, as the CLI does. Checks: no panic, both ways
//! give the same verdict on the same folder; and the validator's own
//! frontmatter reader never panics on the text.

#![no_main]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillpipe_fuzz::scratch;
use skillpipe_validate::{parse_frontmatter, validate, validate_metadata};

fn skill_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("validate").join("x");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = skill_dir();
    let file = dir.join("SKILL.md");
    std::fs::write(&file, data).unwrap();
    let by_dir = validate(dir);
    let by_file = validate(&file);
    assert_eq!(by_dir.path, *dir);
    assert_eq!(by_dir, by_file, "folder and file verdicts differ");
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(metadata) = parse_frontmatter(text)
    {
        let _ = validate_metadata(&metadata, Some("x"));
    }
});
