//! Admission to the sandbox's slots: a semaphore, the queue in front of it, and the estimate of
//! how long a newcomer would wait.
//!
//! A caller can bound its wait. A request whose client gives up after its own time budget
//! (verl's SandboxFusion client waits compile + run timeouts + 10 s) is better answered at once
//! with "busy, retry in N s" than run after the client has gone: the answer is refused early
//! when the estimate already exceeds the bound, and at the bound at the latest.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::RunError;
use crate::config::QueueObserver;

/// Weight of the newest run in the moving average of slot hold times (1/8).
const HOLD_AVERAGE_SHIFT: u32 = 3;

/// The slots and their queue.
pub(crate) struct Queue {
    permits: Semaphore,
    slots: usize,
    waiting: AtomicUsize,
    /// Moving average of how long a run holds a slot, in nanoseconds; 0 until a run has ended.
    mean_hold_nanos: AtomicU64,
    observer: Option<Arc<dyn QueueObserver>>,
}

/// A place in the queue, given up when dropped.
struct Waiting<'a> {
    queue: &'a Queue,
    started: Instant,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let left = self.queue.waiting.fetch_sub(1, Ordering::Relaxed) - 1;
        self.queue.observe_depth(left);
        self.queue.observe_wait(self.started.elapsed());
    }
}

/// A held slot; releasing it feeds the hold-time average.
pub(crate) struct Slot<'a> {
    queue: &'a Queue,
    acquired: Instant,
    _permit: SemaphorePermit<'a>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let held = u64::try_from(self.acquired.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // Racing updates may lose a sample; the average only steers an estimate.
        let old = self.queue.mean_hold_nanos.load(Ordering::Relaxed);
        let new = if old == 0 {
            held
        } else {
            old - (old >> HOLD_AVERAGE_SHIFT) + (held >> HOLD_AVERAGE_SHIFT)
        };
        self.queue.mean_hold_nanos.store(new, Ordering::Relaxed);
    }
}

impl Queue {
    /// `slots` runs at once; `observer` hears about the queue.
    pub(crate) fn new(slots: usize, observer: Option<Arc<dyn QueueObserver>>) -> Queue {
        Queue {
            permits: Semaphore::new(slots),
            slots,
            waiting: AtomicUsize::new(0),
            mean_hold_nanos: AtomicU64::new(0),
            observer,
        }
    }

    /// Runs waiting for a slot now.
    pub(crate) fn depth(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// The expected wait of the `position`-th run in the queue (1 = next), once runs have been
    /// seen: every `slots` runs ahead cost one mean hold time.
    fn estimate(&self, position: usize) -> Option<Duration> {
        let mean = self.mean_hold_nanos.load(Ordering::Relaxed);
        let rounds = position.div_ceil(self.slots) as u64;
        (mean > 0).then(|| Duration::from_nanos(mean.saturating_mul(rounds)))
    }

    /// Waits for a slot, at most `max_wait` when given.
    pub(crate) async fn admit(&self, max_wait: Option<Duration>) -> Result<Slot<'_>, RunError> {
        let started = Instant::now();
        if let Ok(permit) = self.permits.try_acquire() {
            self.observe_wait(Duration::ZERO);
            return Ok(self.slot(permit));
        }
        let position = self.waiting.fetch_add(1, Ordering::Relaxed) + 1;
        self.observe_depth(position);
        // Leaves the queue however the wait ends, including the caller giving up mid-wait.
        let _waiting = Waiting {
            queue: self,
            started,
        };
        let estimate = self.estimate(position);
        let acquired = match max_wait {
            Some(limit) if estimate.is_some_and(|e| e > limit) => None,
            Some(limit) => tokio::time::timeout(limit, self.permits.acquire())
                .await
                .ok()
                .and_then(Result::ok),
            None => self.permits.acquire().await.ok(),
        };
        match acquired {
            Some(permit) => Ok(self.slot(permit)),
            None => Err(RunError::Busy {
                retry_after: estimate.or(max_wait).unwrap_or(Duration::from_secs(1)),
            }),
        }
    }

    fn slot<'a>(&'a self, permit: SemaphorePermit<'a>) -> Slot<'a> {
        Slot {
            queue: self,
            acquired: Instant::now(),
            _permit: permit,
        }
    }

    fn observe_depth(&self, depth: usize) {
        if let Some(o) = &self.observer {
            o.queue_depth(depth);
        }
    }

    fn observe_wait(&self, waited: Duration) {
        if let Some(o) = &self.observer {
            o.queue_wait(waited);
        }
    }
}

/// A sandbox task that is aborted when its caller stops waiting (e.g. the HTTP client went away),
/// so that it leaves the queue, or frees its slot at its next yield, for runs someone awaits.
pub(crate) struct AbortOnDrop<T>(pub(crate) tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
