//! `metadata.requires`, checked after discovery: each name (or
//! `name@provider[:level]` address) a loaded skill requires must be
//! loaded; one that is not (missing, or switched off) is a
//! `missing-dependency` warning on the skill that requires it, and skills
//! requiring each other in a circle are one `dependency-cycle` warning.
//! Nothing is loaded or dropped because of it.

use std::collections::HashMap;

use skillpipe_types::{Diagnostic, DiagnosticCode, Level, Skill};

/// How many names a `dependency-cycle` message shows.
const CYCLE_NAMES_SHOWN: usize = 8;

/// One entry of `requires`: a name, and the provider and level an
/// address names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requirement<'a> {
    /// As written.
    pub written: &'a str,
    /// The skill name.
    pub name: &'a str,
    /// `@provider`.
    pub provider: Option<&'a str>,
    /// `:level`.
    pub level: Option<&'a str>,
}

impl<'a> Requirement<'a> {
    /// Reads `name`, `name@provider` or `name@provider:level`.
    pub fn parse(written: &'a str) -> Self {
        let (name, address) = match written.rsplit_once('@') {
            Some((name, address)) if !name.is_empty() => (name, Some(address)),
            _ => (written, None),
        };
        let (provider, level) = match address.map(|a| a.split_once(':').unwrap_or((a, ""))) {
            Some((provider, level)) => (
                Some(provider).filter(|p| !p.is_empty()),
                Some(level).filter(|l| !l.is_empty()),
            ),
            None => (None, None),
        };
        Requirement {
            written,
            name,
            provider,
            level,
        }
    }

    /// Whether `skill` is what this asks for.
    pub fn is_met_by(&self, skill: &Skill) -> bool {
        skill.name == self.name
            && self.provider.is_none_or(|p| skill.source.provider == p)
            && self.level.is_none_or(|l| level_is(skill.source.level, l))
    }
}

fn level_is(level: Level, text: &str) -> bool {
    level.as_str() == text
}

/// What `skill` requires, as written (empty when nothing).
pub fn requires_of(skill: &Skill) -> &[String] {
    skill
        .invocation
        .as_ref()
        .and_then(|i| i.requires.as_deref())
        .unwrap_or(&[])
}

/// The loaded skills whose `requires` name `name` (bare or addressed),
/// in pipeline order.
pub fn required_by<'s>(skills: &'s [Skill], name: &str) -> Vec<&'s Skill> {
    skills
        .iter()
        .filter(|s| {
            requires_of(s)
                .iter()
                .any(|r| Requirement::parse(r).name == name)
        })
        .collect()
}

/// The warnings of the check: for each skill in order, one
/// `missing-dependency` per requirement no loaded skill meets; then one
/// `dependency-cycle` per circle of skills requiring each other, on the
/// circle's first skill in pipeline order.
pub fn check(skills: &[Skill]) -> Vec<Diagnostic> {
    if skills.iter().all(|s| requires_of(s).is_empty()) {
        return Vec::new();
    }
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in skills.iter().enumerate() {
        by_name.entry(s.name.as_str()).or_default().push(i);
    }
    let mut out = Vec::new();
    // The graph: skill → the skills meeting its requirements.
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); skills.len()];
    for (i, s) in skills.iter().enumerate() {
        for written in requires_of(s) {
            let req = Requirement::parse(written);
            let met = by_name
                .get(req.name)
                .and_then(|list| list.iter().find(|&&j| req.is_met_by(&skills[j])));
            match met {
                Some(&j) => {
                    if !edges[i].contains(&j) {
                        edges[i].push(j);
                    }
                }
                None => out.push(Diagnostic::warning(
                    DiagnosticCode::MissingDependency,
                    format!(
                        "skill \"{}\" requires \"{written}\", which is not loaded",
                        s.name
                    ),
                    &s.file_path,
                )),
            }
        }
    }
    for cycle in cycles(&edges) {
        let first = cycle[0];
        let mut names: Vec<&str> = cycle
            .iter()
            .take(CYCLE_NAMES_SHOWN)
            .map(|&i| skills[i].name.as_str())
            .collect();
        if cycle.len() > CYCLE_NAMES_SHOWN {
            names.push("…");
        }
        names.push(&skills[first].name);
        let mut message = format!(
            "skills require each other in a cycle: {}",
            names.join(" → ")
        );
        if cycle.len() > CYCLE_NAMES_SHOWN {
            message.push_str(&format!(" ({} skills)", cycle.len()));
        }
        out.push(Diagnostic::warning(
            DiagnosticCode::DependencyCycle,
            message,
            &skills[first].file_path,
        ));
    }
    out
}

/// Each circle of the graph once (a strongly connected component of more
/// than one skill, or a skill requiring itself), as the shortest walk
/// from its lowest index along the edges back to it; in order of that
/// index.
fn cycles(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut member = vec![usize::MAX; edges.len()];
    for (c, comp) in strongly_connected(edges).into_iter().enumerate() {
        for &i in &comp {
            member[i] = c;
        }
        let first = comp.iter().copied().min().unwrap_or(0);
        if comp.len() == 1 && !edges[first].contains(&first) {
            continue;
        }
        // Breadth-first inside the component, from `first` to a skill
        // with an edge back to it.
        let mut parent = HashMap::new();
        let mut queue = std::collections::VecDeque::from([first]);
        let mut last = None;
        while let Some(at) = queue.pop_front() {
            if edges[at].contains(&first) {
                last = Some(at);
                break;
            }
            for &next in &edges[at] {
                if member[next] == c && next != first && !parent.contains_key(&next) {
                    parent.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
        let Some(mut at) = last else { continue };
        let mut path = vec![at];
        while let Some(&p) = parent.get(&at) {
            path.push(p);
            at = p;
        }
        path.reverse();
        out.push(path);
    }
    out.sort_by_key(|p| p[0]);
    out
}

/// Tarjan's strongly connected components, iteratively (no recursion on
/// a deep chain of requirements).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, position in its edge list)
        let mut work = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpipe_types::{Invocation, Source};
    use std::sync::Arc;

    fn skill(name: &str, provider: &str, requires: &[&str]) -> Skill {
        let invocation = (!requires.is_empty()).then(|| {
            let mut i = Invocation::default();
            i.requires = Some(requires.iter().map(|s| (*s).to_owned()).collect());
            Box::new(i)
        });
        Skill {
            name: name.into(),
            description: "d".into(),
            file_path: format!("/s/{name}/SKILL.md").into(),
            base_dir: format!("/s/{name}").into(),
            source: Arc::new(Source {
                provider: provider.into(),
                level: Level::User,
                root: None,
            }),
            hidden: false,
            frontmatter: Default::default(),
            invocation,
            visibility: Default::default(),
        }
    }

    fn messages(d: &[Diagnostic]) -> Vec<String> {
        d.iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect()
    }

    #[test]
    fn requirements_read_as_addresses() {
        let r = Requirement::parse("pdf@claude:project");
        assert_eq!(
            (r.name, r.provider, r.level),
            ("pdf", Some("claude"), Some("project"))
        );
        let r = Requirement::parse("pdf");
        assert_eq!((r.name, r.provider), ("pdf", None));
        let r = Requirement::parse("@x");
        assert_eq!(r.name, "@x");
    }

    #[test]
    fn missing_requirements_are_warned_on_the_skill_that_needs_them() {
        let skills = [
            skill("a", "native", &["b", "c", "b@claude", "b@native:user"]),
            skill("b", "native", &[]),
        ];
        assert_eq!(
            messages(&check(&skills)),
            [
                "missing-dependency skill \"a\" requires \"c\", which is not loaded",
                "missing-dependency skill \"a\" requires \"b@claude\", which is not loaded",
            ]
        );
        assert_eq!(required_by(&skills, "b").len(), 1);
        assert!(check(&[skill("x", "native", &[])]).is_empty());
    }

    #[test]
    fn a_cycle_is_reported_once() {
        let skills = [
            skill("z", "native", &[]),
            skill("c", "native", &["a"]),
            skill("a", "native", &["b"]),
            skill("b", "native", &["c", "z"]),
            skill("self", "native", &["self"]),
        ];
        assert_eq!(
            messages(&check(&skills)),
            [
                "dependency-cycle skills require each other in a cycle: c → a → b → c",
                "dependency-cycle skills require each other in a cycle: self → self",
            ]
        );
        assert_eq!(check(&skills)[0].path, skills[1].file_path);
    }

    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let names: Vec<String> = (0..20_000).map(|i| format!("s{i}")).collect();
        let mut skills: Vec<Skill> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let next = names.get(i + 1).map_or("s0", String::as_str);
                skill(n, "native", &[next])
            })
            .collect();
        let d = check(&skills);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, DiagnosticCode::DependencyCycle);
        assert!(
            d[0].message.ends_with("s7 → … → s0 (20000 skills)"),
            "{}",
            d[0].message
        );
        skills.pop();
        assert_eq!(
            messages(&check(&skills)).len(),
            1,
            "s19998 requires s19999, missing"
        );
    }
}
