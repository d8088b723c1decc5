//! The `Sandbox`: engine, loaded runtimes, worker threads, and the shared run machinery.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use wasmtime::{Engine, Store, Trap, UpdateDeadline};
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

use crate::clang::Toolchain;
use crate::meter::{MemoryMeter, MeterStats};
use crate::python::Python;
use crate::queue::Queue;
use crate::scratch::{Scratch, ScratchWatch};
use crate::{Config, Language, Limits, Outcome, Program, RunError, Status};

/// How often the epoch ticks; bounds how late a time limit is noticed and how long a guest runs
/// between yields to the executor.
const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Grace beyond the wall-time limit for guests blocked in a host call (e.g. `time.sleep`).
const BLOCKED_GRACE: Duration = Duration::from_millis(200);

/// Epoch ticks between two looks at the size of a run's working folder (a folder scan costs far
/// more than a tick's other work). Between looks a program writes at most what the disk takes in
/// this time, plus one write of at most its memory limit.
const SCRATCH_CHECK_TICKS: u32 = 8;

/// Runs untrusted programs. Cheap to share behind an `Arc`; `run` is safe to call from any
/// tokio task (the work happens on the sandbox's own threads).
pub struct Sandbox {
    inner: Arc<Inner>,
    workers: Option<tokio::runtime::Runtime>,
    ticker_stop: Arc<AtomicBool>,
}

/// State shared with the worker threads.
pub(crate) struct Inner {
    pub(crate) engine: Engine,
    pub(crate) config: Config,
    pub(crate) python: Python,
    /// The confined C/C++ toolchain, or why there is none.
    pub(crate) toolchain: Result<Toolchain, String>,
    queue: Queue,
}

impl Sandbox {
    /// Builds the engine and loads the runtimes (compiling them once into `config.cache_dir`).
    ///
    /// Blocking: call it before serving, or inside `spawn_blocking`.
    pub fn new(config: Config) -> Result<Sandbox> {
        anyhow::ensure!(
            config.concurrency > 0,
            "sandbox concurrency must be at least 1"
        );
        let engine = crate::modules::engine(config.fuel, config.concurrency)?;
        let python = Python::load(&engine, &config)?;
        let toolchain = Toolchain::detect(
            config.clang.as_deref(),
            config.confinement,
            config.concurrency,
        );
        match &toolchain {
            Ok(t) => tracing::info!(
                clang = %t.clang().display(),
                confinement = t.mechanism().as_str(),
                "C/C++ enabled, compiler confined"
            ),
            Err(why) => tracing::warn!(reason = %why, "C/C++ unsupported"),
        }
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
                engine,
                queue: Queue::new(config.concurrency, config.queue_observer.clone()),
                config,
                python,
                toolchain,
            }),
            workers: Some(workers),
            ticker_stop,
        })
    }

    /// Whether `language` can run on this machine.
    pub fn supports(&self, language: Language) -> bool {
        match language {
            Language::Python => self.inner.python.available(),
            Language::C | Language::Cpp => self.inner.toolchain.is_ok(),
        }
    }

    /// Why `language` cannot run here, or `None` when it can.
    pub fn unsupported_reason(&self, language: Language) -> Option<String> {
        match language {
            Language::Python => (!self.inner.python.available()).then(|| {
                "the Python wasm runtimes are not installed; run scripts/setup.d/20-python-wasm.sh"
                    .to_string()
            }),
            Language::C | Language::Cpp => self.inner.toolchain.as_ref().err().cloned(),
        }
    }

    /// The mechanism confining the C/C++ compiler, when C/C++ are supported.
    pub fn compiler_confinement(&self) -> Option<crate::Mechanism> {
        self.inner.toolchain.as_ref().ok().map(Toolchain::mechanism)
    }

    /// The configuration this sandbox was built with.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Runs waiting for a free slot now.
    pub fn queue_depth(&self) -> usize {
        self.inner.queue.depth()
    }

    /// Runs one program to completion (or to one of its limits).
    ///
    /// Errors only when the program is refused up front; everything that happens while running
    /// is described by the [`Outcome`].
    pub async fn run(&self, program: Program) -> Result<Outcome, RunError> {
        self.run_within(program, None).await
    }

    /// Like [`Sandbox::run`], but waits at most `max_wait` for a free slot, and not at all when
    /// the expected wait is already longer: then it answers [`RunError::Busy`].
    pub async fn run_within(
        &self,
        program: Program,
        max_wait: Option<Duration>,
    ) -> Result<Outcome, RunError> {
        let limits = program
            .limits
            .clone()
            .unwrap_or_else(|| self.inner.config.default_limits.clone());
        validate(&program, &limits)?;
        if let Some(why) = self.unsupported_reason(program.language) {
            return Err(RunError::UnsupportedLanguage(format!(
                "{} ({why})",
                program.language
            )));
        }
        let inner = self.inner.clone();
        let workers = self
            .workers
            .as_ref()
            .ok_or_else(|| RunError::InvalidProgram("sandbox is shutting down".into()))?;
        let mut task = crate::queue::AbortOnDrop(workers.spawn(async move {
            let _slot = inner.queue.admit(max_wait).await?;
            Ok(match program.language {
                Language::Python => inner.python.run(&inner, &program, &limits).await,
                Language::C | Language::Cpp => match &inner.toolchain {
                    Ok(t) => t.run(&inner, &program, &limits).await,
                    Err(_) => Outcome::internal("C/C++ toolchain disappeared"),
                },
            })
        }));
        let mut outcome = (&mut task.0).await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "sandbox run panicked");
            Ok(Outcome::internal(format!("sandbox run failed: {e}")))
        })?;
        crate::cpp::explain_unsupported(&mut outcome);
        Ok(outcome)
    }
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

/// Checks what can be checked before running.
fn validate(program: &Program, limits: &Limits) -> Result<(), RunError> {
    if program.source.contains('\0') {
        return Err(RunError::InvalidProgram(
            "source contains a NUL byte".into(),
        ));
    }
    if program.stdin.len() > limits.stdin_bytes {
        return Err(RunError::InvalidProgram(format!(
            "stdin is {} bytes, more than the limit of {}",
            program.stdin.len(),
            limits.stdin_bytes
        )));
    }
    if limits.wall_time.is_zero() || limits.memory_bytes == 0 {
        return Err(RunError::InvalidProgram(
            "time and memory limits must be positive".into(),
        ));
    }
    for file in &program.files {
        file_path_ok(&file.path)?;
    }
    for path in &program.fetch_files {
        file_path_ok(path)?;
    }
    Ok(())
}

impl crate::ProgramFile {
    /// Whether `path` names a file inside the working directory: relative, `/`-separated,
    /// without `.`, `..` or empty parts.
    pub fn path_is_valid(path: &str) -> bool {
        !(path.is_empty()
            || path.starts_with('/')
            || path.contains('\\')
            || path.contains('\0')
            || path
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == ".."))
    }
}

/// A provided or fetched file's path must stay inside the working directory.
fn file_path_ok(path: &str) -> Result<(), RunError> {
    if !crate::ProgramFile::path_is_valid(path) {
        return Err(RunError::InvalidProgram(format!(
            "file path {path:?} must be relative, `/`-separated, without `.`/`..`/empty parts"
        )));
    }
    Ok(())
}

/// Store data that carries a memory meter.
pub(crate) trait Metered {
    /// The store's memory meter.
    fn meter(&mut self) -> &mut MemoryMeter;
}

/// Per-run I/O and the working folder (removed when dropped).
pub(crate) struct Io {
    pub(crate) stdout: MemoryOutputPipe,
    pub(crate) stderr: MemoryOutputPipe,
    scratch: Scratch,
}

/// A WASI context with the run's stdin/stdout/stderr, fixed environment and its working folder
/// (the provided files, writable, bounded by `Limits::scratch_bytes`).
fn wasi_builder(program: &Program, limits: &Limits, args: &[&str]) -> Result<(WasiCtxBuilder, Io)> {
    let stdout = MemoryOutputPipe::new(limits.stdout_bytes);
    let stderr = MemoryOutputPipe::new(limits.stderr_bytes);
    let mut builder = WasiCtxBuilder::new();
    builder
        .stdin(MemoryInputPipe::new(program.stdin.clone()))
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .args(args)
        // No host environment: only what makes runs deterministic and output survive a trap.
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .insecure_random_seed(0)
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    let scratch = Scratch::new(&program.files, limits.scratch_bytes)?;
    builder
        .preopened_dir(scratch.path(), ".", FsPerms::ReadWrite)
        .map_err(|e| anyhow::anyhow!("preopening the working folder: {e:?}"))?;
    Ok((
        builder,
        Io {
            stdout,
            stderr,
            scratch,
        },
    ))
}

/// Error a store's epoch callback raises when the wall-time limit has passed.
#[derive(Debug, thiserror::Error)]
#[error("wall-time limit exceeded")]
pub(crate) struct DeadlineExceeded;

/// Error a store's epoch callback raises when the working folder outgrew its limit.
#[derive(Debug, thiserror::Error)]
#[error("working folder limit exceeded")]
pub(crate) struct ScratchExceeded;

/// A store with the run's memory limit, fuel, wall-clock deadline and working-folder watch.
fn new_store<T: Metered + Send + 'static>(
    inner: &Inner,
    data: T,
    limits: &Limits,
    scratch: ScratchWatch,
) -> Result<Store<T>> {
    let mut store = Store::new(&inner.engine, data);
    store.limiter(|s| s.meter());
    if inner.config.fuel {
        store
            .set_fuel(limits.fuel.unwrap_or(u64::MAX))
            .map_err(|e| anyhow::anyhow!("setting fuel: {e:?}"))?;
    }
    let deadline = Instant::now() + limits.wall_time;
    store.set_epoch_deadline(1);
    let mut ticks = 0u32;
    store.epoch_deadline_callback(move |_| {
        ticks = ticks.wrapping_add(1);
        if Instant::now() >= deadline {
            Err(wasmtime::Error::new(DeadlineExceeded))
        } else if ticks.is_multiple_of(SCRATCH_CHECK_TICKS) && scratch.exceeded() {
            Err(wasmtime::Error::new(ScratchExceeded))
        } else {
            // Yielding lets the executor run timers and other runs between slices.
            Ok(UpdateDeadline::Yield(1))
        }
    });
    Ok(store)
}

/// How a guest call ended, before classification.
pub(crate) enum Ending {
    /// The guest returned or exited with this status.
    Exited(i32),
    /// The guest trapped or a host call failed.
    Failed(wasmtime::Error),
    /// The outer timeout fired while the guest was blocked in a host call.
    Blocked,
}

/// Converts a `_start`-style result into an [`Ending`].
pub(crate) fn ending_of(result: wasmtime::Result<()>) -> Ending {
    match result {
        Ok(()) => Ending::Exited(0),
        Err(e) => match e.downcast_ref::<I32Exit>() {
            Some(exit) => Ending::Exited(exit.0),
            None => Ending::Failed(e),
        },
    }
}

/// Runs `fut` with the outer timeout that catches guests blocked in host calls.
async fn with_outer_timeout<F>(limits: &Limits, fut: F) -> (Ending, Option<u64>)
where
    F: std::future::Future<Output = (Ending, Option<u64>)>,
{
    match tokio::time::timeout(limits.wall_time + BLOCKED_GRACE, fut).await {
        Ok(done) => done,
        Err(_) => (Ending::Blocked, None),
    }
}

/// Runs one guest call in a fresh store with the program's I/O and the run's limits (memory,
/// fuel, wall time, the outer timeout for blocked guests) and classifies how it ended.
/// `state` builds the store's data from the WASI builder and the memory meter; `call`
/// instantiates the guest and runs it.
pub(crate) async fn execute<T: Metered + Send + 'static>(
    inner: &Inner,
    program: &Program,
    limits: &Limits,
    args: &[&str],
    runtime: crate::Runtime,
    state: impl FnOnce(WasiCtxBuilder, MemoryMeter) -> T,
    call: impl AsyncFnOnce(&mut Store<T>) -> Ending,
) -> Outcome {
    let started = Instant::now();
    let (builder, io) = match wasi_builder(program, limits, args) {
        Ok(b) => b,
        Err(e) => return Outcome::internal(format!("{e:#}")),
    };
    let (meter, memory) = MemoryMeter::new(limits.memory_bytes);
    let mut store = match new_store(inner, state(builder, meter), limits, io.scratch.watch()) {
        Ok(s) => s,
        Err(e) => return Outcome::internal(format!("{e:#}")),
    };
    let fuel_start = store.get_fuel().ok();
    let (ending, fuel_used) = with_outer_timeout(limits, async {
        let ending = call(&mut store).await;
        let fuel_used = fuel_start.zip(store.get_fuel().ok()).map(|(a, b)| a - b);
        (ending, fuel_used)
    })
    .await;
    // Dropping the store first closes the guest's files, so what it wrote is complete.
    drop(store);
    let scratch_exceeded = match &ending {
        Ending::Failed(e) if e.downcast_ref::<ScratchExceeded>().is_some() => true,
        _ => io.scratch.watch().exceeded(),
    };
    let mut outcome = Classify {
        ending,
        io: &io,
        limits,
        memory: &memory,
        fuel_used,
        started,
        runtime,
        scratch_exceeded,
    }
    .outcome();
    if !scratch_exceeded {
        outcome.files = io.scratch.fetch(&program.fetch_files);
    }
    outcome
}

/// Builds the outcome of one guest execution.
struct Classify<'a> {
    ending: Ending,
    io: &'a Io,
    limits: &'a Limits,
    memory: &'a MeterStats,
    fuel_used: Option<u64>,
    started: Instant,
    runtime: crate::Runtime,
    scratch_exceeded: bool,
}

impl Classify<'_> {
    /// Decides the status and collects the output.
    fn outcome(self) -> Outcome {
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
