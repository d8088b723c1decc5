//! The two Python runtimes and the automatic choice between them.

use std::time::Instant;

use std::sync::Arc;

use anyhow::{Context, Result};
use wasmtime::Store;
use wasmtime::component::{self, ComponentExportIndex, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::admission::Grant;
use crate::instance::{
    CommandState, Ending, Guest, Host, Metered, command_linker, ending_of, execute, run_command,
};
use crate::meter::MemoryMeter;
use crate::{Config, Limits, Outcome, Program, PythonRuntime, Runtime};

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

/// The pre-initialised component, ready to instantiate.
struct Fast {
    pre: component::InstancePre<FastState>,
    run: ComponentExportIndex,
}

/// The loaded Python runtimes.
pub(crate) struct Python {
    fast: Option<Fast>,
    full: Option<wasmtime::InstancePre<CommandState>>,
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
        Ok(Python { fast, full })
    }

    /// Whether any Python runtime is loaded.
    pub(crate) fn available(&self) -> bool {
        self.fast.is_some() || self.full.is_some()
    }

    /// Whether the fast (pre-initialised 3.14) runtime is loaded.
    pub(crate) fn fast_loaded(&self) -> bool {
        self.fast.is_some()
    }

    /// Whether the full CPython 3.12 runtime is loaded.
    pub(crate) fn full_loaded(&self) -> bool {
        self.full.is_some()
    }

    /// Runs a Python program on the runtime its settings and imports call for.
    pub(crate) async fn run(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Outcome {
        let use_fast = match program.python_runtime {
            PythonRuntime::Auto | PythonRuntime::Fast => self.fast.is_some(),
            PythonRuntime::Full => false,
        };
        let may_fall_back = program.python_runtime == PythonRuntime::Auto && self.full.is_some();
        if use_fast {
            let mut outcome = self.run_fast(host, grant, program, limits).await;
            if outcome.exit_code == Some(MISSING_MODULE) {
                if may_fall_back {
                    tracing::debug!(
                        "fast Python lacks an imported module; rerunning on the full runtime"
                    );
                    let mut full = self.run_full(host, grant, program, limits).await;
                    full.fell_back = true;
                    return full;
                }
                outcome.exit_code = Some(1);
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

    /// One run of `python -c SOURCE` on the full CPython 3.12 module.
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
                args: &["python", "-c", &program.source],
                folder_name: ".",
                runtime: Runtime::PythonFull,
                source_file: None,
                env: &[],
            },
        )
        .await
    }
}
