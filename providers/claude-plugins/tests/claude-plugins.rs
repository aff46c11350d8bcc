//! Where `claude-plugins` looks (SPEC §4): `<installPath>/skills` for each
//! user-scope install of `~/.claude/plugins/installed_plugins.json`
//! (`CLAUDE_CONFIG_DIR` moves `~/.claude`), in the index's order.

use skillpipe_provider_claude_plugins::provider;
use skillpipe_testkit::{Run, Tree, hostile};

/// An index of installs: `(plugin, scope, installPath relative to the tree)`.
fn index(tree: &Tree, at: &str, installs: &[(&str, &str, &str)]) {
    let mut plugins = serde_json::Map::new();
    for (plugin, scope, path) in installs {
        let path = tree.path(path).display().to_string();
        plugins.insert(
            (*plugin).to_owned(),
            serde_json::json!([{ "scope": scope, "installPath": path }]),
        );
    }
    let doc = serde_json::json!({ "version": 2, "plugins": plugins });
    tree.file(at, doc.to_string());
}

#[test]
fn the_skills_of_user_scope_installs_only() {
    let tree = Tree::new();
    tree.skill("plugins/review/skills/review", "review", "Review.")
        .skill(
            "plugins/local/skills/local",
            "local",
            "A project-scope install.",
        )
        .skill(
            "plugins/unlisted/skills/unlisted",
            "unlisted",
            "Not installed.",
        );
    index(
        &tree,
        "home/.claude/plugins/installed_plugins.json",
        &[
            ("review@market", "user", "plugins/review"),
            ("local@market", "project", "plugins/local"),
        ],
    );
    let expected = ["skill review (claude-plugins/user) plugins/review/skills/review/SKILL.md"];
    Run::new(provider()).check(&tree, &expected);
    // Moved with CLAUDE_CONFIG_DIR: the home's index is no longer read.
    let run = Run::new(provider()).env("CLAUDE_CONFIG_DIR", "$TREE/config");
    run.check(&tree, &[]);
    index(
        &tree,
        "config/plugins/installed_plugins.json",
        &[("review@market", "user", "plugins/review")],
    );
    run.check(&tree, &expected);
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    let tree = Tree::new();
    index(
        &tree,
        "home/.claude/plugins/installed_plugins.json",
        &[("p@m", "user", "plugins/p")],
    );
    hostile::check(&Run::new(provider()), &tree, "plugins/p/skills");
}
