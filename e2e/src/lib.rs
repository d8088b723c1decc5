//! End-to-end harness for the HACRL stack: starts it the way users do (`scripts/up`), talks to
//! it over REST and SQL, builds realistic workloads from the example datasets, and drives the
//! load test shared by the `loadtest` binary and the smoke test.

pub mod client;
pub mod help;
pub mod launcher;
pub mod load;
pub mod replay;
pub mod workload;

use std::path::PathBuf;

pub use testkit::{repo_root, workspace_binary};

/// The small GSM8K and HumanEval samples committed with the tests (a clean clone has them).
pub fn sample_data() -> PathBuf {
    repo_root().join("e2e").join("data")
}

/// The example datasets: `$HACRL_DATA`, else the repository's `data/`
/// (the same default as `scripts/up`).
pub fn example_data() -> PathBuf {
    std::env::var_os("HACRL_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("data"))
}
