//! A skill's frontmatter mapping, built from the kept YAML only when
//! something asks for it, so that listing skills never pays for it.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::shared::Text;

/// A frontmatter mapping as JSON.
type Mapping = serde_json::Map<String, serde_json::Value>;

/// What builds a lazy frontmatter's mapping from its YAML.
type Build = fn(&str) -> Mapping;

/// A skill's frontmatter: the YAML mapping as JSON, keys as written.
///
/// Discovery reads the fields it needs (name, description, flags) straight
/// from the YAML and keeps the YAML; the mapping is built from it the first
/// time it is asked for ([`Frontmatter::map`], or through `Deref`), so a
/// host that only lists skills never pays for the mappings. It serialises,
/// compares and prints as the mapping.
#[derive(Clone, Default)]
pub struct Frontmatter {
    /// Boxed, so that a skill stays small to move: most are never built.
    map: OnceLock<Box<Mapping>>,
    /// The YAML and the function that turns it into the mapping, until the
    /// mapping is built.
    yaml: Option<(Text, Build)>,
}

impl Frontmatter {
    /// A frontmatter built already.
    pub fn new(map: Mapping) -> Self {
        Frontmatter {
            map: OnceLock::from(Box::new(map)),
            yaml: None,
        }
    }

    /// A frontmatter built from `yaml` by `build` when first asked for.
    /// `build` must be a pure function of the YAML.
    pub fn lazy(yaml: impl Into<Text>, build: Build) -> Self {
        Frontmatter {
            map: OnceLock::new(),
            yaml: Some((yaml.into(), build)),
        }
    }

    /// The mapping.
    pub fn map(&self) -> &Mapping {
        self.map.get_or_init(|| {
            Box::new(match &self.yaml {
                Some((yaml, build)) => build(yaml),
                None => Mapping::new(),
            })
        })
    }

    /// The value of the top-level key `key`, as `map().get(key)`, but
    /// without building the mapping when the YAML cannot hold that key:
    /// its text has neither the key nor a `\` (the only way to spell a key
    /// without its letters is a double-quoted escape).
    pub fn field(&self, key: &str) -> Option<&serde_json::Value> {
        if self.map.get().is_none()
            && let Some((yaml, _)) = &self.yaml
            && !yaml.contains('\\')
            && !has(yaml, key)
        {
            return None;
        }
        self.map().get(key)
    }

    /// The mapping, owned, and not kept: a copy of the one built already,
    /// else built afresh from the YAML, for a caller that takes its values
    /// once (building it to keep, then copying its values, made every value
    /// twice).
    pub fn to_map(&self) -> Mapping {
        match (self.map.get(), &self.yaml) {
            (Some(map), _) => (**map).clone(),
            (None, Some((yaml, build))) => build(yaml),
            (None, None) => Mapping::new(),
        }
    }

    /// The mapping, owned.
    pub fn into_map(mut self) -> Mapping {
        self.map();
        self.map.take().map(|map| *map).unwrap_or_default()
    }
}

/// Whether `text` contains `key`: its first character found by `memchr`
/// (a substring search would set itself up anew for each short YAML).
fn has(text: &str, key: &str) -> bool {
    let Some(first) = key.chars().next() else {
        return true;
    };
    text.match_indices(first)
        .any(|(i, _)| text.get(i..).is_some_and(|rest| rest.starts_with(key)))
}

impl std::ops::Deref for Frontmatter {
    type Target = Mapping;

    fn deref(&self) -> &Mapping {
        self.map()
    }
}

impl From<Mapping> for Frontmatter {
    fn from(map: Mapping) -> Self {
        Frontmatter::new(map)
    }
}

impl PartialEq for Frontmatter {
    fn eq(&self, other: &Self) -> bool {
        self.map() == other.map()
    }
}

impl fmt::Debug for Frontmatter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.map().fmt(f)
    }
}

impl Serialize for Frontmatter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Frontmatter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Mapping::deserialize(deserializer).map(Frontmatter::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy builder: `k=v` pairs, one a line.
    fn pairs(yaml: &str) -> Mapping {
        yaml.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), serde_json::Value::from(v)))
            .collect()
    }

    #[test]
    fn a_lazy_frontmatter_is_its_mapping_everywhere() {
        let lazy = Frontmatter::lazy("b=2\na=1", pairs);
        let eager = Frontmatter::new(pairs("b=2\na=1"));
        assert_eq!(lazy, eager);
        assert_eq!(lazy.get("a"), Some(&serde_json::Value::from("1")));
        // Keys as written, in JSON and in Debug.
        assert_eq!(
            serde_json::to_string(&lazy).unwrap(),
            r#"{"b":"2","a":"1"}"#
        );
        assert_eq!(format!("{lazy:?}"), format!("{eager:?}"));
        let back: Frontmatter = serde_json::from_str(r#"{"b":"2","a":"1"}"#).unwrap();
        assert_eq!(back, lazy);
        assert_eq!(lazy.clone().into_map(), pairs("b=2\na=1"));
        assert!(Frontmatter::default().is_empty());
        assert_ne!(Frontmatter::lazy("a=1", pairs), eager);
    }

    #[test]
    fn an_owned_mapping_is_built_without_keeping_it() {
        let lazy = Frontmatter::lazy("b=2\na=1", pairs);
        assert_eq!(lazy.to_map(), pairs("b=2\na=1"));
        assert!(lazy.map.get().is_none(), "nothing kept");
        lazy.map();
        assert_eq!(lazy.to_map(), pairs("b=2\na=1"), "a copy of the kept one");
        assert_eq!(Frontmatter::new(pairs("a=1")).to_map(), pairs("a=1"));
        assert!(Frontmatter::default().to_map().is_empty());
    }

    #[test]
    fn a_field_the_yaml_cannot_hold_builds_no_mapping() {
        /// A builder that spells `k` as `\x6b`, as a double-quoted key may.
        fn escaped(yaml: &str) -> Mapping {
            pairs(&yaml.replace("\\x6b", "k"))
        }
        let lazy = Frontmatter::lazy("w=wide\nwhen_to_use=now", pairs);
        assert_eq!(lazy.field("b"), None);
        assert!(lazy.map.get().is_none(), "built for a key it lacks");
        assert_eq!(lazy.field("when_to_use"), Some(&"now".into()));
        assert!(lazy.map.get().is_some());
        // An escape may spell any key: the mapping is asked.
        let spelt = Frontmatter::lazy("\\x6b=v", escaped);
        assert_eq!(spelt.field("k"), Some(&"v".into()));
        assert_eq!(Frontmatter::new(pairs("k=v")).field("k"), Some(&"v".into()));
    }
}
