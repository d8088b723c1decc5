//! What the interpreted-language test binaries share: the tight limits most checks use, and one
//! run of a program. Each binary uses a part of it.

use std::time::Duration;

use sandbox::{Language, Limits, Outcome, Program};

use crate::support::SANDBOX;

/// Limits tight enough that endless programs end quickly, loose enough for every interpreter.
#[allow(dead_code)] // interpreters.rs and interpreter_limits.rs use it; the others set their own
pub fn tight() -> Limits {
    Limits {
        wall_time: Duration::from_millis(1500),
        memory_bytes: 64 << 20,
        stdout_bytes: 64 << 10,
        stderr_bytes: 64 << 10,
        ..Limits::default()
    }
}

/// `source` in `language` with `stdin`, under `limits`.
#[allow(dead_code)] // interpreted_judge.rs builds its programs with files of their own
pub async fn run(language: Language, source: &str, stdin: &str, limits: Limits) -> Outcome {
    SANDBOX
        .run(Program {
            language,
            source: source.into(),
            stdin: stdin.into(),
            limits: Some(limits),
            ..Program::default()
        })
        .await
        .expect("program accepted")
}
