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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, DuplexStream};
use tokio::sync::Notify;
use wasmtime_wasi::cli::{
    AsyncStdinStream, AsyncStdoutStream, IsTerminal, StdinStream, StdoutStream,
};
use wasmtime_wasi::p2::{InputStream, OutputStream};

use crate::outcome::{Outcome, Status};
use crate::program::{Program, RunError};
use crate::runner::{Sandbox, joined};

/// Bytes a pipe holds before its writer waits (each direction).
const PIPE_BYTES: usize = 64 << 10;

/// One side of an interaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One side's pipe ends, its start gate and where its run notes that it waited.
pub(crate) struct Ends {
    stdin: Arc<AsyncStdinStream>,
    stdout: Arc<AsyncStdoutStream>,
    gate: Arc<Gate>,
    waited: Arc<AtomicBool>,
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

    /// Notes that the side's time ran out while it was blocked in a host call.
    pub(crate) fn note_waited(&self) {
        self.waited.store(true, Ordering::Relaxed);
    }
}

/// The ends of the interaction the current task runs a side of, if any.
pub(crate) fn current() -> Option<Arc<Ends>> {
    ENDS.try_with(Arc::clone).ok()
}

/// Runs `run` as the side whose pipes are `ends` (a plain run without).
pub(crate) async fn scoped<T>(ends: Option<Ends>, run: impl Future<Output = T>) -> T {
    match ends {
        Some(ends) => ENDS.scope(Arc::new(ends), run).await,
        None => run.await,
    }
}

/// Where both sides meet before their clocks start.
#[derive(Default)]
struct Gate {
    arrived: AtomicUsize,
    notify: Notify,
}

impl Gate {
    /// Arrives, then waits for the other side.
    async fn pass(&self) {
        self.arrived.fetch_add(1, Ordering::SeqCst);
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

/// One side's half of the wiring, and what the caller keeps of it.
fn side(input: DuplexStream, output: DuplexStream, gate: &Arc<Gate>) -> (Ends, Arc<AtomicBool>) {
    let waited = Arc::new(AtomicBool::new(false));
    let ends = Ends {
        stdin: Arc::new(AsyncStdinStream::new(input)),
        stdout: Arc::new(AsyncStdoutStream::new(PIPE_BYTES, output)),
        gate: gate.clone(),
        waited: waited.clone(),
    };
    (ends, waited)
}

impl Sandbox {
    /// Runs `interactor` and `program` side by side, the program's stdout piped into the
    /// interactor's stdin and the interactor's stdout into the program's stdin (their own
    /// `stdin` is ignored), each under its own limits, until the interactor has ended and the
    /// program has ended or been stopped (see [`Interaction::program`]).
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
        let (interactor_ends, interactor_waited) = side(from_program, to_program, &gate);
        let (program_ends, program_waited) = side(program_in, program_out, &gate);
        let mut interactor_task = self.start(
            interactor,
            interactor_limits,
            deadline,
            Some(interactor_ends),
        )?;
        let mut program_task = self.start(program, program_limits, deadline, Some(program_ends))?;
        let ended = |outcome: Outcome, waited: &AtomicBool| SideRun {
            outcome,
            waited: waited.load(Ordering::Relaxed),
        };
        tokio::select! {
            done = &mut interactor_task.0 => {
                let interactor = joined(done)?;
                let program = if gate.open() && interactor.status == Status::Ok {
                    Some(joined((&mut program_task.0).await)?)
                } else {
                    // Dropping the task stops the program at its next yield.
                    drop(program_task);
                    None
                };
                Ok(Interaction {
                    interactor: Some(ended(interactor, &interactor_waited)),
                    program: program.map(|p| ended(p, &program_waited)),
                    first: Party::Interactor,
                })
            }
            done = &mut program_task.0 => {
                let program = joined(done)?;
                let interactor = if gate.open() {
                    Some(joined((&mut interactor_task.0).await)?)
                } else {
                    drop(interactor_task);
                    None
                };
                Ok(Interaction {
                    interactor: interactor.map(|i| ended(i, &interactor_waited)),
                    program: Some(ended(program, &program_waited)),
                    first: Party::Program,
                })
            }
        }
    }
}
