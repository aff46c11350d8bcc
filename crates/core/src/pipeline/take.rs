//! Taking each finding in pipeline order: dedup by real path, then by
//! name, with each copy's fate, and the `-v` lines of the filters.

use std::collections::BTreeMap;
use std::collections::hash_map::Entry;

use std::path::Path;

use skillpipe_types::{
    Claim, Collision, Diagnostic, DiagnosticCode, Fate, Level, Pass, ShadowedCopy, Skill, Switch,
    Winner,
};

use crate::checks;
use crate::checks::{is_sanitized_managed_description, sanitize_managed_description};
use crate::copies::Digest;
use crate::load::Candidate;
use crate::scan::Found;

use super::keys::{FastMap, FastSet, Name, RealPath};
use super::options::Options;
use super::work::Keys;

/// How many names a filter's `-v` line shows.
const FILTERED_NAMES_SHOWN: usize = 10;

/// What loading a skill makes of it beyond its file: a managed skill's
/// description made safe, and the visibility the settings give its name.
pub(super) fn settle(skill: &mut Skill, pass: Pass, opts: &Options) {
    if pass == Pass::Managed {
        if !is_sanitized_managed_description(&skill.description) {
            skill.description = sanitize_managed_description(&skill.description).into();
        }
        if let Some(inv) = skill.invocation.as_deref_mut()
            && let Some(when) = &inv.when_to_use
        {
            inv.listing_description = Some(crate::invocation::listing_description(
                &skill.description,
                when,
            ));
        }
    }
    if !opts.visibility.is_empty() {
        skill.visibility = opts.visibility.visibility_of(&skill.name);
        skill.hidden |= skill.visibility == skillpipe_types::Visibility::UserOnly;
    }
}

#[derive(Default)]
pub(super) struct State {
    pub(super) skills: Vec<Skill>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) collisions: Vec<Diagnostic>,
    /// Real paths whose diagnostics were reported, each with the skill
    /// loaded from it: 0 for none, else its index in `skills` plus one.
    pub(super) real_paths: FastMap<RealPath, u32>,
    /// Loaded names: the winner's index in `skills` and its provider's in
    /// `providers`.
    pub(super) names: FastMap<Name, (usize, usize)>,
    /// The providers of loaded skills: id, priority (none in the custom
    /// pass) and pass.
    pub(super) providers: Vec<(String, Option<i32>, Pass)>,
    /// Names of authored candidates of enabled sources (shadow managed ones).
    pub(super) authored: FastSet<Name>,
    /// Copies of loaded names that did not load, in the order met.
    pub(super) shadowed: Vec<ShadowedCopy>,
    /// What settings and switched-off sources removed, and same-file
    /// copies (only with [`Options::keep_removed`]).
    pub(super) removed: Vec<ShadowedCopy>,
    /// Every candidate, in order (only with [`Options::keep_removed`]).
    pub(super) claims: Vec<Claim>,
    /// Candidates taken (for `-v`).
    pub(super) candidates: usize,
    /// How many candidates each name filter removed, and the first few
    /// names (for `-v`).
    pub(super) filtered: BTreeMap<String, (usize, Vec<String>)>,
    /// The digests of winners' files, by index in `skills`: read only
    /// when a second copy of their name comes.
    pub(super) digests: FastMap<usize, Option<Digest>>,
    /// The length of each loaded skill's file when it was read (by index
    /// in `skills`): copies of other lengths differ without a read.
    pub(super) lens: Vec<Option<u64>>,
    /// Each loaded skill's name's lower-cased head (by index in `skills`),
    /// read on the scanning thread, when the final list is sorted by name.
    pub(super) heads: Vec<(u128, u128)>,
    /// This run's key for [`Digest`].
    pub(super) keys: std::hash::RandomState,
    /// The bound of a skill file read for a digest.
    pub(super) max_file_bytes: u64,
}

impl State {
    /// Room for `n` more candidates, so the tables grow once per root
    /// rather than rehash as they fill.
    pub(super) fn reserve(&mut self, n: usize, heads: bool) {
        self.real_paths.reserve(n);
        self.names.reserve(n);
        self.authored.reserve(n);
        self.skills.reserve(n);
        self.lens.reserve(n);
        if heads {
            self.heads.reserve(n);
        }
    }

    /// Takes one finding of a root made ready ([`make_ready`]), with its
    /// keys and (when the final list is sorted by name) its head.
    ///
    /// [`make_ready`]: super::work::make_ready
    pub(super) fn take(
        &mut self,
        (item, keys): (Found, Keys),
        head: Option<(u128, u128)>,
        (provider, priority): (&str, Option<i32>),
        opts: &Options,
        pass: Pass,
        off: Option<&Switch>,
    ) {
        let (candidate, real_path) = match item {
            // A switched-off source says nothing.
            Found::Diagnostic(_) | Found::Failed(_) if off.is_some() => return,
            // (`make_ready` leaves no failure among the findings.)
            Found::Diagnostic(d) | Found::Failed(d) => {
                self.diagnostics.push(d);
                return;
            }
            Found::Candidate {
                candidate,
                real_path,
                ..
            } => (candidate, real_path),
        };
        self.candidates += 1;
        let Candidate {
            filter_name,
            skill,
            diagnostics,
            file_len,
        } = candidate;
        let name = Name {
            hash: keys.name,
            text: filter_name,
        };
        let real_path = RealPath {
            hash: keys.real_path,
            path: real_path,
        };
        let renamed = keys.renamed;
        if opts.keep_removed {
            self.claim(&name, skill.as_ref(), &diagnostics, provider);
        }
        if let Some(switch) = off {
            if let (true, Some(skill)) = (opts.keep_removed, skill) {
                let setting = switch.setting(&opts.keys);
                tracing::debug!(file = %skill.file_path.display(), "off ({setting})");
                let fate = Fate::SwitchedOff {
                    reason: switch.clone(),
                    setting,
                    layer: None,
                };
                self.removed.push(ShadowedCopy { skill, fate });
            }
            return;
        }
        if opts.disabled_by_extension(&name.text) {
            self.filtered_out(skill, &name.text, opts);
            return;
        }
        // An authored candidate's name shadows managed skills: it goes to
        // `authored`, or, when the skill loads, to `names` (which the managed
        // pass consults too).
        let authored = pass == Pass::Providers && skill.is_some();
        if !opts.kept_by_globs(&name.text) {
            if authored {
                self.authored.insert(name.clone());
            }
            self.filtered_out(skill, &name.text, opts);
            return;
        }
        let loaded = match self.real_paths.entry(real_path) {
            Entry::Occupied(seen) => seen.into_mut(),
            Entry::Vacant(new) => {
                self.diagnostics.extend(diagnostics);
                new.insert(0)
            }
        };
        let Some(mut skill) = skill else {
            return;
        };
        if *loaded != 0 {
            let winner = *loaded as usize - 1;
            if authored {
                self.authored.insert(name);
            }
            if opts.keep_removed {
                self.same_real_path(winner, skill);
            }
            return;
        }
        // The skill's name as a key: the filter name's, hashed on the
        // scanning thread, in all but odd cases (told apart there too, so
        // that the name's bytes are not read again here).
        let skill_name = renamed.then(|| Name::new(skill.name.clone()));
        let key = skill_name.as_ref().unwrap_or(&name);
        if pass == Pass::Managed {
            let dropped = !checks::is_managed_name(&skill.name)
                || self.authored.contains(key)
                || self.names.contains_key(key);
            if dropped {
                return;
            }
        }
        if let Some(&(winner, winner_provider)) = self.names.get(key) {
            let by = self.winner(winner, winner_provider);
            let identical = self.identical(winner, &skill.file_path, file_len);
            if !identical || opts.warn_identical_copies {
                let mut d = Diagnostic::warning(
                    DiagnosticCode::Collision,
                    format!("name \"{}\" collision", skill.name),
                    &skill.file_path,
                );
                d.collision = Some(Collision {
                    winner_path: by.file_path.clone(),
                    winner_provider: by.provider.clone(),
                    loser_provider: provider.to_owned(),
                });
                self.collisions.push(d);
            }
            let fate = if identical {
                Fate::Identical { to: by }
            } else {
                Fate::Shadowed { by }
            };
            tracing::debug!(file = %skill.file_path.display(), "{}", fate.describe());
            self.shadowed.push(ShadowedCopy { skill, fate });
            if authored {
                self.authored.insert(name);
            }
            return;
        }
        settle(&mut skill, pass, opts);
        *loaded = u32::try_from(self.skills.len() + 1).unwrap_or(u32::MAX);
        let provider_index = match self.providers.iter().rposition(|p| p.0 == provider) {
            Some(i) => i,
            None => {
                self.providers.push((provider.to_owned(), priority, pass));
                self.providers.len() - 1
            }
        };
        let entry = (self.skills.len(), provider_index);
        match skill_name {
            None => {
                self.names.insert(name, entry);
            }
            Some(skill_name) => {
                if authored {
                    self.authored.insert(name);
                }
                self.names.insert(skill_name, entry);
            }
        }
        tracing::debug!(file = %skill.file_path.display(), name = %skill.name, "loaded");
        self.skills.push(skill);
        self.lens.push(file_len);
        if let Some(head) = head {
            self.heads.push(head);
        }
    }

    /// A candidate a name filter removed: counted, and kept when asked.
    pub(super) fn filtered_out(&mut self, skill: Option<Skill>, name: &str, opts: &Options) {
        let Some((filter, layer)) = opts.removed_by(name) else {
            return;
        };
        let setting = filter.key(&opts.keys);
        let (count, names) = self.filtered.entry(setting.to_owned()).or_default();
        *count += 1;
        if names.len() < FILTERED_NAMES_SHOWN && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        let Some(skill) = skill else { return };
        let pattern = filter.pattern();
        tracing::debug!(file = %skill.file_path.display(), "removed by {setting} {pattern}");
        if opts.keep_removed {
            let fate = Fate::Removed {
                reason: filter,
                setting: setting.to_owned(),
                pattern,
                layer,
            };
            self.removed.push(ShadowedCopy { skill, fate });
        }
    }

    /// A copy of the file loaded as `skills[winner]`, by another path.
    pub(super) fn same_real_path(&mut self, winner: usize, skill: Skill) {
        let provider = self.skills.get(winner).and_then(|w| {
            self.names
                .iter()
                .find(|(_, (i, _))| *i == winner)
                .map(|(_, (_, p))| *p)
                .or_else(|| self.providers.iter().position(|p| p.0 == w.source.provider))
        });
        let of = self.winner(winner, provider.unwrap_or(usize::MAX));
        self.removed.push(ShadowedCopy {
            skill,
            fate: Fate::SameRealPath { of },
        });
    }

    /// Notes a candidate for `explain`.
    pub(super) fn claim(
        &mut self,
        name: &Name,
        skill: Option<&Skill>,
        diagnostics: &[Diagnostic],
        provider: &str,
    ) {
        let (name, file_path, diagnostics) = match skill {
            Some(s) => (s.name.to_string(), s.file_path.to_path_buf(), Vec::new()),
            None => (
                name.text.to_string(),
                diagnostics
                    .first()
                    .map(|d| d.path.clone())
                    .unwrap_or_default(),
                diagnostics.to_vec(),
            ),
        };
        self.claims.push(Claim {
            name,
            file_path,
            provider: provider.to_owned(),
            diagnostics,
        });
    }

    /// One line for `-v` per name filter that removed anything.
    pub(super) fn log_filters(&self, opts: &Options) {
        let keys = &opts.keys;
        let set = [
            (keys.disabled_extensions, opts.disabled_extensions.len()),
            (keys.ignored_skills, opts.ignored.len()),
            (keys.include_skills, opts.include.len()),
            (keys.visibility, opts.visibility.all.len()),
        ];
        for (setting, entries) in set {
            if entries > 0 {
                let (removed, names) = self
                    .filtered
                    .get(setting)
                    .map_or((0, &[][..]), |(n, names)| (*n, &names[..]));
                let more = if removed > names.len() { ", …" } else { "" };
                let names = match names.is_empty() {
                    true => String::new(),
                    false => format!(": {}{more}", names.join(", ")),
                };
                tracing::info!(
                    "filter {setting} ({entries} entr{}): removed {removed}{names}",
                    if entries == 1 { "y" } else { "ies" }
                );
            }
        }
    }
}

impl State {
    /// The loaded copy `winner` (an index in `skills`), as a fate names it.
    pub(super) fn winner(&self, winner: usize, provider: usize) -> Winner {
        let skill = self.skills.get(winner);
        let (id, priority, pass) =
            self.providers
                .get(provider)
                .cloned()
                .unwrap_or((String::new(), None, Pass::Providers));
        Winner {
            file_path: skill.map(|w| w.file_path.to_path_buf()).unwrap_or_default(),
            provider: id,
            level: skill.map_or(Level::User, |w| w.source.level),
            priority,
            pass,
        }
    }

    /// Whether the file at `path` (`len` bytes long when it was loaded)
    /// holds the bytes of the loaded copy `winner`'s. Only copies of a
    /// taken name come here, so only files that share a name are ever read
    /// for it, the winner's once, and only when both lengths are the same
    /// or one is unknown.
    pub(super) fn identical(&mut self, winner: usize, path: &Path, len: Option<u64>) -> bool {
        if let (Some(theirs), Some(ours)) = (self.lens.get(winner).copied().flatten(), len)
            && theirs != ours
        {
            return false;
        }
        let (max, keys, skills) = (self.max_file_bytes, &self.keys, &self.skills);
        let theirs = *self.digests.entry(winner).or_insert_with(|| {
            skills
                .get(winner)
                .and_then(|w| Digest::of(&w.file_path, max, keys))
        });
        theirs.is_some() && theirs == Digest::of(path, max, keys)
    }
}
