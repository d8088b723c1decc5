//! Admission of runs: side by side up to a memory budget, not one per core.
//!
//! SandboxFusion runs every request at once as its own process and lets the kernel time-slice
//! them, so its `run_timeout` is wall-clock time from the start of the run, however many others
//! run. Runs here are admitted the same way: every admitted run executes at once on the sandbox's
//! worker threads, which switch between them at each epoch tick, so a burst of programs that
//! never finish is answered as timeouts after their own limit, and a quick program submitted
//! behind them still starts at once. What bounds admission is what a machine really runs out of:
//! memory (the budget, charged with each run's actual linear memory as it grows, from a small
//! reservation at admission) and the instance pool's size. Compiles are CPU- and memory-heavy
//! host processes, so they have their own slots, one per core.
//!
//! A run's wall clock starts once it is admitted (and compiled), so waiting never turns into a
//! timeout verdict. When a run cannot be admitted before its caller's deadline, or the budget
//! cannot cover a growth its own limit allows, the answer is [`RunError::Busy`], never a verdict:
//! `/run_code` answers it as SandboxFusion's 504, which verl's client retries.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};

use crate::config::QueueObserver;
use crate::program::RunError;

/// Memory every admitted run reserves up front, at most its own limit: about what a Python run
/// touches, so a burst cannot be admitted beyond what the budget could hold once they start.
const RESERVATION: u64 = 16 << 20;
/// The budget's unit.
const MIB: u64 = 1 << 20;
/// What a refused caller is told to wait before retrying.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The run slots, the memory budget and the compile slots.
pub(crate) struct Admission {
    runs: Arc<Semaphore>,
    memory: Arc<Semaphore>,
    budget_bytes: u64,
    compiles: Semaphore,
    /// Interactions in flight, at most half the run slots: each holds one slot while its
    /// second side waits for another, and pairs alone must never hold them all.
    pairs: Semaphore,
    /// The number of interaction slots (none with a single run slot).
    pair_slots: usize,
    waiting: AtomicUsize,
    running: AtomicUsize,
    observer: Option<Arc<dyn QueueObserver>>,
}

/// An admitted run; leaving frees its slot and its memory.
pub(crate) struct Ticket<'a> {
    admission: &'a Admission,
    _run: OwnedSemaphorePermit,
    /// The run's share of the memory budget.
    pub(crate) grant: Arc<Grant>,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let now = self.admission.running.fetch_sub(1, Ordering::Relaxed) - 1;
        if let Some(o) = &self.admission.observer {
            o.running(now);
        }
    }
}

/// A run's share of the memory budget, grown as its linear memory grows.
pub(crate) struct Grant {
    memory: Arc<Semaphore>,
    held: Mutex<OwnedSemaphorePermit>,
    starved: AtomicBool,
}

impl Grant {
    /// Covers `bytes` of linear memory in total; false (and the run is marked starved) when the
    /// budget cannot cover them now.
    pub(crate) fn cover(&self, bytes: u64) -> bool {
        let need = bytes.div_ceil(MIB);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let have = held.num_permits() as u64;
        if need <= have {
            return true;
        }
        let more = u32::try_from(need - have).unwrap_or(u32::MAX);
        match self.memory.clone().try_acquire_many_owned(more) {
            Ok(p) => {
                held.merge(p);
                true
            }
            Err(_) => {
                self.starved.store(true, Ordering::Relaxed);
                false
            }
        }
    }

    /// Whether a growth was refused because the budget, not the run's limit, ran out.
    pub(crate) fn starved(&self) -> bool {
        self.starved.load(Ordering::Relaxed)
    }
}

/// A place in the queue, given up when dropped.
struct Waiting<'a> {
    admission: &'a Admission,
    started: Instant,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let left = self.admission.waiting.fetch_sub(1, Ordering::Relaxed) - 1;
        if let Some(o) = &self.admission.observer {
            o.queue_depth(left);
            o.queue_wait(self.started.elapsed());
        }
    }
}

impl Admission {
    /// At most `runs` runs at once within `budget_bytes` of linear memory, and `compiles`
    /// compiles at once; `observer` hears about the queue.
    pub(crate) fn new(
        runs: usize,
        budget_bytes: u64,
        compiles: usize,
        observer: Option<Arc<dyn QueueObserver>>,
    ) -> Admission {
        Admission {
            runs: Arc::new(Semaphore::new(runs)),
            memory: Arc::new(Semaphore::new((budget_bytes / MIB) as usize)),
            budget_bytes,
            compiles: Semaphore::new(compiles),
            pairs: Semaphore::new(runs / 2),
            pair_slots: runs / 2,
            waiting: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            observer,
        }
    }

    /// The memory budget shared by all runs, in bytes.
    pub(crate) fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }

    /// Runs waiting to be admitted now.
    pub(crate) fn depth(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Admits a run whose memory limit is `limit_bytes`, waiting until `deadline` at most.
    pub(crate) async fn admit(
        &self,
        limit_bytes: u64,
        deadline: Option<Instant>,
    ) -> Result<Ticket<'_>, RunError> {
        let reservation = u32::try_from(limit_bytes.min(RESERVATION).div_ceil(MIB)).unwrap_or(1);
        let position = self.waiting.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = &self.observer {
            o.queue_depth(position);
        }
        let waiting = Waiting {
            admission: self,
            started: Instant::now(),
        };
        let acquire = async {
            let run = self.runs.clone().acquire_owned().await.ok()?;
            let memory = self
                .memory
                .clone()
                .acquire_many_owned(reservation)
                .await
                .ok()?;
            Some((run, memory))
        };
        let acquired = until(deadline, acquire).await.flatten();
        drop(waiting);
        let (run, memory) = acquired.ok_or(RunError::Busy {
            retry_after: RETRY_AFTER,
        })?;
        let now = self.running.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = &self.observer {
            o.running(now);
        }
        Ok(Ticket {
            admission: self,
            _run: run,
            grant: Arc::new(Grant {
                memory: self.memory.clone(),
                held: Mutex::new(memory),
                starved: AtomicBool::new(false),
            }),
        })
    }

    /// A compile slot, waiting until `deadline` at most.
    pub(crate) async fn compile_slot(
        &self,
        deadline: Option<Instant>,
    ) -> Result<SemaphorePermit<'_>, RunError> {
        until(deadline, self.compiles.acquire())
            .await
            .and_then(Result::ok)
            .ok_or(RunError::Busy {
                retry_after: RETRY_AFTER,
            })
    }

    /// An interaction's slot, waiting until `deadline` at most; refused when the sandbox has
    /// fewer than two run slots, where an interaction could never run.
    pub(crate) async fn pair_slot(
        &self,
        deadline: Option<Instant>,
    ) -> Result<SemaphorePermit<'_>, RunError> {
        if self.pair_slots == 0 {
            return Err(RunError::InvalidProgram(
                "an interaction runs two programs at once: this sandbox admits one run at a time"
                    .into(),
            ));
        }
        until(deadline, self.pairs.acquire())
            .await
            .and_then(Result::ok)
            .ok_or(RunError::Busy {
                retry_after: RETRY_AFTER,
            })
    }
}

/// `fut`'s output, or `None` when `deadline` passes first.
async fn until<T>(deadline: Option<Instant>, fut: impl Future<Output = T>) -> Option<T> {
    match deadline {
        Some(d) => tokio::time::timeout_at(d.into(), fut).await.ok(),
        None => Some(fut.await),
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
