//! `skills.visibility` (pi: `visibility`): name globs to `on`,
//! `name-only`, `user-only` or `off`, and which one a name gets.
//!
//! The rule, for one name:
//! 1. The entries are the merged setting: each glob is a key like any
//!    other, so a later layer's value for the same glob replaces an
//!    earlier one's.
//! 2. Of the globs that match the name, the most specific decides: a
//!    plain name before any pattern; then the one with more literal
//!    characters; then the longer one; then the more restrictive value.
//! 3. A project settings file may restrict but never loosen: when the
//!    deciding entry comes from one, the trusted layers' entries alone
//!    (user settings, `--config`, the environment, `--set`) are decided
//!    the same way, and the more restrictive of the two stands (`on` <
//!    `name-only` < `user-only` < `off`).

use skillpipe_types::Visibility;

/// One `glob = value` entry, with the layer that set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The name glob (glob-match syntax, as `skills.ignoredSkills`).
    pub pattern: String,
    /// The value.
    pub visibility: Visibility,
    /// The layer, as settings errors name it (a file, `--set …`).
    pub layer: String,
    /// Whether that layer is a project settings file.
    pub project: bool,
}

/// The entries of every layer, merged, and of the trusted layers alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// The merged entries.
    pub all: Vec<Rule>,
    /// The merged entries of the trusted layers.
    pub trusted: Vec<Rule>,
}

impl Rules {
    /// Whether no entry is set (every name `on`).
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// The entry that decides `name`'s visibility, `None` when no glob
    /// matches it (it is `on`).
    pub fn of(&self, name: &str) -> Option<&Rule> {
        let rule = most_specific(&self.all, name)?;
        if rule.project
            && let Some(trusted) = most_specific(&self.trusted, name)
            && trusted.visibility > rule.visibility
        {
            return Some(trusted);
        }
        Some(rule)
    }

    /// `name`'s visibility.
    pub fn visibility_of(&self, name: &str) -> Visibility {
        self.of(name).map_or(Visibility::On, |r| r.visibility)
    }
}

fn most_specific<'r>(rules: &'r [Rule], name: &str) -> Option<&'r Rule> {
    rules
        .iter()
        .filter(|r| glob_match::glob_match(&r.pattern, name))
        .max_by_key(|r| specificity(r))
}

/// How specific an entry is, to compare two that match one name.
fn specificity(rule: &Rule) -> (bool, usize, usize, Visibility) {
    const META: [char; 8] = ['*', '?', '[', ']', '{', '}', ',', '\\'];
    let plain = !rule.pattern.contains(META);
    let literal = rule.pattern.chars().filter(|c| !META.contains(c)).count();
    (plain, literal, rule.pattern.len(), rule.visibility)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(pattern: &str, v: Visibility, project: bool) -> Rule {
        Rule {
            pattern: pattern.to_owned(),
            visibility: v,
            layer: if project { "project" } else { "user" }.to_owned(),
            project,
        }
    }

    #[test]
    fn the_most_specific_glob_decides() {
        use Visibility::*;
        let rules = Rules {
            all: vec![
                rule("*", NameOnly, false),
                rule("deploy-*", Off, false),
                rule("deploy-docs", On, false),
                rule("d?ploy-xy", UserOnly, false),
            ],
            trusted: Vec::new(),
        };
        assert_eq!(rules.visibility_of("lint"), NameOnly);
        assert_eq!(rules.visibility_of("deploy-prod"), Off);
        assert_eq!(rules.visibility_of("deploy-docs"), On);
        // `d?ploy-xy` has more literal characters than `deploy-*`.
        assert_eq!(rules.visibility_of("deploy-xy"), UserOnly);
        assert_eq!(Rules::default().visibility_of("x"), On);
        // Equally specific: the more restrictive.
        let tie = Rules {
            all: vec![rule("a*", On, false), rule("*a", Off, false)],
            trusted: Vec::new(),
        };
        assert_eq!(tie.visibility_of("aa"), Off);
    }

    #[test]
    fn a_project_file_restricts_but_never_loosens() {
        use Visibility::*;
        let user = vec![rule("*", UserOnly, false), rule("deploy", Off, false)];
        let mut all = user.clone();
        all.push(rule("lint", On, true));
        all.push(rule("review", Off, true));
        // The same glob: the project's value replaced the user's (merge).
        all.retain(|r| r.pattern != "deploy");
        all.push(rule("deploy", On, true));
        let rules = Rules { all, trusted: user };
        assert_eq!(rules.visibility_of("lint"), UserOnly);
        assert_eq!(rules.visibility_of("review"), Off);
        let deploy = rules.of("deploy").unwrap();
        assert_eq!((deploy.visibility, deploy.layer.as_str()), (Off, "user"));
        assert_eq!(rules.visibility_of("other"), UserOnly);
    }
}
