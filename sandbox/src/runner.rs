//! The `Sandbox` façade: the engine, the loaded runtimes, worker threads and admission; it
//! checks a program, admits it and hands the run to its language (`python`, `toolchain`,
//! `interpreters`), which run it through the shared `instance` layer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::admission::{AbortOnDrop, Admission};
use crate::config::{Config, Limits};
use crate::confine::Mechanism;
use crate::instance::Host;
use crate::outcome::Outcome;
use crate::pipes::{self, Wiring};
use crate::program::{Language, Program, RunError, validate};
use crate::runtimes::interpreters::Interpreters;
use crate::runtimes::python::{Python, RuntimeSupport};
use crate::runtimes::scientific;
use crate::toolchain::builds::{BuildCounts, Builds};
use crate::toolchain::{Admitted, Family, Toolchain, cpp};

/// How often the epoch ticks; bounds how late a time limit is noticed and how long a guest runs
/// between yields to the executor (the time slice of runs sharing a worker thread).
const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Runs untrusted programs. Cheap to share behind an `Arc`; `run` is safe to call from any
/// tokio task (the work happens on the sandbox's own threads).
pub struct Sandbox {
    inner: Arc<Inner>,
    workers: Option<tokio::runtime::Runtime>,
    ticker_stop: Arc<AtomicBool>,
}

/// State shared with the worker threads.
struct Inner {
    host: Host,
    python: Python,
    /// Lua, SQL and JavaScript, each loaded or the reason it is not.
    interpreters: Interpreters,
    /// The confined C/C++ toolchain and this engine's builds of it, or why there is none.
    clang: Result<(Toolchain, Builds), String>,
    /// The confined Go toolchain and this engine's builds of it, or why there is none.
    go: Result<(Toolchain, Builds), String>,
    /// The confined Rust toolchain and this engine's builds of it, or why there is none.
    rust: Result<(Toolchain, Builds), String>,
    admission: Admission,
}

impl Sandbox {
    /// Builds the engine and loads the runtimes (compiling them once into `config.cache_dir`).
    ///
    /// Blocking: call it before serving, or inside `spawn_blocking`.
    pub fn new(config: Config) -> Result<Sandbox> {
        anyhow::ensure!(
            config.concurrency > 0 && config.max_runs > 0,
            "sandbox concurrency and max_runs must be at least 1"
        );
        let engine = crate::modules::engine(config.fuel, config.max_runs)?;
        let python = Python::load(&engine, &config)?;
        let interpreters = Interpreters::load(&engine, &config);
        let compiled = |family: Family, configured: Option<&std::path::Path>| {
            let found = Toolchain::detect(family, configured, &config).map(|t| {
                let builds = Builds::open(&engine, &t.identity(), &config.cache_dir.join("builds"));
                (t, builds)
            });
            match &found {
                Ok((t, _)) => tracing::info!(
                    compiler = %t.executable().display(),
                    confinement = t.mechanism().as_str(),
                    "{family:?} enabled, compiler confined"
                ),
                Err(why) => tracing::warn!(reason = %why, "{family:?} unsupported"),
            }
            found
        };
        let clang = compiled(Family::Clang, config.clang.as_deref());
        let go = compiled(Family::Go, config.go.as_deref());
        let rust = compiled(Family::Rust, config.rust.as_deref());
        let workers = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(config.concurrency)
            .thread_name("sandbox")
            .enable_all()
            .build()
            .context("starting sandbox worker threads")?;
        let ticker_stop = Arc::new(AtomicBool::new(false));
        {
            let engine = engine.clone();
            let stop = ticker_stop.clone();
            std::thread::Builder::new()
                .name("sandbox-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(EPOCH_TICK);
                        engine.increment_epoch();
                    }
                })
                .context("starting epoch ticker")?;
        }
        Ok(Sandbox {
            inner: Arc::new(Inner {
                admission: Admission::new(
                    config.max_runs,
                    config.memory_budget_bytes,
                    config.concurrency,
                    config.queue_observer.clone(),
                ),
                host: Host { engine, config },
                python,
                interpreters,
                clang,
                go,
                rust,
            }),
            workers: Some(workers),
            ticker_stop,
        })
    }

    /// Whether `language` can run on this machine.
    pub fn supports(&self, language: Language) -> bool {
        match language {
            Language::Python => self.inner.python.available(),
            Language::C | Language::Cpp | Language::Go | Language::Rust => {
                self.toolchain(language).is_ok()
            }
            Language::Lua
            | Language::Sql
            | Language::JavaScript
            | Language::Ruby
            | Language::TypeScript => self
                .inner
                .interpreters
                .unsupported_reason(language)
                .is_none(),
        }
    }

    /// Why `language` cannot run here, or `None` when it can.
    pub fn unsupported_reason(&self, language: Language) -> Option<String> {
        match language {
            Language::Python => (!self.inner.python.available()).then(|| {
                format!(
                    "the Python wasm runtimes are not installed; run scripts/setup.d/20-python-wasm.sh and {}",
                    scientific::SETUP
                )
            }),
            Language::C | Language::Cpp | Language::Go | Language::Rust => {
                self.toolchain(language).as_ref().err().cloned()
            }
            Language::Lua
            | Language::Sql
            | Language::JavaScript
            | Language::Ruby
            | Language::TypeScript => self.inner.interpreters.unsupported_reason(language),
        }
    }

    /// What runs `language` here and its version (`None` when unsupported): the interpreter
    /// for Lua, SQL, JavaScript and Ruby, the language standard for C and C++, Go's and Rust's release, the
    /// CPython builds.
    pub fn version(&self, language: Language) -> Option<String> {
        if !self.supports(language) {
            return None;
        }
        match language {
            Language::Python => Some(self.inner.python.version()),
            Language::C | Language::Cpp | Language::Go | Language::Rust => self
                .toolchain(language)
                .as_ref()
                .ok()
                .map(|(t, _)| t.version(language)),
            Language::Lua
            | Language::Sql
            | Language::JavaScript
            | Language::Ruby
            | Language::TypeScript => self.inner.interpreters.version(language),
        }
    }

    /// Each Python runtime (fast, full, scientific): its version and packages, or why it is not
    /// loaded. Which one runs a program is chosen per run (`PythonRuntime::Auto`).
    pub fn python_runtimes(&self) -> Vec<RuntimeSupport> {
        self.inner.python.runtimes()
    }

    /// The mechanism confining the compiler of `language` (C, C++, Go, Rust), when it is supported;
    /// `None` for interpreted languages.
    pub fn compiler_confinement(&self, language: Language) -> Option<Mechanism> {
        match language {
            Language::C | Language::Cpp | Language::Go | Language::Rust => self
                .toolchain(language)
                .as_ref()
                .ok()
                .map(|(t, _)| t.mechanism()),
            _ => None,
        }
    }

    /// How builds of compiled languages were found or made so far (all zero without a
    /// toolchain).
    pub fn build_counts(&self) -> BuildCounts {
        [&self.inner.clang, &self.inner.go, &self.inner.rust]
            .into_iter()
            .filter_map(|t| t.as_ref().ok())
            .map(|(_, b)| b.counts())
            .fold(BuildCounts::default(), |a, b| BuildCounts {
                compiles: a.compiles + b.compiles,
                native: a.native + b.native,
                memory_hits: a.memory_hits + b.memory_hits,
                disk_hits: a.disk_hits + b.disk_hits,
            })
    }

    /// The toolchain that compiles `language` (Go's, Rust's, else clang's), or why there is none.
    fn toolchain(&self, language: Language) -> &Result<(Toolchain, Builds), String> {
        toolchain_of(&self.inner, language)
    }

    /// The configuration this sandbox was built with.
    pub fn config(&self) -> &Config {
        &self.inner.host.config
    }

    /// Runs waiting to be admitted now.
    pub fn queue_depth(&self) -> usize {
        self.inner.admission.depth()
    }

    /// Runs one program to completion (or to one of its limits).
    ///
    /// Errors only when the program is refused up front; everything that happens while running
    /// is described by the [`Outcome`].
    pub async fn run(&self, program: Program) -> Result<Outcome, RunError> {
        self.run_within(program, None).await
    }

    /// Like [`Sandbox::run`], but answers [`RunError::Busy`] when the run cannot be admitted
    /// (and, for a compiled language, start compiling) within `max_wait`, or when the memory budget cannot
    /// cover what the run's own limit allows it to grow to.
    pub async fn run_within(
        &self,
        program: Program,
        max_wait: Option<Duration>,
    ) -> Result<Outcome, RunError> {
        let limits = self.checked(&program)?;
        let deadline = max_wait.map(|w| Instant::now() + w);
        let mut task = self.start(program, limits, deadline, None)?;
        let mut outcome = joined((&mut task.0).await)?;
        cpp::explain_unsupported(&mut outcome);
        Ok(outcome)
    }

    /// The limits `program` runs under, once it is known to be runnable here: well-formed,
    /// within the memory budget, in a supported language.
    pub(crate) fn checked(&self, program: &Program) -> Result<Limits, RunError> {
        let limits = program
            .limits
            .clone()
            .unwrap_or_else(|| self.inner.host.config.default_limits.clone());
        validate(program, &limits)?;
        let budget = self.inner.admission.budget_bytes();
        if limits.memory_bytes > budget {
            return Err(RunError::InvalidProgram(format!(
                "a memory limit of {} bytes is more than the sandbox's whole budget of {budget}",
                limits.memory_bytes
            )));
        }
        if let Some(why) = self.unsupported_reason(program.language) {
            return Err(RunError::UnsupportedLanguage(format!(
                "{} ({why})",
                program.language
            )));
        }
        Ok(limits)
    }

    /// Starts a [`checked`](Self::checked) program on the worker threads: admitted, then run to
    /// its end; as one side of an interaction when `wiring` holds its pipes.
    pub(crate) fn start(
        &self,
        program: Program,
        limits: Limits,
        deadline: Option<Instant>,
        wiring: Option<Wiring>,
    ) -> Result<AbortOnDrop<Result<Outcome, RunError>>, RunError> {
        let inner = self.inner.clone();
        let workers = self
            .workers
            .as_ref()
            .ok_or_else(|| RunError::InvalidProgram("sandbox is shutting down".into()))?;
        let run = run_admitted(inner, program, limits, deadline);
        Ok(AbortOnDrop(workers.spawn(pipes::scoped(wiring, run))))
    }

    /// The admission that interactions take their pair slots from.
    pub(crate) fn admission(&self) -> &Admission {
        &self.inner.admission
    }
}

/// A finished run task's result; a panic in it is the sandbox's failure.
pub(crate) fn joined(
    result: Result<Result<Outcome, RunError>, tokio::task::JoinError>,
) -> Result<Outcome, RunError> {
    result.unwrap_or_else(|e| {
        tracing::error!(error = %e, "sandbox run panicked");
        Ok(Outcome::internal(format!("sandbox run failed: {e}")))
    })
}

/// Admits a checked program (waiting until `deadline` at most) and hands it to its language.
async fn run_admitted(
    inner: Arc<Inner>,
    program: Program,
    limits: Limits,
    deadline: Option<Instant>,
) -> Result<Outcome, RunError> {
    let ticket = inner.admission.admit(limits.memory_bytes, deadline).await?;
    let outcome = match program.language {
        Language::Python => {
            (inner.python)
                .run(&inner.host, &ticket.grant, &program, &limits)
                .await
        }
        Language::C | Language::Cpp | Language::Go | Language::Rust => {
            match toolchain_of(&inner, program.language) {
                Ok((t, builds)) => {
                    let run = Admitted {
                        admission: &inner.admission,
                        ticket: &ticket,
                        builds,
                        deadline,
                    };
                    t.run(&inner.host, &run, &program, &limits).await?
                }
                Err(_) => Outcome::internal("the toolchain disappeared"),
            }
        }
        Language::Lua
        | Language::Sql
        | Language::JavaScript
        | Language::Ruby
        | Language::TypeScript => {
            (inner.interpreters)
                .run(&inner.host, &ticket.grant, &program, &limits)
                .await?
        }
    };
    // A growth the run's limit allowed but the shared budget could not cover says nothing
    // about the program.
    if ticket.grant.starved() {
        return Err(RunError::Busy {
            retry_after: Duration::from_secs(1),
        });
    }
    Ok(outcome)
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
        // Dropping a runtime inside async code panics; shut it down without waiting instead.
        if let Some(workers) = self.workers.take() {
            workers.shutdown_background();
        }
    }
}

/// The toolchain that compiles `language` (Go's, Rust's, else clang's).
fn toolchain_of(inner: &Inner, language: Language) -> &Result<(Toolchain, Builds), String> {
    match language {
        Language::Go => &inner.go,
        Language::Rust => &inner.rust,
        _ => &inner.clang,
    }
}
