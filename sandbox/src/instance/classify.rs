//! How one guest execution ended, turned into an [`Outcome`]: status, output, limits hit.

use std::time::Instant;

use wasmtime::Trap;

use super::{DeadlineExceeded, Ending, Io};
use crate::config::Limits;
use crate::meter::MeterStats;
use crate::outcome::{Outcome, Runtime, Status};

/// Builds the outcome of one guest execution.
pub(super) struct Classify<'a> {
    pub(super) ending: Ending,
    pub(super) io: &'a Io,
    pub(super) limits: &'a Limits,
    pub(super) memory: &'a MeterStats,
    pub(super) fuel_used: Option<u64>,
    pub(super) started: Instant,
    pub(super) runtime: Runtime,
    pub(super) scratch_exceeded: bool,
}

impl Classify<'_> {
    /// Decides the status and collects the output.
    pub(super) fn outcome(self) -> Outcome {
        let stdout = self.io.stdout.contents();
        let stderr = self.io.stderr.contents();
        let stdout_truncated = stdout.len() >= self.limits.stdout_bytes;
        let stderr_truncated = stderr.len() >= self.limits.stderr_bytes;
        let (exit_code, trap) = match &self.ending {
            Ending::Exited(code) => (Some(*code), None),
            Ending::Failed(e) => (None, Some(e)),
            Ending::Blocked => (None, None),
        };
        let timed_out = match &self.ending {
            Ending::Blocked => true,
            Ending::Failed(e) => {
                e.downcast_ref::<DeadlineExceeded>().is_some()
                    || matches!(
                        e.downcast_ref::<Trap>(),
                        Some(Trap::OutOfFuel | Trap::Interrupt)
                    )
            }
            Ending::Exited(_) => false,
        };
        let (status, message) = if stdout_truncated || stderr_truncated {
            (
                Status::OutputLimit,
                Some("output limit exceeded".to_string()),
            )
        } else if self.scratch_exceeded {
            (
                Status::OutputLimit,
                Some(format!(
                    "files written exceed the working folder's limit ({} bytes, {} entries)",
                    self.limits.scratch_bytes,
                    crate::scratch::MAX_ENTRIES
                )),
            )
        } else if timed_out {
            let why = match trap.and_then(|e| e.downcast_ref::<Trap>()) {
                Some(Trap::OutOfFuel) => "fuel limit exceeded",
                _ => "wall-time limit exceeded",
            };
            (Status::Timeout, Some(why.to_string()))
        } else if self.memory.hit_limit() && exit_code != Some(0) {
            (
                Status::MemoryLimit,
                Some("memory limit exceeded".to_string()),
            )
        } else if exit_code == Some(0) {
            (Status::Ok, None)
        } else {
            let message = match trap {
                Some(e) => format!("{e:?}"),
                None => format!("exited with status {}", exit_code.unwrap_or(-1)),
            };
            (Status::RuntimeError, Some(message))
        };
        Outcome {
            status,
            exit_code,
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            stdout_truncated,
            stderr_truncated,
            wall_time: self.started.elapsed(),
            fuel_used: self.fuel_used,
            peak_memory_bytes: self.memory.peak(),
            runtime: Some(self.runtime),
            fell_back: false,
            compile: None,
            message,
            files: Vec::new(),
        }
    }
}
