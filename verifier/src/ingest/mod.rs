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
    fn find(v: &serde_json::Value, bad: &impl Fn(&serde_json::Value) -> bool) -> bool {
        bad(v)
            || match v {
                serde_json::Value::Array(a) => a.iter().any(|x| find(x, bad)),
                serde_json::Value::Object(o) => o.values().any(|x| find(x, bad)),
                _ => false,
            }
    }
    let nul = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Object(o) => o.keys().any(|k| k.contains('\0')),
        _ => false,
    };
    if find(value, &nul) {
        return Err(nul_error(field));
    }
    let huge = |v: &serde_json::Value| v.as_f64().is_some_and(|x| x.abs() > MAX_JSON_MAGNITUDE);
    if find(value, &huge) {
        return Err(Refusal::invalid(
            field,
            format!(
                "{field} holds a number beyond ±{MAX_JSON_MAGNITUDE:e}, which the pool cannot read back"
            ),
        ));
    }
    Ok(())
}

/// The largest magnitude of a number inside stored JSON. Postgres prints a jsonb number in
/// positional notation (1e308 comes back as a 309-digit integer), and such an integer near
/// f64::MAX reads back as out of range: stored, it would make every later read of its row fail.
const MAX_JSON_MAGNITUDE: f64 = 1e300;

fn nul_error(field: &str) -> Refusal {
    Refusal::invalid(
        field,
        format!("{field} contains a NUL character (U+0000), which the pool cannot store"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn stored_json_refuses_nul_characters_and_numbers_the_pool_cannot_read_back() {
        assert!(check_json("metadata", &json!({"a": [9.9e299, -1e300, "x"]})).is_ok());
        for bad in [
            json!({"v": 1.7976931348623155e308}),
            json!([[-2e301]]),
            json!({"k": "a\u{0}b"}),
            json!({"a\u{0}": 1}),
        ] {
            let e = check_json("metadata", &bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("metadata"), "{bad}");
        }
    }
}
