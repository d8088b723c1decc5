//! The three Python runtimes and the automatic choice between them: every program starts on the
//! fast one; one that stops at an import the fast one lacks is run again on the scientific one
//! when the missing module is one of its packages (`scientific`), else on full CPython 3.12.

use std::time::Instant;

use std::sync::Arc;

use anyhow::{Context, Result};
use wasmtime::Store;
use wasmtime::component::{self, ComponentExportIndex, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::scientific::{self, Scientific};
use crate::admission::Grant;
use crate::config::{Config, Limits};
use crate::instance::{
    CommandState, Ending, Guest, Host, Metered, command_linker, ending_of, execute, run_command,
};
use crate::meter::MemoryMeter;
use crate::outcome::{Outcome, Runtime};
use crate::program::{Program, PythonRuntime};

/// File name of the fast runtime (a componentize-py component) in `Config::runtime_dir`.
pub const FAST_WASM: &str = "runner.wasm";
/// File name of the full runtime (CPython 3.12 WASI command module) in `Config::runtime_dir`.
pub const FULL_WASM: &str = "python-3.12.0.wasm";

/// Exit status the fast runtime's `run` returns for an import it cannot satisfy (see app.py).
const MISSING_MODULE: i32 = 0x100;

/// Store data for the fast runtime (WASI preview 2).
struct FastState {
    ctx: WasiCtx,
    table: ResourceTable,
    meter: MemoryMeter,
}

impl WasiView for FastState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

impl Metered for FastState {
    fn meter(&mut self) -> &mut MemoryMeter {
        &mut self.meter
    }
}

/// Whether one Python runtime runs here (`Sandbox::python_runtimes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeSupport {
    /// Which runtime.
    pub runtime: Runtime,
    /// Its interpreter and version, when loaded.
    pub version: Option<String>,
    /// The packages it carries beyond the standard library, as (distribution, version).
    pub packages: Vec<(String, String)>,
    /// Why it is not loaded.
    pub reason: Option<String>,
}

/// The pre-initialised component, ready to instantiate.
struct Fast {
    pre: component::InstancePre<FastState>,
    run: ComponentExportIndex,
}

/// The loaded Python runtimes.
pub(crate) struct Python {
    fast: Option<Fast>,
    full: Option<wasmtime::InstancePre<CommandState>>,
    /// The scientific runtime, or why it is not loaded.
    scientific: Result<Scientific, String>,
}

impl Python {
    /// Loads whichever runtimes are enabled and installed.
    pub(crate) fn load(engine: &wasmtime::Engine, config: &Config) -> Result<Python> {
        let fast_path = config.runtime_dir.join(FAST_WASM);
        let full_path = config.runtime_dir.join(FULL_WASM);
        let fast = if config.fast_python && fast_path.is_file() {
            let started = Instant::now();
            let component = crate::modules::component(engine, &fast_path, &config.cache_dir)?;
            let run = component
                .get_export_index(None, "run")
                .context("runner.wasm has no `run` export")?;
            let mut linker = component::Linker::new(engine);
            wasmtime_wasi::p2::add_to_linker_async(&mut linker)
                .map_err(|e| anyhow::anyhow!("linking WASI preview 2: {e:?}"))?;
            let pre = linker
                .instantiate_pre(&component)
                .map_err(|e| anyhow::anyhow!("preparing runner.wasm: {e:?}"))?;
            tracing::info!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "fast Python runtime loaded"
            );
            Some(Fast { pre, run })
        } else {
            None
        };
        let full = if config.full_python && full_path.is_file() {
            let started = Instant::now();
            let module = crate::modules::module(engine, &full_path, &config.cache_dir)?;
            let pre = command_linker(engine)?
                .instantiate_pre(&module)
                .map_err(|e| anyhow::anyhow!("preparing {FULL_WASM}: {e:?}"))?;
            tracing::info!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "full Python runtime loaded"
            );
            Some(pre)
        } else {
            None
        };
        if fast.is_none() && full.is_none() {
            tracing::warn!(dir = %config.runtime_dir.display(), "no Python runtime found; run scripts/setup.d/20-python-wasm.sh");
        }
        let scientific = if config.scientific_python {
            let started = Instant::now();
            let loaded = Scientific::load(engine, config);
            match &loaded {
                Ok(s) => tracing::info!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    version = %s.version(),
                    "scientific Python runtime loaded"
                ),
                Err(why) => tracing::warn!(reason = %why, "scientific Python unavailable"),
            }
            loaded
        } else {
            Err("the scientific Python runtime is disabled in this sandbox's configuration".into())
        };
        Ok(Python {
            fast,
            full,
            scientific,
        })
    }

    /// Whether any Python runtime is loaded.
    pub(crate) fn available(&self) -> bool {
        self.fast.is_some() || self.full.is_some() || self.scientific.is_ok()
    }

    /// The loaded runtimes' versions: `CPython 3.14 (fast), 3.12 (full), 3.15 with numpy 2.5.2,
    /// … (scientific)`.
    pub(crate) fn version(&self) -> String {
        let parts: Vec<String> = [
            self.fast.as_ref().map(|_| "3.14 (fast)".to_string()),
            self.full.as_ref().map(|_| "3.12 (full)".to_string()),
            self.scientific.as_ref().ok().map(|s| {
                let v = s.version();
                format!("{} (scientific)", v.strip_prefix("CPython ").unwrap_or(&v))
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        format!("CPython {}", parts.join(", "))
    }

    /// Each Python runtime: loaded with its version, or why not.
    pub(crate) fn runtimes(&self) -> Vec<RuntimeSupport> {
        let fixed = |runtime, loaded: bool, version: &str, why: &str| RuntimeSupport {
            runtime,
            version: loaded.then(|| version.to_string()),
            packages: Vec::new(),
            reason: (!loaded).then(|| why.to_string()),
        };
        let setup = "is not installed; run scripts/setup.d/20-python-wasm.sh";
        vec![
            fixed(
                Runtime::PythonFast,
                self.fast.is_some(),
                "CPython 3.14",
                &format!("the fast runtime {setup}"),
            ),
            fixed(
                Runtime::PythonFull,
                self.full.is_some(),
                "CPython 3.12.0",
                &format!("the full runtime {setup}"),
            ),
            match &self.scientific {
                Ok(s) => RuntimeSupport {
                    runtime: Runtime::PythonScientific,
                    version: Some(s.version()),
                    packages: s.packages().to_vec(),
                    reason: None,
                },
                Err(why) => fixed(Runtime::PythonScientific, false, "", why),
            },
        ]
    }

    /// Runs a Python program on the runtime its settings and imports call for.
    pub(crate) async fn run(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Outcome {
        if program.python_runtime == PythonRuntime::Scientific {
            return match &self.scientific {
                Ok(s) => s.run(host, grant, program, limits).await,
                Err(why) => Outcome::internal(why.clone()),
            };
        }
        let use_fast = match program.python_runtime {
            PythonRuntime::Auto | PythonRuntime::Fast => self.fast.is_some(),
            PythonRuntime::Full | PythonRuntime::Scientific => false,
        };
        let auto = program.python_runtime == PythonRuntime::Auto;
        if use_fast {
            let mut outcome = self.run_fast(host, grant, program, limits).await;
            if outcome.exit_code == Some(MISSING_MODULE) {
                let missing = scientific::missing_module(&outcome.stderr);
                let mut rerun = match (&self.scientific, missing) {
                    (Ok(s), Some(m)) if auto && scientific::carries(m) => {
                        tracing::debug!(module = m, "rerunning on the scientific runtime");
                        s.run(host, grant, program, limits).await
                    }
                    _ if auto && self.full.is_some() => {
                        tracing::debug!(
                            "fast Python lacks an imported module; rerunning on the full runtime"
                        );
                        self.run_full(host, grant, program, limits).await
                    }
                    _ => {
                        outcome.exit_code = Some(1);
                        return outcome;
                    }
                };
                rerun.fell_back = true;
                return rerun;
            }
            return outcome;
        }
        match program.python_runtime {
            PythonRuntime::Fast => Outcome::internal("the fast Python runtime is not installed"),
            _ if self.full.is_none() => {
                Outcome::internal("the full Python runtime is not installed")
            }
            _ => self.run_full(host, grant, program, limits).await,
        }
    }

    /// One run on the pre-initialised component.
    async fn run_fast(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Outcome {
        let Some(fast) = &self.fast else {
            return Outcome::internal("the fast Python runtime is not installed");
        };
        let source = program.source.as_str();
        execute(
            host,
            grant,
            program,
            limits,
            Guest {
                args: &["python"],
                folder_name: ".",
                runtime: Runtime::PythonFast,
                source_file: None,
                mounts: &[],
                tmp: false,
                env: &[],
            },
            |mut builder, meter| FastState {
                ctx: builder.build(),
                table: ResourceTable::new(),
                meter,
            },
            async |store: &mut Store<FastState>| {
                let result = async {
                    let instance = fast.pre.instantiate_async(&mut *store).await?;
                    let run = instance.get_typed_func::<(&str,), (i32,)>(&mut *store, &fast.run)?;
                    run.call_async(&mut *store, (source,)).await
                }
                .await;
                match result {
                    Ok((code,)) => Ending::Exited(code),
                    Err(e) => ending_of(Err(e)),
                }
            },
        )
        .await
    }

    /// One run of `python -P -c SOURCE` on the full CPython 3.12 module.
    async fn run_full(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Outcome {
        let Some(pre) = &self.full else {
            return Outcome::internal("the full Python runtime is not installed");
        };
        run_command(
            host,
            grant,
            pre,
            program,
            limits,
            Guest {
                // -P: the working folder is not on sys.path, as on the other two runtimes.
                // With it there, every import of a module outside the standard library stat'ed
                // the folder, whose inode (a hash of the host's, another per run) changed the
                // interpreter's work by ~500 instructions in 1 run of 8 (issue 51's flaky fuel).
                args: &["python", "-P", "-c", &program.source],
                folder_name: ".",
                runtime: Runtime::PythonFull,
                source_file: None,
                mounts: &[],
                tmp: false,
                env: &[],
            },
        )
        .await
    }
}
