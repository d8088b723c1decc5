//! The verifier: scores model outputs (math answers, sandboxed programs) and keeps the shared
//! experience pool in Postgres.
//!
//! - [`math`] and [`code`] judge responses; [`scoring`] dispatches by task kind; [`verdict`]
//!   is a judgement as stored and as clients may see it.
//! - [`pool`] is the Postgres data layer; [`task`] and [`dataset`] describe and import tasks;
//!   [`ingest`] takes rollouts and tasks into the pool and holds every rule input meets (what
//!   the API, the dashboard and the CLI call).
//! - [`app`] builds the HTTP service from [`api`] (the REST API) and [`ui`] (the web dashboard
//!   and API docs pages), which share its state and read what a [`request`] carries; [`compat`]
//!   translates other projects' protocols; [`auth`] checks bearer tokens and their scopes on
//!   every route; [`error`] is the errors and their statuses;
//!   [`telemetry`] logs and metrics.

pub mod api;
pub mod app;
pub mod auth;
pub mod code;
pub mod compat;
pub mod dataset;
pub mod error;
pub mod ingest;
pub mod math;
pub mod middleware;
pub mod pool;
pub mod refusal;
pub mod request;
pub mod routes;
pub mod scoring;
pub mod state;
pub mod task;
pub mod telemetry;
pub mod ui;
pub mod verdict;
