//! The lower bound of MCP's first `skills/list`: what any server that lists
//! and hashes every file of the skill folders it serves has to do, and no
//! more, to set the server's time beside (as `baseline` is for discovery).
//!
//! Each folder is opened once and stamped (`fstat`: a cache of digests
//! needs each folder's and file's stamp), listed with `getdents64` into a
//! reused buffer; each plain file in it is opened relative to it (refusing
//! a link), stamped, read whole into a reused buffer and hashed (SHA-256);
//! each folder in it is walked the same way. Links and anything else are
//! passed over. No entry, URI, JSON text or cache is made. The folders are
//! shared among the machine's cores, each thread taking the next.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use rustix::fs::{self as rfs, FileType, Mode, OFlags, RawDir};
use sha2::{Digest, Sha256};

use super::baseline::{Level, cores, each_on_threads, flags, open_dir};

/// Folders nested deeper than this below a skill's are not walked (the
/// server's default limit).
const MAX_DEPTH: usize = 32;

/// What [`hash_folders`] went through.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hashed {
    pub folders: usize,
    pub files: usize,
    pub bytes: u64,
}

impl Hashed {
    fn add(&mut self, other: Hashed) {
        self.folders += other.folders;
        self.files += other.files;
        self.bytes += other.bytes;
    }
}

/// The folders of the skills a server lists: each skill whose file is a
/// `SKILL.md` in its base directory (a skill that is one file has no
/// other file to list).
pub(super) fn skill_folders(skills: &[skillpipe::Skill]) -> Vec<PathBuf> {
    skills
        .iter()
        .filter(|s| {
            s.file_path.file_name() == Some("SKILL.md".as_ref())
                && s.file_path.parent() == Some(s.base_dir.as_path())
        })
        .map(|s| s.base_dir.to_path_buf())
        .collect()
}

/// Walks and hashes every folder of `folders` (and every folder below), on
/// the machine's cores.
pub(super) fn hash_folders(folders: &[PathBuf]) -> Hashed {
    let threads = cores().min(folders.len());
    let walks = each_on_threads(folders, threads, Walk::default, |walk, folder| {
        if let Ok(dir) = open_dir(rfs::CWD, folder.as_os_str().as_bytes()) {
            walk.folder(&dir, 0);
        }
    });
    let mut total = Hashed::default();
    for walk in walks {
        total.add(walk.done);
    }
    total
}

/// One thread's buffers and count.
#[derive(Default)]
struct Walk {
    /// `getdents64`'s buffer.
    dents: Vec<u8>,
    /// A file's bytes.
    bytes: Vec<u8>,
    /// Entry lists, one per depth.
    levels: Vec<Level>,
    done: Hashed,
}

impl Walk {
    /// Stamps and lists the folder `dir` (at `depth` below a skill's), then
    /// hashes its files and walks its folders.
    fn folder(&mut self, dir: &OwnedFd, depth: usize) {
        if rfs::fstat(dir).is_err() {
            return;
        }
        self.done.folders += 1;
        if self.dents.capacity() == 0 {
            self.dents.reserve(32 * 1024);
        }
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, Default::default);
        }
        let Level {
            mut names,
            mut items,
        } = std::mem::take(&mut self.levels[depth]);
        names.clear();
        items.clear();
        let mut listing = RawDir::new(dir, self.dents.spare_capacity_mut());
        while let Some(Ok(entry)) = listing.next() {
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let start = names.len();
            names.extend_from_slice(name);
            items.push((start, names.len(), entry.file_type()));
        }
        for &(start, end, kind) in &items {
            let name = &names[start..end];
            match kind {
                FileType::RegularFile => self.file(dir, name),
                FileType::Directory if depth < MAX_DEPTH => {
                    if let Ok(child) = open_dir(dir, name) {
                        self.folder(&child, depth + 1);
                    }
                }
                _ => {}
            }
        }
        self.levels[depth] = Level { names, items };
    }

    /// Opens, stamps, reads and hashes the plain file `name` in `dir`.
    fn file(&mut self, dir: &OwnedFd, name: &[u8]) {
        let Ok(fd) = rfs::openat(dir, name, flags() | OFlags::NOFOLLOW, Mode::empty()) else {
            return;
        };
        let Ok(stat) = rfs::fstat(&fd) else { return };
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return;
        }
        let size = usize::try_from(stat.st_size).unwrap_or(0);
        self.bytes.clear();
        self.bytes.reserve(size);
        // Up to the size stamped, as the server reads (a file that grew
        // is read again on the next listing).
        let read = File::from(fd)
            .take(size as u64)
            .read_to_end(&mut self.bytes);
        if read.is_err() {
            return;
        }
        std::hint::black_box(Sha256::digest(&self.bytes));
        self.done.files += 1;
        self.done.bytes += self.bytes.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn write(path: &Path, bytes: &[u8]) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn every_plain_file_below_each_folder_is_hashed_once() {
        let tmp = std::env::temp_dir().join(format!("listing-floor-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let (a, b) = (tmp.join("a"), tmp.join("b"));
        let (skill, script, notes) = (b"---\nname: a\n---\n", b"echo a\n", [b'x'; 10_000]);
        write(&a.join("SKILL.md"), skill);
        write(&a.join("scripts/run.sh"), script);
        write(&a.join("refs/deep/notes.md"), &notes);
        write(&b.join("SKILL.md"), skill);
        // A link is passed over, as the server's walk leaves links to its
        // resolver: the floor counts only what is read directly.
        std::os::unix::fs::symlink(a.join("scripts/run.sh"), b.join("link.sh"))
            .unwrap_or_else(|e| panic!("{e}"));
        let hashed = hash_folders(&[a.clone(), b.clone(), tmp.join("missing")]);
        let _ = std::fs::remove_dir_all(&tmp);
        assert_eq!(
            hashed,
            Hashed {
                // a, a/scripts, a/refs, a/refs/deep, b
                folders: 5,
                files: 4,
                bytes: (2 * skill.len() + script.len() + notes.len()) as u64,
            }
        );
    }
}
