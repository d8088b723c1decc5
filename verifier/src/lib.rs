//! The verifier: scores model outputs (math answers, sandboxed programs) and keeps the shared
//! experience pool in Postgres.
//!
//! - [`math`] and [`code`] judge responses; [`scoring`] dispatches by task kind; [`verdict`]
//!   is a judgement as stored and as clients may see it.
//! - [`pool`] is the Postgres data layer; [`task`] and [`dataset`] describe and import tasks;
//!   [`ingest`] takes rollouts and tasks into the pool (what the API and the CLI call).
//! - [`api`] is the HTTP service, [`error`] its error type, [`telemetry`] logs and metrics,
//!   [`ui`] the web dashboard and API docs pages.

pub mod api;
pub mod code;
pub mod dataset;
pub mod error;
pub mod ingest;
pub mod math;
pub mod pool;
pub mod scoring;
pub mod task;
pub mod telemetry;
pub mod ui;
pub mod verdict;
