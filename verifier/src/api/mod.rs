//! The HTTP API: small handlers per resource (read the [`request`](crate::request) → call → map), errors as [`ApiError`],
//! and the OpenAPI document that describes them.

pub mod agents;
pub mod code;
pub mod doc;
pub mod health;
pub mod languages;
pub mod pool;
pub mod rollouts;
pub mod tasks;
pub mod training;
pub mod verify;

use utoipa::OpenApi;

use crate::error::ApiError;

/// The OpenAPI document of the API's operations; `/openapi.json` serves it with the security
/// the running service asks for ([`crate::routes::document`]).
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
        languages::get,
        health::healthz,
        health::readyz,
        health::metrics,
    ),
    // Error bodies come from the shared sets of `doc` too, which name no schema themselves.
    components(schemas(wire::ErrorBody, wire::json::StoredJson, crate::task::TaskKind))
)]
pub struct ApiDoc;

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
