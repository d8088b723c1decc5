//! The composition root: the whole service built from the route table ([`crate::routes`]),
//! each route behind its own guard ([`crate::middleware`]), and served.

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::HeaderName;
use axum::middleware;
use tower_http::decompression::RequestDecompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::error::ApiError;
use crate::middleware::{Need, guard, record_http, refuse_nul};
use crate::state::AppState;

/// Serves the service on `listener` until the future is dropped (tests, embedding).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole service: every route of the table with its guard, the docs pages, logging,
/// metrics and limits.
pub fn router(state: AppState) -> Router {
    let body_limit = state.limits.max_body_bytes;
    let mut app = Router::new();
    for r in crate::routes::table() {
        let need = Need {
            access: r.access,
            sandbox: r.sandbox,
        };
        // Tokens first, then bad bytes (a 422 names the parameter): a caller without a token
        // learns nothing about the route's parameters.
        let handler = r
            .handler
            .route_layer(middleware::from_fn(refuse_nul))
            .route_layer(middleware::from_fn_with_state((state.clone(), need), guard));
        app = app.route(r.path, handler);
    }
    app
        // Swagger UI: open, read-only HTML and assets describing the public API. The validator
        // badge would call validator.swagger.io: nothing leaves the host.
        .merge(SwaggerUi::new("/docs").config(Config::from("/openapi.json").validator_url("none")))
        // An unknown path stays a 404 for anyone.
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
