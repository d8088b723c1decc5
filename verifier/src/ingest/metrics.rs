//! Recording one agent's training metrics for one step: the rules they meet.

use wire::StepMetrics;

use super::{RunName, Step};
use crate::refusal::Refusal;
use crate::refusal::check_json;

/// Checks metrics to record: a valid run and step, no client-set `created_at`, `extra` a JSON
/// object the pool can store.
pub fn validate_metrics(m: &StepMetrics) -> Result<(), Refusal> {
    RunName::check(&m.run).map_err(|e| Refusal::invalid("run", e))?;
    Step::check(m.step).map_err(|e| Refusal::invalid("step", e))?;
    if m.created_at.is_some() {
        return Err(Refusal::invalid(
            "created_at",
            "created_at is set by the server; leave it out",
        ));
    }
    if !m.extra.is_object() {
        return Err(Refusal::invalid("extra", "extra must be a JSON object"));
    }
    check_json("extra", &m.extra)
}
