//! Interactive runs ([`Sandbox::run_interactive`]): an interactor and a program side by side,
//! each one's standard output piped into the other's standard input, each under its own limits.
//!
//! The pipes are in-process (`tokio::io::duplex`) and hold at most [`PIPE_BYTES`] each way: a
//! side that writes faster than the other reads waits for room, so a program flooding its
//! output holds no more host memory than that, whatever it writes. Both sides start their
//! clocks together, once both are built ([`Gate`]): compiling one must not eat the other's time.
//!
//! A run finds its pipe ends in a task-local ([`current`]) rather than in its [`Program`]: a
//! `Program` is a plain value callers build and clone, while a pipe end belongs to one run, and
//! every language's runner reaches the WASI context through the same `instance` layer, which
//! alone reads it.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{self as io, AsyncRead, AsyncWrite, DuplexStream};
use tokio::sync::Notify;
use wasmtime_wasi::cli::{
    AsyncStdinStream, AsyncStdoutStream, IsTerminal, StdinStream, StdoutStream,
};
use wasmtime_wasi::p2::{InputStream, OutputStream};

use crate::admission::AbortOnDrop;
use crate::outcome::{Outcome, Status};
use crate::program::{Program, RunError};
use crate::runner::{Sandbox, joined};

/// Bytes a pipe holds before its writer waits (each direction).
const PIPE_BYTES: usize = 64 << 10;

/// One side of an interaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// The task's interactor.
    Interactor,
    /// The program under judgement.
    Program,
}

/// How one side's run ended.
#[derive(Debug, Clone)]
pub struct SideRun {
    /// Its outcome (its stdout is empty: the other side read it).
    pub outcome: Outcome,
    /// Its time ran out while it was blocked in a host call rather than computing: waiting for
    /// the other side's output or for room in its own pipe (or asleep).
    pub waited: bool,
}

/// What an interaction produced.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// The interactor's run; `None` when it never started: the program ended (it did not
    /// compile) before both were ready.
    pub interactor: Option<SideRun>,
    /// The program's run; `None` when it was stopped unfinished: the interactor ended before
    /// both were ready, or ended first with a status other than 0 (which decides the case
    /// whatever the program does next).
    pub program: Option<SideRun>,
    /// The side whose run ended first.
    pub first: Party,
}

tokio::task_local! {
    /// The pipe ends of the interaction this task runs one side of.
    static ENDS: Arc<Ends>;
}

/// One side's pipe ends, its start gate and what its runs tell the caller.
pub(crate) struct Ends {
    stdin: Arc<AsyncStdinStream>,
    stdout: Arc<AsyncStdoutStream>,
    gate: Arc<Gate>,
    watch: Arc<Watch>,
}

impl Ends {
    /// The side's standard input, for its WASI context (shared by a rerun on another Python
    /// runtime, which then reads on where the first run stopped).
    pub(crate) fn stdin(&self) -> impl StdinStream + 'static {
        SharedStdin(self.stdin.clone())
    }

    /// The side's standard output, for its WASI context.
    pub(crate) fn stdout(&self) -> impl StdoutStream + 'static {
        SharedStdout(self.stdout.clone())
    }

    /// Waits until the other side is ready to start too.
    pub(crate) async fn ready(&self) {
        self.gate.pass().await;
    }

    /// Notes that the side's guest has just ended, blocked in a host call when `blocked`.
    pub(crate) fn note_end(&self, blocked: bool) {
        *self.watch.ended.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        if blocked {
            self.watch.waited.store(true, Ordering::Relaxed);
        }
    }
}

/// What the caller learns of one side's runs besides their outcome.
#[derive(Default)]
struct Watch {
    /// Its time ran out while it was blocked in a host call.
    waited: AtomicBool,
    /// When its guest last ended (none when it never started, e.g. did not compile).
    ended: Mutex<Option<Instant>>,
}

impl Watch {
    fn ended(&self) -> Option<Instant> {
        *self.ended.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The ends of the interaction the current task runs a side of, if any.
pub(crate) fn current() -> Option<Arc<Ends>> {
    ENDS.try_with(Arc::clone).ok()
}

/// Runs `run` as the side wired by `wiring` (a plain run without).
pub(crate) async fn scoped<T>(wiring: Option<Wiring>, run: impl Future<Output = T>) -> T {
    match wiring {
        Some(wiring) => ENDS.scope(Arc::new(wiring.into_ends()), run).await,
        None => run.await,
    }
}

/// Where both sides meet before their clocks start.
#[derive(Default)]
struct Gate {
    arrived: AtomicUsize,
    /// When the second side arrived: both clocks start then.
    opened: OnceLock<Instant>,
    notify: Notify,
}

impl Gate {
    /// Arrives, then waits for the other side.
    async fn pass(&self) {
        if self.arrived.fetch_add(1, Ordering::SeqCst) + 1 == 2 {
            let _ = self.opened.set(Instant::now());
        }
        self.notify.notify_waiters();
        loop {
            // Made before the check, so a notification between the two is not lost.
            let notified = self.notify.notified();
            if self.open() {
                return;
            }
            notified.await;
        }
    }

    /// Whether both sides have arrived.
    fn open(&self) -> bool {
        self.arrived.load(Ordering::SeqCst) >= 2
    }
}

/// A stdin every WASI context of one side shares.
struct SharedStdin(Arc<AsyncStdinStream>);

impl IsTerminal for SharedStdin {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for SharedStdin {
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        self.0.async_stream()
    }

    fn p2_stream(&self) -> Box<dyn InputStream> {
        self.0.p2_stream()
    }
}

/// A stdout every WASI context of one side shares.
struct SharedStdout(Arc<AsyncStdoutStream>);

impl IsTerminal for SharedStdout {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for SharedStdout {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        self.0.async_stream()
    }

    fn p2_stream(&self) -> Box<dyn OutputStream> {
        self.0.p2_stream()
    }
}

/// A pipe's writing end that drops what it is given once its reader has gone, instead of
/// failing: the side that ended first has had its say, and what the other still writes (an
/// interactor's last reply, a program's trailing output) must not turn into a crash of its own.
struct Discarding(DuplexStream);

impl AsyncWrite for Discarding {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.0).poll_write(cx, buf) {
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                Poll::Ready(Ok(buf.len()))
            }
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// One side's pipe ends before its run starts, and what the caller keeps of it.
pub(crate) struct Wiring {
    input: DuplexStream,
    output: DuplexStream,
    gate: Arc<Gate>,
    watch: Arc<Watch>,
}

impl Wiring {
    fn new(input: DuplexStream, output: DuplexStream, gate: &Arc<Gate>) -> (Wiring, Arc<Watch>) {
        let watch = Arc::new(Watch::default());
        let wiring = Wiring {
            input,
            output,
            gate: gate.clone(),
            watch: watch.clone(),
        };
        (wiring, watch)
    }

    /// The side's stdio streams. Each spawns the task that moves its bytes, on the runtime
    /// this is called in: the sandbox's own, so that a reply wakes its reader without a hop
    /// between runtimes.
    fn into_ends(self) -> Ends {
        Ends {
            stdin: Arc::new(AsyncStdinStream::new(self.input)),
            stdout: Arc::new(AsyncStdoutStream::new(PIPE_BYTES, Discarding(self.output))),
            gate: self.gate,
            watch: self.watch,
        }
    }
}

/// A side's run as the caller sees it: started, its task, its wall-time limit and its watch.
struct Running {
    task: AbortOnDrop<Result<Outcome, RunError>>,
    wall_time: Duration,
    watch: Arc<Watch>,
    /// Its outcome and when it ended, once its task has finished.
    done: Option<(Outcome, Instant)>,
}

impl Running {
    /// Waits for the side's run to end.
    async fn finish(&mut self) -> Result<(), RunError> {
        if self.done.is_none() {
            let outcome = joined((&mut self.task.0).await)?;
            let ended = self.watch.ended().unwrap_or_else(Instant::now);
            self.done = Some((outcome, ended));
        }
        Ok(())
    }

    /// When it ended, if it has.
    fn ended(&self) -> Option<Instant> {
        self.done.as_ref().map(|(_, at)| *at)
    }

    /// What it did; `None` when it never ended (it is stopped then). `other_ended`: when the
    /// other side ended, if first: a wall-clock deadline that had passed by then, yet ended
    /// this one only later, passed while it was blocked (waiting, then woken by the other's end).
    fn into_run(self, opened: Option<Instant>, other_ended: Option<Instant>) -> Option<SideRun> {
        let (outcome, _) = self.done?;
        let overdue = match (opened, other_ended) {
            (Some(opened), Some(other)) => opened + self.wall_time <= other,
            _ => false,
        };
        let waited = self.watch.waited.load(Ordering::Relaxed)
            || (outcome.status == Status::Timeout && overdue);
        Some(SideRun { outcome, waited })
    }
}

impl Sandbox {
    /// Runs `interactor` and `program` side by side, the program's stdout piped into the
    /// interactor's stdin and the interactor's stdout into the program's stdin (their own
    /// `stdin` is ignored), each under its own limits, until the interactor has ended and the
    /// program has ended or been stopped (see [`Interaction::program`]). What a side writes
    /// once the other has ended is dropped.
    ///
    /// Errors when either is refused up front, or (with `max_wait`) when both cannot be
    /// admitted in time: [`RunError::Busy`] then, as [`Sandbox::run_within`] answers.
    pub async fn run_interactive(
        &self,
        interactor: Program,
        program: Program,
        max_wait: Option<Duration>,
    ) -> Result<Interaction, RunError> {
        let interactor_limits = self.checked(&interactor)?;
        let program_limits = self.checked(&program)?;
        let deadline = max_wait.map(|w| Instant::now() + w);
        let _pair = self.admission().pair_slot(deadline).await?;
        let gate = Arc::new(Gate::default());
        let (to_program, program_in) = tokio::io::duplex(PIPE_BYTES);
        let (program_out, from_program) = tokio::io::duplex(PIPE_BYTES);
        let (interactor_ends, interactor_watch) = Wiring::new(from_program, to_program, &gate);
        let (program_ends, program_watch) = Wiring::new(program_in, program_out, &gate);
        let mut sides = [
            Running {
                wall_time: interactor_limits.wall_time,
                task: self.start(
                    interactor,
                    interactor_limits,
                    deadline,
                    Some(interactor_ends),
                )?,
                watch: interactor_watch,
                done: None,
            },
            Running {
                wall_time: program_limits.wall_time,
                task: self.start(program, program_limits, deadline, Some(program_ends))?,
                watch: program_watch,
                done: None,
            },
        ];
        let first = first_to_end(&mut sides, &gate).await?;
        let [interactor, program] = sides;
        let opened = gate.opened.get().copied();
        let (interactor_ended, program_ended) = (interactor.ended(), program.ended());
        Ok(Interaction {
            interactor: interactor
                .into_run(opened, program_ended.filter(|_| first == Party::Program)),
            program: program.into_run(
                opened,
                interactor_ended.filter(|_| first == Party::Interactor),
            ),
            first,
        })
    }
}

/// Waits for a side to end, then for the other as far as it is needed: the program once
/// the interactor exited with status 0, the interactor once the program ended. A side
/// that need not end, or never started because the other ended first, is stopped (its
/// task dropped).
async fn first_to_end(sides: &mut [Running; 2], gate: &Gate) -> Result<Party, RunError> {
    let [interactor, program] = sides;
    tokio::select! {
        done = &mut interactor.task.0 => {
            let ended = interactor.watch.ended().unwrap_or_else(Instant::now);
            interactor.done = Some((joined(done)?, ended));
        }
        done = &mut program.task.0 => {
            let ended = program.watch.ended().unwrap_or_else(Instant::now);
            program.done = Some((joined(done)?, ended));
        }
    }
    // The other may have ended as well before this task looked: the earlier end is first.
    for side in [&mut *interactor, &mut *program] {
        if side.done.is_none() && side.task.0.is_finished() {
            side.finish().await?;
        }
    }
    let first = match (interactor.ended(), program.ended()) {
        (Some(i), Some(p)) if p < i => Party::Program,
        (Some(_), _) => Party::Interactor,
        _ => Party::Program,
    };
    let accepted = matches!(&interactor.done, Some((o, _)) if o.status == Status::Ok);
    if gate.open() && (first == Party::Program || accepted) {
        interactor.finish().await?;
        program.finish().await?;
    }
    Ok(first)
}
