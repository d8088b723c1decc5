//! C and C++ through clang's wasm32-wasi target (Debian's clang-19 + wasi-libc + libc++).
//!
//! The compiler is the one host program untrusted source drives, so it only ever runs inside
//! a [`Jail`](crate::confine) established at start-up; without one, C/C++ are unsupported.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use tokio::io::AsyncReadExt;

use crate::builds::{self, Build};
use crate::confine::{ConfinementChoice, Jail, JailedCommand, Mechanism, Toolset};
use crate::instance::{Guest, Host, command_linker, run_command};
use crate::outcome::CompileOutcome;
use crate::runner::Admitted;
use crate::{Language, Limits, Outcome, Program, RunError, Runtime, Status};

/// Most compiler diagnostics kept.
const DIAGNOSTICS_BYTES: usize = 64 << 10;

/// clang's flags for C++ (`-isystem include`: the judge-style headers of `crate::cpp`, written
/// into each compile's folder).
const CPP_FLAGS: &[&str] = &[
    "--driver-mode=g++",
    "-std=c++17",
    "-fno-exceptions",
    "-isystem",
    crate::cpp::INCLUDE_DIR,
    "-include",
    crate::cpp::RUNTIME_HEADER,
];
/// clang's flags for C.
const C_FLAGS: &[&str] = &["-std=c17", "-include", crate::cpp::RUNTIME_HEADER];

/// A clang able to target wasm32-wasi, confined.
#[derive(Clone)]
pub(crate) struct Toolchain {
    jail: Jail,
}

impl Toolchain {
    /// Finds clang and the wasi sysroot and establishes a confinement for them; `Err` says
    /// why C/C++ cannot run here. The answer depends only on the host, so a process works it
    /// out once per configuration (each sandbox of a test binary would otherwise redo the
    /// self-test's two compiles).
    pub(crate) fn detect(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<Toolchain, String> {
        type Key = (Option<std::path::PathBuf>, ConfinementChoice, usize);
        static KNOWN: Mutex<Vec<(Key, Result<Toolchain, String>)>> = Mutex::new(Vec::new());
        let key = (configured.map(Path::to_path_buf), choice, concurrency);
        let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, found)) = known.iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        let found = Self::establish(configured, choice, concurrency);
        known.push((key, found.clone()));
        found
    }

    fn establish(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<Toolchain, String> {
        let tools = Toolset::discover(configured)?;
        let jail = Jail::establish(choice, tools, concurrency)?;
        Ok(Toolchain { jail })
    }

    /// The clang executable.
    pub(crate) fn clang(&self) -> &Path {
        self.jail.clang()
    }

    /// The confinement the compiler runs in.
    pub(crate) fn mechanism(&self) -> Mechanism {
        self.jail.mechanism()
    }

    /// What identifies this toolchain's output besides the source: the compiler executable
    /// (path, size, modification time), its arguments and the headers written for it.
    pub(crate) fn identity(&self) -> Vec<u8> {
        let mut id = Vec::new();
        let clang = self.clang();
        id.extend(clang.as_os_str().as_encoded_bytes());
        if let Ok(meta) = std::fs::metadata(clang) {
            id.extend(meta.len().to_le_bytes());
            if let Ok(t) = meta
                .modified()
                .map(|t| t.duration_since(std::time::UNIX_EPOCH))
            {
                id.extend(t.unwrap_or_default().as_nanos().to_le_bytes());
            }
        }
        let flags = CPP_FLAGS.iter().chain(C_FLAGS).map(std::ffi::OsStr::new);
        for arg in self
            .jail
            .compile_args()
            .iter()
            .map(|a| a.as_os_str())
            .chain(flags)
        {
            id.push(0);
            id.extend(arg.as_encoded_bytes());
        }
        crate::cpp::identity(&mut id);
        id
    }

    /// Compiles (or reuses the build of) then runs a C or C++ program; waits for a compile slot
    /// until `deadline` at most.
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
                    .prefix("sandbox-cc-")
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
                runtime: Runtime::Wasi,
                source_file: None,
                mounts: &[],
                tmp: false,
                env: &[],
            },
        )
        .await;
        Ok(with_compile(outcome, compile))
    }

    /// Runs clang with a time and memory cap; returns the module bytes on success.
    async fn compile(
        &self,
        dir: &Path,
        program: &Program,
        limits: &Limits,
    ) -> (CompileOutcome, Option<Vec<u8>>) {
        let started = Instant::now();
        let (file, extra) = match program.language {
            Language::Cpp => ("main.cpp", CPP_FLAGS),
            _ => ("main.c", C_FLAGS),
        };
        let failed = |stderr: String, exit_code: Option<i32>, timed_out: bool| CompileOutcome {
            ok: false,
            exit_code,
            stderr,
            timed_out,
            wall_time: started.elapsed(),
            cached: false,
        };
        if let Err(e) = std::fs::write(dir.join(file), &program.source) {
            return (failed(format!("writing source: {e}"), None, false), None);
        }
        if let Err(e) = crate::cpp::write_headers(dir) {
            return (failed(format!("writing headers: {e}"), None, false), None);
        }
        let args: Vec<OsString> = extra
            .iter()
            .map(OsString::from)
            .chain(self.jail.compile_args())
            .chain(["-o", "main.wasm", file, "-lm"].map(OsString::from))
            .collect();
        let cpu_seconds = limits.compile_time.as_secs() + 1;
        let JailedCommand { cmd, held } = match self.jail.command(dir, &args, cpu_seconds) {
            Ok(c) => c,
            Err(e) => return (failed(format!("confining clang: {e}"), None, false), None),
        };
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let spawned = cmd.spawn();
        drop(held);
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => return (failed(format!("starting clang: {e}"), None, false), None),
        };
        let group = child.id();
        let mut stderr_pipe = child.stderr.take();
        let waited = tokio::time::timeout(limits.compile_time, async {
            let mut diagnostics = Vec::new();
            if let Some(pipe) = stderr_pipe.as_mut() {
                let _ = pipe
                    .take(DIAGNOSTICS_BYTES as u64)
                    .read_to_end(&mut diagnostics)
                    .await;
            }
            (child.wait().await, diagnostics)
        })
        .await;
        let (status, diagnostics) = match waited {
            Ok((Ok(status), diagnostics)) => (status, diagnostics),
            Ok((Err(e), _)) => {
                return (failed(format!("waiting for clang: {e}"), None, false), None);
            }
            Err(_) => {
                // Every process of the compile (the linker too) is in the child's group.
                if let Some(pid) = group {
                    unsafe { libc::killpg(pid as libc::pid_t, libc::SIGKILL) };
                }
                return (failed("compilation timed out".into(), None, true), None);
            }
        };
        let stderr = String::from_utf8_lossy(&diagnostics).into_owned();
        if !status.success() {
            return (failed(stderr, status.code(), false), None);
        }
        match std::fs::read(dir.join("main.wasm")) {
            Ok(wasm) => (
                CompileOutcome {
                    ok: true,
                    exit_code: status.code(),
                    stderr,
                    timed_out: false,
                    wall_time: started.elapsed(),
                    cached: false,
                },
                Some(wasm),
            ),
            Err(e) => (
                failed(format!("reading main.wasm: {e}"), status.code(), false),
                None,
            ),
        }
    }
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

/// A compile that failed before clang ran.
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
/// failure when clang did not even report a status.
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
