//! The HTTP API: one [`AppState`], small handlers per resource, errors as [`ApiError`].

pub mod agents;
pub mod capabilities;
pub mod code;
pub mod extract;
pub mod health;
pub mod pool;
pub mod rollouts;
pub mod tasks;
pub mod training;
pub mod verify;

pub use crate::ingest::{check_json, check_size, check_text};

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::HeaderName;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;
use tower_http::decompression::RequestDecompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;

pub use extract::{ApiJson, ApiQuery};

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
}

/// The OpenAPI document served at `/openapi.json`.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "HACRL verifier",
        description = "Scores model outputs and keeps the shared experience pool."
    ),
    paths(
        agents::create,
        agents::list,
        agents::get,
        agents::capability,
        tasks::upload,
        tasks::list,
        rollouts::submit,
        rollouts::list,
        pool::groups,
        pool::step,
        training::record,
        training::list,
        verify::math,
        verify::reward,
        code::verify,
        code::run_code,
        capabilities::get,
        health::healthz,
        health::readyz,
        health::metrics,
    )
)]
pub struct ApiDoc;

impl AppState {
    /// The state of a service scoring with `judge` and default math options.
    pub fn new(db: PgPool, judge: crate::code::Judge, limits: Limits) -> Self {
        Self {
            db,
            scorer: Arc::new(Scorer::new(judge, crate::math::Options::default())),
            prometheus: crate::telemetry::prometheus(),
            limits: Arc::new(limits),
        }
    }
}

/// Serves the API on `listener` until the future is dropped (tests, embedding).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole service.
pub fn router(state: AppState) -> Router {
    let body_limit = state.limits.max_body_bytes;
    Router::new()
        .route("/v1/agents", post(agents::create).get(agents::list))
        .route("/v1/agents/{agent}", get(agents::get))
        .route("/v1/agents/{agent}/capability", get(agents::capability))
        .route("/v1/tasks", post(tasks::upload).get(tasks::list))
        .route("/v1/rollouts", post(rollouts::submit).get(rollouts::list))
        .route("/v1/pool/groups", get(pool::groups))
        .route("/v1/runs/{run}/steps/{step}", get(pool::step))
        .route("/v1/metrics", post(training::record).get(training::list))
        .route("/v1/verify/math", post(verify::math))
        .route("/v1/reward", post(verify::reward))
        .merge(code::routes())
        .route("/v1/capabilities", get(capabilities::get))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/openapi.json", get(|| async { axum::Json(ApiDoc::openapi()) }))
        // HTML pages, not part of the OpenAPI document: /ui (dashboard), /docs (Swagger UI).
        .merge(crate::ui::routes())
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

/// Rejects a page size outside 1–1000.
pub fn check_limit(limit: i64) -> Result<(), ApiError> {
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::invalid(
            "limit",
            "limit must be between 1 and 1000",
        ));
    }
    Ok(())
}

fn default_limit() -> i64 {
    100
}

#[cfg(test)]
mod tests {
    use super::ApiDoc;
    use utoipa::OpenApi;

    /// What schemathesis found in the document once (issue 17): query parameters documented as
    /// required path parameters, and error statuses the service answers with left out.
    #[test]
    fn the_document_lists_parameters_where_they_are_and_every_error() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let at = format!("{method} {path}");
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                for p in &params {
                    let name = p["name"].as_str().unwrap();
                    if p["in"] == "path" {
                        assert!(
                            path.contains(&format!("{{{name}}}")),
                            "{at}: {name} is not in the path"
                        );
                    }
                }
                let documented = |status: &str| op["responses"].get(status).is_some();
                if op.get("requestBody").is_some() {
                    for status in ["400", "413", "422"] {
                        assert!(documented(status), "{at} does not list {status}");
                    }
                }
                if params.iter().any(|p| p["in"] == "query") || path.contains('{') {
                    assert!(documented("422") || documented("404"), "{at} lists no 422");
                }
                for (status, r) in op["responses"].as_object().unwrap() {
                    // `/readyz` answers 503 with its own status object.
                    if (status.starts_with('4') || status.starts_with('5')) && path != "/readyz" {
                        let body = &r["content"]["application/json"]["schema"]["$ref"];
                        assert_eq!(body, "#/components/schemas/ErrorBody", "{at} {status}");
                    }
                }
            }
        }
    }
}
