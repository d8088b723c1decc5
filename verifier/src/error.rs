//! The service's errors and their HTTP form, [`wire::ErrorBody`]:
//! `{"error": {"code", "message", "field"?}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use wire::{ErrorBody, ErrorCode, ErrorDetail};

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request body or a parameter is malformed or fails validation.
    #[error("{message}")]
    Invalid {
        /// Where the problem is, e.g. `rollouts[2].task_id`.
        field: Option<String>,
        /// What is wrong.
        message: String,
        /// 400 for unreadable input, 422 for well-formed input with bad values.
        status: StatusCode,
    },
    /// A referenced agent, task or rollout does not exist.
    #[error("{message}")]
    NotFound {
        /// The field that held the unknown reference.
        field: Option<String>,
        /// What was not found.
        message: String,
    },
    /// The request conflicts with what is stored (e.g. a reused id with other content).
    #[error("{message}")]
    Conflict {
        /// The conflicting field.
        field: Option<String>,
        /// What conflicts.
        message: String,
    },
    /// The database cannot be reached; nothing was stored by this request.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A bug or an unexpected database error.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// A 422 naming `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: Some(field.into()),
            message: message.into(),
            status: StatusCode::UNPROCESSABLE_ENTITY,
        }
    }

    /// A 404 naming `field`.
    pub fn not_found(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::NotFound {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A 409 naming `field`.
    pub fn conflict(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Conflict {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    fn parts(&self) -> (StatusCode, ErrorCode, Option<&str>) {
        match self {
            Self::Invalid { status, field, .. } => {
                (*status, ErrorCode::InvalidRequest, field.as_deref())
            }
            Self::NotFound { field, .. } => {
                (StatusCode::NOT_FOUND, ErrorCode::NotFound, field.as_deref())
            }
            Self::Conflict { field, .. } => {
                (StatusCode::CONFLICT, ErrorCode::Conflict, field.as_deref())
            }
            Self::Unavailable(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::DatabaseUnavailable,
                None,
            ),
            Self::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, None),
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
            E::Unreadable { field, message } => Self::Invalid {
                field,
                message,
                status: StatusCode::BAD_REQUEST,
            },
            E::Invalid { field, message } => Self::invalid(field, message),
            E::NotFound { field, message } => Self::not_found(field, message),
            E::Conflict { field, message } => Self::conflict(field, message),
            E::Database(e) => e.into(),
            E::Internal(m) => Self::Internal(m),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, field) = self.parts();
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code,
                message: self.to_string(),
                field: field.map(str::to_string),
            },
        };
        (status, Json(body)).into_response()
    }
}
