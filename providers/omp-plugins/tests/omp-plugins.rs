//! Where `omp-plugins` looks (SPEC §4): `<pkg>/skills` for each package of
//! the `extensions` setting, a project skill when the package lies in the
//! project, else a user skill; each skill needs a description.

use skillpipe_provider_omp_plugins::provider;
use skillpipe_testkit::{Run, Tree, hostile};

#[test]
fn each_extension_package_s_skills_folder_levelled_by_where_it_lies() {
    let tree = Tree::new();
    tree.skill("shared/team-pkg/skills/deploy", "deploy", "Ship it.")
        .skill("project/vendor/pkg/skills/lint", "lint", "Lint.")
        // Not roots: a package not listed, a package's own folder.
        .skill("shared/other-pkg/skills/other", "other", "Not listed.")
        .skill("shared/team-pkg/loose", "loose", "Not under skills.");
    Run::new(provider())
        .set(r#"extensions=["$TREE/shared/team-pkg", "$TREE/project/vendor/pkg"]"#)
        .check(
            &tree,
            &[
                "skill deploy (omp-plugins/user) shared/team-pkg/skills/deploy/SKILL.md",
                "skill lint (omp-plugins/project) project/vendor/pkg/skills/lint/SKILL.md",
            ],
        );
    // No extensions, no roots.
    Run::new(provider()).check(&tree, &[]);
}

#[test]
fn hostile_files_leave_the_neighbours_loaded() {
    let run = Run::new(provider()).set(r#"extensions=["$TREE/shared/pkg"]"#);
    hostile::check(&run, &Tree::new(), "shared/pkg/skills");
}
