//! C and C++ through clang's wasm32-wasi target (Debian's clang-19 + wasi-libc + libc++).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use tokio::io::AsyncReadExt;

use crate::outcome::CompileOutcome;
use crate::python::{command_linker, run_command};
use crate::runner::Inner;
use crate::{Language, Limits, Outcome, Program, Runtime, Status};

/// Where Debian's wasi-libc puts the wasm32-wasi sysroot's libraries.
const SYSROOT_LIBC: &str = "/usr/lib/wasm32-wasi/libc.a";

/// Most compiler diagnostics kept.
const DIAGNOSTICS_BYTES: usize = 64 << 10;

/// Virtual memory cap for the compiler process, in KiB (`ulimit -v`).
const COMPILER_MEMORY_KIB: u64 = 4 << 20;

/// An installed clang able to target wasm32-wasi.
pub(crate) struct Toolchain {
    /// The clang executable.
    pub(crate) clang: PathBuf,
}

impl Toolchain {
    /// Finds clang (the configured one, else `clang-19`, else `clang`) and the wasi sysroot.
    pub(crate) fn detect(configured: Option<&Path>) -> Option<Toolchain> {
        if !Path::new(SYSROOT_LIBC).is_file() {
            return None;
        }
        let candidates: Vec<PathBuf> = match configured {
            Some(p) => vec![p.to_path_buf()],
            None => vec!["clang-19".into(), "clang".into()],
        };
        candidates.into_iter().find_map(|c| {
            let ok = std::process::Command::new(&c)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            ok.then_some(Toolchain { clang: c })
        })
    }

    /// Compiles then runs a C or C++ program.
    pub(crate) async fn run(&self, inner: &Inner, program: &Program, limits: &Limits) -> Outcome {
        let dir = match tempfile::Builder::new().prefix("sandbox-cc-").tempdir() {
            Ok(d) => d,
            Err(e) => return Outcome::internal(format!("creating build folder: {e}")),
        };
        let (compile, wasm) = self.compile(dir.path(), program, limits).await;
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
        let module = match wasmtime::Module::new(&inner.engine, &wasm) {
            Ok(m) => m,
            Err(e) => {
                return with_compile(
                    Outcome::internal(format!("loading compiled program: {e:?}")),
                    compile,
                );
            }
        };
        let pre = match command_linker(&inner.engine).and_then(|l| {
            l.instantiate_pre(&module)
                .map_err(|e| anyhow::anyhow!("linking compiled program: {e:?}"))
        }) {
            Ok(p) => p,
            Err(e) => return with_compile(Outcome::internal(format!("{e:#}")), compile),
        };
        let outcome = run_command(inner, &pre, program, limits, &["main"], Runtime::Wasi).await;
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
                &["--driver-mode=g++", "-std=c++17", "-fno-exceptions"],
            ),
            _ => ("main.c", &["-std=c17"]),
        };
        let failed = |stderr: String, exit_code: Option<i32>, timed_out: bool| CompileOutcome {
            ok: false,
            exit_code,
            stderr,
            timed_out,
            wall_time: started.elapsed(),
        };
        if let Err(e) = std::fs::write(dir.join(file), &program.source) {
            return (failed(format!("writing source: {e}"), None, false), None);
        }
        let mut cmd = tokio::process::Command::new("sh");
        // `ulimit -v` bounds the compiler's memory; `exec` keeps the pid so the timeout kills clang.
        cmd.arg("-c")
            .arg(format!(
                "ulimit -v {COMPILER_MEMORY_KIB} && exec \"$0\" \"$@\""
            ))
            .arg(&self.clang)
            .args(extra)
            .args([
                "--target=wasm32-wasi",
                "--sysroot=/usr",
                "-O2",
                "-s",
                "-o",
                "main.wasm",
                file,
                "-lm",
            ])
            .current_dir(dir)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => return (failed(format!("starting clang: {e}"), None, false), None),
        };
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
            Err(_) => return (failed("compilation timed out".into(), None, true), None),
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
