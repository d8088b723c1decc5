//! The error responses of the OpenAPI document, declared once per kind of operation: each
//! path lists the sets that fit it (a JSON body, a query, the pool read or written) next to its
//! own statuses (e.g. a 409 saying what conflicts).

use std::collections::BTreeMap;

use utoipa::IntoResponses;
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};

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
