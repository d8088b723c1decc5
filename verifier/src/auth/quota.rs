//! Limits per token, so that one caller cannot starve the others: a request rate (a token
//! bucket: `rate` per second sustained, `burst` at once) and a share of the sandbox (at most
//! `sandbox` requests that may run programs in flight at once). A refusal is a 429 with
//! `Retry-After`, counted in Prometheus by token id. Limits live in this replica's memory: with
//! several replicas each one applies them on its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

use crate::error::ApiError;

/// A token's limits; `None` is no limit of that kind.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Quota {
    /// Requests per second, sustained.
    pub rate: Option<f64>,
    /// Requests at once above the sustained rate (default: one second's worth, at least 1).
    pub burst: Option<u32>,
    /// Requests that may run programs in flight at once.
    pub sandbox: Option<u32>,
}

impl Quota {
    /// This quota's limits, each one falling back to `defaults`' where unset.
    pub fn or(self, defaults: Quota) -> Quota {
        Quota {
            rate: self.rate.or(defaults.rate),
            burst: self.burst.or(defaults.burst),
            sandbox: self.sandbox.or(defaults.sandbox),
        }
    }

    fn capacity(&self, rate: f64) -> f64 {
        self.burst.map_or(rate.max(1.0), f64::from)
    }
}

/// A token bucket: `level` requests may go now, refilled at the quota's rate.
#[derive(Debug)]
struct Bucket {
    level: f64,
    at: Instant,
}

/// Every token's buckets and sandbox shares, in this replica.
#[derive(Debug, Default)]
pub struct Quotas {
    /// The limits of a token that sets none of its own.
    pub defaults: Quota,
    buckets: Mutex<HashMap<Uuid, Bucket>>,
    shares: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
}

/// What [`Quotas::admit`] lets through: hold it until the response is made.
pub type Admission = Option<OwnedSemaphorePermit>;

impl Quotas {
    /// Quotas with `defaults` for tokens that set none.
    pub fn new(defaults: Quota) -> Self {
        Self {
            defaults,
            ..Self::default()
        }
    }

    /// Admits one request of token `id` with limits `quota` (already merged with the defaults)
    /// at `now`; `runs_code` when its route may run programs. A 429 when over either limit.
    pub fn admit(
        &self,
        id: Uuid,
        quota: Quota,
        runs_code: bool,
        now: Instant,
    ) -> Result<Admission, ApiError> {
        if let Some(rate) = quota.rate {
            let capacity = quota.capacity(rate);
            let mut buckets = self.buckets.lock().expect("quota buckets");
            let b = buckets.entry(id).or_insert(Bucket {
                level: capacity,
                at: now,
            });
            let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
            b.level = (b.level + elapsed * rate).min(capacity);
            b.at = now;
            if b.level < 1.0 {
                let wait = Duration::from_secs_f64((1.0 - b.level) / rate);
                return Err(refuse(
                    id,
                    "rate",
                    wait,
                    format!("more than {rate} requests per second (burst {capacity})"),
                ));
            }
            b.level -= 1.0;
        }
        let Some(share) = quota.sandbox.filter(|_| runs_code) else {
            return Ok(None);
        };
        let semaphore = self
            .shares
            .lock()
            .expect("quota shares")
            .entry(id)
            .or_insert_with(|| Arc::new(Semaphore::new(share as usize)))
            .clone();
        semaphore.try_acquire_owned().map(Some).map_err(|_| {
            refuse(
                id,
                "sandbox",
                Duration::from_secs(1),
                format!("{share} requests that run programs are in flight already"),
            )
        })
    }
}

fn refuse(id: Uuid, limit: &'static str, wait: Duration, why: String) -> ApiError {
    metrics::counter!("verifier_token_refusals_total", "token" => id.to_string(), "limit" => limit)
        .increment(1);
    ApiError::TooManyRequests {
        message: format!("this token's {limit} limit: {why}; retry later"),
        wait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(rate: Option<f64>, burst: Option<u32>, sandbox: Option<u32>) -> Quota {
        Quota {
            rate,
            burst,
            sandbox,
        }
    }

    #[test]
    fn the_bucket_lets_a_burst_through_then_the_rate() {
        let q = Quotas::default();
        let (id, t0) = (Uuid::new_v4(), Instant::now());
        let limit = quota(Some(2.0), Some(3), None);
        for _ in 0..3 {
            assert!(q.admit(id, limit, false, t0).is_ok());
        }
        let e = q.admit(id, limit, false, t0).unwrap_err();
        assert_eq!(e.status().as_u16(), 429);
        assert!(
            matches!(e, ApiError::TooManyRequests { wait, .. } if wait == Duration::from_millis(500))
        );
        // Half a second refills one request at 2/s.
        let later = t0 + Duration::from_millis(500);
        assert!(q.admit(id, limit, false, later).is_ok());
        assert!(q.admit(id, limit, false, later).is_err());
        // Another token has its own bucket.
        assert!(q.admit(Uuid::new_v4(), limit, false, later).is_ok());
    }

    #[test]
    fn the_sandbox_share_counts_requests_in_flight_that_run_code() {
        let q = Quotas::default();
        let (id, now) = (Uuid::new_v4(), Instant::now());
        let limit = quota(None, None, Some(1));
        let held = q.admit(id, limit, true, now).unwrap();
        assert!(held.is_some());
        assert!(
            q.admit(id, limit, false, now).unwrap().is_none(),
            "routes without code pass"
        );
        assert_eq!(
            q.admit(id, limit, true, now).unwrap_err().status().as_u16(),
            429
        );
        drop(held);
        assert!(q.admit(id, limit, true, now).is_ok());
    }

    #[test]
    fn a_tokens_own_limits_come_before_the_defaults() {
        let defaults = quota(Some(10.0), None, Some(4));
        let own = quota(None, Some(5), Some(1));
        assert_eq!(own.or(defaults), quota(Some(10.0), Some(5), Some(1)));
        assert_eq!(Quota::default().capacity(0.5), 1.0);
        assert_eq!(Quota::default().capacity(20.0), 20.0);
    }
}
