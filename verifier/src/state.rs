//! What every handler shares ([`AppState`]) and the limits on what a request may carry
//! ([`RequestLimits`]), below the routers that use them.

use std::sync::Arc;

use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;

use crate::auth::Auth;
use crate::auth::quota::{Quota, Quotas};
use crate::scoring::Scorer;

/// Request-size and batch limits.
#[derive(Debug, Clone)]
pub struct RequestLimits {
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most rollouts in one submission.
    pub max_batch: usize,
    /// Largest response text, in bytes.
    pub max_response_bytes: usize,
}

impl Default for RequestLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: 64 << 20,
            max_batch: 4096,
            max_response_bytes: 1 << 20,
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The pool's database.
    pub db: PgPool,
    /// Scores responses.
    pub scorer: Arc<Scorer>,
    /// Renders `/metrics`.
    pub prometheus: PrometheusHandle,
    /// Request limits.
    pub limits: Arc<RequestLimits>,
    /// Whether requests need a token ([`crate::auth`]).
    pub auth: Auth,
    /// Every token's request rate and sandbox share.
    pub quotas: Arc<Quotas>,
}

impl AppState {
    /// The state of an open service (no tokens asked) scoring with `judge` and default math
    /// options.
    pub fn new(db: PgPool, judge: crate::code::Judge, limits: RequestLimits) -> Self {
        Self {
            db,
            scorer: Arc::new(Scorer::new(judge, crate::math::Options::default())),
            prometheus: crate::telemetry::prometheus(),
            limits: Arc::new(limits),
            auth: Auth::Open,
            quotas: Arc::new(Quotas::default()),
        }
    }

    /// The same service, asking for tokens as `auth` says.
    pub fn with_auth(self, auth: Auth) -> Self {
        Self { auth, ..self }
    }

    /// The same service, with `defaults` as the limits of tokens that set none.
    pub fn with_token_defaults(self, defaults: Quota) -> Self {
        Self {
            quotas: Arc::new(Quotas::new(defaults)),
            ..self
        }
    }
}
