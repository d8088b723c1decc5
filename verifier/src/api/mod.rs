//! The HTTP API: small handlers per resource (extract → call → map), errors as [`ApiError`],
//! and the OpenAPI document that describes them.

pub mod agents;
pub mod capabilities;
pub mod code;
pub mod doc;
pub mod health;
pub mod pool;
pub mod rollouts;
pub mod tasks;
pub mod training;
pub mod verify;

use axum::Router;
use axum::routing::{get, post};
use utoipa::OpenApi;

use crate::app::AppState;
use crate::error::ApiError;
use doc::Security;

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
    ),
    // Error bodies come from the shared sets of `doc` too, which name no schema themselves.
    components(schemas(wire::ErrorBody)),
    modifiers(&Security)
)]
pub struct ApiDoc;

/// The API's routes, `/openapi.json` among them.
pub fn routes() -> Router<AppState> {
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
        .route("/v1/verify/code", post(code::verify))
        .route("/run_code", post(code::run_code))
        .route("/v1/capabilities", get(capabilities::get))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route(
            "/openapi.json",
            get(|| async { axum::Json(ApiDoc::openapi()) }),
        )
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
