//! Taking data into the pool, below the HTTP layer: rollouts verified then stored
//! ([`submit_rollouts`]), task rows checked then imported ([`import_tasks`]). The API and the
//! CLI both call it; every refusal names the offending field, and nothing is stored on one.

pub mod rollouts;
pub mod tasks;

pub use rollouts::{BatchLimits, submit_rollouts};
pub use tasks::{import_tasks, parse_lines, validate_tasks};

/// Why an ingest was refused (nothing of it was stored).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// Input that cannot be read at all (not UTF-8, not JSON).
    #[error("{message}")]
    Unreadable {
        /// Where, when it can be said (e.g. `lines[3]`).
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// Well-formed input with a bad value.
    #[error("{message}")]
    Invalid {
        /// Where, e.g. `rollouts[2].step`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A referenced task or agent does not exist.
    #[error("{message}")]
    NotFound {
        /// The field holding the unknown id.
        field: String,
        /// What was not found.
        message: String,
    },
    /// An id or name already stored with other content.
    #[error("{message}")]
    Conflict {
        /// The conflicting field.
        field: String,
        /// What conflicts.
        message: String,
    },
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A bug (e.g. a grading thread panicked).
    #[error("{0}")]
    Internal(String),
}

impl IngestError {
    /// A bad value at `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Rejects text longer than `max` bytes, naming `field` (for text that is scored, not stored).
pub fn check_size(field: &str, text: &str, max: usize) -> Result<(), IngestError> {
    if text.len() > max {
        return Err(IngestError::invalid(
            field,
            format!("{field} is {} bytes; the limit is {max}", text.len()),
        ));
    }
    Ok(())
}

/// Rejects text to be stored that is longer than `max` bytes or holds a NUL character, which
/// Postgres text cannot store, naming `field`.
pub fn check_text(field: &str, text: &str, max: usize) -> Result<(), IngestError> {
    check_size(field, text, max)?;
    if text.contains('\0') {
        return Err(nul_error(field));
    }
    Ok(())
}

/// Rejects JSON to be stored with a NUL character in any key or string (jsonb cannot hold one).
pub fn check_json(field: &str, value: &serde_json::Value) -> Result<(), IngestError> {
    fn has_nul(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => s.contains('\0'),
            serde_json::Value::Array(a) => a.iter().any(has_nul),
            serde_json::Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
            _ => false,
        }
    }
    if has_nul(value) {
        return Err(nul_error(field));
    }
    Ok(())
}

fn nul_error(field: &str) -> IngestError {
    IngestError::invalid(
        field,
        format!("{field} contains a NUL character (U+0000), which the pool cannot store"),
    )
}
