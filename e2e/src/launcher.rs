//! The stack started exactly as users start it, through `scripts/up`, in a database schema of
//! its own (inside the server of `DATABASE_URL`) and on a free loopback port.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use sqlx::PgPool;
use testkit::{Schema, repo_root, workspace_binary};
pub use testkit::{database_url, free_addr, with_schema};

/// Lines a process printed (stdout and stderr, interleaved as read), shared with reader threads.
#[derive(Default)]
struct Transcript {
    lines: Mutex<Vec<String>>,
    /// Streams that reached end of file.
    closed: Mutex<usize>,
    grew: Condvar,
}

/// `scripts/up` running as a child process in a process group of its own.
pub struct Launch {
    child: Child,
    transcript: Arc<Transcript>,
    done: Option<ExitStatus>,
}

impl Launch {
    /// Starts `scripts/up args…` with `env` added to this process's environment.
    pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Self> {
        let script = repo_root().join("scripts").join("up");
        let mut cmd = Command::new(&script);
        cmd.args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group: a failed test can kill the launcher and the verifier it started.
            .process_group(0);
        // A job started in the background of a non-interactive shell (`scripts/test &`) has
        // SIGINT ignored, and a shell cannot trap a signal ignored on entry: restore the
        // default so the launcher gets Ctrl-C as a terminal user's would.
        // SAFETY: signal(2) is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", script.display()))?;
        let transcript = Arc::new(Transcript::default());
        let out = child.stdout.take().expect("stdout is piped");
        let err = child.stderr.take().expect("stderr is piped");
        pump(out, transcript.clone());
        pump(err, transcript.clone());
        Ok(Self {
            child,
            transcript,
            done: None,
        })
    }

    /// The launcher's process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Everything printed so far.
    pub fn output(&self) -> Vec<String> {
        self.transcript.lines.lock().unwrap().clone()
    }

    /// Lines printed so far that start with `prefix`.
    pub fn lines_starting(&self, prefix: &str) -> Vec<String> {
        self.output()
            .into_iter()
            .filter(|l| l.starts_with(prefix))
            .collect()
    }

    /// Waits until `count` lines starting with `prefix` have been printed; fails when the
    /// launcher exits first or after `timeout`, showing its output.
    pub fn wait_for(
        &mut self,
        prefix: &str,
        count: usize,
        timeout: Duration,
    ) -> anyhow::Result<String> {
        let deadline = Instant::now() + timeout;
        let mut lines = self.transcript.lines.lock().unwrap();
        loop {
            if let Some(l) = lines
                .iter()
                .filter(|l| l.starts_with(prefix))
                .nth(count - 1)
            {
                return Ok(l.clone());
            }
            let now = Instant::now();
            let exited = self.done.is_some() || self.child.try_wait()?.is_some();
            if exited || now >= deadline {
                let why = if exited {
                    "the launcher exited"
                } else {
                    "timed out"
                };
                anyhow::bail!(
                    "{why} before printing `{prefix}`; its output:\n{}",
                    lines.join("\n")
                );
            }
            lines = self
                .transcript
                .grew
                .wait_timeout(lines, (deadline - now).min(Duration::from_millis(100)))
                .unwrap()
                .0;
        }
    }

    /// The pid of the verifier the launcher started most recently.
    pub fn verifier_pid(&self) -> anyhow::Result<i32> {
        let line = self
            .lines_starting("up: verifier pid ")
            .pop()
            .context("the launcher has not started a verifier")?;
        line["up: verifier pid ".len()..]
            .trim()
            .parse()
            .with_context(|| format!("unreadable pid in `{line}`"))
    }

    /// Waits for the launcher to exit by itself, killing its group after `timeout`.
    pub fn wait(&mut self, timeout: Duration) -> anyhow::Result<ExitStatus> {
        if let Some(s) = self.done {
            return Ok(s);
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(s) = self.child.try_wait()? {
                self.done = Some(s);
                self.drain(Duration::from_secs(2));
                return Ok(s);
            }
            if Instant::now() >= deadline {
                self.kill_group();
                anyhow::bail!(
                    "the launcher did not exit within {timeout:?}; output:\n{}",
                    self.output().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits (at most `timeout`: a surviving grandchild may hold the pipes open) until the
    /// reader threads have seen the end of both output streams.
    fn drain(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut closed = self.transcript.closed.lock().unwrap();
        while *closed < 2 && Instant::now() < deadline {
            closed = self
                .transcript
                .grew
                .wait_timeout(closed, Duration::from_millis(20))
                .unwrap()
                .0;
        }
    }

    /// Sends `signal` to the launcher process only (as Ctrl-C or `kill` would).
    pub fn signal(&self, signal: i32) {
        send(self.pid(), signal);
    }

    /// Kills the launcher's whole process group (it and the verifier), unless it already exited.
    fn kill_group(&mut self) {
        if self.done.is_none() {
            send(-self.pid(), libc::SIGKILL);
            self.done = self.child.wait().ok();
        }
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// Sends a signal to a process (negative: a process group) that this test started.
pub fn send(pid: i32, signal: i32) {
    // SAFETY: kill(2) has no memory effects; a stale pid only yields ESRCH.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Whether process `pid` still exists (and is not a zombie awaiting its parent).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name: Z is a zombie, X dead.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn pump(stream: impl Read + Send + 'static, t: Arc<Transcript>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            t.lines.lock().unwrap().push(line);
            t.grew.notify_all();
        }
        *t.closed.lock().unwrap() += 1;
        t.grew.notify_all();
    });
}

/// A running stack: the launcher, its verifier, and a schema of its own.
pub struct Stack {
    /// The launcher process.
    pub launch: Launch,
    /// Base URL of the verifier.
    pub url: String,
    /// Connection URL of the stack's schema (what the launcher and the verifier use).
    pub db_url: String,
    admin_url: String,
    schema: String,
}

impl Stack {
    /// Creates a schema, starts `scripts/up` on it with the verifier binary of this build and
    /// the example data in `data`, and waits until the service is ready.
    pub async fn start(data: &Path) -> anyhow::Result<Self> {
        let admin_url = database_url();
        let Schema {
            name: schema,
            url: db_url,
        } = Schema::create("e2e").await?;
        let verifier = workspace_binary("verifier")?;
        let listen = free_addr()?;
        let data = data.to_string_lossy();
        let launch = Launch::spawn(
            &[],
            &[
                ("DATABASE_URL", &db_url),
                ("VERIFIER_LISTEN", &listen),
                ("HACRL_DATA", &data),
                ("HACRL_VERIFIER_BIN", &verifier.to_string_lossy()),
            ],
        )?;
        let mut stack = Self {
            launch,
            url: format!("http://{listen}"),
            db_url,
            admin_url,
            schema,
        };
        stack
            .launch
            .wait_for("up: ready ", 1, Duration::from_secs(60))?;
        Ok(stack)
    }

    /// A direct connection to the stack's schema (what `psql` users see).
    pub async fn db(&self) -> anyhow::Result<PgPool> {
        testkit::connect(&self.db_url, 2).await
    }

    /// Stops the stack as Ctrl-C does and checks that everything it started is gone.
    pub fn stop(mut self) -> anyhow::Result<()> {
        let verifier = self.launch.verifier_pid()?;
        self.launch.signal(libc::SIGINT);
        let status = self.launch.wait(Duration::from_secs(20))?;
        anyhow::ensure!(
            status.success(),
            "the launcher exited with {status}; output:\n{}",
            self.launch.output().join("\n")
        );
        anyhow::ensure!(
            !alive(verifier),
            "verifier {verifier} outlived the launcher"
        );
        let out = self.launch.output();
        anyhow::ensure!(
            !out.iter().any(|l| l.contains("did not stop within")),
            "the verifier ignored SIGTERM and was killed:\n{}",
            out.join("\n")
        );
        anyhow::ensure!(
            out.iter().any(|l| l == "up: stopped"),
            "no `up: stopped` in:\n{}",
            out.join("\n")
        );
        Ok(())
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.launch.kill_group();
        // Synchronous on purpose (Drop cannot await); psql is a prerequisite of scripts/up.
        let _ = Command::new("psql")
            .args([
                "-Xq",
                &self.admin_url,
                "-c",
                &format!("drop schema if exists {} cascade", self.schema),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
