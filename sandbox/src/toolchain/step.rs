//! One compile: the confined processes a compiler is run as (its [`Step`]s), within the compile
//! time limit and a memory cap, and the module they leave behind ([`OUTPUT`]). Each compiler
//! (`clang`, `golang`, `rust`) prepares its steps; this runs them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tokio::io::AsyncReadExt;

use crate::config::Limits;
use crate::confine::{Jail, JailedCommand};
use crate::outcome::CompileOutcome;

/// Most compiler diagnostics kept.
const DIAGNOSTICS_BYTES: usize = 64 << 10;

/// The file every compile writes its module to, in its work folder.
pub(crate) const OUTPUT: &str = "main.wasm";

/// One confined process of a compile: the program (a path inside the jail) and its arguments.
pub(crate) struct Step {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
}

/// A compile made ready in its work folder: its steps, and the environment they run with.
pub(crate) type Prepared = (Vec<Step>, Vec<(&'static str, String)>);

/// Runs the `prepared` steps in `dir` inside `jail`, within the compile time limit and a memory
/// cap; returns the module bytes on success. The compile's time counts from `started`.
pub(crate) async fn compile(
    jail: &Jail,
    dir: &Path,
    prepared: std::io::Result<Prepared>,
    limits: &Limits,
    started: Instant,
) -> (CompileOutcome, Option<Vec<u8>>) {
    let failed = |stderr: String, exit_code: Option<i32>, timed_out: bool| CompileOutcome {
        ok: false,
        exit_code,
        stderr,
        timed_out,
        wall_time: started.elapsed(),
        cached: false,
    };
    let (steps, env) = match prepared {
        Ok(s) => s,
        Err(e) => {
            return (
                failed(format!("preparing the compile: {e}"), None, false),
                None,
            );
        }
    };
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let deadline = tokio::time::Instant::now() + limits.compile_time;
    let cpu_seconds = limits.compile_time.as_secs() + 1;
    let mut stderr = String::new();
    let mut exit_code = None;
    for step in steps {
        let JailedCommand { cmd, held } =
            match jail.command(dir, &step.program, &step.args, &env, cpu_seconds) {
                Ok(c) => c,
                Err(e) => {
                    return (
                        failed(format!("confining the compiler: {e}"), None, false),
                        None,
                    );
                }
            };
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let spawned = cmd.spawn();
        drop(held);
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                return (
                    failed(format!("starting the compiler: {e}"), None, false),
                    None,
                );
            }
        };
        let group = child.id();
        let (stdout, stderr_pipe) = (child.stdout.take(), child.stderr.take());
        let waited = tokio::time::timeout_at(deadline, async {
            let (out, err) = tokio::join!(read_limited(stdout), read_limited(stderr_pipe));
            (child.wait().await, [out, err].concat())
        })
        .await;
        let (status, diagnostics) = match waited {
            Ok((Ok(status), diagnostics)) => (status, diagnostics),
            Ok((Err(e), _)) => {
                return (
                    failed(format!("waiting for the compiler: {e}"), None, false),
                    None,
                );
            }
            Err(_) => {
                // Every process of the step (clang's linker too) is in the child's group.
                if let Some(pid) = group {
                    unsafe { libc::killpg(pid as libc::pid_t, libc::SIGKILL) };
                }
                return (failed("compilation timed out".into(), None, true), None);
            }
        };
        stderr.push_str(&String::from_utf8_lossy(&diagnostics));
        exit_code = status.code();
        if !status.success() {
            return (failed(stderr, exit_code, false), None);
        }
    }
    match std::fs::read(dir.join(OUTPUT)) {
        Ok(wasm) => (
            CompileOutcome {
                ok: true,
                exit_code,
                stderr,
                timed_out: false,
                wall_time: started.elapsed(),
                cached: false,
            },
            Some(wasm),
        ),
        Err(e) => (
            failed(format!("reading {OUTPUT}: {e}"), exit_code, false),
            None,
        ),
    }
}

/// Up to [`DIAGNOSTICS_BYTES`] of what a compiler writes to `pipe`.
async fn read_limited(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> Vec<u8> {
    let mut diagnostics = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe
            .take(DIAGNOSTICS_BYTES as u64)
            .read_to_end(&mut diagnostics)
            .await;
    }
    diagnostics
}
