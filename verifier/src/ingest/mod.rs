//! Taking data into the pool, below the HTTP layer, and every rule input must meet: rollouts
//! verified then stored ([`submit_rollouts`]), task rows checked then imported
//! ([`import_tasks`]), agents and training metrics checked ([`validate_agent`],
//! [`validate_metrics`]), run names and steps typed ([`RunName`], [`Step`]). The API, the
//! dashboard and the CLI all call it; every refusal names the offending field, and nothing is
//! stored on one.

pub mod agents;
pub mod metrics;
pub mod rollouts;
pub mod run;
pub mod tasks;

pub use agents::validate_agent;
pub use metrics::validate_metrics;
pub use rollouts::{BatchLimits, submit_rollouts};
pub use run::{RunName, Step};
pub use tasks::{import_tasks, parse_lines, validate_tasks};

use crate::error::Refusal;

/// Why an ingest was refused or failed (nothing of it was stored).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The input is refused.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A bug (e.g. a grading thread panicked).
    #[error("{0}")]
    Internal(String),
}

/// Rejects text longer than `max` bytes, naming `field` (for text that is scored, not stored).
pub fn check_size(field: &str, text: &str, max: usize) -> Result<(), Refusal> {
    if text.len() > max {
        return Err(Refusal::invalid(
            field,
            format!("{field} is {} bytes; the limit is {max}", text.len()),
        ));
    }
    Ok(())
}

/// Rejects text to be stored that is longer than `max` bytes or holds a NUL character, which
/// Postgres text cannot store, naming `field`.
pub fn check_text(field: &str, text: &str, max: usize) -> Result<(), Refusal> {
    check_size(field, text, max)?;
    if text.contains('\0') {
        return Err(nul_error(field));
    }
    Ok(())
}

/// Rejects JSON to be stored with a NUL character in any key or string (jsonb cannot hold one).
pub fn check_json(field: &str, value: &serde_json::Value) -> Result<(), Refusal> {
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

fn nul_error(field: &str) -> Refusal {
    Refusal::invalid(
        field,
        format!("{field} contains a NUL character (U+0000), which the pool cannot store"),
    )
}
