//! The threads of a discovery, in one place: the workers that scan the
//! roots of a pipeline run, the order their findings are taken in, and the
//! cores lent to a scan still busy with a large root.
//!
//! - `run_ordered` runs the pipeline's work list on as many workers as
//!   there are cores (the calling thread among them) and hands each
//!   result to `take` in list order, as soon as it and those before it
//!   are ready, on the worker that made the next one.
//! - A worker with nothing left to do marks its core idle in the run's
//!   `Workers`. The scanners get the run's workers explicitly (through
//!   [`Schedule`] in the `DiscoveryContext`) and work through a root's
//!   entries with `in_steps`, which gives the second half of what is left
//!   to an idle core, and appends its findings after this thread's, so the
//!   order is one walk's.
//! - **A cold disk.** When a step's reads (files opened, directories
//!   listed: what `Steps::reads` counts) take far longer than the page
//!   cache allows (a first start after a reboot, a network file
//!   system), the run is marked I/O-bound and `IO_READERS` more slots can
//!   be lent: then up to that many threads read a root's files at once,
//!   since waiting on the disk takes no core. A warm run never gets there.
//!
//! **Invariant:** what a scan finds never depends on timing: a split only
//! changes which thread reads which entries, never their order.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// Extra readers a run may lend once it is found I/O-bound.
pub(crate) const IO_READERS: usize = 30;

/// A step slower than this per item is waiting on the disk: a warm
/// `openat` + `read` of a SKILL.md head takes a few microseconds, a cold
/// one a disk round trip (hundreds of microseconds or more).
const SLOW_ITEM: Duration = Duration::from_micros(200);

/// The lendable cores (and, on a cold disk, readers) of one pipeline run.
#[derive(Debug, Default)]
pub(crate) struct Workers {
    idle: AtomicUsize,
    io_bound: AtomicBool,
    /// Leases given so far.
    lent: AtomicUsize,
}

impl Workers {
    /// One more core has nothing to do.
    pub(crate) fn add_idle(&self) {
        self.idle.fetch_add(1, Ordering::AcqRel);
    }

    /// An idle core (or reader), if one is free; it is free again when the
    /// lease is dropped.
    pub(crate) fn borrow(&self) -> Option<Lease<'_>> {
        let taken = self
            .idle
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        taken.then(|| {
            self.lent.fetch_add(1, Ordering::Relaxed);
            Lease(self)
        })
    }

    /// Records how long a step of `items` reads took; the first step
    /// slow enough to be waiting on the disk marks the run I/O-bound.
    pub(crate) fn note_step(&self, took: Duration, items: usize) {
        let slow = items > 0 && took > SLOW_ITEM * u32::try_from(items).unwrap_or(u32::MAX);
        if slow && !self.io_bound.swap(true, Ordering::AcqRel) {
            self.idle.fetch_add(IO_READERS, Ordering::AcqRel);
        }
    }

    /// How many leases were given.
    #[cfg(test)]
    pub(crate) fn times_lent(&self) -> usize {
        self.lent.load(Ordering::Relaxed)
    }
}

/// A borrowed core or reader.
#[derive(Debug)]
pub(crate) struct Lease<'w>(&'w Workers);

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.0.add_idle();
    }
}

/// The scheduling of the pipeline run a scan belongs to, as the scanners
/// see it in the `DiscoveryContext`: empty outside a run (then a scan uses
/// its own thread only). Never serialised, and equal to any other.
#[derive(Clone, Default)]
pub struct Schedule(Option<Arc<Workers>>);

impl Schedule {
    pub(crate) fn of(workers: &Arc<Workers>) -> Self {
        Schedule(Some(Arc::clone(workers)))
    }

    pub(crate) fn workers(&self) -> Option<&Workers> {
        self.0.as_deref()
    }
}

impl fmt::Debug for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Schedule(run)"
        } else {
            "Schedule(none)"
        })
    }
}

impl PartialEq for Schedule {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Runs `run` on every item of `items` on the machine's cores (this thread
/// is one of the workers), and hands each result (with its index) to
/// `take`, in list order, as soon as it and those before it are ready:
/// taking overlaps with running. The worker that makes the result next in
/// order takes it, and then those after it that are ready, while the
/// others run on: a result is mostly taken on the core that made it, where
/// its bytes still are (handing every result to one taking thread moved
/// each across cores, and made the last ones wait for it), and no thread
/// waits for another. One worker takes at a time. A worker with nothing
/// left lends its core through `workers`.
pub(crate) fn run_ordered<'i, T: Sync, R: Send>(
    workers: &Workers,
    items: &'i [T],
    run: impl Fn(&T) -> R + Sync,
    mut take: impl FnMut(usize, &'i T, R) + Send,
) {
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        for (i, item) in items.iter().enumerate() {
            take(i, item, run(item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let board = Mutex::new(Board {
        slots: (0..items.len()).map(|_| None).collect(),
        taken: 0,
        taking: false,
    });
    // Only the worker that set `taking` locks it, so it is never waited for.
    let taker = Mutex::new(take);
    let lock = || board.lock().unwrap_or_else(PoisonError::into_inner);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let result = run(item);
            let mut b = lock();
            if let Some(slot) = b.slots.get_mut(i) {
                *slot = Some(result);
            }
            if b.taking {
                // The worker taking now takes this one too when its turn
                // comes: it looks at the next slot before it stops.
                continue;
            }
            b.taking = true;
            let mut take = taker.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                let k = b.taken;
                let (Some(result), Some(item)) =
                    (b.slots.get_mut(k).and_then(Option::take), items.get(k))
                else {
                    b.taking = false;
                    break;
                };
                b.taken += 1;
                drop(b);
                take(k, item, result);
                b = lock();
            }
        }
        workers.add_idle();
    };
    // The new workers leave this thread's core first (see `leave_core`):
    // this one works too.
    let core = current_core();
    let work = &work;
    thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(move || {
                leave_core(core);
                work();
            });
        }
        work();
    });
}

/// Runs `there` on a new thread named `name` while `here` runs on this
/// one, and returns both results: `there`'s is `None` when no thread could
/// be started or it panicked (the caller then does that work itself).
///
/// The new thread starts by leaving this thread's core ([`leave_core`]):
/// the two halves of one job are meant to run side by side.
pub(crate) fn side_by_side<A: Send, B>(
    name: &str,
    there: impl FnOnce() -> A + Send,
    here: impl FnOnce() -> B,
) -> (Option<A>, B) {
    let core = current_core();
    thread::scope(|s| {
        let other = thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(s, move || {
                leave_core(core);
                there()
            });
        let mine = here();
        (other.ok().and_then(|h| h.join().ok()), mine)
    })
}

/// Drops `value` on a thread of its own, not joined, so that the caller
/// goes on at once: for what a discovery leaves that is freed item by item
/// (tables of shared buffers, a reference count each) when there is
/// nothing to free it beside. Where no thread can be started, it is
/// dropped here.
pub(crate) fn drop_elsewhere<T: Send + 'static>(value: T) {
    let _ = thread::Builder::new()
        .name("skillpipe-free".to_owned())
        .spawn(move || drop(value));
}

/// The core this thread runs on, where the system says which.
fn current_core() -> Option<usize> {
    #[cfg(target_os = "linux")]
    return Some(rustix::thread::sched_getcpu());
    #[cfg(not(target_os = "linux"))]
    return None;
}

/// Moves this thread off `core` when it runs there and another core is
/// allowed to it. Some kernels start a new thread on its parent's core and
/// keep it there for several milliseconds even with the other core idle
/// (seen on 2-core KVM guests, whose scheduler packs threads onto few
/// virtual CPUs): the halves of a job then take turns on one core. Setting
/// the thread's affinity to the other cores makes the kernel move it at
/// once; the mask it had is set back at once too, so the scheduler stays
/// free to place it afterwards. Nothing happens elsewhere, nor when the
/// system refuses either call.
fn leave_core(core: Option<usize>) {
    #[cfg(target_os = "linux")]
    {
        use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity};
        let Some(core) = core else { return };
        if sched_getcpu() != core {
            return;
        }
        let Ok(allowed) = sched_getaffinity(None) else {
            return;
        };
        let mut others = allowed;
        others.unset(core);
        if others.count() == 0 || sched_setaffinity(None, &others).is_err() {
            return;
        }
        // Should this fail, the thread keeps every allowed core but one
        // for the rest of its job.
        let _ = sched_setaffinity(None, &allowed);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = core;
}

/// The results of [`run_ordered`], and how far they were taken.
struct Board<R> {
    slots: Vec<Option<R>>,
    /// How many were taken (the next to take).
    taken: usize,
    /// Whether a worker is taking.
    taking: bool,
}

/// What [`in_steps`] works through a list with.
pub(crate) trait Steps<T> {
    /// What a helper's share gives.
    type Part: Send;
    /// Works through `items`, in order.
    fn step(&mut self, items: &[T]);
    /// Whether the work has stopped (a bound was met): nothing more is done.
    fn stopped(&self) -> bool {
        false
    }
    /// Whether what is left may be shared now.
    fn may_split(&self) -> bool {
        true
    }
    /// How many reads (directories listed, files opened) the work has made
    /// so far, when it counts them: a step whose reads took far longer than
    /// the page cache allows says the disk is cold (see
    /// [`Workers::note_step`]). `None` (the default): work that is not
    /// reads, which a slow step says nothing about.
    fn reads(&self) -> Option<usize> {
        None
    }
    /// Appends a helper's share, given in list order after this one's.
    fn join(&mut self, part: Self::Part);
}

/// Works through `items` with `state`, `step` items at a time; between two
/// steps, when `workers` has an idle core (or reader) and enough is left,
/// the second half of what is left goes to it (`helper` runs there on that
/// half) while this thread goes on with the first. The helpers' shares are
/// joined in list order at the end, so `state` ends as if one thread had
/// done it all.
pub(crate) fn in_steps<T: Sync, S: Steps<T>>(
    workers: Option<&Workers>,
    items: &[T],
    step: usize,
    state: &mut S,
    helper: &(dyn Fn(&[T]) -> S::Part + Sync),
) {
    let Some(workers) = workers else {
        for part in items.chunks(step.max(1)) {
            if state.stopped() {
                return;
            }
            state.step(part);
        }
        return;
    };
    thread::scope(|s| {
        let mut helpers = Vec::new();
        let (mut done, mut end) = (0, items.len());
        while done < end && !state.stopped() {
            let next = (done + step).min(end);
            let (started, before) = (Instant::now(), state.reads());
            state.step(&items[done..next]);
            if let (Some(before), Some(after)) = (before, state.reads()) {
                workers.note_step(started.elapsed(), after.saturating_sub(before));
            }
            done = next;
            if end - done < 2 * step || !state.may_split() {
                continue;
            }
            if let Some(lease) = workers.borrow() {
                let mid = done + (end - done) / 2;
                let back = &items[mid..end];
                helpers.push(s.spawn(move || {
                    let part = helper(back);
                    drop(lease);
                    part
                }));
                end = mid;
            }
        }
        // The last split took the range right after this thread's.
        for h in helpers.into_iter().rev() {
            match h.join() {
                Ok(part) => state.join(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Collect(Vec<usize>);

    impl Steps<usize> for Collect {
        type Part = Vec<usize>;
        fn step(&mut self, items: &[usize]) {
            self.0.extend_from_slice(items);
        }
        fn join(&mut self, part: Vec<usize>) {
            self.0.extend(part);
        }
        fn reads(&self) -> Option<usize> {
            Some(self.0.len())
        }
    }

    fn collect(workers: Option<&Workers>, items: &[usize]) -> Vec<usize> {
        let mut c = Collect(Vec::new());
        in_steps(workers, items, 4, &mut c, &|back| collect(workers, back));
        c.0
    }

    #[test]
    fn what_is_dropped_elsewhere_is_dropped() {
        let shared = Arc::new(());
        drop_elsewhere(vec![Arc::clone(&shared); 100]);
        // The other thread drops it soon; ten seconds bound a stuck one.
        let deadline = Instant::now() + Duration::from_secs(10);
        while Arc::strong_count(&shared) > 1 && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(Arc::strong_count(&shared), 1);
    }

    #[test]
    fn cores_are_lent_only_when_idle_and_come_back() {
        let w = Workers::default();
        assert!(w.borrow().is_none(), "nothing idle yet");
        w.add_idle();
        let lease = w.borrow();
        assert!(lease.is_some());
        assert!(w.borrow().is_none(), "the one idle core is lent");
        drop(lease);
        assert!(w.borrow().is_some(), "given back");
    }

    #[test]
    fn shared_work_keeps_the_order_of_one_thread() {
        let items: Vec<usize> = (0..1000).collect();
        for idle in [0, 1, 3, 40] {
            let w = Workers::default();
            for _ in 0..idle {
                w.add_idle();
            }
            assert_eq!(collect(Some(&w), &items), items, "{idle} idle");
            // A step that a busy machine stalls past the slow bound marks
            // the run I/O-bound, which lends readers even with no idle core.
            let io_bound = w.io_bound.load(Ordering::Acquire);
            assert_eq!(w.times_lent() > 0, idle > 0 || io_bound, "{idle} idle");
        }
        assert_eq!(collect(None, &items), items);
    }

    #[test]
    fn a_slow_step_lends_readers_once() {
        let w = Workers::default();
        w.note_step(Duration::from_micros(50), 32);
        assert!(w.borrow().is_none(), "a warm step lends nothing");
        w.note_step(Duration::from_millis(100), 0);
        assert!(w.borrow().is_none(), "a step of no reads says nothing");
        w.note_step(Duration::from_millis(100), 32);
        w.note_step(Duration::from_millis(100), 32);
        let leases: Vec<_> = std::iter::from_fn(|| w.borrow()).collect();
        assert_eq!(leases.len(), IO_READERS);
    }

    #[test]
    fn results_are_taken_in_order() {
        let w = Workers::default();
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        run_ordered(
            &w,
            &items,
            |&i| {
                thread::sleep(Duration::from_micros((200 - i) % 7));
                i * 2
            },
            |i, &item, r| {
                assert_eq!(r, item * 2);
                seen.push(i);
            },
        );
        assert_eq!(seen, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn results_made_while_a_worker_takes_are_taken_by_it() {
        // A slow take keeps its worker taking while the others fill the
        // slots after it: each of those is still taken once, in order.
        let w = Workers::default();
        let items: Vec<u64> = (0..64).collect();
        let mut seen = Vec::new();
        run_ordered(
            &w,
            &items,
            |&i| i,
            |i, _, r| {
                if i % 8 == 0 {
                    thread::sleep(Duration::from_millis(2));
                }
                seen.push(r);
            },
        );
        assert_eq!(seen, items);
    }

    #[test]
    fn a_panicking_run_is_raised_and_nothing_after_it_is_taken() {
        let w = Workers::default();
        let items: Vec<u64> = (0..40).collect();
        let seen = Mutex::new(Vec::new());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_ordered(
                &w,
                &items,
                |&i| {
                    assert!(i != 7, "run {i} fails");
                    i
                },
                |i, _, _| seen.lock().unwrap().push(i),
            );
        }));
        assert!(outcome.is_err(), "the run's panic reaches the caller");
        assert_eq!(*seen.lock().unwrap(), (0..7).collect::<Vec<_>>());
    }
}
