//! What changed between two discoveries, name by name.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use skillpipe::Skill;

/// The skills added, changed and removed from `old` to `new`.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) added: Vec<Skill>,
    pub(crate) changed: Vec<Skill>,
    pub(crate) removed: Vec<Skill>,
}

/// `changed` holds a name whose winner is another file, comes from
/// another provider, level or root, has other fields, or whose file was
/// written (`touched`: its content may differ where discovery does not
/// read, in the body). Fields are compared only for a skill read again:
/// one answered from the cache shares its `source` with the old one.
pub(crate) fn changes(old: &[Skill], new: &[Skill], touched: &dyn Fn(&Path) -> bool) -> Changes {
    let before: HashMap<&str, &Skill> = old.iter().map(|s| (s.name.as_str(), s)).collect();
    let after: HashMap<&str, &Skill> = new.iter().map(|s| (s.name.as_str(), s)).collect();
    let mut out = Changes::default();
    for s in new {
        match before.get(s.name.as_str()) {
            None => out.added.push(s.clone()),
            Some(o) if differs(o, s) || touched(&s.file_path) => out.changed.push(s.clone()),
            Some(_) => {}
        }
    }
    out.removed = old
        .iter()
        .filter(|s| !after.contains_key(s.name.as_str()))
        .cloned()
        .collect();
    out
}

fn differs(a: &Skill, b: &Skill) -> bool {
    // Settings set these, so a cached scan's copy may differ in them.
    if a.file_path != b.file_path
        || a.source != b.source
        || a.visibility != b.visibility
        || a.hidden != b.hidden
    {
        return true;
    }
    if Arc::ptr_eq(&a.source, &b.source) {
        // The same scan's findings: the same fields.
        return false;
    }
    a.description != b.description
        || a.base_dir != b.base_dir
        || a.frontmatter != b.frontmatter
        || a.invocation != b.invocation
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpipe::{Level, Source};
    use std::path::PathBuf;

    fn skill(name: &str, file: &str, description: &str, source: &Arc<Source>) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            file_path: PathBuf::from(file).into(),
            base_dir: PathBuf::from(file).parent().unwrap().into(),
            source: Arc::clone(source),
            hidden: false,
            frontmatter: Default::default(),
            invocation: None,
            visibility: Default::default(),
        }
    }

    #[test]
    fn names_are_added_changed_removed_by_their_winner() {
        let src = Arc::new(Source {
            provider: "claude".into(),
            level: Level::User,
            root: Some("/r".into()),
        });
        let rescanned = Arc::new(Source::clone(&src));
        let other = Arc::new(Source {
            provider: "codex".into(),
            ..Source::clone(&src)
        });
        let old = vec![
            skill("same", "/r/same/SKILL.md", "d", &src),
            skill("edited", "/r/edited/SKILL.md", "d", &src),
            skill("moved", "/r/moved/SKILL.md", "d", &src),
            skill("winner", "/r/winner/SKILL.md", "d", &src),
            skill("body", "/r/body/SKILL.md", "d", &src),
            skill("gone", "/r/gone/SKILL.md", "d", &src),
        ];
        let new = vec![
            skill("same", "/r/same/SKILL.md", "d", &rescanned),
            skill("edited", "/r/edited/SKILL.md", "new", &rescanned),
            skill("moved", "/r/moved-2/SKILL.md", "d", &rescanned),
            skill("winner", "/r/winner/SKILL.md", "d", &other),
            skill("body", "/r/body/SKILL.md", "d", &src),
            skill("fresh", "/r/fresh/SKILL.md", "d", &rescanned),
        ];
        let touched = |p: &Path| p == Path::new("/r/body/SKILL.md");
        let c = changes(&old, &new, &touched);
        let names = |v: &[Skill]| v.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.added), ["fresh"]);
        assert_eq!(names(&c.changed), ["edited", "moved", "winner", "body"]);
        assert_eq!(names(&c.removed), ["gone"]);
        let none = changes(&new, &new, &|_| false);
        assert!(none.added.is_empty() && none.changed.is_empty() && none.removed.is_empty());
    }
}
