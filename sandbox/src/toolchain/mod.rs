//! Compiled languages (C, C++, Go, Rust): a compiler ([`clang`] for C/C++, Go's [`golang`],
//! [`rustc`](rust)) run confined, its wasm32-wasi output kept as native code by [`builds`] (in
//! memory) and [`build_disk`] (on disk), then run as a WASI command. [`cpp`] holds the
//! judge-style headers every C/C++ compile gets.
//!
//! A compiler is the one host program untrusted source drives, so it only ever runs inside a
//! [`Jail`] established at start-up by its own self-test; without one, its languages are
//! unsupported.
//!
//! Dependencies run one way: this module picks the compiler ([`Family`], [`Compiler`]) and
//! drives the build; each compiler's file prepares its steps in a work folder; [`step`] runs
//! them, confined, and knows no compiler.

mod build_disk;
pub(crate) mod builds;
mod clang;
pub(crate) mod cpp;
mod golang;
mod rust;
mod step;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use crate::admission::{Admission, Ticket};
use crate::config::{Config, Limits};
use crate::confine::{ConfinementChoice, Jail, Mechanism};
use crate::instance::{Guest, Host, command_linker, run_command};
use crate::outcome::{CompileOutcome, Outcome, Runtime, Status};
use crate::program::{Language, Program, RunError};
use builds::{Build, Builds};
use clang::Clang;
use golang::Go;
use rust::Rust;

/// What a compiled language needs of an admitted run besides the program: its ticket, the
/// compile slots and builds, and the caller's deadline for waiting on them.
pub(crate) struct Admitted<'a> {
    pub(crate) admission: &'a Admission,
    pub(crate) ticket: &'a Ticket<'a>,
    pub(crate) builds: &'a Builds,
    pub(crate) deadline: Option<Instant>,
}

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

/// A confined compiler.
#[derive(Clone)]
pub(crate) struct Toolchain {
    jail: Jail,
    compiler: Compiler,
}

impl Toolchain {
    /// Finds `family`'s compiler (at `configured`, else where its set-up step puts it) and
    /// establishes a confinement for it as `config` says; `Err` says why its languages cannot
    /// run here. The answer depends only on the host, so a process works it out once per
    /// configuration (each sandbox of a test binary would otherwise redo the self-test's
    /// compiles).
    pub(crate) fn detect(
        family: Family,
        configured: Option<&Path>,
        config: &Config,
    ) -> Result<Toolchain, String> {
        type Key = (Family, Option<PathBuf>, ConfinementChoice, usize, bool);
        static KNOWN: Mutex<Vec<(Key, Result<Toolchain, String>)>> = Mutex::new(Vec::new());
        let (choice, concurrency) = (config.confinement, config.concurrency);
        let key = (
            family,
            configured.map(Path::to_path_buf),
            choice,
            concurrency,
            family == Family::Clang && config.cpp_exceptions,
        );
        let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, found)) = known.iter().find(|(k, _)| *k == key) {
            return found.clone();
        }
        let found = match family {
            Family::Clang => Clang::establish(configured, choice, concurrency, key.4)
                .map(|(jail, c)| (jail, Compiler::Clang(c))),
            Family::Go => Go::establish(configured, choice, concurrency)
                .map(|(jail, g)| (jail, Compiler::Go(g))),
            Family::Rust => Rust::establish(configured, choice, concurrency)
                .map(|(jail, r)| (jail, Compiler::Rust(r))),
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
    pub(crate) fn version(&self, language: Language) -> String {
        match &self.compiler {
            Compiler::Clang(c) => c.version(language),
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
        let argv: Vec<&str> = std::iter::once("main")
            .chain(program.args.iter().map(String::as_str))
            .collect();
        let outcome = run_command(
            host,
            &run.ticket.grant,
            &pre,
            program,
            limits,
            Guest {
                args: &argv,
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

    /// Prepares the compile in `dir` (the source and what else the compiler reads) and runs its
    /// steps ([`step::compile`]); returns the module bytes on success.
    async fn compile(
        &self,
        dir: &Path,
        program: &Program,
        limits: &Limits,
    ) -> (CompileOutcome, Option<Vec<u8>>) {
        let started = Instant::now();
        let prepared = match &self.compiler {
            Compiler::Clang(c) => c.prepare(dir, program),
            Compiler::Go(g) => g.prepare(&self.jail, dir, program),
            Compiler::Rust(r) => r.prepare(dir, program),
        };
        match step::compile(&self.jail, dir, prepared, limits, started).await {
            (compile, Some(wasm)) => match &self.compiler {
                Compiler::Clang(c) => c.finish(program.language, compile, wasm),
                _ => (compile, Some(wasm)),
            },
            failed => failed,
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
