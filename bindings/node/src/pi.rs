//! pi 0.73.1's shapes (`dist/core/{skills,source-info,diagnostics}.d.ts`):
//! a [`Discovery`] of the pi profile as `{skills: Skill[], diagnostics:
//! ResourceDiagnostic[]}`, filled as pi's `loadSkills` fills them.
//!
//! - `Skill {name, description, filePath, baseDir, sourceInfo,
//!   disableModelInvocation}`; `disableModelInvocation` is skillpipe's
//!   `hidden` (SPEC §14: `hide` and `disableModelInvocation` hide too).
//! - `SourceInfo {path, source, scope, origin, baseDir}` as pi's
//!   `createSkillSourceInfo`: `path` the skill file, `source` `"local"`,
//!   `scope` `user`/`project` for its two roots and `temporary` for
//!   explicit paths (with `includeDefaults: false`, a path under either
//!   root takes that root's scope, as pi's `getSource`); a settings
//!   file's `skills` entry takes its file's scope, `user` or `project`,
//!   as pi's app reports it; `origin`
//!   `top-level`, `baseDir` the skill's directory.
//! - `ResourceDiagnostic {type, message, path, collision?}`: `type` is
//!   `collision` for a collision and `warning` for everything else (pi's
//!   `loadSkills` reports nothing else); `collision` is `{resourceType:
//!   "skill", name, winnerPath, loserPath}`. Beside pi's fields, each
//!   diagnostic keeps skillpipe's `code` and `severity` (and `line`,
//!   `column` where known): extra keys a pi host does not read.

#![deny(unsafe_code)]

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use foldhash::fast::FixedState;
use serde::Serialize;
use skillpipe::{Diagnostic, Discovery, Level, Skill};

/// Which roots are pi's user and project roots, for `sourceInfo.scope`.
pub struct Scopes {
    /// pi's `includeDefaults`.
    pub include_defaults: bool,
    /// `<agentDir>/skills`.
    pub user_dir: PathBuf,
    /// `<cwd>/.pi/skills`.
    pub project_dir: PathBuf,
    /// The paths the settings files' `skills` entries name, each with the
    /// scope of the file that named it (`user` for the agent directory's
    /// `settings.json`, `project` for `.pi/settings.json`), as pi's app
    /// reports them.
    pub entries: Vec<(PathBuf, &'static str)>,
}

impl Scopes {
    /// No root of pi's own (`loadSkillsFromDir`).
    pub fn none() -> Self {
        Scopes {
            include_defaults: true,
            user_dir: PathBuf::new(),
            project_dir: PathBuf::new(),
            entries: Vec::new(),
        }
    }

    /// The scope of a skill found at `at` (its root, or its file for a
    /// file entry) through a settings entry, if one named it.
    fn of_entry(&self, at: &Path) -> Option<&'static str> {
        self.entries
            .iter()
            .find(|(path, _)| path.as_path() == at)
            .map(|&(_, scope)| scope)
    }
}

/// `LoadSkillsResult`.
#[derive(Serialize)]
pub struct PiResult<'a> {
    skills: Vec<PiSkill<'a>>,
    diagnostics: Vec<PiDiagnostic<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PiSkill<'a> {
    name: &'a str,
    description: &'a str,
    file_path: Cow<'a, str>,
    base_dir: Cow<'a, str>,
    source_info: SourceInfo<'a>,
    disable_model_invocation: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceInfo<'a> {
    path: Cow<'a, str>,
    source: &'a str,
    scope: &'static str,
    origin: &'static str,
    base_dir: Cow<'a, str>,
}

#[derive(Serialize)]
struct PiDiagnostic<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message: &'a str,
    path: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    collision: Option<PiCollision<'a>>,
    code: &'a str,
    severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PiCollision<'a> {
    resource_type: &'static str,
    name: Cow<'a, str>,
    winner_path: Cow<'a, str>,
    loser_path: Cow<'a, str>,
}

fn under(path: &Path, root: &Path) -> bool {
    !root.as_os_str().is_empty() && path.starts_with(root)
}

/// `(source, scope)` of a skill, as pi's `createSkillSourceInfo`. `label`
/// is `loadSkillsFromDir`'s `source`; without it the skill's level says.
fn source_of<'a>(
    skill: &Skill,
    scopes: &Scopes,
    label: Option<&'a str>,
) -> (&'a str, &'static str) {
    let by_label = |l: &str| match l {
        "user" => "user",
        "project" => "project",
        _ => "path",
    };
    let kind = match label {
        Some(l) => by_label(l),
        None => match skill.source.level {
            Level::User => "user",
            Level::Project => "project",
            Level::Path if !scopes.include_defaults => {
                let at = skill.source.root.as_deref().unwrap_or(&skill.file_path);
                if let Some(scope) = scopes.of_entry(at) {
                    scope
                } else if under(at, &scopes.user_dir) {
                    "user"
                } else if under(at, &scopes.project_dir) {
                    "project"
                } else {
                    "path"
                }
            }
            Level::Path => {
                let at = skill.source.root.as_deref().unwrap_or(&skill.file_path);
                scopes.of_entry(at).unwrap_or("path")
            }
        },
    };
    match (kind, label) {
        ("user", _) => ("local", "user"),
        ("project", _) => ("local", "project"),
        (_, Some(l)) if l != "path" => (l, "temporary"),
        _ => ("local", "temporary"),
    }
}

/// A path as text: borrowed when it is UTF-8 (checked the fast way),
/// lossy otherwise.
fn text_of(path: &Path) -> Cow<'_, str> {
    path.to_str()
        .map_or_else(|| path.to_string_lossy(), Cow::Borrowed)
}

/// The name of a collision: the winner's, found by its file.
fn collision_name<'a>(
    d: &'a Diagnostic,
    winner: &Path,
    by_file: &HashMap<&OsStr, &'a str, FixedState>,
) -> Cow<'a, str> {
    if let Some(name) = by_file.get(winner.as_os_str()) {
        return Cow::Borrowed(name);
    }
    // `name "<name>" collision` (SPEC §2.3).
    d.message
        .strip_prefix("name \"")
        .and_then(|m| m.strip_suffix("\" collision"))
        .map_or(Cow::Borrowed(""), Cow::Borrowed)
}

/// A discovery in pi's shapes.
pub fn result<'a>(
    discovery: &'a Discovery,
    scopes: &Scopes,
    label: Option<&'a str>,
) -> PiResult<'a> {
    let skills = discovery
        .skills
        .iter()
        .map(|s| {
            let (source, scope) = source_of(s, scopes, label);
            let (file, base) = (text_of(&s.file_path), text_of(&s.base_dir));
            PiSkill {
                name: &s.name,
                description: &s.description,
                file_path: file.clone(),
                base_dir: base.clone(),
                source_info: SourceInfo {
                    path: file,
                    source,
                    scope,
                    origin: "top-level",
                    base_dir: base,
                },
                disable_model_invocation: s.hidden,
            }
        })
        .collect();
    let has_collision = discovery.diagnostics.iter().any(|d| d.collision.is_some());
    // By the paths' bytes (a winner's path is a copy of its skill's), not
    // name by name: hashing ten thousand paths component by component was
    // a visible part of handing them over.
    // foldhash, not SipHash: ten thousand paths of the user's own disk,
    // hashed on the host's thread while it waits.
    let by_file: HashMap<&OsStr, &str, FixedState> = if has_collision {
        discovery
            .skills
            .iter()
            .map(|s| (s.file_path.as_os_str(), s.name.as_str()))
            .collect()
    } else {
        HashMap::default()
    };
    let diagnostics = discovery
        .diagnostics
        .iter()
        .map(|d| {
            let path = d.path.to_string_lossy();
            let collision = d.collision.as_ref().map(|c| PiCollision {
                resource_type: "skill",
                name: collision_name(d, &c.winner_path, &by_file),
                winner_path: c.winner_path.to_string_lossy(),
                loser_path: path.clone(),
            });
            PiDiagnostic {
                kind: if collision.is_some() {
                    "collision"
                } else {
                    "warning"
                },
                message: &d.message,
                path,
                collision,
                code: d.code.as_str(),
                severity: d.severity.as_str(),
                line: d.line,
                column: d.column,
            }
        })
        .collect();
    PiResult {
        skills,
        diagnostics,
    }
}

/// A [`PiResult`] as the loader reads it without a JSON round trip: the
/// skills' strings laid end to end in one text, which JavaScript slices
/// (a slice of a string is cheap there; parsing a JSON text of the same
/// size is the slowest part of handing 10k skills over), and their few
/// other values as small numbers; the diagnostics, few and of varied
/// shape, as JSON.
pub struct Columns {
    /// Each skill's name, description, file path and base directory, one
    /// after another.
    pub text: String,
    /// Where each of those ends in `text`, in UTF-16 code units (what a
    /// JavaScript index counts): piece `j` of skill `i` ends at `ends[4 *
    /// i + j]` and starts where the one before it ended (the first at 0).
    pub ends: Vec<u32>,
    /// Per skill: bit 0 `disableModelInvocation`; bits 1-2 the scope
    /// ([`SCOPES`]); bit 3 set when the source is the label, not `local`.
    pub flags: Vec<u8>,
    /// `loadSkillsFromDir`'s `source`, the label of bit 3.
    pub label: Option<String>,
    /// `diagnostics` as JSON.
    pub diagnostics: String,
}

/// `sourceInfo.scope`, by its number in [`Columns::flags`] (the loader
/// holds the same list).
pub const SCOPES: [&str; 3] = ["user", "project", "temporary"];

impl PiResult<'_> {
    /// The result as [`Columns`]; `None` when the text would be longer
    /// than a JavaScript string may be (its length in UTF-16 units must
    /// fit in 32 bits here, and V8's limit is far below that).
    pub fn columns(&self, label: Option<&str>) -> Result<Option<Columns>, serde_json::Error> {
        let bytes: usize = self
            .skills
            .iter()
            .map(|s| s.name.len() + s.description.len() + s.file_path.len() + s.base_dir.len())
            .sum();
        let mut text = String::with_capacity(bytes);
        let mut ends = Vec::with_capacity(self.skills.len() * 4);
        let mut flags = Vec::with_capacity(self.skills.len());
        let mut at: u64 = 0;
        for s in &self.skills {
            for piece in [s.name, s.description, &s.file_path, &s.base_dir] {
                text.push_str(piece);
                at += if piece.is_ascii() {
                    piece.len() as u64
                } else {
                    piece.encode_utf16().count() as u64
                };
                let Ok(end) = u32::try_from(at) else {
                    return Ok(None);
                };
                ends.push(end);
            }
            // Anything the numbers cannot say is handed over as JSON.
            let info = &s.source_info;
            let Some(scope) = SCOPES.iter().position(|x| *x == info.scope) else {
                return Ok(None);
            };
            let labelled = label.is_some_and(|l| l == info.source);
            if !labelled && info.source != "local" || info.origin != "top-level" {
                return Ok(None);
            }
            let scope = scope as u8;
            flags.push(u8::from(s.disable_model_invocation) | scope << 1 | u8::from(labelled) << 3);
        }
        Ok(Some(Columns {
            text,
            ends,
            flags,
            label: label.map(str::to_owned),
            diagnostics: serde_json::to_string(&self.diagnostics)?,
        }))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use skillpipe::{Collision, DiagnosticCode, Severity, Source};

    use super::*;

    fn skill(name: &str, file: &str, level: Level, root: Option<&str>) -> Skill {
        let file = PathBuf::from(file);
        Skill {
            name: name.into(),
            description: "d".into(),
            base_dir: file.parent().unwrap().into(),
            file_path: file.into(),
            source: Arc::new(Source {
                provider: "pi".into(),
                level,
                root: root.map(PathBuf::from),
            }),
            hidden: name == "quiet",
            frontmatter: Default::default(),
            invocation: None,
            visibility: Default::default(),
        }
    }

    fn scopes(include_defaults: bool) -> Scopes {
        Scopes {
            include_defaults,
            user_dir: "/h/.pi/agent/skills".into(),
            project_dir: "/p/.pi/skills".into(),
            entries: Vec::new(),
        }
    }

    fn json(d: &Discovery, s: &Scopes, label: Option<&str>) -> serde_json::Value {
        serde_json::to_value(result(d, s, label)).unwrap()
    }

    #[test]
    fn columns_end_each_string_in_utf16_units_and_flag_the_rest() {
        let mut wide = skill(
            "w",
            "/p/.pi/skills/w/SKILL.md",
            Level::Project,
            Some("/p/.pi/skills"),
        );
        // `é` is one unit in two bytes, `🚀` two units in four.
        wide.description = "é🚀".into();
        let d = Discovery {
            skills: vec![
                skill(
                    "quiet",
                    "/h/.pi/agent/skills/quiet/SKILL.md",
                    Level::User,
                    Some("/h/.pi/agent/skills"),
                ),
                wide,
                skill(
                    "x",
                    "/elsewhere/x/SKILL.md",
                    Level::Path,
                    Some("/elsewhere"),
                ),
            ],
            ..Discovery::default()
        };
        let c = result(&d, &scopes(true), None)
            .columns(None)
            .unwrap()
            .unwrap();
        assert_eq!(
            c.text,
            "quietd/h/.pi/agent/skills/quiet/SKILL.md/h/.pi/agent/skills/quiet\
             wé🚀/p/.pi/skills/w/SKILL.md/p/.pi/skills/w\
             xd/elsewhere/x/SKILL.md/elsewhere/x"
        );
        let quiet_end = [5, 6, 40, 65];
        assert_eq!(c.ends[..4], quiet_end);
        // "w", then "é🚀" (3 units), then the two paths.
        assert_eq!(c.ends[4..8], [66, 69, 93, 108]);
        // Hidden + user; project; temporary (scope 2).
        assert_eq!(c.flags, [1, 1 << 1, 2 << 1]);
        assert_eq!(c.label, None);
        assert_eq!(c.diagnostics, "[]");
        // A label marks the skills whose source it is.
        let labelled = result(&d, &Scopes::none(), Some("npm:x"))
            .columns(Some("npm:x"))
            .unwrap()
            .unwrap();
        assert!(
            labelled.flags.iter().all(|f| f & 8 == 8),
            "{:?}",
            labelled.flags
        );
        assert_eq!(labelled.label.as_deref(), Some("npm:x"));
    }

    #[test]
    fn skills_take_pis_shape() {
        let d = Discovery {
            skills: vec![
                skill(
                    "a",
                    "/h/.pi/agent/skills/a/SKILL.md",
                    Level::User,
                    Some("/h/.pi/agent/skills"),
                ),
                skill(
                    "quiet",
                    "/p/.pi/skills/quiet/SKILL.md",
                    Level::Project,
                    Some("/p/.pi/skills"),
                ),
                skill(
                    "x",
                    "/elsewhere/x/SKILL.md",
                    Level::Path,
                    Some("/elsewhere"),
                ),
            ],
            diagnostics: Vec::new(),
            ..Discovery::default()
        };
        let v = json(&d, &scopes(true), None);
        assert_eq!(
            v["skills"][0],
            serde_json::json!({
                "name": "a", "description": "d",
                "filePath": "/h/.pi/agent/skills/a/SKILL.md", "baseDir": "/h/.pi/agent/skills/a",
                "sourceInfo": {"path": "/h/.pi/agent/skills/a/SKILL.md", "source": "local",
                               "scope": "user", "origin": "top-level", "baseDir": "/h/.pi/agent/skills/a"},
                "disableModelInvocation": false,
            })
        );
        assert_eq!(v["skills"][1]["sourceInfo"]["scope"], "project");
        assert_eq!(v["skills"][1]["disableModelInvocation"], true);
        assert_eq!(v["skills"][2]["sourceInfo"]["scope"], "temporary");
        assert_eq!(v["skills"][2]["sourceInfo"]["source"], "local");
    }

    #[test]
    fn without_defaults_a_path_under_a_pi_root_keeps_its_scope() {
        let d = Discovery {
            skills: vec![skill(
                "a",
                "/h/.pi/agent/skills/a/SKILL.md",
                Level::Path,
                Some("/h/.pi/agent/skills"),
            )],
            diagnostics: Vec::new(),
            ..Discovery::default()
        };
        assert_eq!(
            json(&d, &scopes(false), None)["skills"][0]["sourceInfo"]["scope"],
            "user"
        );
        assert_eq!(
            json(&d, &scopes(true), None)["skills"][0]["sourceInfo"]["scope"],
            "temporary"
        );
    }

    #[test]
    fn a_settings_entry_takes_the_scope_of_its_settings_file() {
        let d = Discovery {
            skills: vec![
                skill("a", "/u/a/SKILL.md", Level::Path, Some("/u")),
                skill("b", "/q/b/SKILL.md", Level::Path, Some("/q")),
                skill("c", "/one/SKILL.md", Level::Path, None),
                skill("d", "/cli/d/SKILL.md", Level::Path, Some("/cli")),
            ],
            diagnostics: Vec::new(),
            ..Discovery::default()
        };
        for defaults in [true, false] {
            let mut s = scopes(defaults);
            s.entries = vec![
                ("/u".into(), "user"),
                ("/q".into(), "project"),
                ("/one/SKILL.md".into(), "user"),
            ];
            let v = json(&d, &s, None);
            let scope = |i: usize| v["skills"][i]["sourceInfo"]["scope"].clone();
            assert_eq!(scope(0), "user", "defaults {defaults}");
            assert_eq!(scope(1), "project");
            assert_eq!(scope(2), "user");
            // A --skill path is named by no settings file.
            assert_eq!(scope(3), "temporary");
            assert_eq!(v["skills"][1]["sourceInfo"]["source"], "local");
        }
    }

    #[test]
    fn a_label_is_the_source_as_pi_writes_it() {
        let d = Discovery {
            skills: vec![skill("a", "/d/a/SKILL.md", Level::Path, Some("/d"))],
            diagnostics: Vec::new(),
            ..Discovery::default()
        };
        let info = |l| json(&d, &Scopes::none(), Some(l))["skills"][0]["sourceInfo"].clone();
        assert_eq!(info("user")["scope"], "user");
        assert_eq!(info("path")["source"], "local");
        assert_eq!(info("path")["scope"], "temporary");
        assert_eq!(info("npm:pkg")["source"], "npm:pkg");
        assert_eq!(info("npm:pkg")["scope"], "temporary");
    }

    #[test]
    fn diagnostics_take_pis_shape_and_keep_their_codes() {
        let mut collision = Diagnostic::warning(
            DiagnosticCode::Collision,
            "name \"a\" collision",
            "/p/.pi/skills/a/SKILL.md",
        );
        collision.collision = Some(Collision {
            winner_path: "/h/.pi/agent/skills/a/SKILL.md".into(),
            winner_provider: "pi".into(),
            loser_provider: "pi".into(),
        });
        let mut yaml = Diagnostic::new(
            Severity::Error,
            DiagnosticCode::YamlError,
            "invalid YAML",
            "/p/.pi/skills/b/SKILL.md",
        );
        yaml.line = Some(2);
        yaml.column = Some(3);
        let d = Discovery {
            skills: vec![skill(
                "a",
                "/h/.pi/agent/skills/a/SKILL.md",
                Level::User,
                None,
            )],
            diagnostics: vec![yaml, collision],
            ..Discovery::default()
        };
        let v = json(&d, &scopes(true), None);
        assert_eq!(
            v["diagnostics"][0],
            serde_json::json!({"type": "warning", "message": "invalid YAML",
                "path": "/p/.pi/skills/b/SKILL.md", "code": "yaml-error", "severity": "error",
                "line": 2, "column": 3})
        );
        assert_eq!(
            v["diagnostics"][1]["collision"],
            serde_json::json!({"resourceType": "skill", "name": "a",
                "winnerPath": "/h/.pi/agent/skills/a/SKILL.md",
                "loserPath": "/p/.pi/skills/a/SKILL.md"})
        );
        assert_eq!(v["diagnostics"][1]["type"], "collision");
    }
}
