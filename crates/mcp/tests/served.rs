//! The server's answers, method by method, on generated homes: entries and
//! digests, pagination, the URIs of every copy, the per-skill limits, and
//! hostile input (URIs that climb or lead out, FIFOs, bad cursors, huge
//! values), without a transport: the rmcp handler only hands these on.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skillpipe::{Delivery, Profile, Skillpipe};
use skillpipe_mcp::{Limits, NOTES_KEY, SKILLS_PAGE, Served};
use skillpipe_testkit::Tree;

fn builder(tree: &Tree, profile: Profile) -> skillpipe::Builder {
    Skillpipe::builder(profile)
        .env(Vec::<(String, String)>::new())
        .home(tree.path("home"))
        .cwd(tree.path("project"))
        .no_plugins()
}

fn skillpipe(tree: &Tree, profile: Profile) -> Skillpipe {
    builder(tree, profile).build().unwrap()
}

fn served(tree: &Tree) -> Served {
    Served::new(skillpipe(tree, Profile::Musepi).discover())
}

/// Skills `s000`, `s001`, … in the user's Claude folder.
fn many_skills(tree: &Tree, n: usize) {
    for i in 0..n {
        tree.skill(
            &format!("home/.claude/skills/s{i:03}"),
            &format!("s{i:03}"),
            "One of many.",
        );
    }
}

fn to_json(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The bytes `resources/read` sends for `uri`.
fn read(served: &Served, uri: &str) -> Vec<u8> {
    let result = to_json(served.read_resource(uri).unwrap());
    let content = &result["contents"][0];
    assert_eq!(content["uri"], uri);
    match (content.get("text"), content.get("blob")) {
        (Some(text), None) => text.as_str().unwrap().as_bytes().to_vec(),
        (None, Some(blob)) => base64::engine::general_purpose::STANDARD
            .decode(blob.as_str().unwrap())
            .unwrap(),
        _ => panic!("neither text nor blob: {content}"),
    }
}

/// Every entry of every page of `skills/list`.
fn all_skills(served: &Served) -> Vec<Value> {
    every_page(|cursor| to_json(served.list_skills(cursor).unwrap())).0
}

/// The entries of every page `list` gives, following the cursors, and
/// the cursors.
fn every_page(list: impl Fn(Option<&str>) -> Value) -> (Vec<Value>, Vec<String>) {
    let mut cursors: Vec<String> = Vec::new();
    let mut out = Vec::new();
    loop {
        let page = list(cursors.last().map(String::as_str));
        out.extend(page["skills"].as_array().unwrap().iter().cloned());
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursors.push(next.to_owned()),
            None => return (out, cursors),
        }
    }
}

/// The URIs of a skills/list entry's files, in order.
fn file_uris(entry: &Value) -> Vec<&str> {
    entry["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect()
}

fn error_code<T>(result: Result<T, rmcp::ErrorData>) -> i32 {
    match result {
        Ok(_) => panic!("an error was expected"),
        Err(e) => e.code.0,
    }
}

const INVALID_PARAMS: i32 = -32602;
const RESOURCE_NOT_FOUND: i32 = -32002;

#[test]
fn every_loaded_skill_is_listed_with_every_file_and_its_digest() {
    let tree = Tree::new();
    tree.file(
        "home/.claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  version: \"2\"\n---\nUse forms.md.\n",
    )
    .file("home/.claude/skills/pdf/forms.md", "# Forms\n")
    .file("home/.claude/skills/pdf/scripts/fill.py", "print('fill')\n")
    .file("home/.claude/skills/pdf/logo.png", b"\x89PNG\r\n\x1a\n\x00\x01")
    .file("home/.claude/skills/pdf/.env", "SECRET=1\n")
    .file("home/.claude/skills/pdf/.git/config", "[core]\n")
    .file(
        "home/.claude/skills/quiet/SKILL.md",
        "---\nname: quiet\ndescription: Only when asked.\ndisable-model-invocation: true\n---\nQuiet.\n",
    );
    let served = served(&tree);
    let skills = all_skills(&served);
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["skill://pdf/SKILL.md", "skill://quiet/SKILL.md"]);

    let pdf = &skills[0];
    assert_eq!(
        pdf["frontmatter"],
        json!({"name": "pdf", "description": "Fill PDF forms.", "license": "MIT", "metadata": {"version": "2"}}),
        "the frontmatter as written"
    );
    let files = file_uris(pdf);
    assert_eq!(
        files,
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/forms.md",
            "skill://pdf/logo.png",
            "skill://pdf/scripts/fill.py",
        ],
        "SKILL.md first, then path order; hidden files left out"
    );
    for resource in pdf["resources"].as_array().unwrap() {
        let bytes = read(&served, resource["uri"].as_str().unwrap());
        assert_eq!(resource["size"], bytes.len(), "{resource}");
        assert_eq!(resource["digest"], sha256(&bytes), "{resource}");
    }
    assert_eq!(
        read(&served, "skill://pdf/logo.png"),
        b"\x89PNG\r\n\x1a\n\x00\x01",
        "binary files are byte-exact"
    );
    let png = to_json(served.read_resource("skill://pdf/logo.png").unwrap());
    assert_eq!(png["contents"][0]["mimeType"], "image/png");
    assert!(png["contents"][0].get("blob").is_some());
    let md = to_json(served.read_resource("skill://pdf/SKILL.md").unwrap());
    assert_eq!(md["contents"][0]["mimeType"], "text/markdown");

    assert_eq!(
        skills[1]["frontmatter"]["disable-model-invocation"], true,
        "a hidden skill is listed, with its frontmatter: the host decides"
    );

    let get = to_json(served.get_skill("skill://pdf/SKILL.md").unwrap());
    assert_eq!(get["skill"], *pdf, "skills/get gives the listing's entry");
}

#[test]
fn resources_list_every_skill_md_and_directories_list_their_children() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file("home/.claude/skills/pdf/refs/a.md", "a")
        .file("home/.claude/skills/pdf/refs/deep/b.json", "{}")
        .file("home/.claude/skills/pdf/refs/.hidden", "x")
        .skill(
            "project/.claude/skills/review",
            "review",
            "Review a change.",
        );
    let served = served(&tree);
    let resources = to_json(served.list_resources(None).unwrap());
    let listed: Vec<(&str, &str)> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [
            ("skill://pdf/SKILL.md", "text/markdown"),
            ("skill://review/SKILL.md", "text/markdown")
        ]
    );

    let root = to_json(served.read_directory("skill://pdf", None).unwrap());
    assert_eq!(
        root["resources"],
        json!([
            {"uri": "skill://pdf/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
            {"uri": "skill://pdf/refs", "name": "refs", "mimeType": "inode/directory"},
        ])
    );
    let refs = to_json(served.read_directory("skill://pdf/refs", None).unwrap());
    assert_eq!(
        refs["resources"],
        json!([
            {"uri": "skill://pdf/refs/a.md", "name": "a.md", "mimeType": "text/markdown"},
            {"uri": "skill://pdf/refs/deep", "name": "deep", "mimeType": "inode/directory"},
        ])
    );
    assert_eq!(
        error_code(served.read_directory("skill://pdf/refs/a.md", None)),
        INVALID_PARAMS,
        "a file is no directory"
    );
    assert_eq!(
        error_code(served.read_directory("skill://nope", None)),
        INVALID_PARAMS
    );
    assert_eq!(
        error_code(served.read_directory("skill://pdf/missing", None)),
        INVALID_PARAMS
    );
    assert_eq!(
        error_code(served.read_resource("skill://pdf/refs")),
        INVALID_PARAMS,
        "a directory is not read as a file"
    );
    assert_eq!(
        read(&served, "skill://pdf"),
        read(&served, "skill://pdf/SKILL.md"),
        "the root read as a file is SKILL.md, as the library reads skill://pdf"
    );
}

#[test]
fn a_shadowed_copy_is_served_under_its_provider_and_level() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/review", "review", "Claude's rules.")
        .skill("home/.agents/skills/review", "review", "The team's rules.")
        .file("home/.agents/skills/review/checklist.md", "- tests\n");
    let pipe = skillpipe(&tree, Profile::Musepi);
    let found = pipe.discover();
    let copy = &found.shadowed()[0].skill;
    let (provider, level) = (copy.source.provider.clone(), copy.source.level.as_str());
    let served = Served::new(found);

    let listed = all_skills(&served);
    assert_eq!(listed.len(), 1, "skills/list: the loaded copy only");
    assert_eq!(listed[0]["frontmatter"]["description"], "Claude's rules.");

    let uri = format!("skill://{provider}/{level}/review/SKILL.md");
    let entry = to_json(served.get_skill(&uri).unwrap());
    assert_eq!(entry["skill"]["uri"], uri);
    assert_eq!(
        entry["skill"]["frontmatter"]["description"],
        "The team's rules."
    );
    let files = file_uris(&entry["skill"]);
    let checklist = format!("skill://{provider}/{level}/review/checklist.md");
    assert_eq!(files, [uri.as_str(), checklist.as_str()]);
    assert_eq!(read(&served, &checklist), b"- tests\n");
    assert!(
        String::from_utf8(read(&served, &uri))
            .unwrap()
            .contains("The team's rules."),
        "the shadowed copy's own file, not the loaded one"
    );
    let expanded = served.discovered().expand(
        &format!("/skill:review@{provider}:{level}"),
        Delivery::Prompt,
    );
    assert!(
        expanded.text.contains(
            &[".agents", "skills", "review", "SKILL.md"].join(std::path::MAIN_SEPARATOR_STR)
        ),
        "the library's address names the same copy: {}",
        expanded.text
    );
}

#[test]
fn skills_get_takes_only_the_skill_md_uri_of_a_served_skill() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file("home/.claude/skills/pdf/forms.md", "f");
    let served = served(&tree);
    for uri in [
        "skill://nope/SKILL.md",
        "skill://pdf/forms.md",
        "skill://pdf",
        "skill://pd%66/SKILL.md",
        "skill://pdf/./SKILL.md",
        "skill://pdf/../pdf/SKILL.md",
        "file:///etc/passwd",
        "",
    ] {
        assert_eq!(error_code(served.get_skill(uri)), INVALID_PARAMS, "{uri:?}");
    }
}

#[test]
fn pages_follow_the_cursor_and_bad_cursors_are_invalid_params() {
    let tree = Tree::new();
    // Two pages of skills, one of resources (500 a page).
    let n = SKILLS_PAGE + 30;
    many_skills(&tree, n);
    let served = served(&tree);
    let first = to_json(served.list_skills(None).unwrap());
    assert_eq!(first["skills"].as_array().unwrap().len(), SKILLS_PAGE);
    assert_eq!(first["nextCursor"], format!("skills:{SKILLS_PAGE}"));
    let names: Vec<String> = all_skills(&served)
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (0..n).map(|i| format!("s{i:03}")).collect();
    assert_eq!(names, expected, "every skill once, in order");

    let resources = to_json(served.list_resources(None).unwrap());
    assert_eq!(resources["resources"].as_array().unwrap().len(), n);
    assert!(resources.get("nextCursor").is_none());

    let huge = "9".repeat(1 << 20);
    for bad in [
        "",
        "0",
        "skills:0",
        "skills:abc",
        "prompts:1",
        huge.as_str(),
    ] {
        assert_eq!(
            error_code(served.list_skills(Some(bad))),
            INVALID_PARAMS,
            "{bad:.20}"
        );
    }
    for bad in ["", "skills:100", "resources:-1", huge.as_str()] {
        assert_eq!(
            error_code(served.list_resources(Some(bad))),
            INVALID_PARAMS,
            "{bad:.20}"
        );
        assert_eq!(
            error_code(served.list_prompts(Some(bad))),
            INVALID_PARAMS,
            "{bad:.20}"
        );
        let dir = served.read_directory("skill://s000", Some(bad));
        assert_eq!(error_code(dir), INVALID_PARAMS, "{bad:.20}");
    }
}

#[test]
fn a_skill_over_the_limits_is_listed_with_what_fits_and_a_note() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/big", "big", "Many files.");
    for i in 0..6 {
        tree.file(format!("home/.claude/skills/big/f{i}.txt"), "0123456789");
    }
    tree.skill("home/.claude/skills/small", "small", "One file.");
    let pipe = skillpipe(&tree, Profile::Musepi);
    let limits = Limits {
        files: 4,
        ..Limits::default()
    };
    let served = Served::with_limits(pipe.discover(), limits);
    let skills = all_skills(&served);
    let big = &skills[0];
    let files = file_uris(big);
    assert_eq!(
        files,
        [
            "skill://big/SKILL.md",
            "skill://big/f0.txt",
            "skill://big/f1.txt",
            "skill://big/f2.txt"
        ]
    );
    let notes = big["_meta"][NOTES_KEY].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.contains("more than 4 files") && note.contains("skill://big/f3.txt"),
        "{note}"
    );
    assert!(
        skills[1].get("_meta").is_none(),
        "a skill within the limits has no note"
    );

    let skill_md_len = std::fs::metadata(tree.path("home/.claude/skills/big/SKILL.md"))
        .unwrap()
        .len();
    let limits = Limits {
        bytes: skill_md_len + 25,
        ..Limits::default()
    };
    let served = Served::with_limits(pipe.discover(), limits);
    let big = &all_skills(&served)[0];
    assert_eq!(
        big["resources"].as_array().unwrap().len(),
        3,
        "SKILL.md and two 10-byte files"
    );
    let note = big["_meta"][NOTES_KEY][0].as_str().unwrap();
    assert!(note.contains("bytes would bring the skill over"), "{note}");
}

#[test]
fn a_deep_or_wide_tree_is_bounded() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/deep", "deep", "Deep.");
    let mut dir = String::from("home/.claude/skills/deep");
    for _ in 0..40 {
        dir.push_str("/d");
    }
    tree.file(format!("{dir}/leaf.txt"), "leaf");
    tree.file("home/.claude/skills/deep/top.txt", "top");
    let served = served(&tree);
    let deep = &all_skills(&served)[0];
    let files = file_uris(deep);
    assert_eq!(files, ["skill://deep/SKILL.md", "skill://deep/top.txt"]);
    let note = deep["_meta"][NOTES_KEY][0].as_str().unwrap();
    assert!(note.contains("nested too deep"), "{note}");
}

#[cfg(unix)]
#[test]
fn reads_never_leave_the_skill_nor_hang_on_a_fifo() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file("home/.claude/skills/pdf/ok.md", "ok")
        .file("home/outside/secret.txt", "secret")
        .symlink(
            "home/.claude/skills/pdf/leak.txt",
            "../../../outside/secret.txt",
        )
        .symlink("home/.claude/skills/pdf/out", "../../../outside")
        .symlink("home/.claude/skills/pdf/inside.md", "ok.md")
        .file("home/.claude/skills/pdf/sub/deep.md", "deep")
        .symlink("home/.claude/skills/pdf/linked", "sub");
    let fifo = tree.path("home/.claude/skills/pdf/pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let served = served(&tree);

    let entry = &all_skills(&served)[0];
    let files = file_uris(entry);
    assert_eq!(
        files,
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/inside.md",
            "skill://pdf/linked/deep.md",
            "skill://pdf/ok.md",
            "skill://pdf/sub/deep.md"
        ],
        "a link inside (to a file or a folder) is a file of the skill; links out and the FIFO are not"
    );
    let notes = entry["_meta"][NOTES_KEY].to_string();
    assert!(notes.contains("skill://pdf/leak.txt"), "{notes}");
    assert!(notes.contains("skill://pdf/pipe.md"), "{notes}");

    for uri in [
        "skill://pdf/leak.txt",
        "skill://pdf/out/secret.txt",
        "skill://pdf/pipe.md",
        "skill://pdf/../../outside/secret.txt",
        "skill://pdf/%2e%2e/%2e%2e/outside/secret.txt",
        "skill://pdf/..%2F..%2Foutside%2Fsecret.txt",
        "skill://pdf/.env",
        "skill://pdf/ok.md?raw",
        "skill://pdf/ok.md#x",
    ] {
        assert_eq!(
            error_code(served.read_resource(uri)),
            INVALID_PARAMS,
            "{uri}"
        );
        let tool = to_json(served.read_skill(Some(&json_args(uri))));
        assert_eq!(tool["isError"], true, "{uri}");
    }
    for uri in [
        "skill://pdf/missing.md",
        "skill://nope/SKILL.md",
        "skill://",
        "skill:///etc/passwd",
    ] {
        assert_eq!(
            error_code(served.read_resource(uri)),
            RESOURCE_NOT_FOUND,
            "{uri}"
        );
    }
    assert_eq!(
        error_code(served.read_resource("file:///etc/passwd")),
        INVALID_PARAMS
    );
    let long = format!("skill://pdf/{}", "a/".repeat(200_000));
    let err = served.read_resource(&long).unwrap_err();
    assert!(
        err.message.len() < 400,
        "the message quotes a bounded part of the URI"
    );
    let outside = served.read_directory("skill://pdf/out", None);
    assert_eq!(
        error_code(outside),
        INVALID_PARAMS,
        "a folder out of the skill is not listed"
    );
}

fn json_args(uri: &str) -> serde_json::Map<String, Value> {
    match json!({ "uri": uri }) {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

#[test]
fn the_read_skill_tool_reads_text_and_refuses_the_rest() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file("home/.claude/skills/pdf/refs/a.md", "alpha")
        .file("home/.claude/skills/pdf/logo.png", b"\x89PNG\x00");
    let served = served(&tree);
    let ok = to_json(served.read_skill(Some(&json_args("skill://pdf/refs/a.md"))));
    assert_eq!(ok["content"], json!([{"type": "text", "text": "alpha"}]));
    assert_ne!(ok["isError"], true);
    let dir = to_json(served.read_skill(Some(&json_args("skill://pdf/refs"))));
    assert_eq!(dir["content"][0]["text"], "skill://pdf/refs/a.md");
    let binary = to_json(served.read_skill(Some(&json_args("skill://pdf/logo.png"))));
    assert_eq!(binary["isError"], true);
    let none = to_json(served.read_skill(None));
    assert_eq!(none["isError"], true);
    let mut wrong = serde_json::Map::new();
    wrong.insert("uri".into(), json!(42));
    assert_eq!(to_json(served.read_skill(Some(&wrong)))["isError"], true);
}

#[test]
fn prompts_are_the_commands_and_their_message_is_the_expansion() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file(
            "home/.claude/skills/manual/SKILL.md",
            "---\nname: manual\ndescription: Not a command.\nuser-invocable: false\n---\nx\n",
        );
    let served = served(&tree);
    let prompts = to_json(served.list_prompts(None).unwrap());
    let names: Vec<&str> = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let commands: Vec<String> = served
        .discovered()
        .commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, commands);
    assert_eq!(names, ["skill:pdf"]);
    assert_eq!(prompts["prompts"][0]["arguments"][0]["name"], "args");
    assert_eq!(prompts["prompts"][0]["arguments"][0]["required"], false);

    let mut args = serde_json::Map::new();
    args.insert("args".into(), json!("page 3"));
    let got = to_json(served.get_prompt("skill:pdf", Some(&args)).unwrap());
    let expected = served
        .discovered()
        .expand("/skill:pdf page 3", Delivery::Prompt);
    assert_eq!(
        got["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": expected.text}}])
    );
    let bare = to_json(served.get_prompt("skill:pdf", None).unwrap());
    let expected = served.discovered().expand("/skill:pdf", Delivery::Prompt);
    assert_eq!(bare["messages"][0]["content"]["text"], expected.text);

    assert_eq!(
        error_code(served.get_prompt("skill:manual", None)),
        INVALID_PARAMS
    );
    assert_eq!(error_code(served.get_prompt("nope", None)), INVALID_PARAMS);
    args.insert("args".into(), json!(["not", "text"]));
    assert_eq!(
        error_code(served.get_prompt("skill:pdf", Some(&args))),
        INVALID_PARAMS
    );
}

#[test]
fn a_skill_sep_2640_cannot_describe_is_left_out_with_a_note() {
    let tree = Tree::new();
    tree.file(
        "home/.claude/skills/unnamed/SKILL.md",
        "---\ndescription: No name in the frontmatter.\n---\nx\n",
    )
    .skill("home/.claude/skills/ok", "ok", "Fine.");
    let served = served(&tree);
    let page = to_json(served.list_skills(None).unwrap());
    let uris: Vec<&str> = page["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://ok/SKILL.md"]);
    let note = page["_meta"][NOTES_KEY][0].as_str().unwrap();
    assert!(
        note.contains("`unnamed`") && note.contains("`name`"),
        "{note}"
    );
    let resources = to_json(served.list_resources(None).unwrap());
    assert_eq!(
        resources["resources"].as_array().unwrap().len(),
        2,
        "resources/list still has it"
    );
    assert!(!read(&served, "skill://unnamed/SKILL.md").is_empty());
    assert_eq!(
        error_code(served.get_skill("skill://unnamed/SKILL.md")),
        INVALID_PARAMS
    );
}

#[test]
fn instructions_carry_the_catalogue_with_uris_as_locations() {
    let tree = Tree::new();
    tree.skill("home/.pi/agent/skills/pdf", "pdf", "Fill PDF forms.")
        .skill("home/.claude/skills/review", "review", "Review a change.");
    let pi = Served::new(skillpipe(&tree, Profile::Pi).discover());
    let text = pi.instructions();
    assert!(
        text.contains("<location>skill://pdf/SKILL.md</location>"),
        "{text}"
    );
    assert!(
        !text.contains(tree.root().to_str().unwrap()),
        "no local path: {text}"
    );

    let musepi = served(&tree);
    let text = musepi.instructions();
    assert!(text.contains("- review: Review a change."), "{text}");
    assert!(text.contains("skill://<name>/SKILL.md"), "{text}");

    let empty = Tree::new();
    assert!(
        served(&empty)
            .instructions()
            .contains("No skills are listed.")
    );

    // Search mode: the pinned skills, and how many more search_skills finds.
    tree.skill("home/.claude/skills/lint", "lint", "Lint the code.");
    let search = Skillpipe::builder(Profile::Musepi)
        .env(Vec::<(String, String)>::new())
        .home(tree.path("home"))
        .cwd(tree.path("project"))
        .no_plugins()
        .set(r#"skills.catalogMode="search""#)
        .set(r#"skills.catalogPins=["review"]"#)
        .build()
        .unwrap();
    let text = Served::new(search.discover()).instructions().to_owned();
    assert!(text.contains("- review: Review a change."), "{text}");
    assert!(!text.contains("- lint:"), "{text}");
    assert!(text.contains("1 more skill is not listed"), "{text}");
    assert!(text.contains("search_skills"), "{text}");
}

#[test]
fn a_single_file_skill_has_one_file() {
    let tree = Tree::new();
    tree.file(
        "home/.pi/agent/skills/notes.md",
        "---\nname: notes\ndescription: A skill in one file.\n---\nBody.\n",
    )
    .skill("home/.pi/agent/skills/pdf", "pdf", "Fill PDF forms.");
    let served = Served::new(skillpipe(&tree, Profile::Pi).discover());
    let skills = all_skills(&served);
    let notes = skills
        .iter()
        .find(|s| s["uri"] == "skill://notes/SKILL.md")
        .expect("the one-file skill is listed");
    assert_eq!(notes["resources"].as_array().unwrap().len(), 1);
    assert_eq!(
        read(&served, "skill://notes/SKILL.md"),
        std::fs::read(tree.path("home/.pi/agent/skills/notes.md")).unwrap()
    );
    assert_eq!(
        error_code(served.read_resource("skill://notes/pdf/SKILL.md")),
        RESOURCE_NOT_FOUND,
        "its folder's other files are not its own"
    );
}

#[test]
fn a_directory_read_writes_its_children_as_the_server_spells_them() {
    let tree = Tree::new();
    tree.skill("home/.claude/skills/pdf", "pdf", "Fill PDF forms.")
        .file("home/.claude/skills/pdf/refs/my notes.md", "n");
    let served = served(&tree);
    let listed = to_json(
        served
            .read_directory("skill://pd%66/./refs/", None)
            .unwrap(),
    );
    assert_eq!(
        listed["resources"][0]["uri"],
        "skill://pdf/refs/my%20notes.md"
    );
    let tool = to_json(served.read_skill(Some(&json_args("skill://pd%66/refs"))));
    assert_eq!(tool["content"][0]["text"], "skill://pdf/refs/my%20notes.md");
}

/// The digest skills/list gives the file `uri` of the only skill.
#[cfg(unix)]
fn listed_digest(served: &Served, uri: &str) -> String {
    let skills = all_skills(served);
    let files = skills[0]["resources"].as_array().unwrap();
    let file = files.iter().find(|f| f["uri"] == uri).unwrap();
    file["digest"].as_str().unwrap().to_owned()
}

#[cfg(unix)] // elsewhere the stamp is the length and modification time only
#[test]
fn digests_are_cached_by_file_and_hashed_again_when_it_changes() {
    let tree = Tree::new();
    tree.file(
        "home/.claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse forms.md.\n",
    )
    .file("home/.claude/skills/pdf/forms.md", "# Forms\n");
    let forms = tree.path("home/.claude/skills/pdf/forms.md");
    let uri = "skill://pdf/forms.md";
    let served = served(&tree);
    // A file changed within the last second is hashed on every listing.
    assert_eq!(listed_digest(&served, uri), sha256(b"# Forms\n"));
    assert!(served.digests().is_empty());
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(listed_digest(&served, uri), sha256(b"# Forms\n"));
    assert_eq!(served.digests().len(), 2, "both files are cached now");

    // The same length and modification time: the inode's change time
    // (and, written through a rename, the inode) still tell.
    let mtime = std::fs::metadata(&forms).unwrap().modified().unwrap();
    std::fs::write(&forms, "# Pages\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&forms)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(listed_digest(&served, uri), sha256(b"# Pages\n"));
    let renamed = tree.path("home/.claude/skills/pdf/forms.tmp");
    std::fs::write(&renamed, "# Lines\n").unwrap();
    std::fs::rename(&renamed, &forms).unwrap();
    assert_eq!(listed_digest(&served, uri), sha256(b"# Lines\n"));

    // A cached file swapped for a link out of the skill is no file of it.
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(listed_digest(&served, uri), sha256(b"# Lines\n"));
    tree.file("home/outside.md", "# Lines\n");
    std::fs::remove_file(&forms).unwrap();
    std::os::unix::fs::symlink(tree.path("home/outside.md"), &forms).unwrap();
    let entry = all_skills(&served).remove(0);
    assert_eq!(file_uris(&entry), ["skill://pdf/SKILL.md"], "{entry}");
    std::fs::remove_file(&forms).unwrap();
    std::fs::write(&forms, "# Lines\n").unwrap();

    // A discovery served after this one shares the cache.
    let next = Served::with_cache(
        skillpipe(&tree, Profile::Musepi).discover(),
        served.limits(),
        std::sync::Arc::clone(served.digests()),
    );
    assert_eq!(listed_digest(&next, uri), sha256(b"# Lines\n"));
}

/// A server whose discoveries hand their reads to its digest cache
/// (`Digests::hearing`) lists what one that reads every file itself lists:
/// the `SKILL.md` discovery read is not read again, and one that changed
/// after discovery read it is listed as it is now.
#[cfg(unix)] // elsewhere discovery hands nothing over
#[test]
fn a_skill_md_discovery_read_is_listed_with_its_digest_never_a_stale_one() {
    use skillpipe_mcp::Digests;
    use std::sync::Arc;

    let tree = Tree::new();
    // Past the loader's first read: discovery reads it to its end for this.
    let body = format!(
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n{}",
        "Use forms.md.\n".repeat(600)
    );
    tree.file("home/.claude/skills/pdf/SKILL.md", &body)
        .file("home/.claude/skills/pdf/forms.md", "# Forms\n");
    let skill_md = tree.path("home/.claude/skills/pdf/SKILL.md");
    let uri = "skill://pdf/SKILL.md";
    // Stamps of the last second are not trusted, so none is handed over.
    let digests = Arc::new(Digests::new());
    let hearing = digests.hearing(builder(&tree, Profile::Musepi), Limits::default());
    let hearing = hearing.build().unwrap();
    let _ = hearing.discover();
    assert!(
        digests.is_empty(),
        "a file of the last second is not cached"
    );
    std::thread::sleep(Duration::from_millis(1100));

    let found = hearing.discover();
    assert_eq!(digests.len(), 1, "discovery handed over its one SKILL.md");
    let heard = Served::with_cache(found.clone(), Limits::default(), Arc::clone(&digests));
    assert_eq!(listed_digest(&heard, uri), sha256(body.as_bytes()));
    // As a server of a plain discovery, which reads every file itself.
    assert_eq!(all_skills(&heard), all_skills(&served(&tree)));

    // Rewritten after discovery read it (the same length): listed as it
    // is now, by a server of that discovery.
    let edited = body.replace("Use", "Try");
    std::fs::write(&skill_md, &edited).unwrap();
    let late = Served::with_cache(found, Limits::default(), Arc::clone(&digests));
    assert_eq!(listed_digest(&late, uri), sha256(edited.as_bytes()));
    assert_eq!(listed_digest(&heard, uri), sha256(edited.as_bytes()));
}

/// The next page is made ahead while one is answered; the same pages come
/// either way, and a page asked for after a while is made anew, so that a
/// change made meanwhile shows.
#[test]
fn pages_made_ahead_are_the_pages_and_a_late_one_is_made_anew() {
    let tree = Tree::new();
    many_skills(&tree, SKILLS_PAGE + SKILLS_PAGE / 2);
    let served = std::sync::Arc::new(served(&tree));
    let plain = all_skills(&served);
    let first = to_json(served.list_skills_ahead(None).unwrap());
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = to_json(served.list_skills_ahead(Some(&cursor)).unwrap());
    let mut ahead: Vec<Value> = first["skills"].as_array().unwrap().clone();
    ahead.extend(second["skills"].as_array().unwrap().iter().cloned());
    assert_eq!(ahead, plain);

    // Made ahead again (and given the time to be made), then changed,
    // then asked for late.
    let _ = served.list_skills_ahead(None).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    // A skill of the second page.
    let name = format!("s{:03}", SKILLS_PAGE + 20);
    let changed = format!("---\nname: {name}\ndescription: Changed.\n---\nNew.\n");
    std::fs::write(
        tree.path(format!("home/.claude/skills/{name}/SKILL.md")),
        &changed,
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let late = to_json(served.list_skills_ahead(Some(&cursor)).unwrap());
    let entry = late["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["uri"] == format!("skill://{name}/SKILL.md"))
        .unwrap();
    assert_eq!(
        entry["resources"][0]["digest"],
        sha256(changed.as_bytes()),
        "{entry}"
    );
}

/// Pages are made two ahead of the one answered: listing every page of
/// four gives the pages a plain listing gives, and a cursor asked for out
/// of turn gives its page all the same.
#[test]
fn pages_made_two_ahead_are_the_pages() {
    let tree = Tree::new();
    many_skills(&tree, 3 * SKILLS_PAGE + SKILLS_PAGE / 2);
    let served = std::sync::Arc::new(served(&tree));
    let plain = all_skills(&served);
    let (listed, cursors) = every_page(|cursor| to_json(served.list_skills_ahead(cursor).unwrap()));
    assert_eq!(cursors.len(), 3, "four pages");
    assert_eq!(listed, plain);

    // Out of turn: the second page again, asked for after the last.
    let again = to_json(served.list_skills_ahead(Some(&cursors[0])).unwrap());
    assert_eq!(
        again["skills"].as_array().unwrap()[..],
        plain[SKILLS_PAGE..2 * SKILLS_PAGE]
    );
}

/// A warm listing gives the manifest cached with the stamps of every
/// folder and file it was made from: each kind of change below the skill
/// shows in the next listing all the same (each step waits until its
/// stamps are old enough to be cached, so that the cached manifest is the
/// one tested).
#[cfg(unix)]
#[test]
fn a_cached_manifest_gives_way_to_any_change_below_the_skill() {
    let tree = Tree::new();
    tree.file(
        "home/.claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nSee ref/.\n",
    )
    .file("home/.claude/skills/pdf/ref/a.md", "a")
    .file("home/outside/secret.md", "secret");
    let dir = tree.path("home/.claude/skills/pdf");
    let served = served(&tree);
    let uris = |served: &Served| -> Vec<String> {
        let entry = all_skills(served).remove(0);
        file_uris(&entry).into_iter().map(str::to_owned).collect()
    };
    let settle = || std::thread::sleep(Duration::from_millis(1100));
    settle();
    assert_eq!(
        uris(&served),
        ["skill://pdf/SKILL.md", "skill://pdf/ref/a.md"]
    );
    assert_eq!(
        uris(&served),
        ["skill://pdf/SKILL.md", "skill://pdf/ref/a.md"]
    );

    // A file added in a folder below: the folder's stamp tells.
    std::fs::write(dir.join("ref/b.md"), "b").unwrap();
    settle();
    assert_eq!(
        uris(&served),
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/ref/a.md",
            "skill://pdf/ref/b.md"
        ]
    );
    // Renamed, then removed.
    std::fs::rename(dir.join("ref/a.md"), dir.join("ref/c.md")).unwrap();
    settle();
    assert_eq!(
        uris(&served),
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/ref/b.md",
            "skill://pdf/ref/c.md"
        ]
    );
    std::fs::remove_file(dir.join("ref/b.md")).unwrap();
    settle();
    assert_eq!(
        uris(&served),
        ["skill://pdf/SKILL.md", "skill://pdf/ref/c.md"]
    );
    // The skill's own file edited: its digest is the new bytes'.
    let text = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nSee ref/c.md.\n";
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    assert_eq!(
        listed_digest(&served, "skill://pdf/SKILL.md"),
        sha256(text.as_bytes())
    );
    settle();
    assert_eq!(
        listed_digest(&served, "skill://pdf/SKILL.md"),
        sha256(text.as_bytes())
    );
    // The folder below swapped for a link out of the skill: never followed.
    std::fs::remove_dir_all(dir.join("ref")).unwrap();
    std::os::unix::fs::symlink(tree.path("home/outside"), dir.join("ref")).unwrap();
    let listed = uris(&served);
    assert!(!listed.iter().any(|u| u.contains("secret")), "{listed:?}");
    assert_eq!(listed[0], "skill://pdf/SKILL.md");
}

/// A skill whose `SKILL.md` is a link (to a file kept elsewhere) is
/// listed with the digest of the file linked to, opened in the skill's
/// folder with the link followed as the resolver follows it; an edit of
/// that file shows in the next listing, cached or not.
#[cfg(unix)]
#[test]
fn a_linked_skill_md_is_hashed_from_the_file_it_links_to() {
    let first = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nOne.\n";
    let tree = Tree::new();
    tree.file("home/kept/pdf.md", first)
        .file("home/.claude/skills/pdf/ref/a.md", "a")
        .symlink("home/.claude/skills/pdf/SKILL.md", "../../../kept/pdf.md");
    let served = served(&tree);
    let uri = "skill://pdf/SKILL.md";
    assert_eq!(listed_digest(&served, uri), sha256(first.as_bytes()));
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(listed_digest(&served, uri), sha256(first.as_bytes()));
    assert_eq!(
        listed_digest(&served, uri),
        sha256(first.as_bytes()),
        "cached"
    );
    let second = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nTwo, longer.\n";
    std::fs::write(tree.path("home/kept/pdf.md"), second).unwrap();
    assert_eq!(listed_digest(&served, uri), sha256(second.as_bytes()));
    let entry = all_skills(&served).remove(0);
    assert_eq!(file_uris(&entry), [uri, "skill://pdf/ref/a.md"]);
}

#[test]
fn search_skills_ranks_the_skills_with_their_uris_and_refuses_bad_arguments() {
    let tree = Tree::new();
    tree.file(
        "home/.claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms and merge PDF files.\n---\nBody.\n",
    )
    .file(
        "home/.claude/skills/review/SKILL.md",
        "---\nname: review\ndescription: Review a pull request.\n---\nBody.\n",
    )
    .file(
        "home/.claude/skills/quiet/SKILL.md",
        "---\nname: quiet\ndescription: PDF things, only when asked.\ndisable-model-invocation: true\n---\nQuiet.\n",
    );
    let served = served(&tree);
    let args = |v: Value| v.as_object().unwrap().clone();
    let found = to_json(
        served
            .search_skills(Some(&args(json!({"query": "fill pdf forms"}))))
            .unwrap(),
    );
    let results = found["structuredContent"]["results"].as_array().unwrap();
    assert_eq!(results[0]["name"], "pdf", "{found}");
    assert_eq!(results[0]["uri"], "skill://pdf/SKILL.md");
    assert_eq!(
        results[0]["description"],
        "Fill PDF forms and merge PDF files."
    );
    assert!(results.iter().all(|r| r["name"] != "quiet"), "{found}");
    let text = found["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        found["structuredContent"]
    );
    let one = to_json(
        served
            .search_skills(Some(&args(json!({"query": "review pdf", "limit": 1}))))
            .unwrap(),
    );
    assert_eq!(
        one["structuredContent"]["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let huge = "pdf ".repeat(10_000);
    for bad in [
        json!({}),
        json!({"query": 42}),
        json!({"query": "   "}),
        json!({"query": huge}),
        json!({"query": "pdf", "limit": 0}),
        json!({"query": "pdf", "limit": 51}),
        json!({"query": "pdf", "limit": -1}),
        json!({"query": "pdf", "limit": 2.5}),
        json!({"query": "pdf", "limit": "3"}),
        json!({"query": "pdf", "limit": 18446744073709551615_u64}),
        json!({"query": "pdf", "extra": true}),
    ] {
        let e = served.search_skills(Some(&args(bad.clone()))).unwrap_err();
        assert_eq!(e.code.0, INVALID_PARAMS, "{bad}");
        assert!(e.message.contains("search_skills takes"), "{}", e.message);
        assert!(e.message.len() < 600, "{}", e.message);
    }
    assert_eq!(error_code(served.search_skills(None)), INVALID_PARAMS);
}
