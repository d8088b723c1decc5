//! The one rule for how long a request's runs may take, which every route that runs code
//! follows (`/v1/verify/code`, `/v1/reward`, the pool's code tasks, `/run_code`).

use std::num::NonZeroU64;
use std::time::Duration;

use sandbox::Limits;

use super::MAX_FUEL;
use crate::refusal::Refusal;

/// How many times the service's wall-clock limit a fuel-budgeted run may take: load may slow it
/// that much before the clock, not its budget, ends it.
pub const FUEL_WALL_GUARD: u32 = 10;

/// What a request asks of its runs' time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBudget {
    /// The route's own limits.
    Default,
    /// This wall-clock time.
    WallTime(Duration),
    /// This much wasm fuel; the wall clock only guards the service, [`FUEL_WALL_GUARD`] times
    /// the route's own.
    Fuel(u64),
}

impl TimeBudget {
    /// What a task's `fuel_limit` and `time_limit_ms` ask (a code reference's, a checker's):
    /// fuel when given, else the time capped at the route's `wall_time`, else the route's own.
    pub fn of_task(
        fuel_limit: Option<NonZeroU64>,
        time_limit_ms: Option<NonZeroU64>,
        wall_time: Duration,
    ) -> TimeBudget {
        match (fuel_limit, time_limit_ms) {
            (Some(fuel), _) => TimeBudget::Fuel(fuel.get()),
            (None, Some(ms)) => {
                TimeBudget::WallTime(wall_time.min(Duration::from_millis(ms.get())))
            }
            (None, None) => TimeBudget::Default,
        }
    }
}

/// The limits of a request's runs: `base` (the route's own) under `budget`. A fuel budget is
/// refused (naming `fuel_limit`) where the sandbox does not meter fuel (`metered`) or where it is
/// outside 1..=[`MAX_FUEL`].
pub fn for_request(base: &Limits, metered: bool, budget: TimeBudget) -> Result<Limits, Refusal> {
    let mut limits = base.clone();
    match budget {
        TimeBudget::Default => {}
        TimeBudget::WallTime(d) => limits.wall_time = d,
        TimeBudget::Fuel(_) if !metered => {
            return Err(Refusal::invalid(
                "fuel_limit",
                "this service does not meter fuel (--sandbox-fuel false)",
            ));
        }
        TimeBudget::Fuel(fuel) if fuel == 0 || fuel > MAX_FUEL => {
            return Err(Refusal::invalid(
                "fuel_limit",
                format!("fuel_limit must be in 1..={MAX_FUEL}"),
            ));
        }
        TimeBudget::Fuel(fuel) => {
            limits.fuel = Some(fuel);
            limits.wall_time *= FUEL_WALL_GUARD;
        }
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_asks_fuel_first_then_a_capped_time() {
        let n = |v| NonZeroU64::new(v);
        let wall = Duration::from_secs(10);
        assert_eq!(TimeBudget::of_task(n(7), n(300), wall), TimeBudget::Fuel(7));
        assert_eq!(
            TimeBudget::of_task(None, n(300), wall),
            TimeBudget::WallTime(Duration::from_millis(300))
        );
        assert_eq!(
            TimeBudget::of_task(None, n(60_000), wall),
            TimeBudget::WallTime(wall)
        );
        assert_eq!(TimeBudget::of_task(None, None, wall), TimeBudget::Default);
    }

    #[test]
    fn fuel_replaces_the_clock_and_needs_metering() {
        let base = Limits {
            wall_time: Duration::from_secs(2),
            ..Limits::default()
        };
        let fuelled = for_request(&base, true, TimeBudget::Fuel(5_000)).unwrap();
        assert_eq!(fuelled.fuel, Some(5_000));
        assert_eq!(fuelled.wall_time, Duration::from_secs(20));
        let short = for_request(
            &base,
            true,
            TimeBudget::WallTime(Duration::from_millis(300)),
        );
        assert_eq!(short.unwrap().wall_time, Duration::from_millis(300));
        assert_eq!(
            for_request(&base, false, TimeBudget::Default).unwrap(),
            base
        );
        for refused in [
            for_request(&base, false, TimeBudget::Fuel(5_000)),
            for_request(&base, true, TimeBudget::Fuel(0)),
            for_request(&base, true, TimeBudget::Fuel(MAX_FUEL + 1)),
        ] {
            assert_eq!(refused.unwrap_err().field.as_deref(), Some("fuel_limit"));
        }
    }
}
