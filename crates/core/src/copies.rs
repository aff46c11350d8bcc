//! Every copy of a name: the copies that did not load (collision losers,
//! identical copies) stay reachable as `name@provider` or
//! `name@provider:level`, and two copies holding the same bytes are told
//! apart from a real collision.
//!
//! Plain `name` keeps meaning the loaded copy. `name@provider` means the
//! first copy of `name` from that provider in pipeline order (the loaded
//! one included), which is its highest-priority copy there;
//! `name@provider:level` narrows to the first of that level.

use std::hash::{BuildHasher, RandomState};
use std::path::Path;

use skillpipe_types::{Discovery, ShadowedCopy, Skill};

/// The skills a runtime call looks names up in: the loaded ones, and the
/// copies that did not load. Made from a [`Discovery`] (every copy) or a
/// list of skills (the loaded ones only, as before).
#[derive(Debug, Clone, Copy, Default)]
pub struct Copies<'a> {
    /// The loaded skills, in pipeline order.
    pub skills: &'a [Skill],
    /// The copies that did not load, in the order the pipeline met them.
    pub shadowed: &'a [ShadowedCopy],
}

impl<'a> From<&'a Discovery> for Copies<'a> {
    fn from(d: &'a Discovery) -> Self {
        Copies {
            skills: &d.skills,
            shadowed: &d.shadowed,
        }
    }
}

impl<'a> From<&'a [Skill]> for Copies<'a> {
    fn from(skills: &'a [Skill]) -> Self {
        Copies {
            skills,
            shadowed: &[],
        }
    }
}

impl<'a> From<&'a Vec<Skill>> for Copies<'a> {
    fn from(skills: &'a Vec<Skill>) -> Self {
        Copies {
            skills,
            shadowed: &[],
        }
    }
}

impl<'a, const N: usize> From<&'a [Skill; N]> for Copies<'a> {
    fn from(skills: &'a [Skill; N]) -> Self {
        Copies {
            skills,
            shadowed: &[],
        }
    }
}

/// What a name or address leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<'a> {
    /// A copy: the loaded skill, or a shadowed copy.
    Found {
        /// The copy.
        skill: &'a Skill,
        /// Whether it is a copy that did not load.
        shadowed: bool,
    },
    /// An address whose name has copies, none of them the one asked for.
    NoSuchCopy {
        /// The addresses of the copies there are, the loaded one first.
        copies: Vec<String>,
        /// The first of them (the loaded one, when it is loaded).
        first: &'a Skill,
    },
    /// No skill and no copy has that name.
    Unknown,
}

impl<'a> Copies<'a> {
    /// What `text` (a name, or `name@provider[:level]`) names. An address
    /// always means the copy it names: a skill literally called
    /// `review@agents` (an invalid name, loaded with a warning) never
    /// takes the address of the agents copy of `review`; it is found by
    /// its name only when no copy has that address, and always by its own
    /// address (`review@agents@codex`, see [`Copies::command_name`]).
    pub fn find(&self, text: &str) -> Lookup<'a> {
        let address = self.find_address(text);
        if let Some(Lookup::Found { .. }) = &address {
            return address.unwrap_or(Lookup::Unknown);
        }
        if let Some(skill) = self.skills.iter().find(|s| s.name == text) {
            return Lookup::Found {
                skill,
                shadowed: false,
            };
        }
        address.unwrap_or(Lookup::Unknown)
    }

    /// `text` read as `name@provider[:level]`: `None` when it is no
    /// address (no `@`, an empty name, or a name nothing has).
    fn find_address(&self, text: &str) -> Option<Lookup<'a>> {
        let (name, place) = text.rsplit_once('@')?;
        let (provider, level) = match place.rsplit_once(':') {
            Some((provider, level)) => (provider, Some(level)),
            None => (place, None),
        };
        let copies = self.of(name);
        if name.is_empty() || copies.is_empty() {
            return None;
        }
        let hit = copies.iter().find(|(c, _)| {
            c.source.provider == provider && level.is_none_or(|l| c.source.level.as_str() == l)
        });
        match (hit, copies.first()) {
            (Some(&(skill, shadowed)), _) => Some(Lookup::Found { skill, shadowed }),
            (None, Some(&(first, _))) => Some(Lookup::NoSuchCopy {
                copies: (0..copies.len())
                    .filter_map(|i| address(&copies, i))
                    .collect(),
                first,
            }),
            (None, None) => None,
        }
    }

    /// What a loaded skill is called by: its name, unless that name is
    /// the address of another copy (a skill literally named
    /// `review@agents` beside the agents copy of `review`); then its own
    /// address, `review@agents@codex`, which always leads to it.
    pub fn command_name(&self, skill: &Skill) -> String {
        // Loaded names are unique: only one with an `@` can be an address.
        if !skill.name.contains('@') {
            return skill.name.to_string();
        }
        match self.find(&skill.name) {
            Lookup::Found { skill: s, .. } if std::ptr::eq(s, skill) => skill.name.to_string(),
            _ => address(&self.of(&skill.name), 0).unwrap_or_else(|| skill.name.to_string()),
        }
    }

    /// Every copy of `name` in pipeline order: the loaded one (when it is
    /// loaded) first, each with whether it is shadowed.
    pub fn of(&self, name: &str) -> Vec<(&'a Skill, bool)> {
        let loaded = self
            .skills
            .iter()
            .filter(|s| s.name == name)
            .take(1)
            .map(|s| (s, false));
        let shadowed = self
            .shadowed
            .iter()
            .filter(|c| c.skill.name == name)
            .map(|c| (&c.skill, true));
        loaded.chain(shadowed).collect()
    }

    /// The shortest address that leads to the copy `copy` (an element of
    /// `shadowed`): `name@provider`, else `name@provider:level`; `None`
    /// when an earlier copy of the same provider and level takes both.
    pub fn address_of(&self, copy: &ShadowedCopy) -> Option<String> {
        let copies = self.of(&copy.skill.name);
        let i = copies
            .iter()
            .position(|(s, _)| std::ptr::eq(*s, &copy.skill))?;
        address(&copies, i)
    }
}

/// The shortest address of `copies[i]` among `copies` (one name's, in
/// pipeline order).
fn address(copies: &[(&Skill, bool)], i: usize) -> Option<String> {
    let (skill, _) = copies.get(i)?;
    let source = &skill.source;
    let first = |same: &dyn Fn(&Skill) -> bool| copies.iter().position(|(c, _)| same(c));
    if first(&|c| c.source.provider == source.provider) == Some(i) {
        return Some(format!("{}@{}", skill.name, source.provider));
    }
    if first(&|c| c.source.provider == source.provider && c.source.level == source.level) == Some(i)
    {
        return Some(format!(
            "{}@{}:{}",
            skill.name, source.provider, source.level
        ));
    }
    None
}

/// The copies that did not load (shadowed, then what settings and
/// switched-off sources removed), in the order the pipeline met their
/// files (`list --all`).
pub fn not_loaded(d: &Discovery) -> Vec<&ShadowedCopy> {
    let mut copies: Vec<&ShadowedCopy> = d.shadowed.iter().chain(&d.removed).collect();
    let mut at: std::collections::HashMap<(&Path, &str), usize> = Default::default();
    for (i, c) in d.claims.iter().enumerate() {
        at.entry((c.file_path.as_path(), c.name.as_str()))
            .or_insert(i);
    }
    copies.sort_by_key(|c| {
        at.get(&(c.skill.file_path.as_path(), c.skill.name.as_str()))
            .copied()
            .unwrap_or(usize::MAX)
    });
    copies
}

/// A skill file's bytes, as far as telling two copies apart goes: their
/// length and a hash keyed anew for every run ([`RandomState`]), so no
/// file can be made to look like another. Only files that share a name
/// with a loaded skill are read for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Digest {
    len: usize,
    hash: u64,
}

impl Digest {
    /// The digest of the file at `path` (at most `max` bytes), or `None`
    /// when it cannot be read now: such a copy counts as different.
    pub(crate) fn of(path: &Path, max: u64, keys: &RandomState) -> Option<Self> {
        let bytes = crate::head::read_whole(path, max).ok()?;
        Some(Digest {
            len: bytes.len(),
            hash: keys.hash_one(&bytes),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    use skillpipe_types::{Fate, Level, Pass, Source, Winner};

    fn skill(name: &str, provider: &str, level: Level, file: &str) -> Skill {
        Skill {
            name: name.to_owned().into(),
            description: String::new().into(),
            file_path: PathBuf::from(file).into(),
            base_dir: PathBuf::from(file).parent().unwrap().to_path_buf().into(),
            source: Arc::new(Source {
                provider: provider.to_owned(),
                level,
                root: None,
            }),
            hidden: false,
            frontmatter: Default::default(),
            invocation: None,
            visibility: Default::default(),
        }
    }

    fn shadowed(skill: Skill, winner: &Skill) -> ShadowedCopy {
        ShadowedCopy {
            skill,
            fate: Fate::Shadowed {
                by: Winner {
                    file_path: winner.file_path.to_path_buf(),
                    provider: winner.source.provider.clone(),
                    level: winner.source.level,
                    priority: Some(100),
                    pass: Pass::Providers,
                },
            },
        }
    }

    fn found<'a>(l: &Lookup<'a>) -> Option<(&'a Path, bool)> {
        match l {
            Lookup::Found { skill, shadowed } => Some((skill.file_path.as_path(), *shadowed)),
            _ => None,
        }
    }

    fn no_such_copy(l: &Lookup<'_>) -> Option<Vec<String>> {
        match l {
            Lookup::NoSuchCopy { copies, first } => {
                assert_eq!(first.name, "review");
                Some(copies.clone())
            }
            _ => None,
        }
    }

    #[test]
    fn addresses_pick_the_first_copy_of_a_provider_then_of_its_level() {
        let winner = skill(
            "review",
            "claude",
            Level::User,
            "/h/.claude/skills/review/SKILL.md",
        );
        let project = skill(
            "review",
            "claude",
            Level::Project,
            "/p/.claude/skills/review/SKILL.md",
        );
        let upper = skill(
            "review",
            "claude",
            Level::Project,
            "/.claude/skills/review/SKILL.md",
        );
        let agents = skill(
            "review",
            "agents",
            Level::User,
            "/h/.agents/skills/review/SKILL.md",
        );
        let other = skill(
            "tdd",
            "native",
            Level::User,
            "/h/.musepi/agent/skills/tdd/SKILL.md",
        );
        let skills = vec![winner.clone(), other];
        let shadowed = vec![
            shadowed(project, &winner),
            shadowed(upper, &winner),
            shadowed(agents, &winner),
        ];
        let copies = Copies {
            skills: &skills,
            shadowed: &shadowed,
        };
        let at = |text: &str| found(&copies.find(text));
        assert_eq!(
            at("review"),
            Some((Path::new("/h/.claude/skills/review/SKILL.md"), false))
        );
        assert_eq!(at("review@claude"), at("review"));
        assert_eq!(at("review@claude:user"), at("review"));
        assert_eq!(
            at("review@claude:project"),
            Some((Path::new("/p/.claude/skills/review/SKILL.md"), true))
        );
        assert_eq!(
            at("review@agents"),
            Some((Path::new("/h/.agents/skills/review/SKILL.md"), true))
        );
        assert_eq!(at("tdd@native"), at("tdd"));
        let addresses: Vec<Option<String>> =
            shadowed.iter().map(|c| copies.address_of(c)).collect();
        assert_eq!(
            addresses,
            [
                Some("review@claude:project".to_owned()),
                None, // the first project copy of claude takes both addresses
                Some("review@agents".to_owned()),
            ]
        );
        let missing = [
            "review@codex",
            "review@claude:path",
            "review@claude:nonsense",
            "review@",
        ];
        for text in missing {
            assert_eq!(
                no_such_copy(&copies.find(text)),
                Some(vec![
                    "review@claude".to_owned(),
                    "review@claude:project".to_owned(),
                    "review@agents".to_owned()
                ]),
                "{text}"
            );
        }
        for text in ["nothing@claude", "@claude", "review-claude", ""] {
            assert_eq!(copies.find(text), Lookup::Unknown, "{text}");
        }
        // Skills alone: no copy but the loaded ones.
        let alone = Copies::from(&skills);
        assert_eq!(
            found(&alone.find("review@claude")),
            Some((Path::new("/h/.claude/skills/review/SKILL.md"), false))
        );
        assert_eq!(
            no_such_copy(&alone.find("review@agents")),
            Some(vec!["review@claude".to_owned()])
        );
    }

    #[test]
    fn an_address_always_means_the_copy_it_names() {
        // A skill literally named `mail@home` beside the `home` provider's
        // `mail`: the address wins, and the literal one keeps an address
        // of its own.
        let odd = skill("mail@home", "native", Level::User, "/a/mail/SKILL.md");
        let mail = skill("mail", "home", Level::User, "/b/mail/SKILL.md");
        let skills = [odd, mail];
        let copies = Copies::from(&skills);
        assert_eq!(
            found(&copies.find("mail@home")),
            Some((Path::new("/b/mail/SKILL.md"), false))
        );
        assert_eq!(copies.command_name(&skills[0]), "mail@home@native");
        assert_eq!(
            found(&copies.find("mail@home@native")),
            Some((Path::new("/a/mail/SKILL.md"), false))
        );
        assert_eq!(copies.command_name(&skills[1]), "mail");
        // The same when the addressed copy did not load.
        let winner = skill("review", "claude", Level::User, "/c/review/SKILL.md");
        let agents = skill("review", "agents", Level::User, "/d/review/SKILL.md");
        let literal = skill("review@agents", "codex", Level::User, "/e/lit/SKILL.md");
        let skills = vec![winner.clone(), literal];
        let shadowed = vec![shadowed(agents, &winner)];
        let copies = Copies {
            skills: &skills,
            shadowed: &shadowed,
        };
        assert_eq!(
            found(&copies.find("review@agents")),
            Some((Path::new("/d/review/SKILL.md"), true))
        );
        assert_eq!(copies.command_name(&skills[1]), "review@agents@codex");
        assert_eq!(
            found(&copies.find("review@agents@codex")),
            Some((Path::new("/e/lit/SKILL.md"), false))
        );
        // With no copy at that address, the literal name still finds it.
        let alone = Copies::from(&skills);
        assert_eq!(
            found(&alone.find("review@agents")),
            Some((Path::new("/e/lit/SKILL.md"), false))
        );
        assert_eq!(alone.command_name(&skills[1]), "review@agents");
    }

    #[test]
    fn digests_tell_bytes_apart() {
        let t = tempfile::tempdir().unwrap();
        let keys = RandomState::new();
        let write = |name: &str, text: &str| {
            let p = t.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let a = write("a.md", "---\nname: x\ndescription: d\n---\nbody\n");
        let b = write("b.md", "---\nname: x\ndescription: d\n---\nbody\n");
        let c = write("c.md", "---\nname: x\ndescription: d\n---\nbody!\n");
        let d = |p: &Path| Digest::of(p, 1 << 20, &keys);
        assert!(d(&a).is_some());
        assert_eq!(d(&a), d(&b));
        assert_ne!(d(&a), d(&c));
        assert_eq!(d(&t.path().join("missing.md")), None);
        // Over the bound: not read, so not the same.
        assert_eq!(Digest::of(&a, 4, &keys), None);
    }
}
