//! The world the builder reads from the process when the host gives none:
//! the environment as a snapshot, and the home as the reference hosts find
//! it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use skillpipe_core::paths::Flavor;

/// The process environment as a snapshot: variables whose name or value is
/// not UTF-8 are left out (a lossily converted value would name another
/// directory, so such a variable counts as unset).
pub(super) fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The user's home as the reference hosts (Node's `os.homedir()`) find it:
/// `$HOME` on Unix; `%USERPROFILE%` on Windows, then `%HOMEDRIVE%%HOMEPATH%`.
/// Everything under it (`.claude`, `.codex`, `.config/opencode`, `.pi`,
/// `.agents`) is the same on every platform, as the hosts themselves use
/// it: none of them looks in `%APPDATA%` or `~/Library/Application Support`.
pub fn home_from_env(flavor: Flavor, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    match flavor {
        Flavor::Unix => set("HOME").map(PathBuf::from),
        Flavor::Windows => set("USERPROFILE").map(PathBuf::from).or_else(|| {
            let (drive, path) = (set("HOMEDRIVE")?, set("HOMEPATH")?);
            let mut home = drive;
            home.push(path);
            Some(PathBuf::from(home))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_home_is_found_where_each_platform_keeps_it() {
        let all = env(&[
            ("HOME", "/home/me"),
            ("USERPROFILE", r"C:\Users\me"),
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\me"),
        ]);
        assert_eq!(home_from_env(Flavor::Unix, &all), Some("/home/me".into()));
        // Windows: %USERPROFILE% first, as Node's os.homedir(); a HOME set
        // by Git Bash does not move it.
        assert_eq!(
            home_from_env(Flavor::Windows, &all),
            Some(r"C:\Users\me".into())
        );
        let drive = env(&[
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\me"),
            ("USERPROFILE", ""),
        ]);
        assert_eq!(
            home_from_env(Flavor::Windows, &drive),
            Some(r"D:\Users\me".into())
        );
        assert_eq!(home_from_env(Flavor::Unix, &drive), None);
        assert_eq!(home_from_env(Flavor::Windows, env(&[("HOME", "/x")])), None);
    }
}
