//! Memory accounting for one store: enforces the limit, charges the growth to the run's share
//! of the sandbox's memory budget, and records the peak.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use wasmtime::ResourceLimiter;

use crate::admission::Grant;

/// Figures a meter reports; shared so they survive the store being dropped on a timeout.
#[derive(Debug, Default)]
pub(crate) struct MeterStats {
    peak: AtomicU64,
    hit_limit: AtomicBool,
}

impl MeterStats {
    /// Highest total linear memory seen, in bytes.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Whether a growth was refused because of the limit.
    pub(crate) fn hit_limit(&self) -> bool {
        self.hit_limit.load(Ordering::Relaxed)
    }
}

/// Error a growth raises when the sandbox's memory budget, not the run's limit, cannot cover
/// it: the run ends without a verdict (see `admission`).
#[derive(Debug, thiserror::Error)]
#[error("the sandbox's memory budget is exhausted")]
pub(crate) struct BudgetExhausted;

/// Tracks total linear memory across an instance's memories.
pub(crate) struct MemoryMeter {
    limit: u64,
    current: u64,
    grant: Arc<Grant>,
    stats: Arc<MeterStats>,
}

impl MemoryMeter {
    /// A meter allowing `limit` bytes in total, charged to `grant`, and a handle on its figures.
    pub(crate) fn new(limit: u64, grant: Arc<Grant>) -> (MemoryMeter, Arc<MeterStats>) {
        let stats = Arc::new(MeterStats::default());
        let meter = MemoryMeter {
            limit,
            current: 0,
            grant,
            stats: stats.clone(),
        };
        (meter, stats)
    }

    /// Total linear memory now, in bytes.
    pub(crate) fn current(&self) -> u64 {
        self.current
    }
}

impl ResourceLimiter for MemoryMeter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if maximum.is_some_and(|m| desired > m) {
            return Ok(false);
        }
        let total = self.current.saturating_sub(current as u64) + desired as u64;
        if total > self.limit {
            // Refusing (rather than trapping) lets the guest see a failed allocation, e.g. MemoryError.
            self.stats.hit_limit.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        if !self.grant.cover(total) {
            return Err(wasmtime::Error::new(BudgetExhausted));
        }
        self.current = total;
        self.stats.peak.fetch_max(total, Ordering::Relaxed);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // Tables hold function references; a million entries is far beyond any real program.
        Ok(desired <= 1 << 20 && maximum.is_none_or(|m| desired <= m))
    }

    fn instances(&self) -> usize {
        100
    }

    fn tables(&self) -> usize {
        100
    }

    fn memories(&self) -> usize {
        100
    }
}
