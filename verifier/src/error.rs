//! The service's errors and their HTTP form, [`wire::ErrorBody`]:
//! `{"error": {"code", "message", "field"?}}`.
//!
//! A [`Refusal`] ([`crate::refusal`]) is what every layer says about bad input; [`ApiError`]
//! adds what only a service meets (the database away, a bug, a sandbox that cannot admit a run)
//! and maps each to a status, which the dashboard's HTML errors use too.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use wire::{ErrorBody, ErrorCode, ErrorDetail};

use crate::refusal::{Fault, Refusal};

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is refused.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// No valid token: none sent, unknown, revoked or expired (401).
    #[error("{0}")]
    Unauthenticated(String),
    /// The token may not do this: it lacks the route's scope (`field` is `authorization`), or
    /// writes for another agent than its own (`field` names where that agent is) (403).
    #[error("{message}")]
    Forbidden {
        /// What is refused.
        field: String,
        /// Why.
        message: String,
    },
    /// The database cannot be reached; nothing was stored by this request.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// Every sandbox slot stays taken for longer than the request's own time budget: 504 with
    /// `Retry-After`, sent while the client still waits. SandboxFusion answers so when it cannot
    /// run a request in time, and it is the one status verl's client retries (a 503 or a read
    /// timeout would be final there, and would cost the sample its reward).
    #[error(
        "every sandbox slot is taken for longer than this request's time budget; retry in {} s",
        whole_seconds(*.0)
    )]
    Busy(Duration),
    /// The token is over its request rate or its sandbox share (429, `Retry-After`).
    #[error("{message}")]
    TooManyRequests {
        /// Which limit, and why.
        message: String,
        /// How long until a retry can pass.
        wait: Duration,
    },
    /// A bug or an unexpected database error.
    #[error("internal error: {0}")]
    Internal(String),
}

/// A wait as `Retry-After` states it: whole seconds, at least one.
fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

impl ApiError {
    /// A 422 naming `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Refusal::invalid(field, message).into()
    }

    /// A 404 naming `field`.
    pub fn not_found(field: impl Into<String>, message: impl Into<String>) -> Self {
        Refusal::new(Fault::NotFound, field, message).into()
    }

    /// A 409 naming `field`.
    pub fn conflict(field: impl Into<String>, message: impl Into<String>) -> Self {
        Refusal::new(Fault::Conflict, field, message).into()
    }

    /// The HTTP status this error answers with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::Refused(r) => match r.fault {
                Fault::Unreadable => StatusCode::BAD_REQUEST,
                Fault::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
                Fault::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
                Fault::NotFound => StatusCode::NOT_FOUND,
                Fault::Conflict => StatusCode::CONFLICT,
            },
            Self::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Busy(_) => StatusCode::GATEWAY_TIMEOUT,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The field the error names, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Refused(r) => r.field.as_deref(),
            Self::Unauthenticated(_) | Self::TooManyRequests { .. } => Some("authorization"),
            Self::Forbidden { field, .. } => Some(field),
            Self::Unavailable(_) | Self::Busy(_) | Self::Internal(_) => None,
        }
    }

    fn code(&self) -> ErrorCode {
        match self {
            Self::Refused(r) => match r.fault {
                Fault::Unreadable | Fault::TooLarge | Fault::Invalid => ErrorCode::InvalidRequest,
                Fault::NotFound => ErrorCode::NotFound,
                Fault::Conflict => ErrorCode::Conflict,
            },
            Self::Unauthenticated(_) => ErrorCode::Unauthenticated,
            Self::Forbidden { .. } => ErrorCode::Forbidden,
            Self::TooManyRequests { .. } => ErrorCode::RateLimited,
            Self::Unavailable(_) => ErrorCode::DatabaseUnavailable,
            Self::Busy(_) => ErrorCode::SandboxBusy,
            Self::Internal(_) => ErrorCode::Internal,
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            // Connection-level failures mean the database is away, not that the request is bad.
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => Self::Unavailable(e.to_string()),
            sqlx::Error::Database(db)
                if db
                    .code()
                    .is_some_and(|c| c.starts_with("08") || c.starts_with("57P")) =>
            {
                Self::Unavailable(e.to_string())
            }
            _ => Self::Internal(e.to_string()),
        }
    }
}

impl From<crate::ingest::IngestError> for ApiError {
    fn from(e: crate::ingest::IngestError) -> Self {
        use crate::ingest::IngestError as E;
        match e {
            E::Refused(r) => Self::Refused(r),
            E::Database(e) => e.into(),
            E::Internal(m) => Self::Internal(m),
        }
    }
}

impl From<sandbox::RunError> for ApiError {
    fn from(e: sandbox::RunError) -> Self {
        use sandbox::RunError as E;
        match e {
            E::InvalidProgram(m) => Self::invalid("code", m),
            E::UnsupportedLanguage(m) => Self::invalid("language", m),
            E::Busy { retry_after } => Self::Busy(retry_after),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        // A busy sandbox is load, not a failure of the service.
        if status.is_server_error() && !matches!(self, Self::Busy(_)) {
            tracing::error!(error = %self, "request failed");
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code(),
                message: self.to_string(),
                field: self.field().map(str::to_string),
            },
        };
        let mut response = (status, Json(body)).into_response();
        match self {
            Self::Busy(wait) | Self::TooManyRequests { wait, .. } => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, whole_seconds(wait).into());
            }
            // Bearer for API clients; Basic makes a browser ask for the token (as the password)
            // on the dashboard.
            Self::Unauthenticated(_) => {
                let h = response.headers_mut();
                h.append(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"hacrl\""),
                );
                h.append(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Basic realm=\"hacrl\", charset=\"UTF-8\""),
                );
            }
            _ => {}
        }
        response
    }
}
