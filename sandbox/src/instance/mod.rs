//! One run's wasm instance: the engine and configuration every run shares ([`Host`]), the
//! store with the run's limits (memory, fuel, wall time, working folder), the WASI context with
//! its I/O, [`execute`] for one guest call, and the WASI command runner. `python` and `clang`
//! build on this layer; `runner` is the façade that queues runs and picks the language.

mod classify;
mod command;
mod determinism;
pub(crate) mod slicing;

pub(crate) use command::{CommandState, command_linker, run_command, run_module};
pub use determinism::{WALL_CLOCK_EPOCH, WALL_CLOCK_TICK};
pub use slicing::Slicing;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use wasmtime::{Engine, Store};
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

use crate::admission::Grant;
use crate::config::{Config, Limits};
use crate::meter::MemoryMeter;
use crate::outcome::{Outcome, Runtime};
use crate::pipes::{self, Ends};
use crate::program::Program;
use crate::scratch::{Scratch, ScratchWatch};
use classify::Classify;

/// Grace beyond the wall-time limit for guests blocked in a host call (e.g. `time.sleep`).
const BLOCKED_GRACE: Duration = Duration::from_millis(200);

/// Epoch ticks between two looks at the size of a run's working folder (a folder scan costs far
/// more than a tick's other work). Between looks a program writes at most what the disk takes in
/// this time, plus one write of at most its memory limit.
const SCRATCH_CHECK_TICKS: u32 = 8;

/// What every run's instance is made from: the sandbox's engine and configuration.
pub(crate) struct Host {
    pub(crate) engine: Engine,
    pub(crate) config: Config,
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

/// A WASI context with the run's stdin/stdout/stderr (the pipes of its interaction, if it is
/// one side of one), fixed environment and its working folder
/// (the provided files, and the source where an interpreter reads it from, writable, bounded by
/// `Limits::scratch_bytes`).
fn wasi_builder(
    program: &Program,
    limits: &Limits,
    guest: &Guest<'_>,
    ends: Option<&Ends>,
) -> Result<(WasiCtxBuilder, Io)> {
    let stdout = MemoryOutputPipe::new(limits.stdout_bytes);
    let stderr = MemoryOutputPipe::new(limits.stderr_bytes);
    let mut builder = WasiCtxBuilder::new();
    match ends {
        // One side of an interaction: its stdio are the pipes to the other side.
        Some(ends) => builder.stdin(ends.stdin()).stdout(ends.stdout()),
        None => builder
            .stdin(MemoryInputPipe::new(program.stdin.clone()))
            .stdout(stdout.clone()),
    };
    builder
        .stderr(stderr.clone())
        .args(guest.args)
        // No host environment: only what makes runs deterministic and output survive a trap.
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .envs(guest.env)
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    determinism::apply(&mut builder, program.seed);
    let scratch = Scratch::new(&program.files, limits.scratch_bytes, guest.tmp)?;
    if let Some(name) = guest.source_file {
        std::fs::write(scratch.path().join(name), &program.source)?;
    }
    for mount in guest.mounts {
        builder
            .preopened_dir(&mount.host, &mount.guest, FsPerms::ReadOnly)
            .map_err(|e| anyhow::anyhow!("preopening {}: {e:?}", mount.guest))?;
    }
    builder
        .preopened_dir(scratch.path(), guest.folder_name, FsPerms::ReadWrite)
        .map_err(|e| anyhow::anyhow!("preopening the working folder: {e:?}"))?;
    if let Some(tmp) = scratch.tmp() {
        builder
            .preopened_dir(tmp, "/tmp", FsPerms::ReadWrite)
            .map_err(|e| anyhow::anyhow!("preopening /tmp: {e:?}"))?;
        builder.env("TMPDIR", "/tmp");
    }
    Ok((
        builder,
        Io {
            stdout,
            stderr,
            scratch,
        },
    ))
}

/// What runs in an instance: its argv, the runtime it is, the name its working folder is
/// preopened as and, for an interpreter, the file in the working folder the program's source is
/// written to, environment variables it needs, host folders it reads (its library) and whether
/// it gets a fresh writable `/tmp` (counted in the working folder's limit).
pub(crate) struct Guest<'a> {
    pub(crate) args: &'a [&'a str],
    /// `.` for wasi-libc programs (relative paths resolve against it); `/` for Go, whose
    /// wasip1 runtime resolves every path as absolute and finds no preopen named `.`.
    pub(crate) folder_name: &'a str,
    pub(crate) runtime: Runtime,
    pub(crate) source_file: Option<&'a str>,
    pub(crate) env: &'a [(&'a str, &'a str)],
    pub(crate) mounts: &'a [Mount],
    pub(crate) tmp: bool,
}

/// A host folder the guest sees read-only at `guest`: a runtime's own files, never the
/// program's.
pub(crate) struct Mount {
    pub(crate) host: std::path::PathBuf,
    pub(crate) guest: String,
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
    host: &Host,
    data: T,
    limits: &Limits,
    scratch: ScratchWatch,
) -> Result<Store<T>> {
    let mut store = Store::new(&host.engine, data);
    store.limiter(|s| s.meter());
    if host.config.fuel {
        store
            .set_fuel(limits.fuel.unwrap_or(u64::MAX))
            .map_err(|e| anyhow::anyhow!("setting fuel: {e:?}"))?;
    }
    let deadline = Instant::now() + limits.wall_time;
    store.set_epoch_deadline(1);
    let mut turn = slicing::Turn::new(host.config.slicing);
    let mut ticks = 0u32;
    store.epoch_deadline_callback(move |mut store| {
        ticks = ticks.wrapping_add(1);
        if Instant::now() >= deadline {
            Err(wasmtime::Error::new(DeadlineExceeded))
        } else if ticks.is_multiple_of(SCRATCH_CHECK_TICKS) && scratch.exceeded() {
            Err(wasmtime::Error::new(ScratchExceeded))
        } else {
            Ok(turn.slice(store.data_mut().meter().current()))
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
/// fuel, wall time, the outer timeout for blocked guests) and classifies how it ended. One side
/// of an interaction first waits for the other, so that both clocks start together.
/// `state` builds the store's data from the WASI builder and the memory meter; `call`
/// instantiates the guest and runs it.
pub(crate) async fn execute<T: Metered + Send + 'static>(
    host: &Host,
    grant: &Arc<Grant>,
    program: &Program,
    limits: &Limits,
    guest: Guest<'_>,
    state: impl FnOnce(WasiCtxBuilder, MemoryMeter) -> T,
    call: impl AsyncFnOnce(&mut Store<T>) -> Ending,
) -> Outcome {
    let ends = pipes::current();
    if let Some(ends) = &ends {
        ends.ready().await;
    }
    let started = Instant::now();
    let (builder, io) = match wasi_builder(program, limits, &guest, ends.as_deref()) {
        Ok(b) => b,
        Err(e) => return Outcome::internal(format!("{e:#}")),
    };
    let (meter, memory) = MemoryMeter::new(limits.memory_bytes, grant.clone());
    let mut store = match new_store(host, state(builder, meter), limits, io.scratch.watch()) {
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
    if let Some(ends) = &ends {
        ends.note_end(matches!(ending, Ending::Blocked));
    }
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
        runtime: guest.runtime,
        scratch_exceeded,
    }
    .outcome();
    if !scratch_exceeded {
        outcome.files = io.scratch.fetch(&program.fetch_files);
    }
    outcome
}
