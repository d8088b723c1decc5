//! The real verifier service as a child process, the way users run it (`verifier serve`).

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{Schema, free_addr, workspace_binary};

/// `verifier serve` of this build on a free loopback port, on its own schema (it applies the
/// migrations at start-up). Killed when dropped, and by the kernel when the thread that
/// started it ends, so that a failing test leaves no service behind.
pub struct VerifierProcess {
    /// Base URL, e.g. `http://127.0.0.1:41234`.
    pub url: String,
    /// The schema it serves.
    pub schema: Schema,
    child: Child,
}

impl VerifierProcess {
    /// Creates a schema named `{prefix}_…`, starts the service on it and waits until
    /// `/readyz` answers 200 (at most 120 s: a cold sandbox compiles its runtimes first).
    pub async fn start(prefix: &str) -> anyhow::Result<Self> {
        let schema = Schema::create(prefix).await?;
        let binary = workspace_binary("verifier")?;
        let listen = free_addr()?;
        let mut cmd = Command::new(&binary);
        cmd.args(["serve", "--listen", &listen, "--database-url", &schema.url])
            // Warnings and errors only: the test's own output stays readable.
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        // SAFETY: prctl is async-signal-safe and touches only the child being set up.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut process = Self {
            url: format!("http://{listen}"),
            schema,
            child,
        };
        process.wait_ready(Duration::from_secs(120)).await?;
        Ok(process)
    }

    /// Leaves the service running until the thread that started it ends (the kernel then
    /// kills it), for fixtures that hand out only its URL; returns that URL.
    pub fn keep_until_thread_ends(self) -> String {
        let url = self.url.clone();
        std::mem::forget(self);
        url
    }

    async fn wait_ready(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                anyhow::bail!("the verifier exited with {status} before it was ready");
            }
            let ready = http
                .get(format!("{}/readyz", self.url))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            if ready {
                return Ok(());
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the verifier at {} was not ready within {timeout:?}",
                self.url
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for VerifierProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
