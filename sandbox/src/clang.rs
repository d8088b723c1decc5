//! C and C++ through clang's wasm32-wasi target (Debian's clang-19 + wasi-libc + libc++).
//!
//! The compiler is the one host program untrusted source drives, so it only ever runs inside
//! a [`Jail`](crate::confine) established at start-up; without one, C/C++ are unsupported.

use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::AsyncReadExt;

use crate::builds::{self, Build, Builds};
use crate::confine::{ConfinementChoice, Jail, JailedCommand, Mechanism, Toolset};
use crate::instance::{Host, command_linker, run_command};
use crate::outcome::CompileOutcome;
use crate::{Language, Limits, Outcome, Program, Runtime, Status};

/// Most compiler diagnostics kept.
const DIAGNOSTICS_BYTES: usize = 64 << 10;

/// A clang able to target wasm32-wasi, confined.
#[derive(Clone)]
pub(crate) struct Toolchain {
    jail: Jail,
    /// Successful compiles by source, shared by every sandbox of the process.
    builds: Builds,
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
        Ok(Toolchain {
            jail,
            builds: Builds::default(),
        })
    }

    /// The clang executable.
    pub(crate) fn clang(&self) -> &Path {
        self.jail.clang()
    }

    /// The confinement the compiler runs in.
    pub(crate) fn mechanism(&self) -> Mechanism {
        self.jail.mechanism()
    }

    /// Compiles then runs a C or C++ program.
    pub(crate) async fn run(&self, host: &Host, program: &Program, limits: &Limits) -> Outcome {
        let key = builds::key(program.language, &program.source);
        let (compile, wasm) = match self.builds.get(&key) {
            Some(build) => (
                CompileOutcome {
                    cached: true,
                    wall_time: std::time::Duration::ZERO,
                    ..build.compile
                },
                Some(build.wasm),
            ),
            None => {
                let dir = match tempfile::Builder::new().prefix("sandbox-cc-").tempdir() {
                    Ok(d) => d,
                    Err(e) => return Outcome::internal(format!("creating build folder: {e}")),
                };
                let (compile, wasm) = self.compile(dir.path(), program, limits).await;
                let wasm = wasm.map(Arc::new);
                if let Some(wasm) = &wasm {
                    let build = Build {
                        wasm: wasm.clone(),
                        compile: compile.clone(),
                    };
                    self.builds.put(key, build);
                }
                (compile, wasm)
            }
        };
        let Some(wasm) = wasm else {
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
            outcome.compile = Some(compile);
            return outcome;
        };
        // Small modules compile in milliseconds; doing it here keeps it on the sandbox's threads.
        let module = match wasmtime::Module::new(&host.engine, &wasm[..]) {
            Ok(m) => m,
            Err(e) => {
                return with_compile(
                    Outcome::internal(format!("loading compiled program: {e:?}")),
                    compile,
                );
            }
        };
        let pre = match command_linker(&host.engine).and_then(|l| {
            l.instantiate_pre(&module)
                .map_err(|e| anyhow::anyhow!("linking compiled program: {e:?}"))
        }) {
            Ok(p) => p,
            Err(e) => return with_compile(Outcome::internal(format!("{e:#}")), compile),
        };
        let outcome = run_command(host, &pre, program, limits, &["main"], Runtime::Wasi).await;
        with_compile(outcome, compile)
    }

    /// Runs clang with a time and memory cap; returns the module bytes on success.
    async fn compile(
        &self,
        dir: &Path,
        program: &Program,
        limits: &Limits,
    ) -> (CompileOutcome, Option<Vec<u8>>) {
        let started = Instant::now();
        let (file, extra): (&str, &[&str]) = match program.language {
            Language::Cpp => (
                "main.cpp",
                // `-isystem include`: the judge-style headers of `crate::cpp`, written below.
                &[
                    "--driver-mode=g++",
                    "-std=c++17",
                    "-fno-exceptions",
                    "-isystem",
                    crate::cpp::INCLUDE_DIR,
                    "-include",
                    crate::cpp::RUNTIME_HEADER,
                ],
            ),
            _ => (
                "main.c",
                &["-std=c17", "-include", crate::cpp::RUNTIME_HEADER],
            ),
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

/// Attaches the compile step to an outcome.
fn with_compile(mut outcome: Outcome, compile: CompileOutcome) -> Outcome {
    outcome.compile = Some(compile);
    outcome
}
