//! Refused input, below every layer that refuses it ([`crate::ingest`], the handlers, the
//! dashboard): what is wrong ([`Fault`]), where ([`Refusal`]), and the checks every stored or
//! scored text and JSON value meets (size, NUL characters, numbers the pool cannot read back).

/// What is wrong with refused input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// It cannot be read at all (not UTF-8, not JSON): 400.
    Unreadable,
    /// The body is over the size limit: 413.
    TooLarge,
    /// Well-formed, with a bad value: 422.
    Invalid,
    /// A referenced agent, task or rollout does not exist: 404.
    NotFound,
    /// It conflicts with what is stored (e.g. a reused id with other content): 409.
    Conflict,
}

/// Refused input, naming where the problem is; nothing of it was stored.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// What kind of problem.
    pub fault: Fault,
    /// Where, e.g. `rollouts[2].task_id`.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Refusal {
    /// A refusal of `fault` naming `field`.
    pub fn new(fault: Fault, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            fault,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A bad value at `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Fault::Invalid, field, message)
    }
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
const MAX_JSON_MAGNITUDE: f64 = wire::json::MAX_MAGNITUDE;

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
