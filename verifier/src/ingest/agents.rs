//! Registering an agent: the rules its fields meet.

use wire::NewAgent;

use crate::refusal::Refusal;
use crate::refusal::{check_json, check_text};

/// Checks an agent to register: a name of at most 200 bytes that is not blank, a positive size,
/// metadata that is a JSON object the pool can store.
pub fn validate_agent(new: &NewAgent) -> Result<(), Refusal> {
    check_text("name", &new.name, 200)?;
    if new.name.trim().is_empty() {
        return Err(Refusal::invalid("name", "name must not be empty"));
    }
    if let Some(size) = new.size_params.filter(|&n| n <= 0) {
        return Err(Refusal::invalid(
            "size_params",
            format!("size_params must be positive, got {size}"),
        ));
    }
    if let Some(m) = &new.metadata {
        if !m.is_object() {
            return Err(Refusal::invalid(
                "metadata",
                "metadata must be a JSON object",
            ));
        }
        check_json("metadata", m)?;
    }
    Ok(())
}
