//! The body of every error response: `{"error": {"code", "message", "field"?}}`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The JSON body of every error response.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// Machine- and human-readable description of an error.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// Stable code: `invalid_request`, `unauthenticated`, `forbidden`, `not_found`, `conflict`, `database_unavailable`, `internal`.
    #[cfg_attr(feature = "schema", schema(value_type = String))]
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
    /// The offending field, as a path into the request (`rollouts[2].task_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// The stable codes of [`ErrorDetail`]; clients branch on these, never on messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed input (400) or well-formed input with bad values (422).
    InvalidRequest,
    /// No valid token: none sent, unknown, revoked or expired (401).
    Unauthenticated,
    /// The token lacks the scope, or writes for another agent (403).
    Forbidden,
    /// The token is over its request rate or sandbox share (429, `Retry-After`).
    RateLimited,
    /// A referenced agent, task or rollout does not exist (404).
    NotFound,
    /// The request conflicts with what is stored (409).
    Conflict,
    /// The database cannot be reached; nothing was stored (503).
    DatabaseUnavailable,
    /// Every sandbox slot stays taken past the request's time budget (503, `Retry-After`).
    SandboxBusy,
    /// A bug or an unexpected database error (500).
    Internal,
}

impl ErrorCode {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::Unauthenticated => "unauthenticated",
            Self::Forbidden => "forbidden",
            Self::RateLimited => "rate_limited",
            Self::NotFound => "not_found",
            Self::Conflict => "conflict",
            Self::DatabaseUnavailable => "database_unavailable",
            Self::SandboxBusy => "sandbox_busy",
            Self::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_wire_names() {
        for code in [
            ErrorCode::InvalidRequest,
            ErrorCode::Unauthenticated,
            ErrorCode::Forbidden,
            ErrorCode::RateLimited,
            ErrorCode::NotFound,
            ErrorCode::Conflict,
            ErrorCode::DatabaseUnavailable,
            ErrorCode::SandboxBusy,
            ErrorCode::Internal,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }
}
