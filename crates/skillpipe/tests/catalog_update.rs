//! `Discovered::catalog_update` in both profiles: what changed, the
//! message, and when a host should render the catalogue again instead.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};

use skillpipe::{Discovered, Profile, Rerender, Skillpipe};

struct World {
    _t: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
    profile: Profile,
}

impl World {
    fn new(profile: Profile) -> World {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().to_path_buf();
        let root = match profile {
            Profile::Pi => home.join(".pi/agent/skills"),
            _ => home.join(".musepi/agent/skills"),
        };
        World {
            _t: t,
            home,
            root,
            profile,
        }
    }

    fn skill(&self, name: &str, description: &str) {
        write(
            &self.root.join(name).join("SKILL.md"),
            &format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
        );
    }

    fn discover(&self, sets: &[&str]) -> Discovered {
        let key = |k: &str| match self.profile {
            Profile::Pi => k.to_owned(),
            _ => format!("skills.{k}"),
        };
        let mut b = Skillpipe::builder(self.profile)
            .home(&self.home)
            .cwd(&self.home)
            .env::<String, String>([]);
        for s in sets {
            b = b.set(key(s));
        }
        b.build().unwrap().discover()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn an_update_names_what_changed_and_when_to_render_again() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new(profile);
        for name in ["a", "b", "c", "d", "e"] {
            w.skill(name, &format!("Skill {name}."));
        }
        let before = w.discover(&[]);
        assert!(w.discover(&[]).catalog_update(&before).is_empty());

        w.skill("b", "Skill b, better.");
        w.skill("f", "Skill f.");
        let after = w.discover(&[]);
        let u = after.catalog_update(&before);
        assert_eq!(
            (u.added.as_slice(), u.changed.as_slice()),
            (&["f".to_owned()][..], &["b".to_owned()][..])
        );
        assert_eq!(u.rerender, None, "{profile:?}: 2 of 5");
        assert!(u.message.contains("Skill b, better."), "{}", u.message);
        assert!(
            !u.message.contains("Skill a."),
            "only what changed: {}",
            u.message
        );

        // More than half changed: render again.
        for name in ["a", "c", "d", "e"] {
            std::fs::remove_dir_all(w.root.join(name)).unwrap();
        }
        let gutted = w.discover(&[]);
        let u = gutted.catalog_update(&after);
        assert_eq!(u.removed, ["a", "c", "d", "e"]);
        assert_eq!(u.rerender, Some(Rerender::MostChanged), "{profile:?}");

        // Other catalogue settings: render again.
        let searching = w.discover(&["catalogMode=search"]);
        assert_eq!(
            searching.catalog_update(&gutted).rerender,
            Some(Rerender::Settings)
        );

        // A budget the old catalogue and the message overflow.
        let len = gutted
            .catalog(skillpipe::ReadTool::Available)
            .chars()
            .count();
        let budget = format!("catalogBudget={}", len + 5);
        let tight = w.discover(&[&budget]);
        w.skill(
            "g",
            "Skill g, with a description long enough to overflow the budget.",
        );
        let grown = w.discover(&[&budget]);
        let u = grown.catalog_update(&tight);
        assert_eq!(u.added, ["g"]);
        assert_eq!(u.rerender, Some(Rerender::BudgetExceeded), "{profile:?}");
    }
}

#[test]
fn search_mode_updates_name_the_pins_and_count_the_rest() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new(profile);
        for name in ["pinned", "x", "y", "z"] {
            w.skill(name, &format!("Skill {name}."));
        }
        let sets = ["catalogMode=search", r#"catalogPins=["pinned"]"#];
        let before = w.discover(&sets);
        w.skill("new", "Skill new.");
        let u = w.discover(&sets).catalog_update(&before);
        assert!(u.added.is_empty(), "{profile:?}: only pins are listed");
        assert_eq!(u.searchable, Some(4));
        assert!(u.message.contains(": 4 now."), "{}", u.message);
        w.skill("pinned", "Skill pinned, edited.");
        let after = w.discover(&sets);
        let u = after.catalog_update(&w.discover(&sets));
        assert!(u.is_empty());
        let u = after.catalog_update(&before);
        assert_eq!(u.changed, ["pinned"]);
    }
}
