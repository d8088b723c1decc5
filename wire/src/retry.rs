//! How the Rust client (`client`, feature `client`) retries a call to the verifier (the Python
//! client has its own, in `clients/python`). Every write is idempotent — rollouts
//! carry client-chosen ids, agents and tasks are upserts — so a call whose answer was lost can
//! be sent again as it was. Worth another attempt: no HTTP answer at all, 503, which the
//! service sends only when nothing was stored (database unavailable, every sandbox slot
//! taken), or 429 (the token is over its rate or sandbox share; nothing was done). Any other
//! status is final. Between attempts the wait doubles up to a cap.

use std::time::{Duration, Instant};

/// Whether an answer with HTTP `status` is worth another attempt: 503 and 429.
pub fn retryable_status(status: u16) -> bool {
    status == 503 || status == 429
}

/// How many attempts a call gets and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The wait after the first failed attempt; each later wait doubles it…
    pub first_wait: Duration,
    /// …up to this.
    pub max_wait: Duration,
    /// Attempts in all, the first one included (1: no retry).
    pub max_attempts: u32,
}

impl RetryPolicy {
    /// The attempts of one call, in order; the last one has no attempt after it.
    pub fn attempts(self) -> impl Iterator<Item = Attempt> {
        let mut wait = self.first_wait;
        (1..=self.max_attempts).map(move |number| {
            let attempt = Attempt {
                number,
                wait,
                last: number == self.max_attempts,
            };
            wait = wait.saturating_mul(2).min(self.max_wait);
            attempt
        })
    }
}

/// One attempt of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    /// 1 for the first attempt.
    pub number: u32,
    /// How long to wait after this attempt, when it failed in a retryable way, before the next.
    pub wait: Duration,
    last: bool,
}

impl Attempt {
    /// Whether another attempt may follow this one: the policy has one left and, when the call
    /// has a `deadline`, the wait ends before it.
    pub fn may_retry(&self, deadline: Option<Instant>) -> bool {
        !self.last && deadline.is_none_or(|d| Instant::now() + self.wait < d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn waits_double_up_to_the_cap_and_the_last_attempt_is_final() {
        let policy = RetryPolicy {
            first_wait: 200 * MS,
            max_wait: 1000 * MS,
            max_attempts: 5,
        };
        let attempts: Vec<Attempt> = policy.attempts().collect();
        assert_eq!(
            attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(
            attempts.iter().map(|a| a.wait).collect::<Vec<_>>(),
            [200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS]
        );
        assert!(attempts[..4].iter().all(|a| a.may_retry(None)));
        assert!(!attempts[4].may_retry(None));
    }

    #[test]
    fn a_deadline_ends_retries_before_the_wait_would_pass_it() {
        let policy = RetryPolicy {
            first_wait: 50 * MS,
            max_wait: 500 * MS,
            max_attempts: u32::MAX,
        };
        let first = policy.attempts().next().unwrap();
        let now = Instant::now();
        assert!(first.may_retry(Some(now + Duration::from_secs(60))));
        assert!(!first.may_retry(Some(now + 10 * MS)));
    }

    #[test]
    fn only_503_and_429_are_retryable() {
        assert!(retryable_status(503) && retryable_status(429));
        for status in [200, 400, 404, 409, 422, 500, 502, 504] {
            assert!(!retryable_status(status), "{status}");
        }
    }
}
