//! The composition root: the state every handler shares, and the whole service built from the
//! API's routes ([`crate::api::routes`]) and the dashboard's ([`crate::ui::routes`]).

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::HeaderName;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;
use tower_http::decompression::RequestDecompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::auth::Auth;
use crate::auth::quota::{Quota, Quotas};
use crate::error::ApiError;
use crate::scoring::Scorer;

/// Request-size and batch limits.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most rollouts in one submission.
    pub max_batch: usize,
    /// Largest response text, in bytes.
    pub max_response_bytes: usize,
}

impl Default for Limits {
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
    pub limits: Arc<Limits>,
    /// Whether requests need a token ([`crate::auth`]).
    pub auth: Auth,
    /// Every token's request rate and sandbox share.
    pub quotas: Arc<Quotas>,
}

impl AppState {
    /// The state of an open service (no tokens asked) scoring with `judge` and default math
    /// options.
    pub fn new(db: PgPool, judge: crate::code::Judge, limits: Limits) -> Self {
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

/// Serves the service on `listener` until the future is dropped (tests, embedding).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole service: the API, the dashboard and the docs, with tokens checked per route,
/// logging, metrics and limits.
pub fn router(state: AppState) -> Router {
    let body_limit = state.limits.max_body_bytes;
    Router::new()
        .merge(crate::api::routes())
        // HTML pages, not part of the OpenAPI document: /ui (dashboard), /docs (Swagger UI).
        .merge(crate::ui::routes())
        // Matched routes only: an unknown path stays a 404 for anyone. Tokens first, then bad
        // bytes (a 422 names the parameter).
        .route_layer(middleware::from_fn(refuse_nul))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            crate::auth::authenticate,
        ))
        .fallback(|| async { ApiError::not_found("path", "no such route") })
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(RequestDecompressionLayer::new())
        .layer(middleware::from_fn(record_http))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request| {
            let id = req.headers().get(&REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id = %id)
        }))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .with_state(state)
}

/// Refuses a NUL in any path segment or query parameter (Postgres text cannot hold one; it
/// would be a 500 wherever a handler passes the text on).
async fn refuse_nul(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("", MatchedPath::as_str);
    if let Some(name) = crate::extract::nul_parameter(route, req.uri()) {
        let message = format!("{name} contains a NUL character (U+0000), which is not accepted");
        return ApiError::invalid(name, message).into_response();
    }
    next.run(req).await
}

/// Counts requests and their latency per route and status.
async fn record_http(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let method = req.method().to_string();
    let start = Instant::now();
    let response = next.run(req).await;
    let status = response.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("verifier_http_requests_total", &labels).increment(1);
    metrics::histogram!("verifier_http_request_duration_seconds", &labels)
        .record(start.elapsed().as_secs_f64());
    response
}
