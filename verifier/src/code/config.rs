//! How a [`Judge`](super::Judge)'s sandbox is set up (the `--sandbox-*` flags), and the
//! sandboxes a process shares between judges of one configuration.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use sandbox::{Limits, Sandbox};

/// How a [`Judge`](super::Judge)'s sandbox is set up: the `--sandbox-*` flags of `verifier serve` and
/// `verifier score`, whose defaults are [`JudgeConfig::default`]'s.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct JudgeConfig {
    /// Maximum number of programs running at once (default: number of cores).
    #[arg(long = "sandbox-concurrency", env = "VERIFIER_SANDBOX_CONCURRENCY")]
    pub concurrency: Option<usize>,
    /// Most runs admitted side by side, time-sliced on those threads (default: 128).
    #[arg(long = "sandbox-max-runs", env = "VERIFIER_SANDBOX_MAX_RUNS")]
    pub max_runs: Option<usize>,
    /// Linear memory all admitted runs may hold together, in MiB (default: half the machine's
    /// memory); a run waits for room, and one that cannot start within 8 s gets a 504.
    #[arg(
        long = "sandbox-memory-budget-mb",
        env = "VERIFIER_SANDBOX_MEMORY_BUDGET_MB"
    )]
    pub memory_budget_mb: Option<u64>,
    /// Wall-clock limit per program run, in milliseconds.
    #[arg(long = "sandbox-time-limit-ms", env = "VERIFIER_SANDBOX_TIME_LIMIT_MS",
        default_value_t = JudgeConfig::default().time_limit_ms)]
    pub time_limit_ms: u64,
    /// Linear-memory limit per program run, in MiB.
    #[arg(long = "sandbox-memory-mb", env = "VERIFIER_SANDBOX_MEMORY_MB",
        default_value_t = JudgeConfig::default().memory_mb)]
    pub memory_mb: u64,
    /// Meter wasm fuel, so verdicts report `fuel_used`; `false` makes the full Python runtime
    /// about a quarter faster (docs/benchmarks/sandbox.md#sandbox).
    #[arg(long = "sandbox-fuel", env = "VERIFIER_SANDBOX_FUEL",
        default_value_t = JudgeConfig::default().fuel, action = clap::ArgAction::Set)]
    pub fuel: bool,
    /// Folder with the Python wasm runtimes (default: `$HACRL_CACHE/python-wasm`).
    #[arg(long = "sandbox-runtime-dir", env = "VERIFIER_SANDBOX_RUNTIME_DIR")]
    pub runtime_dir: Option<PathBuf>,
    /// Folder for precompiled runtimes (default: `$HACRL_CACHE/wasmtime-precompiled`).
    #[arg(long = "sandbox-cache-dir", env = "VERIFIER_SANDBOX_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// How the C/C++ compiler is confined: `auto` (namespaces, else Landlock), `namespaces`
    /// (bubblewrap) or `landlock` (Landlock + seccomp). It never runs unconfined: when none
    /// works, C/C++ are refused (`GET /v1/capabilities` says why).
    #[arg(long = "sandbox-confinement", env = "VERIFIER_SANDBOX_CONFINEMENT",
        default_value_t = JudgeConfig::default().confinement)]
    pub confinement: sandbox::ConfinementChoice,
    /// How runs side by side share the threads: `growing-first` (a run whose memory is growing
    /// keeps its thread while it grows, so memory bombs reach their limit beside endless loops,
    /// at some cost to quick runs) or `round-robin` (one slice each in turn).
    #[arg(long = "sandbox-slicing", env = "VERIFIER_SANDBOX_SLICING",
        default_value_t = JudgeConfig::default().slicing)]
    pub slicing: sandbox::Slicing,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        Self {
            concurrency: None,
            max_runs: None,
            memory_budget_mb: None,
            time_limit_ms: 10_000,
            memory_mb: 512,
            fuel: true,
            runtime_dir: None,
            cache_dir: None,
            confinement: sandbox::ConfinementChoice::default(),
            slicing: sandbox::Slicing::default(),
        }
    }
}

impl JudgeConfig {
    /// The sandbox configuration these settings describe.
    pub fn sandbox(&self) -> sandbox::Config {
        let mut config = sandbox::Config::default();
        if let Some(n) = self.concurrency {
            config.concurrency = n;
        }
        if let Some(n) = self.max_runs {
            config.max_runs = n;
        }
        if let Some(mb) = self.memory_budget_mb {
            config.memory_budget_bytes = mb << 20;
        }
        if let Some(dir) = &self.runtime_dir {
            config.runtime_dir = dir.clone();
        }
        if let Some(dir) = &self.cache_dir {
            config.cache_dir = dir.clone();
        }
        config.default_limits = self.limits();
        config.fuel = self.fuel;
        config.queue_observer = Some(Arc::new(crate::telemetry::SandboxQueueMetrics));
        config.confinement = self.confinement;
        config.slicing = self.slicing;
        config
    }

    /// Per-run limits these settings describe.
    pub fn limits(&self) -> Limits {
        Limits {
            wall_time: Duration::from_millis(self.time_limit_ms),
            memory_bytes: self.memory_mb << 20,
            ..Limits::default()
        }
    }
}

/// Sandboxes alive in this process, so that several services (tests) share one per configuration
/// (every setting but the queue observer is in the key: a service asking for Landlock must not
/// get a sandbox confined by namespaces).
static SANDBOXES: Mutex<Vec<(String, Weak<Sandbox>)>> = Mutex::new(Vec::new());

/// The process's sandbox for `config`, started when none is alive.
pub(super) fn shared_sandbox(config: sandbox::Config) -> anyhow::Result<Arc<Sandbox>> {
    let key = format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}|{:?}",
        config.concurrency,
        config.max_runs,
        config.memory_budget_bytes,
        config.fuel,
        config.runtime_dir.display(),
        config.interpreter_dir.display(),
        config.scientific_dir.display(),
        config.cache_dir.display(),
        config.default_limits,
        config.confinement,
        config.clang,
        config.go,
        config.rust,
        config.full_python,
        config.fast_python,
        config.scientific_python,
        config.slicing
    );
    let mut alive = SANDBOXES.lock().unwrap_or_else(|e| e.into_inner());
    alive.retain(|(_, w)| w.strong_count() > 0);
    if let Some(s) = alive
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, w)| w.upgrade())
    {
        return Ok(s);
    }
    let sandbox = Arc::new(Sandbox::new(config)?);
    alive.push((key, Arc::downgrade(&sandbox)));
    Ok(sandbox)
}
