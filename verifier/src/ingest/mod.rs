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

use crate::refusal::Refusal;

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
