//! What the interpreted-language test binaries share: whether a language runs here, the tight
//! limits most checks use, and one run of a program. Each binary uses a part of it.

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

/// Whether `language` runs here. CI installs the interpreters, so there a missing one fails;
/// elsewhere the test says why it checks nothing.
pub fn installed(language: Language) -> bool {
    match SANDBOX.unsupported_reason(language) {
        None => true,
        Some(why) if std::env::var_os("CI").is_some() => {
            panic!("{language} unsupported in CI: {why}")
        }
        Some(why) => {
            eprintln!("{language} unsupported here ({why}): its checks are skipped");
            false
        }
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
