//! `count-allocs --profile P --tree T [--skill PATH]...`: the allocations
//! of one `Skillpipe::discover()` on a bench tree (home `T/home`, cwd
//! `T/project`), after one uncounted warm-up run, printed as JSON
//! (`allocations`, `reallocations`, `bytes`, `skills`).
//!
//! A binary of its own because the count is its global allocator: every
//! allocation of every thread is counted (atomically), which the timed
//! probes in `xtask` must not pay for. `cargo xtask bench` runs it for the
//! allocations per skill of each tree and profile.

#[cfg(target_os = "linux")]
fn main() -> anyhow::Result<()> {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("count-allocs runs on Linux only, as the bench");
    std::process::exit(2);
}

#[cfg(target_os = "linux")]
mod linux {
    use std::alloc::System;
    use std::path::PathBuf;

    use anyhow::{Context, Result, bail};
    use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

    #[global_allocator]
    static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

    pub(super) fn main() -> Result<()> {
        let (mut profile, mut tree, mut skills) = (None, None, Vec::new());
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let value = args.next().with_context(|| format!("{a} needs a value"))?;
            match a.as_str() {
                "--profile" => profile = Some(value),
                "--tree" => tree = Some(PathBuf::from(value)),
                "--skill" => skills.push(PathBuf::from(value)),
                other => bail!("unknown argument `{other}`"),
            }
        }
        let profile: skillpipe::Profile = profile.context("--profile is needed")?.parse()?;
        let tree = tree.context("--tree is needed")?;
        let pipeline = skillpipe::Skillpipe::builder(profile)
            .home(tree.join("home"))
            .cwd(tree.join("project"))
            .env::<String, String>([])
            .skill_paths(skills)
            .build()?;
        drop(pipeline.discover());
        let region = Region::new(GLOBAL);
        let found = pipeline.discover();
        let stats = region.change();
        let doc = serde_json::json!({
            "allocations": stats.allocations,
            "reallocations": stats.reallocations,
            "bytes": stats.bytes_allocated,
            "skills": found.skills().len(),
        });
        println!("{doc}");
        Ok(())
    }
}
