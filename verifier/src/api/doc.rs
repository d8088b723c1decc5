//! The error responses of the OpenAPI document, declared once per kind of operation: each
//! path lists the sets that fit it (a JSON body, a query, the pool read or written) next to its
//! own statuses (e.g. a 409 saying what conflicts).

use std::collections::BTreeMap;

use axum::http::Method;
use utoipa::IntoResponses;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Response, ResponseBuilder};

use crate::auth::Access;

/// A request with a JSON body: 400 unreadable, 413 over the size limit, 422 bad values.
pub struct BodyErrors;

/// A request with query or path parameters: 422 bad values.
pub struct QueryErrors;

/// An operation that reads the pool: 503 when the database is away.
pub struct ReadErrors;

/// An operation that writes the pool: 503 when the database is away, storing nothing.
pub struct WriteErrors;

impl IntoResponses for BodyErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        errors(&[
            (400, "Unreadable JSON"),
            (413, "Body over the size limit"),
            (422, "Invalid values"),
        ])
    }
}

impl IntoResponses for QueryErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        errors(&[(422, "Invalid values")])
    }
}

impl IntoResponses for ReadErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        errors(&[(503, "Database unavailable")])
    }
}

impl IntoResponses for WriteErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        errors(&[(503, "Database unavailable; nothing was stored")])
    }
}

/// Writing as an agent: 403 when the token writes as another.
pub struct ForbiddenWrite;

impl IntoResponses for ForbiddenWrite {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        errors(&[(
            403,
            "The token lacks the scope, or writes as another agent (`field` names where)",
        )])
    }
}

/// Makes `doc` say that the service asks for tokens: the bearer scheme, and on every operation
/// that `access` (the route table's) does not leave open, the requirement and its 401 and 403
/// (the scope it needs is in the 403's description).
pub fn require_tokens(doc: &mut OpenApi, access: impl Fn(&Method, &str) -> Access) {
    doc.components
        .get_or_insert_with(Default::default)
        .add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("hacrl_<id>_<secret>")
                    .description(Some("A token from `verifier token create`"))
                    .build(),
            ),
        );
    for (path, item) in doc.paths.paths.iter_mut() {
        let ops = [
            (Method::GET, &mut item.get),
            (Method::POST, &mut item.post),
            (Method::PUT, &mut item.put),
            (Method::DELETE, &mut item.delete),
        ];
        for (method, op) in ops {
            let Some(op) = op else { continue };
            let Access::Scope(scope) = access(&method, path) else {
                continue;
            };
            op.security = Some(vec![SecurityRequirement::new::<_, _, &str>("bearer", [])]);
            let mut statuses =
                errors(&[(401, "No valid token: none, unknown, revoked or expired")]);
            let forbidden = format!("The token lacks the `{scope}` scope (or `admin`)");
            statuses.extend(errors(&[(403, forbidden.as_str())]));
            for (status, response) in statuses {
                op.responses.responses.entry(status).or_insert(response);
            }
        }
    }
}

/// Responses with [`wire::ErrorBody`] bodies.
fn errors(list: &[(u16, &str)]) -> BTreeMap<String, RefOr<Response>> {
    list.iter()
        .map(|&(status, description)| {
            let body = ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build();
            let response = ResponseBuilder::new()
                .description(description)
                .content("application/json", body)
                .build();
            (status.to_string(), response.into())
        })
        .collect()
}
