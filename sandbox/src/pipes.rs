//! The pipes of an interactive run ([`crate::Sandbox::run_interactive`]): each side's standard
//! input and output, in-process (`tokio::io::duplex`), holding at most [`PIPE_BYTES`] each way —
//! a side that writes faster than the other reads waits for room, so a program flooding its
//! output holds no more host memory than that. Both sides start their clocks together, once
//! both are built ([`Gate`]): compiling one must not eat the other's time.
//!
//! A run finds its pipe ends in a task-local ([`current`]) rather than in its `Program`: a
//! `Program` is a plain value callers build and clone, while a pipe end belongs to one run, and
//! every language's runner reaches the WASI context through the same `instance` layer, which
//! alone reads it. Below the runner and the instances, above nothing of the crate.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{self as io, AsyncRead, AsyncWrite, DuplexStream};
use tokio::sync::Notify;
use wasmtime_wasi::cli::{
    AsyncStdinStream, AsyncStdoutStream, IsTerminal, StdinStream, StdoutStream,
};
use wasmtime_wasi::p2::{InputStream, OutputStream};

/// Bytes a pipe holds before its writer waits (each direction).
pub(crate) const PIPE_BYTES: usize = 64 << 10;

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
pub(crate) struct Watch {
    /// Its time ran out while it was blocked in a host call.
    waited: AtomicBool,
    /// When its guest last ended (none when it never started, e.g. did not compile).
    ended: Mutex<Option<Instant>>,
}

impl Watch {
    /// Whether its time ran out while it was blocked in a host call.
    pub(crate) fn waited(&self) -> bool {
        self.waited.load(Ordering::Relaxed)
    }

    /// When its guest last ended (none when it never started).
    pub(crate) fn ended(&self) -> Option<Instant> {
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
pub(crate) struct Gate {
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

    /// When the second side arrived (none until it has).
    pub(crate) fn opened(&self) -> Option<Instant> {
        self.opened.get().copied()
    }

    /// Whether both sides have arrived.
    pub(crate) fn open(&self) -> bool {
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
    /// A side reading `input` and writing `output`, meeting the other at `gate`; and its watch.
    pub(crate) fn new(
        input: DuplexStream,
        output: DuplexStream,
        gate: &Arc<Gate>,
    ) -> (Wiring, Arc<Watch>) {
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
