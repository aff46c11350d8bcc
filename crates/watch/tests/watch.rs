//! The watcher on real files in a scratch home, with the real file
//! watcher: every wait is bounded, and passes as soon as what it waits for
//! happens.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use skillpipe::{Profile, Skillpipe};
use skillpipe_watch::{Event, WatchOptions, Watcher};

/// The longest any wait may take: far above what each needs.
const DEADLINE: Duration = Duration::from_secs(20);

struct World {
    _t: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
}

impl World {
    fn new() -> World {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = t.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        World { _t: t, home, proj }
    }

    fn builder(&self, profile: Profile) -> skillpipe::Builder {
        Skillpipe::builder(profile)
            .home(&self.home)
            .cwd(&self.proj)
            .env::<String, String>([])
    }

    fn start(&self, profile: Profile) -> (Watcher, Events) {
        self.start_with(self.builder(profile), options())
    }

    fn start_with(&self, b: skillpipe::Builder, opts: WatchOptions) -> (Watcher, Events) {
        let (w, rx) = Watcher::channel(&b.build().unwrap(), opts).unwrap();
        (w, Events(rx))
    }
}

fn options() -> WatchOptions {
    WatchOptions::default().debounce(Duration::from_millis(60))
}

fn skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

fn names(skills: &[skillpipe::Skill]) -> Vec<String> {
    let mut v: Vec<String> = skills.iter().map(|s| s.name.to_string()).collect();
    v.sort();
    v
}

fn current_names(w: &Watcher) -> Vec<String> {
    names(w.current().skills())
}

struct Events(Receiver<Event>);

impl Events {
    /// The next event, within the deadline.
    fn next(&self, what: &str) -> Event {
        match self.0.recv_timeout(DEADLINE) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => panic!("no event within {DEADLINE:?}: {what}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the watcher stopped: {what}"),
        }
    }

    /// Events until one satisfies `ok` (each checked as it comes), within
    /// the deadline; returns it.
    fn until(&self, what: &str, ok: impl Fn(&Event) -> bool) -> Event {
        let end = Instant::now() + DEADLINE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.0.recv_timeout(left) {
                Ok(e) if ok(&e) => return e,
                Ok(_) => {}
                Err(_) => panic!("no such event within {DEADLINE:?}: {what}"),
            }
        }
    }
}

#[test]
fn add_edit_remove_each_give_one_event() {
    let w = World::new();
    let claude = w.home.join(".claude/skills");
    skill(&claude.join("keep"), "keep", "stays");
    let (watcher, events) = w.start(Profile::Musepi);
    assert_eq!(current_names(&watcher), ["keep"]);
    let catalog = watcher.catalog();
    assert!(catalog.contains("stays"), "{catalog}");

    // Add.
    skill(&claude.join("new"), "new", "first words");
    let e = events.until("the new skill", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["new"]);
    assert!(e.changed.is_empty() && e.removed.is_empty(), "{e:?}");
    assert_eq!(e.added[0].source.provider, "claude");
    assert!(e.catalog.as_deref().unwrap().contains("first words"));
    assert_eq!(current_names(&watcher), ["keep", "new"]);

    // Edit: the description changes, so do the fields and the catalogue.
    let scanned = watcher.stats().roots_scanned;
    skill(&claude.join("new"), "new", "second words");
    let e = events.next("the edit");
    assert_eq!(
        watcher.stats().roots_scanned - scanned,
        0,
        "a file changed in place is read alone, not its root"
    );
    assert_eq!(names(&e.changed), ["new"]);
    assert_eq!(e.changed[0].description, "second words");
    assert!(e.added.is_empty() && e.removed.is_empty(), "{e:?}");
    let catalog = e.catalog.expect("the catalogue changed");
    assert!(catalog.contains("second words") && !catalog.contains("first words"));

    // A body edit: the winner's file was written, the catalogue is the same.
    std::fs::write(
        claude.join("new/SKILL.md"),
        "---\nname: new\ndescription: second words\n---\nAnother body.\n",
    )
    .unwrap();
    let e = events.next("the body edit");
    assert_eq!(names(&e.changed), ["new"]);
    assert!(e.catalog.is_none(), "the catalogue did not change");

    // Remove.
    std::fs::remove_dir_all(claude.join("new")).unwrap();
    let e = events.until("the removal", |e| !e.removed.is_empty());
    assert_eq!(names(&e.removed), ["new"]);
    assert!(e.added.is_empty());
    assert_eq!(current_names(&watcher), ["keep"]);
    assert_eq!(watcher.stats().events, 4);
}

#[test]
fn a_renamed_folder_is_one_event_removing_the_old_name_and_adding_the_new() {
    let w = World::new();
    let root = w.home.join(".musepi/agent/skills");
    std::fs::create_dir_all(root.join("before")).unwrap();
    // No `name`: the folder names it.
    std::fs::write(
        root.join("before/SKILL.md"),
        "---\ndescription: moves\n---\n",
    )
    .unwrap();
    let (watcher, events) = w.start(Profile::Musepi);
    assert_eq!(current_names(&watcher), ["before"]);
    std::fs::rename(root.join("before"), root.join("after")).unwrap();
    let e = events.next("the rename");
    assert_eq!(names(&e.removed), ["before"]);
    assert_eq!(names(&e.added), ["after"]);
    assert_eq!(current_names(&watcher), ["after"]);
}

#[test]
fn a_root_created_after_the_start_is_picked_up_and_then_watched() {
    let w = World::new();
    let (watcher, events) = w.start(Profile::Musepi);
    assert!(current_names(&watcher).is_empty());
    // ~/.claude does not exist yet: watched through the home.
    assert!(!w.home.join(".claude").exists());
    skill(&w.home.join(".claude/skills/late"), "late", "one");
    let e = events.until("the late root", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["late"]);
    // And the new root is watched in depth from now on.
    skill(&w.home.join(".claude/skills/late"), "late", "two");
    let e = events.until("an edit in the late root", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "two");
    // The project's roots too, and managed skills.
    skill(&w.proj.join(".claude/skills/proj"), "proj", "p");
    skill(
        &w.home.join(".musepi/agent/managed-skills/learned"),
        "learned",
        "m",
    );
    events.until("the project and managed skills", |_| {
        current_names(&watcher) == ["late", "learned", "proj"]
    });
}

#[test]
fn a_root_deleted_and_created_again_is_watched_again() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    skill(&root.join("a"), "a", "one");
    let (watcher, events) = w.start(Profile::Musepi);
    std::fs::remove_dir_all(&root).unwrap();
    let e = events.until("the root gone", |e| !e.removed.is_empty());
    assert_eq!(names(&e.removed), ["a"]);
    skill(&root.join("b"), "b", "one");
    let e = events.until("the root back", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["b"]);
    skill(&root.join("b"), "b", "two");
    let e = events.until("an edit in the new root", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "two");
    assert_eq!(current_names(&watcher), ["b"]);
}

#[cfg(unix)]
#[test]
fn a_swapped_link_is_followed_to_its_new_target() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    std::fs::create_dir_all(&root).unwrap();
    let v1 = w.home.join("versions/v1/linked");
    let v2 = w.home.join("versions/v2/linked");
    skill(&v1, "linked", "version one");
    skill(&v2, "linked", "version two");
    std::os::unix::fs::symlink(&v1, root.join("linked")).unwrap();
    let (watcher, events) = w.start(Profile::Musepi);
    assert_eq!(watcher.current().skills()[0].description, "version one");
    // `ln -sfn`: a new link renamed over the old one.
    std::os::unix::fs::symlink(&v2, root.join(".tmp-link")).unwrap();
    std::fs::rename(root.join(".tmp-link"), root.join("linked")).unwrap();
    let e = events.until("the swap", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "version two");
    // An edit in the new target is seen through the link.
    skill(&v2, "linked", "version two, edited");
    let e = events.until("an edit behind the link", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "version two, edited");
}

/// Renames `from` over `to` as an editor saving does. Windows without
/// POSIX rename semantics (and Wine) refuses while another process, here
/// the watcher reloading after an earlier event, has `to` open; editors
/// there try again, and so does this, for up to 2 s.
fn rename_over(from: &Path, to: &Path) {
    let start = Instant::now();
    loop {
        match std::fs::rename(from, to) {
            Err(e)
                // Access denied, a sharing or a lock violation.
                if cfg!(windows)
                    && matches!(e.raw_os_error(), Some(5 | 32 | 33))
                    && start.elapsed() < Duration::from_secs(2) =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            r => return r.unwrap(),
        }
    }
}

#[test]
fn a_settings_change_turns_a_provider_off_and_a_rename_save_turns_it_on() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/c"), "c", "claude's");
    skill(&w.home.join(".musepi/agent/skills/n"), "n", "native");
    let (watcher, events) = w.start(Profile::Musepi);
    assert_eq!(current_names(&watcher), ["c", "n"]);
    let settings = w.home.join(".musepi/agent/settings.json");
    std::fs::write(&settings, r#"{"skills": {"enableClaudeUser": false}}"#).unwrap();
    let e = events.until("claude off", |e| !e.removed.is_empty());
    assert_eq!(names(&e.removed), ["c"]);
    assert_eq!(current_names(&watcher), ["n"]);
    // As editors save: a temporary file renamed over the settings.
    let tmp = w.home.join(".musepi/agent/.settings.json.swp");
    std::fs::write(&tmp, r#"{"skills": {"enableClaudeUser": true}}"#).unwrap();
    rename_over(&tmp, &settings);
    let e = events.until("claude on", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["c"]);
    // A settings file that does not load keeps the settings in force, says
    // so, and the next good save clears it.
    std::fs::write(&settings, r#"{"skills": {"enableClaudeUser": "#).unwrap();
    let e = events.until("bad settings", |e| {
        e.diagnostics
            .iter()
            .any(|d| d.message.contains("settings not reloaded"))
    });
    assert!(e.removed.is_empty(), "{e:?}");
    assert_eq!(current_names(&watcher), ["c", "n"]);
    std::fs::write(&settings, r#"{"skills": {"enableClaudeUser": false}}"#).unwrap();
    let e = events.until("good settings again", |e| !e.removed.is_empty());
    assert!(e.diagnostics.is_empty(), "{:?}", e.diagnostics);
    assert!(watcher.warnings().is_empty());
}

#[test]
fn pi_an_ignore_file_change_hides_and_shows_skills() {
    let w = World::new();
    let root = w.home.join(".pi/agent/skills");
    skill(&root.join("keep"), "keep", "k");
    skill(&root.join("deep/drop"), "drop", "d");
    let (watcher, events) = w.start(Profile::Pi);
    assert_eq!(current_names(&watcher), ["drop", "keep"]);
    std::fs::write(root.join(".gitignore"), "deep/\n").unwrap();
    let e = events.until("ignored", |e| !e.removed.is_empty());
    assert_eq!(names(&e.removed), ["drop"]);
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    let e = events.until("not ignored", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["drop"]);
}

#[test]
fn a_burst_of_a_thousand_files_is_one_event() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    std::fs::create_dir_all(&root).unwrap();
    let opts = WatchOptions::default().debounce(Duration::from_millis(300));
    let (watcher, events) = w.start_with(w.builder(Profile::Musepi), opts);
    for i in 0..1000 {
        skill(&root.join(format!("s{i:04}")), &format!("s{i:04}"), "burst");
    }
    let e = events.next("the burst");

    assert_eq!(e.added.len(), 1000, "one event for the whole burst");
    // Then a later change is the next event: none came in between.
    skill(&root.join("after"), "after", "later");
    let e = events.next("the change after the burst");
    assert_eq!(names(&e.added), ["after"]);
    assert_eq!(watcher.stats().events, 2);
    assert_eq!(watcher.current().skills().len(), 1001);
}

#[test]
fn a_half_written_file_is_fixed_by_the_next_event() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    std::fs::create_dir_all(root.join("half")).unwrap();
    let (watcher, events) = w.start(Profile::Musepi);
    // The writer has written the start of the file when the event is taken:
    // no closing `---`, so no frontmatter yet (Claude's root takes a skill
    // without a description, named by its folder).
    std::fs::write(root.join("half/SKILL.md"), "---\nname: half\n").unwrap();
    let e = events.next("the half-written file");
    assert_eq!(names(&e.added), ["half"]);
    assert_eq!(e.added[0].description, "");
    std::fs::write(
        root.join("half/SKILL.md"),
        "---\nname: half\ndescription: whole now\n---\n",
    )
    .unwrap();
    let e = events.until("the whole file", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "whole now");
    assert!(e.diagnostics.is_empty(), "{:?}", e.diagnostics);
    assert_eq!(watcher.current().skills()[0].description, "whole now");
}

#[test]
fn past_the_native_watch_budget_paths_are_polled_with_a_warning() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    skill(&root.join("a"), "a", "one");
    let opts = options()
        .max_native_watches(1)
        .poll_interval(Duration::from_millis(100));
    let (watcher, events) = w.start_with(w.builder(Profile::Musepi), opts);
    let warnings = watcher.warnings();
    assert!(
        warnings
            .iter()
            .any(|d| d.code == "watch-degraded" && d.path == root),
        "{warnings:?}"
    );
    // Polled, not lost: changes still come.
    skill(&root.join("b"), "b", "two");
    let e = events.until("a change in a polled root", |e| !e.added.is_empty());
    assert_eq!(names(&e.added), ["b"]);
    assert!(e.diagnostics.iter().any(|d| d.code == "watch-degraded"));
    skill(&root.join("b"), "b", "three");
    let e = events.until("an edit in a polled root", |e| !e.changed.is_empty());
    assert_eq!(e.changed[0].description, "three");
}

/// Concurrent reloads while one runs share the next scan.
#[test]
fn concurrent_requests_are_served_by_one_scan() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/a"), "a", "one");
    // The skills hook runs at the end of every discovery: it holds the
    // first reload's scan until the others are waiting.
    let gate = Arc::new((Mutex::new((false, false)), Condvar::new()));
    let hook = Arc::clone(&gate);
    let b = w.builder(Profile::Musepi).skills_override(move |skills| {
        let (m, cv) = &*hook;
        let mut g = m.lock().unwrap();
        if g.0 {
            // Armed: say so, then wait for the release.
            g.0 = false;
            g.1 = true;
            cv.notify_all();
            while g.1 {
                g = cv.wait(g).unwrap();
            }
        }
        skills
    });
    let (watcher, _events) = w.start_with(b, options());
    let watcher = Arc::new(watcher);
    let before = watcher.stats().runs;
    gate.0.lock().unwrap().0 = true;
    let first = {
        let w = Arc::clone(&watcher);
        std::thread::spawn(move || w.reload().skills().len())
    };
    {
        let (m, cv) = &*gate;
        let mut g = m.lock().unwrap();
        let end = Instant::now() + DEADLINE;
        while !g.1 {
            assert!(Instant::now() < end, "the first scan never started");
            g = cv.wait_timeout(g, DEADLINE).unwrap().0;
        }
    }
    let others: Vec<_> = (0..7)
        .map(|_| {
            let w = Arc::clone(&watcher);
            std::thread::spawn(move || w.reload().skills().len())
        })
        .collect();
    let end = Instant::now() + DEADLINE;
    while watcher.stats().waiting < 8 {
        assert!(Instant::now() < end, "the requests never queued");
        std::thread::sleep(Duration::from_millis(5));
    }
    {
        let (m, cv) = &*gate;
        m.lock().unwrap().1 = false;
        cv.notify_all();
    }
    let mut counts = BTreeSet::new();
    counts.insert(first.join().unwrap());
    for t in others {
        counts.insert(t.join().unwrap());
    }
    assert_eq!(counts.into_iter().collect::<Vec<_>>(), [1]);
    assert_eq!(
        watcher.stats().runs - before,
        2,
        "eight requests, two scans"
    );
}

#[test]
fn dropping_the_watcher_ends_its_thread_and_closes_the_channel() {
    let w = World::new();
    let (watcher, events) = w.start(Profile::Musepi);
    drop(watcher);
    assert!(matches!(
        events.0.recv_timeout(DEADLINE),
        Err(RecvTimeoutError::Disconnected)
    ));
}

#[test]
fn events_carry_the_catalogue_update_a_host_appends() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new();
        let root = match profile {
            Profile::Pi => w.home.join(".pi/agent/skills"),
            _ => w.home.join(".claude/skills"),
        };
        for name in ["one", "two", "three"] {
            skill(&root.join(name), name, &format!("{name} as it was"));
        }
        let (watcher, events) = w.start(profile);
        skill(&root.join("two"), "two", "two & edited");
        let e = events.until("the edit", |e| !e.changed.is_empty());
        let update = e.catalog_update.expect("the catalogue changed");
        assert_eq!(update.changed, ["two"], "{profile:?}");
        assert!(update.added.is_empty() && update.removed.is_empty());
        assert_eq!(update.rerender, None, "one of three changed");
        let line = match profile {
            Profile::Pi => "<description>two &amp; edited</description>",
            _ => "- two: two & edited",
        };
        assert!(
            update.message.contains(line),
            "{profile:?}: {}",
            update.message
        );
        assert!(
            !update.message.contains("one as it was"),
            "only what changed"
        );
        // Two of three gone: a new catalogue is the shorter way.
        std::fs::remove_dir_all(root.join("one")).unwrap();
        std::fs::remove_dir_all(root.join("three")).unwrap();
        // (One burst as a rule; two events if the removals straddle one.)
        let e = events.until("both removals", |e| {
            !e.removed.is_empty() && current_names(&watcher) == ["two"]
        });
        let update = e.catalog_update.expect("the catalogue changed");
        if update.removed.len() == 2 {
            assert_eq!(update.rerender, Some(skillpipe::Rerender::MostChanged));
        }
    }
}

/// The watcher's discovery and catalogue are those a discovery made afresh
/// gives: skills, diagnostics and catalogue text.
fn as_fresh(w: &World, profile: Profile, watcher: &Watcher, step: &str) {
    let fresh = w.builder(profile).build().unwrap().discover();
    let current = watcher.current();
    assert_eq!(current.skills(), fresh.skills(), "{profile:?}, {step}");
    assert_eq!(
        current.diagnostics(),
        fresh.diagnostics(),
        "{profile:?}, {step}"
    );
    assert_eq!(
        watcher.catalog(),
        fresh.catalog(skillpipe::ReadTool::Available),
        "{profile:?}, {step}"
    );
}

/// Skill files edited in place: those whose edit leaves the pipeline's
/// decisions as they were patch the last discovery (no root is read
/// again), the others are read with their roots; either way the watcher
/// ends where a fresh discovery is, step after step.
#[test]
fn edits_in_place_patch_the_discovery_or_read_the_root_and_match_a_fresh_one() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new();
        let (root, other) = match profile {
            Profile::Pi => (w.home.join(".pi/agent/skills"), w.proj.join(".pi/skills")),
            _ => (w.home.join(".claude/skills"), w.home.join(".agents/skills")),
        };
        for name in ["alpha", "beta", "gamma", "dup"] {
            skill(&root.join(name), name, &format!("{name} as it was"));
        }
        skill(&other.join("dup"), "dup", "the other copy");
        let managed = w.home.join(".musepi/agent/managed-skills/kept");
        if profile == Profile::Musepi {
            skill(&managed, "kept", "managed as it was");
        }
        let (watcher, events) = w.start(profile);
        as_fresh(&w, profile, &watcher, "start");
        let scanned = || watcher.stats().roots_scanned;
        let edited = |name: &str| {
            let name = name.to_owned();
            move |e: &Event| e.changed.iter().chain(&e.removed).any(|s| s.name == name)
        };

        // A description: patched.
        let before = scanned();
        skill(
            &root.join("alpha"),
            "alpha",
            "alpha & <now> edited\n  twice",
        );
        events.until("alpha's edit", edited("alpha"));
        assert_eq!(scanned(), before, "{profile:?}: alpha's edit is a patch");
        as_fresh(&w, profile, &watcher, "alpha edited");

        // The body alone: patched, and the event names the skill.
        std::fs::write(
            root.join("alpha/SKILL.md"),
            "---\nname: alpha\ndescription: alpha & <now> edited\n  twice\n---\nNew body.\n",
        )
        .unwrap();
        let e = events.until("alpha's body", edited("alpha"));
        assert!(e.catalog.is_none(), "{profile:?}: {e:?}");
        assert_eq!(scanned(), before, "{profile:?}: a body edit is a patch");

        // A name with another copy: its root is read.
        skill(&root.join("dup"), "dup", "the first copy, edited");
        events.until("dup's edit", edited("dup"));
        assert!(
            scanned() > before,
            "{profile:?}: a collision is not patched"
        );
        as_fresh(&w, profile, &watcher, "dup edited");

        // A new name: the name moved, its root is read.
        let before = scanned();
        skill(&root.join("beta"), "beta-renamed", "beta as it was");
        events.until("beta's rename", edited("beta"));
        assert!(scanned() > before, "{profile:?}: a new name is not patched");
        as_fresh(&w, profile, &watcher, "beta renamed");

        // A file with a diagnostic (YAML that does not parse): its root is read.
        let before = scanned();
        std::fs::write(
            root.join("gamma/SKILL.md"),
            "---\nname: gamma\ndescription: [unclosed\n---\n",
        )
        .unwrap();
        events.until("gamma's breakage", |_| true);
        assert!(
            scanned() > before,
            "{profile:?}: a diagnostic is not patched"
        );
        as_fresh(&w, profile, &watcher, "gamma broken");

        if profile == Profile::Musepi {
            // A managed skill: its description made safe as a scan makes it.
            let before = scanned();
            skill(&managed, "kept", "managed `now` <b>edited</b>");
            events.until("the managed edit", edited("kept"));
            assert_eq!(scanned(), before, "the managed edit is a patch");
            let kept = watcher
                .current()
                .skills()
                .iter()
                .find(|s| s.name == "kept")
                .cloned();
            assert!(!kept.unwrap().description.contains('`'));
            as_fresh(&w, profile, &watcher, "managed edited");
        }
    }
}

/// What a discovery built afresh now finds (settings read again, the
/// repository root looked for again): what `skillpipe list` would show.
fn fresh(b: skillpipe::Builder) -> skillpipe::Discovery {
    b.build().unwrap().discover().discovery().clone()
}

/// A `.git` created, moved and removed above the working directory moves
/// the repository root, and with it the project roots: after each step the
/// watcher's discovery is the one a fresh discovery makes.
#[test]
fn a_repository_created_moved_or_removed_moves_the_project_roots() {
    let w = World::new();
    // cwd = proj/sub, outside home: without a repository its project
    // roots go up to the filesystem's root.
    let sub = w.proj.join("sub");
    let top = w.proj.parent().unwrap();
    skill(&sub.join(".claude/skills/inner"), "inner", "in sub");
    skill(&w.proj.join(".claude/skills/outer"), "outer", "in proj");
    skill(&top.join(".claude/skills/top"), "top", "above proj");
    let b = || w.builder(Profile::Musepi).cwd(&sub);
    let (watcher, events) = w.start_with(b(), options());
    let has = |name: &str| current_names(&watcher).iter().any(|n| n == name);
    assert_eq!(watcher.current().discovery(), &fresh(b()));
    assert!(has("inner") && has("outer") && has("top"));

    // What happens, how, the names there after it, the names gone.
    type Step<'a> = (&'a str, &'a dyn Fn(), &'a [&'a str], &'a [&'a str]);
    let steps: [Step<'_>; 4] = [
        (
            "a repository created in proj",
            &|| std::fs::create_dir(w.proj.join(".git")).unwrap(),
            &["inner", "outer"],
            &["top"],
        ),
        (
            "the repository moved down to sub",
            &|| std::fs::rename(w.proj.join(".git"), sub.join(".git")).unwrap(),
            &["inner"],
            &["outer", "top"],
        ),
        (
            "the repository removed",
            &|| std::fs::remove_dir(sub.join(".git")).unwrap(),
            &["inner", "outer", "top"],
            &[],
        ),
        (
            "a worktree's `.git` file in proj",
            &|| std::fs::write(w.proj.join(".git"), "gitdir: /elsewhere\n").unwrap(),
            &["inner", "outer"],
            &["top"],
        ),
    ];
    for (what, step, there, gone) in steps {
        step();
        events.until(what, |_| {
            there.iter().all(|n| has(n)) && !gone.iter().any(|n| has(n))
        });
        assert_eq!(watcher.current().discovery(), &fresh(b()), "{what}");
    }
}

/// `--skill` paths: a folder holding one `SKILL.md`, a folder of skills
/// and a missing path, in both profiles: the watcher's discovery is the
/// plain one's (`skillpipe list --skill`).
#[test]
fn skill_paths_are_watched_as_discovery_takes_them() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new();
        let top = w.proj.parent().unwrap().to_path_buf();
        skill(&top.join("one/solo"), "solo", "a single skill");
        skill(&top.join("many/a"), "a", "first of many");
        skill(&top.join("many/b"), "b", "second of many");
        for (path, want) in [
            ("one/solo", &["solo"][..]),
            ("many", &["a", "b"][..]),
            ("nope", &[][..]),
        ] {
            let b = || w.builder(profile).skill_path(top.join(path));
            let plain = fresh(b());
            let mut got: Vec<&str> = plain.skills.iter().map(|s| s.name.as_str()).collect();
            got.sort_unstable();
            assert_eq!(got, want, "{profile:?} {path}: the plain discovery");
            let (watcher, _events) = w.start_with(b(), options());
            assert_eq!(
                watcher.current().discovery(),
                &plain,
                "{profile:?} --skill {path}"
            );
            if path == "nope" {
                let codes: Vec<&str> = plain.diagnostics.iter().map(|d| d.code.as_str()).collect();
                assert_eq!(codes, ["path-not-found"], "{profile:?}");
            }
        }
    }
}

/// A `--skill` skill folder stays watched (its `SKILL.md` edited is a
/// change), and a `--skill` path missing at the start is picked up when
/// it is created, in both profiles.
#[test]
fn a_skill_path_edited_or_created_late_is_followed() {
    for profile in [Profile::Musepi, Profile::Pi] {
        let w = World::new();
        let top = w.proj.parent().unwrap().to_path_buf();
        let solo = top.join("one/solo");
        let late = top.join("later/late");
        skill(&solo, "solo", "first words");
        let b = || {
            w.builder(profile)
                .skill_path(&solo)
                .skill_path(top.join("later"))
                .skill_path(&late)
        };
        let (watcher, events) = w.start_with(b(), options());
        assert_eq!(current_names(&watcher), ["solo"], "{profile:?}");

        skill(&solo, "solo", "second words");
        let e = events.until("the skill folder's SKILL.md edited", |e| {
            !e.changed.is_empty()
        });
        assert_eq!(e.changed[0].description, "second words", "{profile:?}");

        // `later` (a folder of skills) and `later/late` (that skill's
        // folder) both appear with it: the same file, loaded once.
        skill(&late, "late", "created after the start");
        events.until("the missing paths created", |_| {
            current_names(&watcher) == ["late", "solo"]
        });
        assert_eq!(watcher.current().discovery(), &fresh(b()), "{profile:?}");
        skill(&late, "late", "edited");
        events.until("the late skill edited", |e| {
            e.changed.iter().any(|s| s.description == "edited")
        });
        assert_eq!(watcher.current().discovery(), &fresh(b()), "{profile:?}");
    }
}
