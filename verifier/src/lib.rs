//! The verifier: scores model outputs (math answers, sandboxed programs) and keeps the shared
//! experience pool in Postgres.

pub mod code;
pub mod math;
