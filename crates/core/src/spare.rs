//! Cores left idle by the pipeline's workers, lent to a scan still busy
//! with a large root.
//!
//! The pipeline scans roots on as many workers as there are cores. Once
//! the work list is empty, a worker that finishes has nothing to do, and
//! the last large root is scanned by one core while the other waits. A
//! worker marks itself idle here when it leaves; a scanner working through
//! a root's entries on a pipeline worker checks now and then whether a core
//! is idle, and if so borrows it to scan the second half of what is left
//! (see `scan.rs`). Outside the pipeline (no [`Spare`] on the thread)
//! nothing is ever borrowed.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The idle cores of one pipeline run.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    idle: AtomicUsize,
    /// Leases given so far.
    lent: AtomicUsize,
}

impl Spare {
    /// One more core has nothing to do.
    pub(crate) fn add_idle(&self) {
        self.idle.fetch_add(1, Ordering::AcqRel);
    }

    fn try_take(&self) -> bool {
        let taken = self
            .idle
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        if taken {
            self.lent.fetch_add(1, Ordering::Relaxed);
        }
        taken
    }

    /// How many leases were given.
    #[cfg(test)]
    pub(crate) fn times_lent(&self) -> usize {
        self.lent.load(Ordering::Relaxed)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Spare>>> = const { RefCell::new(None) };
}

/// Runs `f` with `spare` as this thread's source of idle cores.
pub(crate) fn lend_to<R>(spare: &Arc<Spare>, f: impl FnOnce() -> R) -> R {
    let before = CURRENT.with_borrow_mut(|c| c.replace(Arc::clone(spare)));
    let out = f();
    CURRENT.with_borrow_mut(|c| *c = before);
    out
}

/// A borrowed idle core; it is idle again when the lease is dropped.
#[derive(Debug)]
pub(crate) struct Lease(Arc<Spare>);

impl Drop for Lease {
    fn drop(&mut self) {
        self.0.add_idle();
    }
}

/// An idle core, when this thread has a [`Spare`] and one is idle.
pub(crate) fn borrow() -> Option<Lease> {
    CURRENT.with_borrow(|c| {
        let spare = c.as_ref()?;
        spare.try_take().then(|| Lease(Arc::clone(spare)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_are_lent_only_when_idle_and_come_back() {
        assert!(borrow().is_none(), "no spare on this thread");
        let spare = Arc::new(Spare::default());
        lend_to(&spare, || {
            assert!(borrow().is_none(), "nothing idle yet");
            spare.add_idle();
            let lease = borrow();
            assert!(lease.is_some());
            assert!(borrow().is_none(), "the one idle core is lent");
            drop(lease);
            assert!(borrow().is_some(), "given back");
        });
        assert!(borrow().is_none(), "the spare is gone with lend_to");
    }
}
