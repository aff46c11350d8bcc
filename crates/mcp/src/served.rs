//! What the server serves: one discovery, every copy of each name at its
//! URI, and the answers to each method, in plain (blocking) functions that
//! the rmcp handler runs off the transport's thread and the tests call
//! directly.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptResult, GetSkillResult, JsonObject, ListPromptsResult,
    ListResourcesResult, ListSkillsResult, MetaObject, Prompt, PromptArgument, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, Role, Skill as Entry, SkillFrontmatter,
    SkillResource, SkillResources,
};
use serde_json::{Value, json};
use skillpipe::core::budget::{Layout, fit_catalog_with, pinned_by};
use skillpipe::{
    CatalogOptions, CatalogPaths, Contents, Copies, Delivery, Discovered, NotExpanded, ReadTool,
    ResolveError, ResolveOptions, Skill, SlashCommand,
};

use crate::manifest::{self, Cached, Digests, Limits};
use crate::mime;
use crate::page::{self, List};
use crate::uri::{self, Root, UriError};

/// The `_meta` key of skillpipe's notes on an entry or a page: what was
/// left out and why.
pub const NOTES_KEY: &str = "skillpipe/notes";

/// The largest file `resources/read` sends: the per-skill byte limit.
const MAX_READ: u64 = 16 << 20;

/// The largest file `read_skill` returns (text, into a model's context).
const MAX_TOOL_READ: u64 = 1 << 20;

/// The most results `search_skills` gives, and how many without `limit`.
pub const MAX_SEARCH: u64 = 50;
const DEFAULT_SEARCH: u64 = 10;

/// The longest query `search_skills` takes, in characters.
const MAX_QUERY: usize = 1000;

/// The longest part of a client's URI an error message repeats.
const SHOWN: usize = 200;

/// One discovery, served.
pub struct Served {
    found: Arc<Discovered>,
    /// The loaded skills (in pipeline order), then the shadowed copies
    /// that an address reaches.
    copies: Vec<Copy>,
    /// A copy by its root's decoded segments.
    by_key: HashMap<Vec<String>, usize>,
    /// `copies[..loaded]` are the loaded skills.
    loaded: usize,
    commands: Vec<SlashCommand>,
    limits: Limits,
    /// The digests of the files hashed so far (shared with the discoveries
    /// served before and after this one).
    digests: Arc<Digests>,
    /// The `instructions`, rendered when first asked for.
    instructions: OnceLock<String>,
    /// Copies whose notes were logged already (each is logged once).
    logged: Mutex<HashSet<usize>>,
    /// Each copy's entry, with the manifest it was made from: given again
    /// while [`manifest::manifest`] gives that same manifest.
    /// One slot a copy, so that the threads making a page never wait on
    /// each other.
    entries: Vec<Mutex<Option<Made>>>,
    /// The pages of `skills/list` being made ahead.
    ahead: Mutex<std::collections::VecDeque<Ahead>>,
}

/// A copy's entry, with the manifest it was made from.
type Made = (Arc<Cached>, Entry);

/// A page of `skills/list` made ahead ([`Served::list_skills_ahead`]).
struct Ahead {
    range: std::ops::Range<usize>,
    started: std::time::Instant,
    /// Where its entries come when made (nothing: the job panicked).
    entries: std::sync::mpsc::Receiver<Vec<Result<Entry, String>>>,
}

/// Whether [`Served::take_ahead`] waits for a page being made.
#[derive(Clone, Copy)]
enum Wait {
    Yes,
    No,
}

/// How long a page made ahead stays good to give: a client that lists
/// every page asks for the next within milliseconds; one that waits
/// longer gets a page made when it asks.
const AHEAD_FRESH: std::time::Duration = std::time::Duration::from_millis(250);

/// How many pages of `skills/list` are made ahead of the one answered.
/// With one, both cores were busy for only 85% of a first listing: the
/// page after next waited for the next to be asked for.
const AHEAD_PAGES: usize = 2;

/// A page is made by one more thread for each this many entries, up to
/// [`PAGE_THREADS`].
const SPLIT_PAGE: usize = 16;
/// The most threads that make one page.
const PAGE_THREADS: usize = 8;
/// The most threads that make a page listed before.
const WARM_THREADS: usize = 2;

/// One copy of a skill name.
struct Copy {
    root: Root,
    which: Which,
}

#[derive(Clone, Copy)]
enum Which {
    Loaded(usize),
    Shadowed(usize),
}

/// What a URI read found.
enum Read {
    File {
        bytes: Vec<u8>,
        /// The file's name, for its type.
        name: String,
    },
    Dir(Vec<Child>),
}

/// An entry of a directory.
struct Child {
    name: String,
    dir: bool,
}

impl Served {
    /// Serves `found` with SEP-2640's per-skill limits.
    pub fn new(found: impl Into<Arc<Discovered>>) -> Served {
        Served::with_limits(found, Limits::default())
    }

    /// Serves `found`, each manifest within `limits`.
    pub fn with_limits(found: impl Into<Arc<Discovered>>, limits: Limits) -> Served {
        Served::with_cache(found, limits, Arc::new(Digests::new()))
    }

    /// Serves `found`, each manifest within `limits`, its digests taken
    /// from `digests` while the files are as they were when hashed (a
    /// server that serves one discovery after another keeps one cache).
    pub fn with_cache(
        found: impl Into<Arc<Discovered>>,
        limits: Limits,
        digests: Arc<Digests>,
    ) -> Served {
        let found = found.into();
        let discovery = found.discovery();
        let lookup = Copies::from(discovery);
        let mut copies = Vec::new();
        for (i, skill) in discovery.skills.iter().enumerate() {
            copies.push(Copy {
                root: Root::loaded(&skill.name),
                which: Which::Loaded(i),
            });
        }
        let loaded = copies.len();
        for (i, copy) in discovery.shadowed.iter().enumerate() {
            // A copy no address reaches (one after another of the same
            // provider and level) is not served.
            if lookup.address_of(copy).is_none() {
                continue;
            }
            let s = &copy.skill;
            let level = s.source.level.as_str();
            copies.push(Copy {
                root: Root::shadowed(&s.source.provider, level, &s.name),
                which: Which::Shadowed(i),
            });
        }
        let mut by_key = HashMap::new();
        for (i, copy) in copies.iter().enumerate() {
            by_key.entry(copy.root.key()).or_insert(i);
        }
        let commands = found.commands();
        let entries = (0..copies.len()).map(|_| Mutex::new(None)).collect();
        Served {
            found,
            copies,
            by_key,
            loaded,
            commands,
            limits,
            digests,
            instructions: OnceLock::new(),
            logged: Mutex::new(HashSet::new()),
            entries,
            ahead: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// The discovery served.
    pub fn discovered(&self) -> &Discovered {
        &self.found
    }

    /// The per-skill limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The digest cache.
    pub fn digests(&self) -> &Arc<Digests> {
        &self.digests
    }

    fn skill(&self, copy: &Copy) -> &Skill {
        let d = self.found.discovery();
        match copy.which {
            Which::Loaded(i) => &d.skills[i],
            Which::Shadowed(i) => &d.shadowed[i].skill,
        }
    }

    /// The skill's folder, when it is one: its file is `SKILL.md` in its
    /// base directory. A skill that is one file (pi's `name.md` among
    /// other skills) has no other file.
    fn folder<'a>(&self, skill: &'a Skill) -> Option<&'a Path> {
        let own = skill.file_path.file_name()?;
        (own == uri::SKILL_MD && skill.file_path.parent() == Some(skill.base_dir.as_path()))
            .then_some(skill.base_dir.as_path())
    }

    fn parse(&self, uri: &str) -> Result<uri::Parsed, UriError> {
        uri::parse(uri, &|key| self.by_key.get(key).copied())
    }

    /// The manifest of copy `i`, or why it cannot be served.
    fn manifest(&self, i: usize) -> Result<Arc<Cached>, String> {
        let copy = &self.copies[i];
        let skill = self.skill(copy);
        let source = manifest::Source {
            skill,
            folder: self.folder(skill),
            root: &copy.root,
        };
        manifest::manifest(&source, self.limits, &self.digests)
            .map_err(|e| format!("its file cannot be read: {}", first_line(&e.to_string())))
    }

    /// Copy `i`'s SEP-2640 entry, or why it is not one: a frontmatter
    /// without the `name` and `description` strings SEP-2640 requires, a
    /// name that is not the URI's last segment or breaks the Agent Skills
    /// naming rules, a file that cannot be read.
    fn entry(&self, i: usize) -> Result<Entry, String> {
        let copy = &self.copies[i];
        let skill = self.skill(copy);
        // The entry made before, while its manifest still holds.
        let slot = self.entries.get(i);
        if let Some(Ok(slot)) = slot.map(Mutex::lock)
            && let Some((made_from, entry)) = slot.as_ref()
            && made_from.holds()
        {
            return Ok(entry.clone());
        }
        // The mapping's values are moved into the entry, not copied: it is
        // made for this entry alone.
        let mut fm = skill.frontmatter.to_map();
        let mut text = |key: &str| match fm.shift_remove(key) {
            Some(Value::String(text)) => Ok(text),
            _ => Err(format!(
                "its frontmatter has no `{key}` string, which SEP-2640 requires"
            )),
        };
        let (name, description) = (text("name")?, text("description")?);
        let cached = self.manifest(i)?;
        let mut frontmatter = SkillFrontmatter::new(name, description);
        frontmatter.extra = fm;
        let manifest = &cached.manifest;
        // The skill's own rules (its URI, its name and the URI's last
        // segment) are checked by rmcp, before the files are added: those
        // hold by how the manifest is made (its own `SKILL.md` first, each
        // file once, under the skill's URI, a `sha256:` digest each), which
        // rmcp's check of every file (in debug builds, so in every test)
        // confirms. That check (the files' rules, and the Unicode
        // normalisation of a name that needs none) was 7% of a first
        // listing.
        let mut entry = Entry::new(copy.root.skill_md(), frontmatter, SkillResources::Dynamic);
        if !plainly_valid(&entry.uri, &entry.frontmatter.name) || cfg!(debug_assertions) {
            entry.validate().map_err(|e| e.to_string())?;
        }
        let files = manifest
            .files
            .iter()
            .map(|f| SkillResource::new(copy.root.joined_uri(&f.rel), f.digest.text(), f.size))
            .collect();
        entry.resources = SkillResources::Files(files);
        if cfg!(debug_assertions) {
            entry.validate().map_err(|e| e.to_string())?;
        }
        if !manifest.notes.is_empty() {
            self.log_once(i, &manifest.notes);
            entry = entry.with_meta(notes_meta(manifest.notes.clone()));
        }
        if let Some(Ok(mut slot)) = slot.map(Mutex::lock) {
            *slot = Some((cached, entry.clone()));
        }
        Ok(entry)
    }

    fn log_once(&self, i: usize, notes: &[String]) {
        let first = self.logged.lock().map(|mut l| l.insert(i)).unwrap_or(false);
        if first {
            for note in notes {
                tracing::warn!("{}: {note}", self.copies[i].root.skill_md());
            }
        }
    }

    /// `skills/list`: one entry per loaded skill, hidden ones included, in
    /// pipeline order; a skill SEP-2640 cannot describe is left out and
    /// named in the page's `_meta` notes.
    pub fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, ErrorData> {
        let (range, next) = page::page(List::Skills, cursor, self.loaded).map_err(bad_cursor)?;
        let entries = self.entries_of(range.clone());
        Ok(self.skills_page(range, entries, next))
    }

    /// [`Served::list_skills`], the next page made ahead, on a thread of
    /// its own, while this one is on its way to the client: a client that
    /// lists every page then waits for neither the encoding and sending of
    /// a page nor the walk of the next one alone. A page made ahead is
    /// given only to the request for it that comes within 250 ms
    /// of its making (its entries are as fresh as an answer that took that
    /// long to arrive); anything else is made anew.
    pub fn list_skills_ahead(
        self: &Arc<Self>,
        cursor: Option<&str>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let (range, next) = page::page(List::Skills, cursor, self.loaded).map_err(bad_cursor)?;
        let entries = self
            .take_ahead(&range, Wait::Yes)
            .unwrap_or_else(|| self.entries_pooled(range.clone()));
        Ok(self.answer(range, entries, next))
    }

    /// [`Served::list_skills_ahead`] when the page was made ahead and is
    /// ready: an answer that waits for nothing (the async runtime's own
    /// thread gives it, with no hand-over to a blocking thread and back);
    /// `None` when there is none yet.
    pub fn list_skills_ready(
        self: &Arc<Self>,
        cursor: Option<&str>,
    ) -> Option<Result<ListSkillsResult, ErrorData>> {
        let (range, next) = match page::page(List::Skills, cursor, self.loaded) {
            Ok(page) => page,
            Err(e) => return Some(Err(bad_cursor(e))),
        };
        let entries = self.take_ahead(&range, Wait::No)?;
        Some(Ok(self.answer(range, entries, next)))
    }

    /// The entries of `range` made ahead, when they are, fresh; with
    /// [`Wait::No`], only when they are made already. The lock is not held
    /// while a page is waited for.
    fn take_ahead(
        &self,
        range: &std::ops::Range<usize>,
        wait: Wait,
    ) -> Option<Vec<Result<Entry, String>>> {
        let made = {
            let mut ahead = self.ahead.lock().ok()?;
            ahead.retain(|a| a.started.elapsed() < AHEAD_FRESH);
            let at = ahead.iter().position(|a| a.range == *range)?;
            if let Wait::No = wait {
                return match ahead.get(at)?.entries.try_recv() {
                    Ok(entries) => {
                        ahead.remove(at);
                        Some(entries)
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => None,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        ahead.remove(at);
                        None
                    }
                };
            }
            ahead.remove(at)?
        };
        made.entries.recv().ok()
    }

    /// The page of `range` from its entries, the [`AHEAD_PAGES`] pages
    /// after it set to be made ahead.
    fn answer(
        self: &Arc<Self>,
        range: std::ops::Range<usize>,
        entries: Vec<Result<Entry, String>>,
        next: Option<String>,
    ) -> ListSkillsResult {
        self.make_ahead(next.as_deref());
        self.skills_page(range, entries, next)
    }

    /// Starts making the pages from `cursor`'s on, up to [`AHEAD_PAGES`] of
    /// them, but those being made already; a page made ahead of any other
    /// request is dropped (its job ends unheard).
    fn make_ahead(self: &Arc<Self>, cursor: Option<&str>) {
        let Ok(mut ahead) = self.ahead.lock() else {
            return;
        };
        let mut cursor = cursor.map(str::to_owned);
        let mut wanted = Vec::with_capacity(AHEAD_PAGES);
        while wanted.len() < AHEAD_PAGES
            && let Some(at) = cursor.take()
            && let Ok((range, next)) = page::page(List::Skills, Some(&at), self.loaded)
        {
            wanted.push(range);
            cursor = next;
        }
        ahead.retain(|a| wanted.contains(&a.range) && a.started.elapsed() < AHEAD_FRESH);
        for range in wanted {
            if ahead.iter().any(|a| a.range == range) {
                continue;
            }
            let (served, made) = (Arc::clone(self), range.clone());
            let (sent, entries) = std::sync::mpsc::sync_channel(1);
            let job = move || {
                let _ = sent.send(served.entries_pooled(made));
            };
            // On the runtime's blocking pool when there is one (a thread
            // kept between pages), else on a thread of its own.
            let started = match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn_blocking(job);
                    true
                }
                Err(_) => std::thread::Builder::new()
                    .name("skillpipe-mcp-ahead".to_owned())
                    .spawn(job)
                    .is_ok(),
            };
            if started {
                ahead.push_back(Ahead {
                    range,
                    started: std::time::Instant::now(),
                    entries,
                });
            }
        }
    }

    /// A page of `skills/list` from its entries: a skill SEP-2640 cannot
    /// describe is left out and named in the page's `_meta` notes.
    fn skills_page(
        &self,
        range: std::ops::Range<usize>,
        entries: Vec<Result<Entry, String>>,
        next: Option<String>,
    ) -> ListSkillsResult {
        let mut skills = Vec::with_capacity(range.len());
        let mut notes = Vec::new();
        for (i, entry) in range.zip(entries) {
            match entry {
                Ok(entry) => skills.push(entry),
                Err(why) => {
                    let note = format!("skill `{}` is not listed: {why}", self.copies[i].root.name);
                    self.log_once(i, std::slice::from_ref(&note));
                    notes.push(note);
                }
            }
        }
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = next;
        if !notes.is_empty() {
            result.meta = Some(notes_meta(notes));
        }
        result
    }

    /// How many threads make the entries of `range`: [`PAGE_THREADS`] for
    /// a page never listed (a first listing reads every file of every
    /// skill, and reads of files not in the page cache wait on the disk,
    /// so more reads in flight than cores make it faster), two for one
    /// listed before (a `stat` a path, for which the two threads of a
    /// 2-core machine do as well as more).
    fn threads_for(&self, range: &std::ops::Range<usize>) -> usize {
        let listed = self
            .entries
            .get(range.start)
            .and_then(|slot| slot.lock().ok().map(|s| s.is_some()))
            .unwrap_or(false);
        let most = if listed { WARM_THREADS } else { PAGE_THREADS };
        most.min(range.len() / SPLIT_PAGE * 2).max(1)
    }

    /// Makes entries of `range`, each of `threads` threads taking the next
    /// copy in turn (`next`), until none is left. Its list is made large
    /// enough at once: grown by doubling, each larger block also made the
    /// allocator sweep its lists of freed small blocks.
    fn take(
        &self,
        next: &AtomicUsize,
        end: usize,
        threads: usize,
    ) -> Vec<(usize, Result<Entry, String>)> {
        let left = end.saturating_sub(next.load(Ordering::Relaxed));
        let mut made = Vec::with_capacity(left.div_ceil(threads.max(1)) + 1);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= end {
                return made;
            }
            made.push((i, self.entry(i)));
        }
    }

    /// The entries of `range` in order, from those the threads made; one
    /// a thread left unmade (it panicked) is made here.
    fn in_order(
        &self,
        range: std::ops::Range<usize>,
        mut all: Vec<(usize, Result<Entry, String>)>,
    ) -> Vec<Result<Entry, String>> {
        all.sort_by_key(|(i, _)| *i);
        let mut out = Vec::with_capacity(range.len());
        let mut made = all.into_iter().peekable();
        for i in range {
            match made.next_if(|(j, _)| *j == i) {
                Some((_, entry)) => out.push(entry),
                None => out.push(self.entry(i)),
            }
        }
        out
    }

    /// The entries of the copies in `range`, in order, made by
    /// [`Served::threads_for`] threads of its own.
    fn entries_of(&self, range: std::ops::Range<usize>) -> Vec<Result<Entry, String>> {
        let threads = self.threads_for(&range);
        let next = AtomicUsize::new(range.start);
        let all = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .name("skillpipe-mcp-page".to_owned())
                        .spawn_scoped(scope, || self.take(&next, range.end, threads))
                        .ok()
                })
                .collect();
            let mut all = Vec::with_capacity(range.len());
            all.extend(self.take(&next, range.end, threads));
            for made in helpers.into_iter().filter_map(|h| h.join().ok()) {
                all.extend(made);
            }
            all
        });
        self.in_order(range, all)
    }

    /// [`Served::entries_of`] with the helpers on the async runtime's
    /// blocking pool when there is one (its threads are kept between
    /// pages: starting eight threads a page cost more than a tenth of a
    /// first listing).
    fn entries_pooled(
        self: &Arc<Self>,
        range: std::ops::Range<usize>,
    ) -> Vec<Result<Entry, String>> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return self.entries_of(range);
        };
        let threads = self.threads_for(&range);
        let next = Arc::new(AtomicUsize::new(range.start));
        let (sent, made) = std::sync::mpsc::channel();
        for _ in 1..threads {
            let (served, next, sent) = (Arc::clone(self), Arc::clone(&next), sent.clone());
            let end = range.end;
            runtime.spawn_blocking(move || {
                let _ = sent.send(served.take(&next, end, threads));
            });
        }
        drop(sent);
        let mut all = Vec::with_capacity(range.len());
        all.extend(self.take(&next, range.end, threads));
        // Every helper's sender is dropped when it ends, panicked or not.
        for part in made {
            all.extend(part);
        }
        self.in_order(range, all)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`, a
    /// shadowed copy's too; `-32602` for anything else.
    pub fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let parsed = self.parse(uri).map_err(|e| invalid(uri, &e.to_string()))?;
        let copy = &self.copies[parsed.copy];
        let canonical = copy.root.skill_md();
        if parsed.rel != [uri::SKILL_MD] || canonical != uri {
            return Err(invalid(
                uri,
                &format!("not the URI of a skill's SKILL.md; this skill's is {canonical}"),
            ));
        }
        let entry = self
            .entry(parsed.copy)
            .map_err(|why| invalid(uri, &format!("not served as an SEP-2640 skill: {why}")))?;
        Ok(GetSkillResult::new(entry))
    }

    /// `resources/list`: every loaded skill's `SKILL.md`, so that a client
    /// without the extension sees the skills.
    pub fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
        let (range, next) = page::page(List::Resources, cursor, self.loaded).map_err(bad_cursor)?;
        let resources = self.copies[range]
            .iter()
            .map(|copy| {
                let skill = self.skill(copy);
                Resource::new(copy.root.skill_md(), &skill.name)
                    .with_description(&skill.description)
                    .with_mime_type("text/markdown")
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    /// What `uri` names: a file's bytes (at most `max` of them) or a
    /// directory's entries, read through the library's resolver. The
    /// skill's root (`skill://<name>`) read as a file is its `SKILL.md`,
    /// as the library reads `skill://<name>`.
    fn read(&self, uri: &str, max: u64, root_as: RootAs) -> Result<Read, ErrorData> {
        // A directory read reads no file's bytes.
        let contents = match root_as {
            RootAs::File => Contents::Read,
            RootAs::Dir => Contents::Skip,
        };
        let parsed = self.parse(uri).map_err(|e| match e {
            UriError::UnknownSkill(_) => not_found(uri, &e.to_string()),
            e => invalid(uri, &e.to_string()),
        })?;
        let copy = &self.copies[parsed.copy];
        let skill = self.skill(copy);
        let folder = self.folder(skill);
        let own_file =
            parsed.rel == [uri::SKILL_MD] || (parsed.rel.is_empty() && root_as == RootAs::File);
        if parsed.rel.is_empty() && root_as == RootAs::Dir {
            return Ok(Read::Dir(self.root_children(folder)));
        }
        if !own_file && folder.is_none() {
            return Err(not_found(
                uri,
                "this skill is a single file: SKILL.md is its only file",
            ));
        }
        let rel: &[String] = if own_file { &[] } else { &parsed.rel };
        let resource = manifest::resolve_in(
            skill,
            rel,
            ResolveOptions {
                max_bytes: max,
                contents,
            },
        )
        .map_err(|e| resolve_error(uri, &e))?;
        if resource.is_dir {
            let children = manifest::listing(&resource.content)
                .into_iter()
                .filter(|(name, _)| servable(name))
                .map(|(name, dir)| Child { name, dir })
                .collect();
            return Ok(Read::Dir(children));
        }
        let name = parsed
            .rel
            .last()
            .cloned()
            .unwrap_or_else(|| uri::SKILL_MD.to_owned());
        Ok(Read::File {
            bytes: resource.content,
            name,
        })
    }

    /// The entries of a skill's root folder (a one-file skill: its
    /// `SKILL.md`), from the file system; what they are is asked after
    /// links, and a dangling link is left out.
    fn root_children(&self, folder: Option<&Path>) -> Vec<Child> {
        let mut children = vec![Child {
            name: uri::SKILL_MD.to_owned(),
            dir: false,
        }];
        let Some(folder) = folder else {
            return children;
        };
        let Ok(entries) = std::fs::read_dir(folder) else {
            return children;
        };
        for entry in entries.take(100_000).flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name == uri::SKILL_MD || !servable(&name) {
                continue;
            }
            if let Ok(meta) = std::fs::metadata(PathBuf::from(folder).join(&name)) {
                children.push(Child {
                    name,
                    dir: meta.is_dir(),
                });
            }
        }
        children
    }

    /// `resources/read`: the file's bytes, as `text` when they are text of
    /// a textual type, else as a base64 `blob`, with the file's `mimeType`.
    pub fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        match self.read(uri, MAX_READ, RootAs::File)? {
            Read::Dir(_) => Err(invalid(
                uri,
                "a directory: resources/directory/read lists its entries",
            )),
            Read::File { bytes, name } => {
                let mime = mime::sent_as(&name, &bytes);
                let contents = match String::from_utf8(bytes) {
                    Ok(text) if mime::is_text(mime, text.as_bytes()) => {
                        ResourceContents::text(text, uri).with_mime_type(mime)
                    }
                    Ok(text) => blob(text.as_bytes(), uri, mime),
                    Err(e) => blob(e.as_bytes(), uri, mime),
                };
                Ok(ReadResourceResult::new(vec![contents]))
            }
        }
    }

    /// `resources/directory/read`: the direct children of a skill's folder
    /// (`skill://<name>`, no trailing slash) or of a folder in it, in name
    /// order, folders as `inode/directory`; `-32602` for anything else.
    pub fn read_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let dir = uri.strip_suffix('/').unwrap_or(uri);
        let children = match self.read(dir, MAX_READ, RootAs::Dir) {
            Ok(Read::Dir(children)) => children,
            Ok(Read::File { .. }) => return Err(invalid(uri, "not a directory")),
            // An unknown URI is an invalid parameter here (SEP-2640).
            Err(e) => return Err(ErrorData::invalid_params(e.message, e.data)),
        };
        let mut children = children;
        children.sort_by(|a, b| a.name.cmp(&b.name));
        children.dedup_by(|a, b| a.name == b.name);
        let (range, next) =
            page::page(List::Directory, cursor, children.len()).map_err(bad_cursor)?;
        let resources = children[range]
            .iter()
            .map(|c| {
                let mime = if c.dir {
                    mime::DIRECTORY
                } else {
                    mime::of(&c.name)
                };
                Resource::new(self.child_uri(dir, &c.name), &c.name).with_mime_type(mime)
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    /// The URI of the entry `name` of the directory `dir` (a URI that
    /// parsed), as the server writes it.
    fn child_uri(&self, dir: &str, name: &str) -> String {
        match self.parse(dir) {
            Ok(parsed) => {
                let mut rel = parsed.rel;
                rel.push(name.to_owned());
                self.copies[parsed.copy].root.file_uri(&rel)
            }
            Err(_) => format!("{}/{}", dir.trim_end_matches('/'), uri::encode(name)),
        }
    }

    /// `prompts/list`: one prompt per slash command (`skill:<name>`, as
    /// `skillpipe commands` lists them), with an optional `args`.
    pub fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, ErrorData> {
        let (range, next) =
            page::page(List::Prompts, cursor, self.commands.len()).map_err(bad_cursor)?;
        let prompts = self.commands[range]
            .iter()
            .map(|c| {
                let hint = self
                    .found
                    .skills()
                    .iter()
                    .find(|s| s.name == c.skill)
                    .and_then(|s| s.invocation.as_ref())
                    .and_then(|i| i.argument_hint.clone());
                let what = match hint {
                    Some(hint) => format!("What follows `/{}`: {hint}", c.name),
                    None => format!("What follows `/{}` (the skill's arguments)", c.name),
                };
                let args = PromptArgument::new("args")
                    .with_description(what)
                    .with_required(false);
                Prompt::new(&c.name, Some(&c.description), Some(vec![args]))
            })
            .collect();
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next;
        Ok(result)
    }

    /// `prompts/get`: one user message, the expansion of `/<name> <args>`
    /// (exactly what `skillpipe expand` prints for it).
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<GetPromptResult, ErrorData> {
        let Some(command) = self.commands.iter().find(|c| c.name == name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}` (prompts/list shows the prompts)",
                    shown(name)
                ),
                None,
            ));
        };
        let args = match arguments.and_then(|a| a.get("args")) {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => {
                return Err(ErrorData::invalid_params(
                    "the prompt argument `args` must be a string",
                    None,
                ));
            }
        };
        let text = match args.is_empty() {
            true => format!("/{name}"),
            false => format!("/{name} {args}"),
        };
        let expansion = self.found.expand(&text, Delivery::Prompt);
        if let Some(reason) = expansion.not_expanded() {
            return Err(ErrorData::internal_error(
                format!("/{name} was not expanded: {}", why_not(reason)),
                None,
            ));
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, expansion.text)])
                .with_description(&command.description),
        )
    }

    /// The `read_skill` tool: the file at `uri` as text (at most 1 MiB),
    /// or a folder's entries as URIs, one per line; failures are tool
    /// errors the model reads.
    pub fn read_skill(&self, arguments: Option<&JsonObject>) -> CallToolResult {
        let Some(uri) = arguments.and_then(|a| a.get("uri")).and_then(Value::as_str) else {
            return tool_error(
                "read_skill takes {\"uri\": \"skill://<name>/SKILL.md\"}".to_owned(),
            );
        };
        match self.read(uri, MAX_TOOL_READ, RootAs::File) {
            Ok(Read::File { bytes, name }) => match String::from_utf8(bytes) {
                Ok(text) if !text.contains('\0') => {
                    CallToolResult::success(vec![ContentBlock::text(text)])
                }
                _ => tool_error(format!(
                    "{}: {name} is not text; a client reads it with resources/read",
                    shown(uri)
                )),
            },
            Ok(Read::Dir(mut children)) => {
                children.sort_by(|a, b| a.name.cmp(&b.name));
                let lines: Vec<String> = children
                    .iter()
                    .map(|c| {
                        let slash = if c.dir { "/" } else { "" };
                        format!("{}{slash}", self.child_uri(uri, &c.name))
                    })
                    .collect();
                CallToolResult::success(vec![ContentBlock::text(lines.join("\n"))])
            }
            Err(e) => tool_error(e.message.into_owned()),
        }
    }

    /// The `search_skills` tool: at most `limit` (1 to [`MAX_SEARCH`],
    /// default 10) loaded skills ranked by relevance to `query`, best
    /// first ([`Discovered::search`]; hidden skills are not found), each
    /// with its name, description, `SKILL.md` URI and score, as structured
    /// content and as its JSON text. Arguments that are not what the tool
    /// takes are `-32602`.
    pub fn search_skills(
        &self,
        arguments: Option<&JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let usage = "search_skills takes {\"query\": \"<words>\", \"limit\": <1 to 50>}";
        let bad = |why: &str| ErrorData::invalid_params(format!("{why}; {usage}"), None);
        let empty = JsonObject::new();
        let arguments = arguments.unwrap_or(&empty);
        if let Some(other) = arguments.keys().find(|k| *k != "query" && *k != "limit") {
            return Err(bad(&format!("unknown argument `{}`", shown(other))));
        }
        let query = match arguments.get("query") {
            Some(Value::String(q)) => q,
            Some(_) => return Err(bad("`query` must be a string")),
            None => return Err(bad("`query` is missing")),
        };
        if query.chars().nth(MAX_QUERY).is_some() {
            return Err(bad(&format!(
                "`query` is longer than {MAX_QUERY} characters"
            )));
        }
        if query.trim().is_empty() {
            return Err(bad("`query` is empty"));
        }
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_SEARCH,
            Some(Value::Number(n)) => match n.as_u64() {
                Some(n) if (1..=MAX_SEARCH).contains(&n) => n,
                _ => {
                    return Err(bad(&format!(
                        "`limit` must be an integer from 1 to {MAX_SEARCH}"
                    )));
                }
            },
            Some(_) => {
                return Err(bad(&format!(
                    "`limit` must be an integer from 1 to {MAX_SEARCH}"
                )));
            }
        };
        let hits = self
            .found
            .search(query, usize::try_from(limit).unwrap_or(usize::MAX));
        let results: Vec<Value> = hits
            .iter()
            .map(|hit| {
                json!({
                    "name": hit.skill.name,
                    "description": hit.skill.description,
                    "uri": Root::loaded(&hit.skill.name).skill_md(),
                    "score": (f64::from(hit.score) * 1e4).round() / 1e4,
                })
            })
            .collect();
        Ok(CallToolResult::structured(json!({
            "query": query,
            "results": results,
        })))
    }

    /// The server's `instructions`: how to read a skill, then the
    /// catalogue in the profile's format with each skill's `SKILL.md` URI
    /// as its location, fitted to `skills.catalogBudget` when it is set.
    pub fn instructions(&self) -> &str {
        self.instructions.get_or_init(|| self.render_instructions())
    }

    fn render_instructions(&self) -> String {
        let host = self.found.skillpipe();
        let settings = host.settings();
        let mut skills: Vec<Skill> = self.found.skills().to_vec();
        for (skill, copy) in skills.iter_mut().zip(&self.copies) {
            skill.file_path = PathBuf::from(copy.root.skill_md()).into();
        }
        let pinned = pinned_by(&settings.catalog.pins);
        // Each skill at its URI; in search mode (`skills.catalogMode`) the
        // pinned ones and how many more the search_skills tool finds.
        let layout = Layout {
            mode: settings.catalog.mode,
            paths: CatalogPaths::Absolute,
            pinned: &pinned,
            min_description: settings.catalog.min_description,
        };
        let order: Vec<&str> = host.providers().map(|p| p.info().id.as_str()).collect();
        let rank = |s: &Skill| {
            order
                .iter()
                .position(|id| *id == s.source.provider)
                .unwrap_or(order.len())
        };
        let opts = CatalogOptions {
            style: settings.profile.catalog,
            read_tool: ReadTool::Available,
        };
        let catalog = fit_catalog_with(&skills, opts, settings.catalog_budget, &rank, &layout);
        let mut text = format!(
            "Agent Skills found by skillpipe (profile {}). A skill is a folder of files: its \
instructions are at skill://<name>/SKILL.md, its other files at skill://<name>/<path> (a \
relative path in a skill resolves against skill://<name>/). Read them with resources/read \
or the read_skill tool; the search_skills tool finds the skills that match a task. When a task matches a skill's description, read its SKILL.md \
before acting.",
            settings.profile_name
        );
        if catalog.text.is_empty() {
            text.push_str("\n\nNo skills are listed.");
        } else {
            // pi's catalogue starts with its blank lines, musepi's does not.
            if !catalog.text.starts_with('\n') {
                text.push_str("\n\n");
            }
            text.push_str(&catalog.text);
        }
        text
    }
}

/// How a skill's root URI reads: as its `SKILL.md` (`resources/read`,
/// `read_skill`: the library's `skill://<name>`) or as its folder
/// (`resources/directory/read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RootAs {
    File,
    Dir,
}

fn servable(name: &str) -> bool {
    uri::check_segment(name).is_ok() && !name.contains('\u{fffd}')
}

fn blob(bytes: &[u8], uri: &str, mime: &str) -> ResourceContents {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    ResourceContents::blob(encoded, uri).with_mime_type(mime)
}

/// Whether rmcp's check of a skill's own rules (SEP-2640's: a name of
/// lowercase letters and digits in words joined by single hyphens, at
/// most 64 characters after NFKC, the last segment of its `SKILL.md` URI)
/// certainly passes, known without that check's Unicode normalisation: a
/// plain ASCII name of those characters that is itself the URI's last
/// segment. `false` sends it to rmcp's check.
fn plainly_valid(uri: &str, name: &str) -> bool {
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    name.len() <= 64
        && name.split('-').all(word)
        && rmcp::model::skill_name_from_uri(uri) == Some(name)
}

fn notes_meta(notes: Vec<String>) -> MetaObject {
    let mut meta = MetaObject::new();
    meta.0.insert(NOTES_KEY.to_owned(), json!(notes));
    meta
}

fn tool_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// At most [`SHOWN`] characters of a client's text.
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

fn data(uri: &str, code: &str) -> Option<Value> {
    Some(json!({ "uri": shown(uri), "code": code }))
}

fn invalid(uri: &str, why: &str) -> ErrorData {
    ErrorData::invalid_params(format!("{}: {why}", shown(uri)), data(uri, "invalid"))
}

fn not_found(uri: &str, why: &str) -> ErrorData {
    ErrorData::resource_not_found(format!("{}: {why}", shown(uri)), data(uri, "not-found"))
}

fn bad_cursor(e: page::BadCursor) -> ErrorData {
    ErrorData::invalid_params(e.to_string(), None)
}

/// A resolver failure in the URI's terms (no local path is repeated).
fn resolve_error(uri: &str, e: &ResolveError) -> ErrorData {
    let code = e.code();
    let message = match e {
        ResolveError::NotFound(_) => return not_found(uri, "no such file in the skill"),
        ResolveError::UnknownSkill { .. } => return not_found(uri, "no such skill"),
        ResolveError::Escape => {
            "path traversal is not allowed: it leads out of the skill".to_owned()
        }
        ResolveError::NotRegular(_) => {
            "not a regular file (FIFOs, sockets and devices are never read)".to_owned()
        }
        ResolveError::TooLarge { size, max, .. } => {
            format!("file too large ({size} bytes; the limit is {max})")
        }
        ResolveError::Read { reason, .. } => {
            return ErrorData::internal_error(
                format!("{}: the file could not be read ({reason})", shown(uri)),
                data(uri, code),
            );
        }
        other => first_line(&other.to_string()).to_owned(),
    };
    ErrorData::invalid_params(format!("{}: {message}", shown(uri)), data(uri, code))
}

fn why_not(reason: &NotExpanded) -> String {
    match reason {
        NotExpanded::CommandsOff => "skill commands are off".to_owned(),
        NotExpanded::NotUserInvocable { skill } => {
            format!("skill `{skill}` is not user-invocable")
        }
        NotExpanded::Unreadable { skill } => format!("the file of skill `{skill}` cannot be read"),
        NotExpanded::UnknownSkill { name } => format!("no skill named `{name}`"),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges of the pages being made ahead, in page order (a page
    /// made again when one ahead went stale on a slow machine comes last).
    fn ahead_ranges(served: &Served) -> Vec<std::ops::Range<usize>> {
        let ahead = served.ahead.lock().unwrap();
        let mut ranges: Vec<_> = ahead.iter().map(|a| a.range.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        ranges
    }

    /// Each answer sets the two pages after it to be made, keeps those
    /// being made already and drops any other.
    #[test]
    fn an_answer_makes_the_two_pages_after_it() {
        let tree = skillpipe_testkit::Tree::new();
        // Three pages and a half.
        let p = crate::page::SKILLS_PAGE;
        let n = 3 * p + p / 2;
        for i in 0..n {
            let name = format!("s{i:03}");
            tree.skill(
                &format!("home/.claude/skills/{name}"),
                &name,
                "One of many.",
            );
        }
        let found = skillpipe::Skillpipe::builder(skillpipe::Profile::Musepi)
            .env(Vec::<(String, String)>::new())
            .home(tree.path("home"))
            .cwd(tree.path("project"))
            .no_plugins()
            .build()
            .unwrap()
            .discover();
        let served = Arc::new(Served::new(found));
        let first = served.list_skills_ahead(None).unwrap();
        assert_eq!(ahead_ranges(&served), [p..2 * p, 2 * p..3 * p]);
        let second = first.next_cursor.unwrap();
        let second = served.list_skills_ahead(Some(&second)).unwrap();
        assert_eq!(ahead_ranges(&served), [2 * p..3 * p, 3 * p..n]);
        // The first page again: the pages after it are set anew, the
        // fourth dropped.
        let _ = served.list_skills_ahead(None).unwrap();
        assert_eq!(ahead_ranges(&served), [p..2 * p, 2 * p..3 * p]);
        let third = second.next_cursor.unwrap();
        let third = served.list_skills_ahead(Some(&third)).unwrap();
        assert_eq!(third.skills.len(), p);
        assert_eq!(
            ahead_ranges(&served),
            vec![std::ops::Range {
                start: 3 * p,
                end: n
            }]
        );
    }

    fn rmcp_accepts(uri: &str, name: &str) -> bool {
        let frontmatter = SkillFrontmatter::new(name, "d");
        Entry::new(uri, frontmatter, SkillResources::Dynamic)
            .validate()
            .is_ok()
    }

    /// The check that skips rmcp's never passes a name rmcp refuses: every
    /// name of up to four characters from an alphabet of the allowed, the
    /// refused and the normalised, under its own URI and under another's.
    #[test]
    fn a_plainly_valid_name_is_one_rmcp_accepts() {
        let alphabet = ["a", "z", "0", "9", "-", "A", "_", "é", "ﬁ", "%"];
        let mut names = vec![String::new()];
        for len in 1..=4 {
            let shorter: Vec<String> = names
                .iter()
                .filter(|n| n.chars().count() == len - 1)
                .cloned()
                .collect();
            for n in shorter {
                names.extend(alphabet.iter().map(|c| format!("{n}{c}")));
            }
        }
        let mut plain = 0;
        for name in &names {
            for uri in [
                format!("skill://{name}/SKILL.md"),
                format!("skill://team/{name}/SKILL.md"),
                "skill://other/SKILL.md".to_owned(),
            ] {
                if plainly_valid(&uri, name) {
                    plain += 1;
                    assert!(rmcp_accepts(&uri, name), "{uri} {name:?}");
                }
            }
        }
        assert!(plain > 500, "{plain}");
        for (name, plainly) in [
            ("pdf-forms", true),
            ("a--b", false),
            ("-a", false),
            ("a-", false),
            ("Pdf", false),
        ] {
            assert_eq!(
                plainly_valid(&format!("skill://{name}/SKILL.md"), name),
                plainly,
                "{name}"
            );
        }
        let long = "a".repeat(64);
        assert!(plainly_valid(&format!("skill://{long}/SKILL.md"), &long));
        let longer = "a".repeat(65);
        assert!(!plainly_valid(
            &format!("skill://{longer}/SKILL.md"),
            &longer
        ));
        assert!(!rmcp_accepts(
            &format!("skill://{longer}/SKILL.md"),
            &longer
        ));
        // A name the fast check leaves to rmcp, which accepts it.
        assert!(!plainly_valid("skill://caf%C3%A9/SKILL.md", "café"));
        assert!(rmcp_accepts("skill://caf%C3%A9/SKILL.md", "café"));
    }
}
