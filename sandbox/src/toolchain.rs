//! Compiled languages: a compiler ([`clang`](crate::clang) for C/C++, Go's [`golang`](crate::golang),
//! [`rustc`](crate::rust))
//! run confined, its wasm32-wasi output kept as native code by [`builds`](crate::builds), then
//! run as a WASI command.
//!
//! A compiler is the one host program untrusted source drives, so it only ever runs inside a
//! [`Jail`] established at start-up by its own self-test; without one, its languages are
//! unsupported.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use tokio::io::AsyncReadExt;

use crate::builds::{self, Build};
use crate::clang::Clang;
use crate::confine::{ConfinementChoice, Jail, JailedCommand, Mechanism};
use crate::golang::Go;
use crate::instance::{Guest, Host, command_linker, run_command};
use crate::outcome::CompileOutcome;
use crate::runner::Admitted;
use crate::rust::Rust;
use crate::{Limits, Outcome, Program, RunError, Runtime, Status};

/// Most compiler diagnostics kept.
const DIAGNOSTICS_BYTES: usize = 64 << 10;

/// The file every compile writes its module to, in its work folder.
pub(crate) const OUTPUT: &str = "main.wasm";

/// Which compiler a toolchain runs.
#[derive(Clone)]
pub(crate) enum Compiler {
    /// clang for C and C++.
    Clang(Clang),
    /// Go's compile and link for GOOS=wasip1 GOARCH=wasm.
    Go(Go),
    /// rustc for wasm32-wasi.
    Rust(Rust),
}

/// Which compiler to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// C and C++.
    Clang,
    /// Go.
    Go,
    /// Rust.
    Rust,
}

/// One confined process of a compile: the program (a path inside the jail) and its arguments.
pub(crate) struct Step {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
}

/// A compile made ready in its work folder: its steps, and the environment they run with.
pub(crate) type Prepared = (Vec<Step>, Vec<(&'static str, String)>);

/// A confined compiler.
#[derive(Clone)]
pub(crate) struct Toolchain {
    jail: Jail,
    compiler: Compiler,
}

impl Toolchain {
    /// Finds `family`'s compiler (at `configured`, else where its set-up step puts it) and
    /// establishes a confinement for it; `Err` says why its languages cannot run here. The
    /// answer depends only on the host, so a process works it out once per configuration (each
    /// sandbox of a test binary would otherwise redo the self-test's compiles).
    pub(crate) fn detect(
        family: Family,
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<Toolchain, String> {
        type Key = (Family, Option<PathBuf>, ConfinementChoice, usize);
        static KNOWN: Mutex<Vec<(Key, Result<Toolchain, String>)>> = Mutex::new(Vec::new());
        let key = (
            family,
            configured.map(Path::to_path_buf),
            choice,
            concurrency,
        );
        let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, found)) = known.iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        let found = match family {
            Family::Clang => Clang::establish(configured, choice, concurrency),
            Family::Go => Go::establish(configured, choice, concurrency),
            Family::Rust => Rust::establish(configured, choice, concurrency),
        }
        .map(|(jail, compiler)| Toolchain { jail, compiler });
        known.push((key, found.clone()));
        found
    }

    /// The compiler's main executable on the host.
    pub(crate) fn executable(&self) -> &Path {
        match &self.compiler {
            Compiler::Clang(c) => c.executable(),
            Compiler::Go(g) => g.executable(),
            Compiler::Rust(r) => r.executable(),
        }
    }

    /// The confinement the compiler runs in.
    pub(crate) fn mechanism(&self) -> Mechanism {
        self.jail.mechanism()
    }

    /// What this toolchain supports, in words (`C++17 …`, `Go 1.27.3 …`).
    pub(crate) fn version(&self, language: crate::Language) -> String {
        match &self.compiler {
            Compiler::Clang(_) => Clang::version(language),
            Compiler::Go(g) => g.version(),
            Compiler::Rust(r) => r.version(),
        }
    }

    /// What identifies this toolchain's output besides the source: the compiler executable
    /// (path, size, modification time) and what else its output depends on (arguments,
    /// headers, the prebuilt standard library).
    pub(crate) fn identity(&self) -> Vec<u8> {
        let mut id = Vec::new();
        let exe = self.executable();
        id.extend(exe.as_os_str().as_encoded_bytes());
        if let Ok(meta) = std::fs::metadata(exe) {
            id.extend(meta.len().to_le_bytes());
            if let Ok(t) = meta
                .modified()
                .map(|t| t.duration_since(std::time::UNIX_EPOCH))
            {
                id.extend(t.unwrap_or_default().as_nanos().to_le_bytes());
            }
        }
        match &self.compiler {
            Compiler::Clang(c) => c.identity(&mut id),
            Compiler::Go(g) => g.identity(&mut id),
            Compiler::Rust(r) => r.identity(&mut id),
        }
        id
    }

    /// Compiles (or reuses the build of) then runs a program; waits for a compile slot until
    /// `deadline` at most.
    pub(crate) async fn run(
        &self,
        host: &Host,
        run: &Admitted<'_>,
        program: &Program,
        limits: &Limits,
    ) -> Result<Outcome, RunError> {
        let key = builds::key(program.language, &program.source);
        let built = run
            .builds
            .get_or_build(key, async || {
                let _slot = run
                    .admission
                    .compile_slot(run.deadline)
                    .await
                    .map_err(NotBuilt::Busy)?;
                let dir = tempfile::Builder::new()
                    .prefix("sandbox-build-")
                    .tempdir()
                    .map_err(|e| {
                        NotBuilt::Failed(failed_compile(format!("creating build folder: {e}")))
                    })?;
                match self.compile(dir.path(), program, limits).await {
                    (compile, Some(wasm)) => Ok((compile, wasm)),
                    (compile, None) => Err(NotBuilt::Failed(compile)),
                }
            })
            .await;
        let Build { module, compile } = match built {
            Ok(b) => b,
            Err(NotBuilt::Busy(e)) => return Err(e),
            Err(NotBuilt::Failed(compile)) => return Ok(not_built(compile)),
        };
        let pre = match command_linker(&host.engine).and_then(|l| {
            l.instantiate_pre(&module)
                .map_err(|e| anyhow::anyhow!("linking compiled program: {e:?}"))
        }) {
            Ok(p) => p,
            Err(e) => return Ok(with_compile(Outcome::internal(format!("{e:#}")), compile)),
        };
        let outcome = run_command(
            host,
            &run.ticket.grant,
            &pre,
            program,
            limits,
            Guest {
                args: &["main"],
                folder_name: match self.compiler {
                    Compiler::Clang(_) | Compiler::Rust(_) => ".",
                    Compiler::Go(_) => "/",
                },
                runtime: Runtime::Wasi,
                source_file: None,
                env: &[],
                mounts: &[],
                tmp: false,
            },
        )
        .await;
        Ok(with_compile(outcome, compile))
    }

    /// Runs the compiler's steps in `dir`, within the compile time limit and a memory cap;
    /// returns the module bytes on success.
    async fn compile(
        &self,
        dir: &Path,
        program: &Program,
        limits: &Limits,
    ) -> (CompileOutcome, Option<Vec<u8>>) {
        let started = Instant::now();
        let failed = |stderr: String, exit_code: Option<i32>, timed_out: bool| CompileOutcome {
            ok: false,
            exit_code,
            stderr,
            timed_out,
            wall_time: started.elapsed(),
            cached: false,
        };
        let prepared = match &self.compiler {
            Compiler::Clang(c) => c.prepare(dir, program),
            Compiler::Go(g) => g.prepare(&self.jail, dir, program),
            Compiler::Rust(r) => r.prepare(dir, program),
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
                match self
                    .jail
                    .command(dir, &step.program, &step.args, &env, cpu_seconds)
                {
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

/// Why a program has no build.
enum NotBuilt {
    /// No compile slot freed up before the caller's deadline.
    Busy(RunError),
    /// The compiler failed, or its output could not be loaded.
    Failed(CompileOutcome),
}

impl From<CompileOutcome> for NotBuilt {
    fn from(c: CompileOutcome) -> Self {
        NotBuilt::Failed(c)
    }
}

/// A compile that failed before the compiler ran.
fn failed_compile(why: String) -> CompileOutcome {
    CompileOutcome {
        ok: false,
        exit_code: None,
        stderr: why,
        timed_out: false,
        wall_time: std::time::Duration::ZERO,
        cached: false,
    }
}

/// The outcome of a program that did not compile: a compile error, or the sandbox's own
/// failure when the compiler did not even report a status.
fn not_built(compile: CompileOutcome) -> Outcome {
    let status = if compile.exit_code.is_none() && !compile.timed_out {
        Status::InternalError
    } else {
        Status::CompileError
    };
    let mut outcome = Outcome::internal(if compile.timed_out {
        "compilation timed out".to_string()
    } else {
        "compilation failed".to_string()
    });
    outcome.status = status;
    with_compile(outcome, compile)
}

/// Attaches the compile step to an outcome.
fn with_compile(mut outcome: Outcome, compile: CompileOutcome) -> Outcome {
    outcome.compile = Some(compile);
    outcome
}
