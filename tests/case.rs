//! A case of the project's corpus (`tests/corpus/*.toml`) and what a run
//! of it observed, so that the library (`tests/corpus.rs`) and the CLI
//! (`crates/cli/tests/corpus.rs`) are held to the same expectations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::{Flags, Tree};

/// One case: a tree, the flags of the run, what it must give.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the case pins, one line.
    pub description: String,
    /// `musepi` (the default) or `pi`.
    #[serde(default = "musepi")]
    pub profile: String,
    /// The home, relative to the tree.
    #[serde(default = "home")]
    pub home: String,
    /// The project directory, relative to the tree.
    #[serde(default = "project")]
    pub cwd: String,
    /// The files.
    #[serde(default)]
    pub tree: Tree,
    /// The run's flags.
    #[serde(default)]
    pub flags: Flags,
    /// What it must give.
    pub expect: Expect,
}

/// What a case must give. Only `skills` and `diagnostics` are always
/// compared; the rest when given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// [`crate::skill_line`]s, in order.
    #[serde(default)]
    pub skills: Vec<String>,
    /// [`crate::diagnostic_line`]s, in order.
    #[serde(default)]
    pub diagnostics: Vec<String>,
    /// A settings error containing this text instead of a result.
    #[serde(default)]
    pub settings_error: Option<String>,
    /// Every diagnostic in full: `code path[:line:column] message`.
    #[serde(default)]
    pub messages: Option<Vec<String>>,
    /// Skill name → its `invocation` as JSON (`{}`: none).
    #[serde(default)]
    pub invocation: BTreeMap<String, Value>,
    /// The skills that did not load: `skill line` + ` ` + the fate.
    #[serde(default)]
    pub removed: Option<Vec<String>>,
    /// The slash commands' names (`skill:x`), in order.
    #[serde(default)]
    pub commands: Option<Vec<String>>,
    /// The catalogue (with a read tool), exactly.
    #[serde(default)]
    pub catalog: Option<String>,
    /// `/skill:` texts and what they expand to.
    #[serde(default)]
    pub expand: Vec<ExpandCase>,
    /// Skill name → the loaded skills that require it.
    #[serde(default)]
    pub required_by: BTreeMap<String, Vec<String>>,
}

/// One expansion.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpandCase {
    /// The text typed.
    pub text: String,
    /// The text expanded to (`$TREE`: the tree's path); the input when
    /// nothing expands.
    pub result: String,
    /// `expand --json`'s `placeholders`, when given.
    #[serde(default)]
    pub placeholders: Option<Value>,
}

fn musepi() -> String {
    "musepi".into()
}
fn home() -> String {
    "home".into()
}
fn project() -> String {
    "project".into()
}

impl Case {
    /// Reads a case file.
    pub fn read(path: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        toml::from_str(&text).map_err(|e| format!("bad case file: {e}"))
    }
}

/// What one run of a case gave, as the case writes it.
#[derive(Debug, Default)]
pub struct Observed {
    /// Skill lines.
    pub skills: Vec<String>,
    /// Diagnostic lines.
    pub diagnostics: Vec<String>,
    /// Full diagnostic lines.
    pub messages: Vec<String>,
    /// Name → `invocation` JSON (`{}` when none), for every loaded skill.
    pub invocation: BTreeMap<String, Value>,
    /// Removed lines.
    pub removed: Vec<String>,
    /// Command names.
    pub commands: Vec<String>,
    /// The catalogue.
    pub catalog: String,
    /// Per expansion: the text, and `placeholders` (`null` when absent).
    pub expand: Vec<(String, Value)>,
    /// Name → who requires it.
    pub required_by: BTreeMap<String, Vec<String>>,
}

/// A full diagnostic line: `code path[:line:column] message`, paths in
/// the message relative to the tree.
pub fn message_line(root: &Path, d: &skillpipe::Diagnostic) -> String {
    let position = match (d.line, d.column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        _ => String::new(),
    };
    relative(
        root,
        &format!(
            "{}{position} {}",
            crate::diagnostic_line(root, d),
            d.message
        ),
    )
}

/// A removed line: the skill line, then the fate as `explain` says it.
pub fn removed_line(root: &Path, c: &skillpipe::ShadowedCopy) -> String {
    relative(
        root,
        &format!(
            "{} {}",
            crate::skill_line(root, &c.skill),
            c.fate.describe()
        ),
    )
}

/// `text` with the tree's path (and the separator after it) taken out.
pub fn relative(root: &Path, text: &str) -> String {
    let text = text.replace(&format!("{}/", root.display()), "");
    if cfg!(windows) {
        text.replace(&format!("{}\\", root.display()), "")
    } else {
        text
    }
}

/// On Windows, whether `expected` and `actual` differ only in the path
/// separators (printed as they are written, `\\` in a Windows path, where
/// the cases write `/`); elsewhere never. A case is written once, with `/`.
fn same_but_separators(expected: &dyn std::fmt::Debug, actual: &dyn std::fmt::Debug) -> bool {
    // In `{:?}` a backslash is the escape `\\`.
    let unslashed = |v: &dyn std::fmt::Debug| format!("{v:?}").replace(r"\\", "/");
    cfg!(windows) && unslashed(expected) == unslashed(actual)
}

/// The differences between what `case` expects and `seen`, as one report
/// (empty when none).
pub fn compare(root: &Path, case: &Case, seen: &Observed) -> Vec<String> {
    let e = &case.expect;
    let mut problems = Vec::new();
    let mut check =
        |what: &str, expected: &dyn std::fmt::Debug, actual: &dyn std::fmt::Debug, same: bool| {
            if !same && !same_but_separators(expected, actual) {
                problems.push(format!(
                    "{what}:\n  expected {expected:#?}\n  actual   {actual:#?}"
                ));
            }
        };
    check("skills", &e.skills, &seen.skills, e.skills == seen.skills);
    check(
        "diagnostics",
        &e.diagnostics,
        &seen.diagnostics,
        e.diagnostics == seen.diagnostics,
    );
    if let Some(messages) = &e.messages {
        check(
            "messages",
            messages,
            &seen.messages,
            *messages == seen.messages,
        );
    }
    for (name, want) in &e.invocation {
        let got = seen.invocation.get(name);
        check(
            &format!("invocation of {name}"),
            &Some(want),
            &got,
            got == Some(want),
        );
    }
    if let Some(removed) = &e.removed {
        check("removed", removed, &seen.removed, *removed == seen.removed);
    }
    if let Some(commands) = &e.commands {
        check(
            "commands",
            commands,
            &seen.commands,
            *commands == seen.commands,
        );
    }
    if let Some(catalog) = &e.catalog {
        let catalog = catalog.replace("$TREE", &root.to_string_lossy());
        check("catalog", &catalog, &seen.catalog, catalog == seen.catalog);
    }
    for (x, got) in e.expand.iter().zip(&seen.expand) {
        let result = x.result.replace("$TREE", &root.to_string_lossy());
        check(
            &format!("expand {:?}", x.text),
            &result,
            &got.0,
            result == got.0,
        );
        if let Some(want) = &x.placeholders {
            check(
                &format!("placeholders of {:?}", x.text),
                want,
                &got.1,
                *want == got.1,
            );
        }
    }
    for (name, want) in &e.required_by {
        let got = seen.required_by.get(name);
        check(
            &format!("required by {name}"),
            &Some(want),
            &got,
            got == Some(want),
        );
    }
    problems
}

/// Runs the case in `path`: its tree built in a fresh directory, the run
/// observed by `observe` (the library in process, or the CLI), and what it
/// gave compared with the case's expectations (a settings error included).
pub fn run_case(
    path: &Path,
    observe: impl Fn(&Path, &Case) -> Result<Observed, String>,
) -> Result<(), String> {
    let case = Case::read(path)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().canonicalize().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.home)).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.cwd)).map_err(|e| e.to_string())?;
    case.tree
        .build(&root)
        .map_err(|e| format!("building the tree: {e}"))?;
    match (&case.expect.settings_error, observe(&root, &case)) {
        (Some(want), Err(err)) if err.contains(want.as_str()) => Ok(()),
        (Some(want), Err(err)) => Err(format!("settings error {err:?} does not contain {want:?}")),
        (Some(want), Ok(_)) => Err(format!(
            "expected a settings error containing {want:?}, got a result"
        )),
        (None, Err(err)) => Err(format!("unexpected settings error: {err}")),
        (None, Ok(seen)) => {
            let problems = compare(&root, &case, &seen);
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{}\n{}", case.description, problems.join("\n")))
            }
        }
    }
}

/// The cases named in `CORPUS_SKIP_CASES` (file names, separated by
/// white space), each said on stderr: a platform runner's list of the
/// cases its platform cannot build (`.ci/windows`: the symbolic links
/// Wine does not make), with the reasons in that script. A name that is
/// no case is an error, so that the list cannot go stale unseen.
fn skipped_cases(cases: &[PathBuf]) -> Vec<String> {
    let list = std::env::var("CORPUS_SKIP_CASES").unwrap_or_default();
    let names: Vec<String> = list.split_whitespace().map(str::to_owned).collect();
    for name in &names {
        assert!(
            cases.iter().any(|p| p.file_name() == Some(name.as_ref())),
            "CORPUS_SKIP_CASES names {name}, which is no case"
        );
        eprintln!("skipped: {name} (CORPUS_SKIP_CASES)");
    }
    names
}

/// Every case of the corpus in `dir` through [`run_case`]; all run, then
/// every failure is reported at once.
pub fn run_corpus(dir: &Path, observe: impl Fn(&Path, &Case) -> Result<Observed, String>) {
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "the corpus lost cases: {}", cases.len());
    let skipped = skipped_cases(&cases);
    let failures: Vec<String> = cases
        .iter()
        .filter(|p| !skipped.iter().any(|s| p.file_name() == Some(s.as_ref())))
        .filter_map(|p| {
            run_case(p, &observe).err().map(|e| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                format!("{}: {e}", name.unwrap_or_default())
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
