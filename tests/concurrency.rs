//! One `Pipeline` shared by many host threads: every `load`, `resolve`
//! and catalogue gives what one thread alone gets.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;

use skillpipe::{Profile, ReadTool, Skillpipe};

#[test]
fn eight_threads_sharing_one_pipeline_see_identical_results() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let home = root.join("home");
    let project = root.join("project");
    fs::create_dir_all(project.join(".git")).unwrap();
    // Skills in several providers, a collision, a broken file, references.
    for (dir, n) in [
        ("home/.musepi/agent/skills", 40),
        ("home/.claude/skills", 30),
        ("project/.claude/skills", 20),
        ("home/.agents/skills", 10),
    ] {
        for i in 0..n {
            let skill = root.join(dir).join(format!("skill-{i:02}"));
            fs::create_dir_all(skill.join("ref")).unwrap();
            fs::write(
                skill.join("SKILL.md"),
                format!(
                    "---\nname: skill-{i:02}\ndescription: Skill {i} of {dir}.\n---\nBody {i}\n"
                ),
            )
            .unwrap();
            fs::write(skill.join("ref/notes.md"), format!("notes of {dir} {i}")).unwrap();
        }
    }
    fs::create_dir_all(home.join(".claude/skills/broken")).unwrap();
    fs::write(
        home.join(".claude/skills/broken/SKILL.md"),
        "---\ndescription: [unclosed\n---\n",
    )
    .unwrap();
    let pipeline = Skillpipe::builder(Profile::Musepi)
        .home(home)
        .cwd(project)
        .env::<String, String>([])
        .build()
        .unwrap();
    let first = pipeline.discover();
    assert!(first.skills().len() >= 40 && !first.diagnostics().is_empty());
    let catalog = first.catalog(ReadTool::Available);
    let urls: Vec<String> = first
        .skills()
        .iter()
        .map(|s| format!("skill://{}/ref/notes.md", s.name))
        .collect();
    let reads: Vec<Vec<u8>> = urls
        .iter()
        .map(|u| first.resolve(u).unwrap().content)
        .collect();

    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..10 {
                    let d = pipeline.discover();
                    assert_eq!(d.discovery(), first.discovery());
                    assert_eq!(d.catalog(ReadTool::Available), catalog);
                    for (url, want) in urls.iter().zip(&reads) {
                        assert_eq!(&d.resolve(url).unwrap().content, want);
                    }
                }
            });
        }
    });
}
