//! [`Tree`]: a temporary directory laid out as a user's machine, a `home/`
//! and a `project/`, written by a test in a few lines.
//!
//! Every path a test gives is relative to the tree's root, as the lines of
//! [`crate::lines`] are, so a test reads the same paths it wrote.

use std::fs;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::sync::{Mutex, PoisonError};

/// A temporary directory with `home/` and `project/` (a repository root:
/// `project/.git` exists, so the walk up from the project stops there and
/// never reaches the real `/tmp`). Removed when dropped.
///
/// The writers panic with the path when the file system refuses: a test
/// whose tree cannot be written has no result to report.
#[derive(Debug)]
pub struct Tree {
    root: PathBuf,
    /// Directories [`Tree::lock`] made unreadable, opened again on drop so
    /// that the temporary directory can be removed.
    #[cfg(unix)]
    locked: Mutex<Vec<PathBuf>>,
    // Last: removed after the locked directories are opened again.
    _dir: tempfile::TempDir,
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

/// On Windows, `C:\x` for the `\\?\C:\x` that `canonicalize` gives: a
/// verbatim path takes no `/` as a separator, so `$TREE/home` would not be
/// a path under it, nor would the paths discovery reports (from the home
/// and cwd joined to the root) read as ones a user gives.
fn plain(root: PathBuf) -> PathBuf {
    #[cfg(windows)]
    if let Some(rest) = root.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        let drive = rest.as_bytes();
        if drive.len() >= 3 && drive[0].is_ascii_alphabetic() && &drive[1..3] == br":\" {
            return PathBuf::from(rest);
        }
    }
    root
}

impl Tree {
    /// An empty tree: `home/`, `project/` and `project/.git/`.
    pub fn new() -> Tree {
        let dir = tempfile::tempdir()
            .unwrap_or_else(|e| panic!("testkit: cannot create a temporary directory: {e}"));
        // Canonical, so that the paths discovery reports (canonical on
        // macOS, where the temporary directory is behind a link) have the
        // root as their prefix.
        let root = dir
            .path()
            .canonicalize()
            .unwrap_or_else(|e| panic!("testkit: {}: {e}", dir.path().display()));
        let root = plain(root);
        let tree = Tree {
            root,
            #[cfg(unix)]
            locked: Mutex::new(Vec::new()),
            _dir: dir,
        };
        tree.dir("home").dir("project/.git");
        tree
    }

    /// The tree's root, the directory `home/` and `project/` are in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `rel` under the root.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// `<dir>/SKILL.md` with the frontmatter `name` and `description` and a
    /// one-line body. `dir` is relative to the root, e.g.
    /// `home/.claude/skills/deploy`.
    pub fn skill(&self, dir: &str, name: &str, description: &str) -> &Self {
        self.file(
            format!("{dir}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nThe {name} skill.\n"),
        )
    }

    /// A file with these contents (text or bytes), its parents made.
    pub fn file(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path(rel);
        self.parent_of(&path);
        fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("testkit: cannot write {}: {e}", path.display()));
        self
    }

    /// A directory, and its parents.
    pub fn dir(&self, rel: impl AsRef<Path>) -> &Self {
        let path = self.path(rel);
        fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("testkit: cannot create {}: {e}", path.display()));
        self
    }

    /// A symbolic link at `link` whose target is `target` as written
    /// (relative targets resolve beside the link). On Windows a target
    /// that is a directory when the link is made gets a directory link.
    pub fn symlink(&self, link: impl AsRef<Path>, target: impl AsRef<Path>) -> &Self {
        let path = self.path(link);
        let target = target.as_ref();
        self.parent_of(&path);
        #[cfg(unix)]
        let made = std::os::unix::fs::symlink(target, &path);
        #[cfg(windows)]
        let made = match path
            .parent()
            .map(|p| p.join(target))
            .is_some_and(|t| t.is_dir())
        {
            true => std::os::windows::fs::symlink_dir(target, &path),
            false => std::os::windows::fs::symlink_file(target, &path),
        };
        made.unwrap_or_else(|e| panic!("testkit: cannot link {}: {e}", path.display()));
        self
    }

    /// Makes a directory unreadable (mode 000) until the tree is dropped.
    /// A process running as root reads it all the same: see
    /// [`runs_as_root`].
    #[cfg(unix)]
    pub fn lock(&self, rel: impl AsRef<Path>) -> &Self {
        use std::os::unix::fs::PermissionsExt;
        let path = self.path(rel);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o000))
            .unwrap_or_else(|e| panic!("testkit: cannot lock {}: {e}", path.display()));
        self.locked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path);
        self
    }

    fn parent_of(&self, path: &Path) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("testkit: cannot create {}: {e}", parent.display()));
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        #[cfg(unix)]
        for path in self
            .locked
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            use std::os::unix::fs::PermissionsExt;
            // Best effort: at worst a directory is left in the temp dir.
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o755));
        }
    }
}

/// Whether this process runs as root, which reads any directory whatever
/// its mode (a [`Tree::lock`]ed directory then locks nothing). Read from
/// `/proc/self/status` on Linux; elsewhere, from the owner of a file just
/// made.
#[cfg(unix)]
pub fn runs_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    if let Ok(status) = fs::read_to_string("/proc/self/status") {
        return status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .is_some_and(|uid| uid == "0");
    }
    tempfile::tempfile()
        .and_then(|f| f.metadata())
        .is_ok_and(|m| m.uid() == 0)
}
