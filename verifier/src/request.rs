//! What a request carries and how it is refused: the JSON body, query string and path parts
//! the API and the dashboard read (axum extractors), whose errors name the offending field
//! (`rollouts[2].task_id`), and the NUL check on paths and queries.

use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use bytes::Bytes;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::ingest::{RunName, Step};
use crate::refusal::{Fault, Refusal};

/// A JSON body, parsed with field paths in errors (400 for unreadable JSON, 422 for bad values).
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = body_bytes(req, state).await?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// Reads the whole body, turning an over-limit body into a 413.
pub async fn body_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|e| {
        let fault = if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Fault::TooLarge
        } else {
            Fault::Unreadable
        };
        Refusal {
            fault,
            field: None,
            message: e.body_text(),
        }
        .into()
    })
}

/// Parses JSON, reporting where it failed.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let fault = if inner.is_syntax() || inner.is_eof() {
            Fault::Unreadable
        } else {
            Fault::Invalid
        };
        invalid(path, inner.to_string(), fault)
    })?;
    de.end()
        .map_err(|e| invalid(".".into(), e.to_string(), Fault::Unreadable))?;
    Ok(value)
}

/// A query string, parsed with the parameter name in errors (422).
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(ApiQuery)
            .map_err(|e| {
                let path = e.path().to_string();
                invalid(path, e.into_inner().to_string(), Fault::Invalid)
            })
    }
}

/// Builds the error, completing the path with the field serde names in "missing field `x`".
fn invalid(path: String, message: String, fault: Fault) -> ApiError {
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|p| message.split_once(p))
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(name, _)| name.to_string());
    let field = match (path.as_str(), named) {
        (".", Some(name)) => Some(name),
        (".", None) => None,
        (p, Some(name)) if !p.ends_with(name.as_str()) => Some(format!("{p}.{name}")),
        (p, _) => Some(p.to_string()),
    };
    let message = match &field {
        Some(f) => format!("{f}: {message}"),
        None => message,
    };
    Refusal {
        fault,
        field,
        message,
    }
    .into()
}

/// The `{run}` and `{step}` of a path such as `/v1/runs/{run}/steps/{step}`, checked as
/// everywhere else (a 422 names the part).
pub struct RunStep {
    /// The run.
    pub run: RunName,
    /// The step.
    pub step: Step,
}

impl<S: Send + Sync> FromRequestParts<S> for RunStep {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((run, step)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::invalid("run", e.body_text()))?;
        Ok(Self {
            run: RunName::try_from(run).map_err(|e| ApiError::invalid("run", e))?,
            step: step
                .parse()
                .map_err(|e: String| ApiError::invalid("step", e))?,
        })
    }
}

/// The `{run}` of a path such as `/ui/runs/{run}`, checked as everywhere else.
pub struct RunPath(pub RunName);

impl<S: Send + Sync> FromRequestParts<S> for RunPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(run) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::invalid("run", e.body_text()))?;
        RunName::try_from(run)
            .map(Self)
            .map_err(|e| ApiError::invalid("run", e))
    }
}

/// The first path segment or query parameter of `uri` that holds a NUL (U+0000), which
/// Postgres text cannot hold: the name of the route's `{param}` at that segment, or the query
/// parameter's name. Bodies are checked where they are read ([`crate::ingest`]).
pub fn nul_parameter(route: &str, uri: &axum::http::Uri) -> Option<String> {
    let pattern: Vec<&str> = route.split('/').collect();
    for (i, segment) in uri.path().split('/').enumerate() {
        let decoded = form_urlencoded::parse(format!("x={segment}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        if decoded.contains('\0') {
            // Past the pattern's end is its `{*rest}`.
            let tail = pattern.last().filter(|p| p.starts_with("{*"));
            let name = pattern.get(i).or(tail).copied().unwrap_or("path");
            return Some(name.trim_matches(['{', '}', '*']).to_string());
        }
    }
    let query = uri.query().unwrap_or_default();
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, v)| k.contains('\0') || v.contains('\0'))
        .map(|(k, _)| k.replace('\0', "\\0"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        task_id: uuid::Uuid,
        step: i64,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Batch {
        items: Vec<Item>,
    }

    fn field_of(body: &str) -> (Option<String>, StatusCode) {
        match parse_json::<Batch>(body.as_bytes()) {
            Err(e @ ApiError::Refused(_)) => (e.field().map(str::to_string), e.status()),
            other => panic!("expected an invalid-request error, got {other:?}"),
        }
    }

    #[test]
    fn a_nul_in_a_path_or_query_names_its_parameter() {
        let nul = |route: &str, uri: &str| nul_parameter(route, &uri.parse().unwrap());
        let agent = "/v1/agents/{agent}";
        assert_eq!(nul(agent, "/v1/agents/a%00b").as_deref(), Some("agent"));
        assert_eq!(
            nul(agent, "/v1/agents/ab?window=%00").as_deref(),
            Some("window")
        );
        assert_eq!(nul(agent, "/v1/agents/ab?window=3&run=x"), None);
        assert_eq!(nul("/ui/{*rest}", "/ui/x/%00").as_deref(), Some("rest"));
    }

    #[test]
    fn errors_name_the_field() {
        let ok = r#"{"items":[{"task_id":"67e55044-10b1-426f-9247-bb680e5fe0c8","step":1}]}"#;
        assert!(parse_json::<Batch>(ok.as_bytes()).is_ok());
        let bad_uuid = r#"{"items":[{"task_id":"67e55044-10b1-426f-9247-bb680e5fe0c8","step":1},{"task_id":"x","step":1}]}"#;
        assert_eq!(
            field_of(bad_uuid),
            (
                Some("items[1].task_id".into()),
                StatusCode::UNPROCESSABLE_ENTITY
            )
        );
        let missing = r#"{"items":[{"step":1}]}"#;
        assert_eq!(
            field_of(missing),
            (
                Some("items[0].task_id".into()),
                StatusCode::UNPROCESSABLE_ENTITY
            )
        );
        let unknown =
            r#"{"items":[{"task_id":"67e55044-10b1-426f-9247-bb680e5fe0c8","step":1,"stpe":2}]}"#;
        assert_eq!(field_of(unknown).0.as_deref(), Some("items[0].stpe"));
        assert_eq!(field_of("{\"items\": [").1, StatusCode::BAD_REQUEST);
        assert_eq!(
            field_of(r#"{"items": []} trailing"#).1,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            field_of("{}"),
            (Some("items".into()), StatusCode::UNPROCESSABLE_ENTITY)
        );
    }
}
