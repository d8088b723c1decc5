//! What makes a run repeatable: the guest's random sources seeded from the run's seed, and a
//! virtual wall clock. Without them a program that draws random numbers (Python's `random`,
//! Go's map order) or whose runtime seeds itself from the time of day (QuickJS's `Math.random`,
//! Lua's string hashes) prints and spends fuel differently on every run, and a `fuel_limit`
//! verdict near the budget flips between runs.
//!
//! The monotonic clock stays the host's: sleeps and event loops (Go's timers, JavaScript's
//! `setTimeout`) wait on it, and a program that measures elapsed time measures real time,
//! which load changes whatever the sandbox does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::StdRng;
use wasmtime_wasi::{HostWallClock, WasiCtxBuilder};

/// Where every run's wall clock starts: 2026-01-01T00:00:00Z.
pub const WALL_CLOCK_EPOCH: Duration = Duration::from_secs(1_767_225_600);

/// How far the virtual wall clock moves on each read, so that consecutive reads differ and a
/// loop that waits for the time of day to pass a mark ends.
pub const WALL_CLOCK_TICK: Duration = Duration::from_micros(1);

/// Keeps the insecure source's stream apart from the secure one's under the same seed.
const INSECURE_STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

/// Seeds both WASI random sources from `seed` and gives the guest the virtual wall clock.
pub fn apply(builder: &mut WasiCtxBuilder, seed: u64) {
    builder
        .secure_random(StdRng::seed_from_u64(seed))
        .insecure_random(StdRng::seed_from_u64(seed ^ INSECURE_STREAM))
        .insecure_random_seed(u128::from(seed))
        .wall_clock(VirtualWallClock::default());
}

/// A wall clock that starts at [`WALL_CLOCK_EPOCH`] and advances [`WALL_CLOCK_TICK`] per read.
#[derive(Default)]
struct VirtualWallClock {
    reads: AtomicU64,
}

impl HostWallClock for VirtualWallClock {
    fn resolution(&self) -> Duration {
        WALL_CLOCK_TICK
    }

    fn now(&self) -> Duration {
        let n = self.reads.fetch_add(1, Ordering::Relaxed);
        WALL_CLOCK_EPOCH + WALL_CLOCK_TICK * u32::try_from(n).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wall_clock_starts_at_the_epoch_and_ticks_per_read() {
        let clock = VirtualWallClock::default();
        assert_eq!(clock.now(), Duration::from_secs(1_767_225_600));
        assert_eq!(
            clock.now(),
            Duration::from_secs(1_767_225_600) + Duration::from_micros(1)
        );
        assert_eq!(clock.now().as_nanos() % 1_000, 0);
    }
}
