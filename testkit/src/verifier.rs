//! The real verifier service as a child process, the way users run it (`verifier serve`).

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
    ///
    /// The port is free when chosen but not reserved: another test's process may take it before
    /// the service binds it, and the service then exits. It is started again on another port,
    /// up to [`ATTEMPTS`] times in all.
    pub async fn start(prefix: &str) -> anyhow::Result<Self> {
        Self::start_on(prefix, free_addr).await
    }

    /// [`VerifierProcess::start`] on the addresses `next_addr` gives, one per attempt.
    async fn start_on(
        prefix: &str,
        mut next_addr: impl FnMut() -> anyhow::Result<String>,
    ) -> anyhow::Result<Self> {
        let schema = Schema::create(prefix).await?;
        let binary = workspace_binary("verifier")?;
        let mut attempt = 1;
        loop {
            let listen = next_addr()?;
            let mut cmd = Command::new(&binary);
            cmd.args(["serve", "--listen", &listen, "--database-url", &schema.url])
                // Warnings and errors only: the test's own output stays readable.
                .env("RUST_LOG", "warn")
                .stdin(Stdio::null())
                .stdout(Stdio::null());
            crate::dies_with_parent(&mut cmd, libc::SIGKILL);
            let child = cmd
                .spawn()
                .with_context(|| format!("starting {}", binary.display()))?;
            let mut process = Self {
                url: format!("http://{listen}"),
                schema: schema.clone(),
                child,
            };
            match process.wait_ready(Duration::from_secs(120)).await? {
                Ready::Serving => return Ok(process),
                Ready::Exited(status) if attempt < ATTEMPTS => {
                    eprintln!(
                        "the verifier on {listen} exited ({status}): starting it on another port"
                    );
                    attempt += 1;
                }
                Ready::Exited(status) => {
                    anyhow::bail!(
                        "the verifier exited with {status} before it was ready, {ATTEMPTS} times"
                    )
                }
            }
        }
    }

    /// Leaves the service running until the thread that started it ends (the kernel then
    /// kills it), for fixtures that hand out only its URL; returns that URL.
    pub fn keep_until_thread_ends(self) -> String {
        let url = self.url.clone();
        std::mem::forget(self);
        url
    }

    /// Waits until the service answers `/readyz`, or has exited. An answer while the child
    /// has exited came from another process on the port, so it counts as an exit.
    async fn wait_ready(&mut self, timeout: Duration) -> anyhow::Result<Ready> {
        // A probe answered by nobody (a port held by a process that never replies) must not
        // block the loop that notices the child's exit.
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(2))
            .build()?;
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(Ready::Exited(status));
            }
            let ready = http
                .get(format!("{}/readyz", self.url))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            if ready {
                return Ok(match self.child.try_wait()? {
                    Some(status) => Ready::Exited(status),
                    None => Ready::Serving,
                });
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

/// Starts of the service before its failure to come up is the test's.
const ATTEMPTS: u32 = 3;

/// How a start ended.
enum Ready {
    /// It answers `/readyz`.
    Serving,
    /// It exited first (e.g. its port was taken meanwhile).
    Exited(std::process::ExitStatus),
}

impl Drop for VerifierProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port taken between its choice and the service's bind (another test's process got it):
    /// the service exits, and is started again on the next address.
    #[tokio::test]
    async fn a_port_taken_meanwhile_is_left_for_another() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let taken_addr = taken.local_addr().unwrap().to_string();
        let mut given = vec![];
        let verifier = VerifierProcess::start_on("testkit", || {
            let addr = if given.is_empty() {
                taken_addr.clone()
            } else {
                free_addr()?
            };
            given.push(addr.clone());
            Ok(addr)
        })
        .await
        .unwrap();
        assert_eq!(given.len(), 2, "{given:?}");
        assert_eq!(verifier.url, format!("http://{}", given[1]));
        assert_ne!(given[1], taken_addr);
        drop(taken);
    }
}
