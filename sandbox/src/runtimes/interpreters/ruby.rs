//! Ruby on ruby.wasm's CRuby (`scripts/setup.d/23-ruby.sh`), as the npm registry ships it.
//!
//! That module is not a WASI command: it is built for a JavaScript host, so it has no `_start`,
//! exports the interpreter's C API through wit-bindgen's (pre-component) canonical ABI, and
//! imports the host half of its `js` extension. Building a command from CRuby's sources would
//! need the WASI SDK, wasi-vfs and Binaryen's asyncify pass, none of which the registries here
//! carry; driving the prebuilt module costs these few calls instead:
//!
//! 1. `_initialize` (the reactor's libc and wasi-vfs start-up),
//! 2. `ruby-init` with [`OPTIONS`] (`ruby_init` and `ruby_options`: what `ruby` does before
//!    running a script),
//! 3. `ruby-init-loadpath`,
//! 4. `rb-eval-string-protect` with `sandbox/interpreters/ruby_boot.rb`, which runs `main.rb`
//!    as `ruby main.rb` would and ends the run with `exit!` and the program's status.
//!
//! The `js` extension's imports trap (a program that requires `js` ends as a runtime error);
//! its two handle imports are the identity, as the host never holds a Ruby value.

use anyhow::Result;
use wasmtime::{Caller, ExternType, Instance, Linker, Module, Store, Val};

use crate::instance::CommandState;

/// `ruby-init`'s argv. `-e_=0` gives `ruby_options` a script that does nothing (without one it
/// would read the program's stdin); `--disable-gems` skips loading RubyGems, which takes longer
/// than most judged programs run (the boot script puts the bundled gems on the load path
/// instead); `-EUTF-8` makes input and output UTF-8, as under a UTF-8 locale.
pub(super) const OPTIONS: &[&str] = &["ruby", "--disable-gems", "-EUTF-8", "-e_=0"];

/// Runs `main.rb` from the working folder and exits with its status.
const BOOT: &str = include_str!("../../../interpreters/ruby_boot.rb");

/// Error the `js` extension's imports raise: there is no JavaScript host.
#[derive(Debug, thiserror::Error)]
#[error("Ruby's js extension called {0}, but there is no JavaScript here")]
struct NoJavaScript(String);

/// Defines every import of `module` that is not WASI preview 1.
pub(super) fn add_imports(linker: &mut Linker<CommandState>, module: &Module) -> Result<()> {
    for import in module.imports() {
        if import.module() == "wasi_snapshot_preview1" {
            continue;
        }
        let ExternType::Func(ty) = import.ty() else {
            anyhow::bail!(
                "ruby.wasm imports {}.{}, which is not a function",
                import.module(),
                import.name()
            );
        };
        let name = format!("{}.{}", import.module(), import.name());
        // `resource_new`/`resource_get` turn the guest's pointer to a Ruby value into a handle
        // for the host and back.
        let handle = import.module() == "canonical_abi"
            && (import.name().starts_with("resource_new_")
                || import.name().starts_with("resource_get_"));
        let defined = if handle {
            linker.func_wrap(import.module(), import.name(), |x: i32| x)
        } else {
            linker.func_new(
                import.module(),
                import.name(),
                ty,
                move |_: Caller<'_, CommandState>, _: &[Val], _: &mut [Val]| {
                    Err(wasmtime::Error::new(NoJavaScript(name.clone())))
                },
            )
        };
        defined.map_err(|e| anyhow::anyhow!("linking ruby.wasm's imports: {e:?}"))?;
    }
    Ok(())
}

/// Starts Ruby and runs the program (steps 1–4 above). Returns only when the boot script did
/// not get to its `exit!`: Ruby then failed outside the program, and that is the run's error.
pub(super) async fn start(
    store: &mut Store<CommandState>,
    instance: Instance,
) -> wasmtime::Result<()> {
    // wit-bindgen names each export by its WIT signature: `ruby-init: func(args: ...) -> ()`.
    let func = |store: &mut Store<CommandState>, name: &str| {
        let export = instance
            .exports(&mut *store)
            .find(|e| e.name().split(':').next() == Some(name))
            .and_then(|e| e.into_func());
        export.ok_or_else(|| wasmtime::format_err!("ruby.wasm exports no {name}"))
    };
    let initialize = func(store, "_initialize")?.typed::<(), ()>(&*store)?;
    initialize.call_async(&mut *store, ()).await?;

    // A `list<string>` is a (pointer, length) pair of (pointer, length) pairs; the strings are
    // NUL-terminated too, as the guest hands them to C as they are.
    let mut pairs = Vec::with_capacity(OPTIONS.len() * 8);
    for option in OPTIONS {
        let mut bytes = option.as_bytes().to_vec();
        bytes.push(0);
        let ptr = guest_copy(store, &instance, &bytes).await?;
        pairs.extend_from_slice(&ptr.to_le_bytes());
        pairs.extend_from_slice(&(bytes.len() as u32 - 1).to_le_bytes());
    }
    let list = guest_copy(store, &instance, &pairs).await?;
    let init = func(store, "ruby-init")?.typed::<(u32, u32), ()>(&*store)?;
    init.call_async(&mut *store, (list, OPTIONS.len() as u32))
        .await?;
    let loadpath = func(store, "ruby-init-loadpath")?.typed::<(), ()>(&*store)?;
    loadpath.call_async(&mut *store, ()).await?;

    let boot = guest_copy(store, &instance, BOOT.as_bytes()).await?;
    let eval = func(store, "rb-eval-string-protect")?.typed::<(u32, u32), u32>(&*store)?;
    let ret = eval
        .call_async(&mut *store, (boot, BOOT.len() as u32))
        .await?;
    // The result is a (value, state) pair in guest memory; a non-zero state is Ruby's tag for
    // how the boot script was left (6: an exception it could not report).
    let mut state = [0u8; 4];
    memory(store, &instance)?.read(&*store, ret as usize + 4, &mut state)?;
    Err(wasmtime::format_err!(
        "Ruby stopped outside the program (state {})",
        u32::from_le_bytes(state)
    ))
}

/// The guest's linear memory.
fn memory(
    store: &mut Store<CommandState>,
    instance: &Instance,
) -> wasmtime::Result<wasmtime::Memory> {
    instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasmtime::format_err!("ruby.wasm exports no memory"))
}

/// Copies `bytes` into memory the guest allocates (`cabi_realloc`), returning its address.
async fn guest_copy(
    store: &mut Store<CommandState>,
    instance: &Instance,
    bytes: &[u8],
) -> wasmtime::Result<u32> {
    let realloc =
        instance.get_typed_func::<(u32, u32, u32, u32), u32>(&mut *store, "cabi_realloc")?;
    let len = u32::try_from(bytes.len())?;
    let ptr = realloc.call_async(&mut *store, (0, 0, 4, len)).await?;
    memory(store, instance)?.write(&mut *store, ptr as usize, bytes)?;
    Ok(ptr)
}
