//! The `one-level` scan (SPEC §3.1): `<root>/<entry>/SKILL.md` for each
//! entry, opened relative to the open root, loaded in steps an idle core
//! may share, then sorted by name.

use std::ffi::CStr;
use std::fs;
use std::io;
use std::path::Path;

use super::{Found, ScanSpec, load_into};
use crate::dirfd::{DirFd, Entries, Entry, Kind};
use crate::head;
use crate::load::FileKind;
use crate::paths::{bytes_of, into_bytes, path_of as as_path, push_name};
use crate::schedule::{self, Steps, Workers};
use crate::util::{Comes, lowercase_order, permuted};

/// One one-level root being loaded: the entries' files are opened relative
/// to the open root.
struct OneLevel<'a> {
    spec: &'a ScanSpec<'a>,
    dir: &'a DirFd,
    /// The root's path, as given.
    root: &'a [u8],
    real_root: Option<&'a Path>,
}

impl OneLevel<'_> {
    /// Loads `<root>/<entry>/SKILL.md` for each entry into `found`.
    fn load(&self, entries: &[Entry<'_>], found: &mut Vec<Found>) {
        // `<root>/<entry>/SKILL.md`, the same relative to the root, and the
        // entry's real path, built in three reused buffers.
        let mut path = self.root.to_vec();
        let root_len = path.len();
        let mut rel = Vec::new();
        let mut real = Vec::new();
        for entry in entries {
            let (name, kind) = (entry.name(), entry.kind);
            path.truncate(root_len);
            push_name(&mut path, name);
            // A real directory's real path extends the root's; a link's is
            // resolved.
            let real_known = match (self.real_root, kind) {
                (Some(real_root), Some(Kind::Dir)) => {
                    real.clear();
                    real.extend_from_slice(bytes_of(real_root));
                    push_name(&mut real, name);
                    true
                }
                _ => match fs::canonicalize(as_path(&path)) {
                    Ok(r) => {
                        real = into_bytes(r);
                        true
                    }
                    Err(_) => false,
                },
            };
            push_name(&mut path, b"SKILL.md");
            rel.clear();
            rel.extend_from_slice(name);
            rel.extend_from_slice(b"/SKILL.md\0");
            let real_dir = real_known.then(|| as_path(&real));
            let opened = match CStr::from_bytes_with_nul(&rel) {
                Ok(rel) => self.dir.open_file_noting_link(rel),
                Err(_) => Err(io::ErrorKind::InvalidInput.into()), // a name holds no NUL
            };
            load_into(
                self.spec,
                opened,
                None,
                as_path(&path),
                real_dir,
                FileKind::SkillFile,
                found,
            );
        }
    }
}

/// A share of a one-level root's entries and what loading them gave.
struct Loading<'c, 'a> {
    ctx: &'c OneLevel<'a>,
    found: Vec<Found>,
    /// Entries loaded: a `SKILL.md` opened (or looked for) each.
    reads: usize,
}

impl<'e> Steps<Entry<'e>> for Loading<'_, '_> {
    type Part = Vec<Found>;
    fn step(&mut self, entries: &[Entry<'e>]) {
        self.ctx.load(entries, &mut self.found);
        self.reads += entries.len();
    }
    fn reads(&self) -> Option<usize> {
        Some(self.reads)
    }
    fn join(&mut self, part: Vec<Found>) {
        self.found.extend(part);
    }
}

impl OneLevel<'_> {
    /// Loads `entries`, sharing them with idle cores (or, on a cold disk,
    /// extra readers) in steps.
    fn load_shared(&self, workers: Option<&Workers>, entries: &[Entry<'_>]) -> Vec<Found> {
        /// Entries loaded between two looks for an idle core.
        const STEP: usize = 32;
        let mut loading = Loading {
            ctx: self,
            found: Vec::with_capacity(entries.len()),
            reads: 0,
        };
        schedule::in_steps(workers, entries, STEP, &mut loading, &|back| {
            self.load_shared(workers, back)
        });
        loading.found
    }
}

pub(super) fn one_level(spec: &ScanSpec<'_>, workers: Option<&Workers>, out: &mut Vec<Found>) {
    let root = spec.root;
    let mut entries = Entries::default();
    let dir = match DirFd::open(root).and_then(|dir| {
        dir.read_entries(&mut entries)?;
        Ok(dir)
    }) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => {
            out.push(Found::Diagnostic(head::read_error_dir(root, &e)));
            return;
        }
    };
    let real_root = fs::canonicalize(root).ok();
    let todo: Vec<Entry<'_>> = entries
        .iter()
        .filter(|e| !e.name().starts_with(b".") && e.kind != Some(Kind::File))
        .collect();
    let ctx = OneLevel {
        spec,
        dir: &dir,
        root: bytes_of(root),
        real_root: real_root.as_deref(),
    };
    let found = ctx.load_shared(workers, &todo);
    // By name lower-cased, then name, then path (stable).
    fn key(f: &Found) -> (&str, &[u8]) {
        match f {
            Found::Candidate {
                candidate, path, ..
            } => (&candidate.filter_name, bytes_of(path)),
            Found::Diagnostic(d) | Found::Failed(d) => ("", bytes_of(&d.path)),
        }
    }
    let order = lowercase_order(
        found.len(),
        Comes::Unordered,
        |i| key(&found[i]).0,
        |i| key(&found[i]),
    );
    let sorted = permuted(found, &order);
    if out.is_empty() {
        *out = sorted;
    } else {
        out.extend(sorted);
    }
}
