//! The bench trees: `../shared/bench/gen_tree.py` run once per set of
//! arguments (a stamp beside the tree holds them), for the Linux bench and
//! the Node binding's bench alike.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::{command, root, run_cmd};

/// `out/<name>`, generated with `args` unless the tree there was made
/// with the same arguments.
pub(crate) fn generate(out: &Path, name: &str, args: &[&str]) -> Result<PathBuf> {
    let dir = out.join(name);
    let stamp = out.join(format!("{name}.args"));
    let want = args.join(" ");
    let fresh = fs::read_to_string(&stamp).is_ok_and(|s| s == want) && dir.is_dir();
    if !fresh {
        let _ = fs::remove_file(&stamp);
        run_cmd(
            command("python3")
                .arg(root().join("../shared/bench/gen_tree.py"))
                .arg(&dir)
                .args(args),
        )?;
        fs::write(&stamp, &want)?;
    }
    Ok(dir)
}
