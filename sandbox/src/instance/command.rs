//! The WASI preview 1 module runner: a command's `_start` with an argv, as full Python and
//! compiled C/C++ programs run, or a reactor's own entry points (Ruby).

use std::sync::Arc;

use anyhow::Result;
use wasmtime::{Instance, Store};
use wasmtime_wasi::p1::WasiP1Ctx;

use super::{Guest, Host, Metered, ending_of, execute};
use crate::admission::Grant;
use crate::config::Limits;
use crate::meter::MemoryMeter;
use crate::outcome::Outcome;
use crate::program::Program;

/// Store data for WASI preview 1 command modules (full Python, C, C++, the interpreters).
pub(crate) struct CommandState {
    ctx: WasiP1Ctx,
    meter: MemoryMeter,
    /// Lua's protected calls in flight, each a nested guest call (`interpreters`).
    pub(crate) protected_depth: u32,
}

impl Metered for CommandState {
    fn meter(&mut self) -> &mut MemoryMeter {
        &mut self.meter
    }
}

/// The WASI context of a command store.
fn command_wasi(state: &mut CommandState) -> &mut WasiP1Ctx {
    &mut state.ctx
}

/// A linker with WASI preview 1 for command modules.
pub(crate) fn command_linker(engine: &wasmtime::Engine) -> Result<wasmtime::Linker<CommandState>> {
    let mut linker = wasmtime::Linker::new(engine);
    wasmtime_wasi::p1::add_to_linker_async(&mut linker, command_wasi)
        .map_err(|e| anyhow::anyhow!("linking WASI preview 1: {e:?}"))?;
    Ok(linker)
}

/// Runs a WASI preview 1 command module's `_start` as `guest`.
pub(crate) async fn run_command(
    host: &Host,
    grant: &Arc<Grant>,
    pre: &wasmtime::InstancePre<CommandState>,
    program: &Program,
    limits: &Limits,
    guest: Guest<'_>,
) -> Outcome {
    run_module(
        host,
        grant,
        pre,
        program,
        limits,
        guest,
        async |store: &mut Store<CommandState>, instance: Instance| {
            let start = instance.get_typed_func::<(), ()>(&mut *store, "_start")?;
            start.call_async(&mut *store, ()).await
        },
    )
    .await
}

/// Runs a WASI preview 1 module as `guest`, started by `entry` once instantiated: `_start` for
/// a command, the exports a reactor such as ruby.wasm is driven through.
pub(crate) async fn run_module(
    host: &Host,
    grant: &Arc<Grant>,
    pre: &wasmtime::InstancePre<CommandState>,
    program: &Program,
    limits: &Limits,
    guest: Guest<'_>,
    entry: impl AsyncFnOnce(&mut Store<CommandState>, Instance) -> wasmtime::Result<()>,
) -> Outcome {
    execute(
        host,
        grant,
        program,
        limits,
        guest,
        |mut builder, meter| CommandState {
            ctx: builder.build_p1(),
            meter,
            protected_depth: 0,
        },
        async |store: &mut Store<CommandState>| {
            let result = async {
                let instance = pre.instantiate_async(&mut *store).await?;
                entry(store, instance).await
            }
            .await;
            ending_of(result)
        },
    )
    .await
}
