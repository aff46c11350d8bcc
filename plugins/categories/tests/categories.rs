//! Where `categories` looks: `<root>/<group>/<name>/SKILL.md` for each
//! root of `providers.categories.roots`, run in process as a host runs it.

use skillpipe_plugin_categories::Categories;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn skills_one_group_folder_down_in_each_configured_root() {
    let tree = Tree::new();
    tree.skill("home/library/writing/essay", "essay", "Write.")
        .skill("project/docs/skills/eng/review", "review", "Review.")
        // Not found: directly under a root, two groups down, a dot folder.
        .skill("home/library/flat", "flat", "No group.")
        .skill("home/library/eng/too/deep", "deep", "Too deep.")
        .skill("home/library/.hidden/secret", "secret", "Dot folder.");
    Run::new(Categories)
        .set(r#"providers.categories={"roots": ["~/library", "docs/skills"]}"#)
        .check(
            &tree,
            &[
                "skill essay (categories/user) home/library/writing/essay/SKILL.md",
                "skill review (categories/project) project/docs/skills/eng/review/SKILL.md",
            ],
        );
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    let run = Run::new(Categories)
        .set(r#"providers.categories={"roots": ["~/library"], "groups": ["g"]}"#);
    hostile::check(&run, &Tree::new(), "home/library/g");
}
