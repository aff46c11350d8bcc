//! The profile a host names: which agent's skill system to reproduce.

use std::fmt;

use skillpipe_settings::SettingsError;

use super::error::Error;

/// The agent whose skill system to reproduce (SPEC §7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// The provider pipeline (`.musepi/`, Claude Code's, Codex's, … roots).
    #[default]
    Musepi,
    /// pi: recursive scans with ignore files.
    Pi,
}

impl Profile {
    /// Every profile, in documentation order.
    pub const ALL: [Profile; 2] = [Profile::Musepi, Profile::Pi];

    /// The name used by `--profile` and `SKILLPIPE_PROFILE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Musepi => "musepi",
            Profile::Pi => "pi",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| Error::Settings(SettingsError::UnknownProfile(s.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_from_their_names_only() {
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>().unwrap(), p);
        }
        let err = "Pi".parse::<Profile>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown profile `Pi` (expected one of: musepi, pi)"
        );
    }
}
