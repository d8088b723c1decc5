//! What runs around the handlers: each route's token check and sandbox share ([`guard`], with
//! the route's [`Need`] from [`crate::routes`]), the refusal of NUL characters in paths and
//! queries ([`refuse_nul`]), and the HTTP metrics ([`record_http`]).

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::auth::{self, Access, Auth, Caller};
use crate::error::ApiError;
use crate::state::AppState;

/// What a route asks of a request before its handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// Who may call it.
    pub access: Access,
    /// Whether it draws on the token's sandbox share.
    pub sandbox: bool,
}

/// Checks the token the route's [`Need`] asks for and hands the handler its [`Caller`];
/// refusals are 401 (no valid token), 403 (no scope) or 429 (over the token's limits). The
/// sandbox share is held until the response is made.
pub async fn guard(
    State((s, need)): State<(AppState, Need)>,
    mut req: Request,
    next: Next,
) -> Response {
    let caller = match (s.auth, need.access) {
        (Auth::Open, _) | (_, Access::Open) => Ok(Caller::Anyone),
        (Auth::Tokens, Access::Scope(scope)) => auth::check(&s.db, req.headers(), scope).await,
    };
    let admitted = caller.and_then(|caller| {
        let admission = match &caller {
            Caller::Token(g) => s.quotas.admit(
                g.id,
                g.quota.or(s.quotas.defaults),
                need.sandbox,
                Instant::now(),
            )?,
            Caller::Anyone => None,
        };
        Ok((caller, admission))
    });
    match admitted {
        Ok((caller, _admission)) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

/// Refuses a NUL in any path segment or query parameter (Postgres text cannot hold one; it
/// would be a 500 wherever a handler passes the text on).
pub async fn refuse_nul(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("", MatchedPath::as_str);
    if let Some(name) = crate::request::nul_parameter(route, req.uri()) {
        let message = format!("{name} contains a NUL character (U+0000), which is not accepted");
        return ApiError::invalid(name, message).into_response();
    }
    next.run(req).await
}

/// Counts requests and their latency per route and status.
pub async fn record_http(req: Request, next: Next) -> Response {
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
