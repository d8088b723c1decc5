//! Lua, SQL and JavaScript: interpreters written in C, built once for wasm32-wasi by
//! `scripts/setup.d/22-interpreters.sh` and run like any command module; TypeScript: the same
//! QuickJS, given sucrase to strip the program's types first (`typescript`); Ruby: ruby.wasm's
//! prebuilt CRuby, installed by `scripts/setup.d/23-ruby.sh` and driven through its own exports
//! (`ruby`). The program's source is a file in the run's working folder that the interpreter is
//! pointed at, so the program's own stdin stays its input; every limit and status is the shared
//! `instance` layer's.
//!
//! Lua reports errors by unwinding the C stack (setjmp/longjmp), which this wasm32-wasi
//! toolchain cannot compile (its exception-handling encoding is one wasmtime does not run).
//! The build instead imports two host functions (`sandbox/interpreters/shim`): each protected
//! call runs as a nested guest call, and an error traps back out of it to that call.

mod ruby;
mod typescript;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use wasmtime::{Caller, InstancePre, Linker};

use crate::admission::Grant;
use crate::config::{Config, Limits};
use crate::instance::{CommandState, Guest, Host, command_linker, run_command, run_module};
use crate::modules::MAX_PROTECTED_DEPTH;
use crate::outcome::{Outcome, Runtime};
use crate::program::{Language, Program, RunError};

/// How the host links and starts an interpreter's module.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Abi {
    /// A WASI command: `_start`, with `Spec::args` as its argv.
    Command,
    /// A WASI command that also imports the host-run protected calls standing in for Lua's
    /// setjmp/longjmp.
    LuaCommand,
    /// ruby.wasm's reactor: `_initialize`, then its `ruby-*` exports (`ruby`), with
    /// `Spec::args` as the interpreter's options.
    Ruby,
    /// A WASI command that also imports the TypeScript stripper (`typescript`).
    TypeScript,
}

/// How one interpreter is installed and invoked.
struct Spec {
    language: Language,
    abi: Abi,
    /// The module's file stem in `Config::interpreter_dir` (`.wasm`, `.version`).
    stem: &'static str,
    /// The set-up step that installs it.
    setup: &'static str,
    /// The name the program's source gets in the working folder.
    source_file: &'static str,
    /// The interpreter's argv.
    args: &'static [&'static str],
    /// Environment variables besides the sandbox's fixed ones.
    env: &'static [(&'static str, &'static str)],
    runtime: Runtime,
    /// How the version is shown in `/v1/capabilities`.
    product: &'static str,
}

const SPECS: [Spec; 5] = [
    Spec {
        language: Language::Lua,
        abi: Abi::LuaCommand,
        stem: "lua",
        setup: SETUP_BUILT,
        source_file: "main.lua",
        args: &["lua", "main.lua"],
        env: &[],
        runtime: Runtime::Lua,
        product: "Lua",
    },
    Spec {
        language: Language::Sql,
        abi: Abi::Command,
        stem: "sqlite3",
        setup: SETUP_BUILT,
        source_file: "main.sql",
        // `sqlite3 :memory: < main.sql`, with the program's stdin left to it.
        args: &["sqlite3", "-batch", ":memory:", ".read main.sql"],
        // A home outside the working folder: no ~/.sqliterc is read, and the shell does not
        // warn that it has no home.
        env: &[("HOME", "/")],
        runtime: Runtime::Sqlite,
        product: "SQLite",
    },
    Spec {
        language: Language::JavaScript,
        abi: Abi::Command,
        stem: "js",
        setup: SETUP_BUILT,
        source_file: "main.js",
        args: &["node", "main.js"],
        env: &[],
        runtime: Runtime::QuickJs,
        product: "QuickJS-ng",
    },
    Spec {
        language: Language::Ruby,
        abi: Abi::Ruby,
        stem: "ruby",
        setup: "scripts/setup.d/23-ruby.sh",
        source_file: "main.rb",
        args: ruby::OPTIONS,
        env: &[],
        runtime: Runtime::Ruby,
        product: "Ruby",
    },
    Spec {
        language: Language::TypeScript,
        abi: Abi::TypeScript,
        // js_main.c built with HACRL_TYPESCRIPT, in the same build as js.wasm.
        stem: "ts",
        setup: SETUP_BUILT,
        source_file: "main.ts",
        args: &["node", "main.ts"],
        env: &[],
        runtime: Runtime::QuickJs,
        product: "sucrase",
    },
];

/// The set-up step that builds the interpreters written in C.
const SETUP_BUILT: &str = "scripts/setup.d/22-interpreters.sh";

/// One interpreter, ready to instantiate.
struct Loaded {
    pre: InstancePre<CommandState>,
    version: String,
}

/// The interpreters found at start-up, or why each is missing.
pub(crate) struct Interpreters {
    loaded: Vec<Result<Loaded, String>>,
}

/// Error the `hacrl.throw` import raises: a Lua error unwinding to its protected call.
#[derive(Debug, thiserror::Error)]
#[error("Lua error unwinding to its protected call")]
struct LuaThrow;

/// Error a protected call nested past `MAX_PROTECTED_DEPTH` ends the run with.
#[derive(Debug, thiserror::Error)]
#[error("more than {MAX_PROTECTED_DEPTH} nested protected calls (pcall, coroutines)")]
struct TooDeep;

impl Interpreters {
    /// Loads every interpreter installed in `config.interpreter_dir` (compiled once into the
    /// cache); a missing or broken one is recorded as the reason its language is unsupported.
    pub(crate) fn load(engine: &wasmtime::Engine, config: &Config) -> Interpreters {
        let loaded = SPECS
            .iter()
            .map(|spec| {
                let wasm = config.interpreter_dir.join(format!("{}.wasm", spec.stem));
                if !wasm.is_file() {
                    return Err(format!(
                        "the {} interpreter is not installed ({} is missing); run {}",
                        spec.product,
                        wasm.display(),
                        spec.setup
                    ));
                }
                let loaded = load_one(engine, config, spec, &wasm).map_err(|e| format!("{e:#}"));
                match &loaded {
                    Ok(l) => tracing::info!(language = %spec.language, version = %l.version, "interpreter loaded"),
                    Err(why) => tracing::warn!(language = %spec.language, reason = %why, "interpreter unusable"),
                }
                loaded
            })
            .collect();
        Interpreters { loaded }
    }

    /// The interpreter for `language`, or why there is none.
    fn get(&self, language: Language) -> Option<(&Spec, &Result<Loaded, String>)> {
        SPECS
            .iter()
            .zip(&self.loaded)
            .find(|(spec, _)| spec.language == language)
    }

    /// Why `language` cannot run here (`None` when it can, or when it is not interpreted here).
    pub(crate) fn unsupported_reason(&self, language: Language) -> Option<String> {
        self.get(language)
            .and_then(|(_, l)| l.as_ref().err().cloned())
    }

    /// The interpreter's product and version, e.g. `Lua 5.4.8`.
    pub(crate) fn version(&self, language: Language) -> Option<String> {
        let (spec, loaded) = self.get(language)?;
        let loaded = loaded.as_ref().ok()?;
        Some(format!("{} {}", spec.product, loaded.version))
    }

    /// Runs a program on its language's interpreter.
    pub(crate) async fn run(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Result<Outcome, RunError> {
        let Some((spec, loaded)) = self.get(program.language) else {
            return Ok(Outcome::internal(format!(
                "{} is not an interpreted language",
                program.language
            )));
        };
        let Ok(loaded) = loaded else {
            return Ok(Outcome::internal("the interpreter disappeared"));
        };
        if program.files.iter().any(|f| f.path == spec.source_file) {
            return Err(RunError::InvalidProgram(format!(
                "file path {:?} is where the {} program itself goes",
                spec.source_file, program.language
            )));
        }
        let guest = Guest {
            args: spec.args,
            folder_name: ".",
            runtime: spec.runtime,
            source_file: Some(spec.source_file),
            mounts: &[],
            tmp: false,
            env: spec.env,
        };
        Ok(match spec.abi {
            Abi::Command | Abi::LuaCommand | Abi::TypeScript => {
                run_command(host, grant, &loaded.pre, program, limits, guest).await
            }
            Abi::Ruby => {
                run_module(
                    host,
                    grant,
                    &loaded.pre,
                    program,
                    limits,
                    guest,
                    ruby::start,
                )
                .await
            }
        })
    }
}

/// Compiles (or loads from the cache) and links one interpreter.
fn load_one(
    engine: &wasmtime::Engine,
    config: &Config,
    spec: &Spec,
    wasm: &Path,
) -> Result<Loaded> {
    // The stripper first: without it, compiling ts.wasm would be for nothing.
    let stripper = (spec.abi == Abi::TypeScript)
        .then(|| typescript::Stripper::load(&config.interpreter_dir))
        .transpose()?;
    let module = crate::modules::module(engine, wasm, &config.cache_dir)?;
    let mut linker = command_linker(engine)?;
    match (spec.abi, &stripper) {
        (Abi::LuaCommand, _) => add_protected_calls(&mut linker)?,
        (Abi::Ruby, _) => ruby::add_imports(&mut linker, &module)?,
        (_, Some(stripper)) => stripper.add_imports(&mut linker)?,
        (Abi::Command | Abi::TypeScript, None) => {}
    }
    let pre = linker
        .instantiate_pre(&module)
        .map_err(|e| anyhow::anyhow!("linking {}: {e:?}", wasm.display()))?;
    let version_file = wasm.with_extension("version");
    let version = std::fs::read_to_string(&version_file)
        .with_context(|| format!("reading {}", version_file.display()))?
        .trim()
        .to_string();
    let version = match stripper {
        Some(stripper) => stripper.version_on(&version),
        None => version,
    };
    Ok(Loaded { pre, version })
}

/// The two imports that stand in for Lua's setjmp/longjmp (`shim/hacrl_lua_throw.h`).
///
/// `hacrl.protected_call(f, L, ud)` calls `f(L, ud)` through the guest's function table as a
/// nested call; `hacrl.throw()` traps with [`LuaThrow`], which unwinds the guest frames up to
/// the innermost nested call. There the shadow-stack pointer is put back where it was (what
/// longjmp restores) and the protected call returns normally; Lua has already recorded the
/// error's status where its caller reads it. Any other trap (a time limit, `exit`) passes on.
fn add_protected_calls(linker: &mut Linker<CommandState>) -> Result<()> {
    linker
        .func_wrap(
            "hacrl",
            "throw",
            |_: Caller<'_, CommandState>| -> wasmtime::Result<()> {
                Err(wasmtime::Error::new(LuaThrow))
            },
        )
        .map_err(|e| anyhow::anyhow!("linking hacrl.throw: {e:?}"))?;
    linker
        .func_wrap_async(
            "hacrl",
            "protected_call",
            |mut caller: Caller<'_, CommandState>, (f, l, ud): (u32, u32, u32)| {
                Box::new(async move {
                    let export = |caller: &mut Caller<'_, CommandState>, name: &str| {
                        caller.get_export(name).ok_or_else(|| {
                            wasmtime::format_err!("the Lua module exports no {name}")
                        })
                    };
                    let table = export(&mut caller, "__indirect_function_table")?
                        .into_table()
                        .ok_or_else(|| {
                            wasmtime::format_err!("__indirect_function_table is not a table")
                        })?;
                    let stack = export(&mut caller, "__stack_pointer")?
                        .into_global()
                        .ok_or_else(|| wasmtime::format_err!("__stack_pointer is not a global"))?;
                    let func = table
                        .get(&mut caller, u64::from(f))
                        .and_then(|r| r.as_func().flatten().copied())
                        .ok_or_else(|| wasmtime::format_err!("protected call of a null function"))?
                        .typed::<(u32, u32), ()>(&caller)?;
                    if caller.data().protected_depth >= MAX_PROTECTED_DEPTH {
                        return Err(wasmtime::Error::new(TooDeep));
                    }
                    let saved = stack.get(&mut caller);
                    caller.data_mut().protected_depth += 1;
                    let result = func.call_async(&mut caller, (l, ud)).await;
                    caller.data_mut().protected_depth -= 1;
                    match result {
                        Ok(()) => Ok(()),
                        Err(e) if e.downcast_ref::<LuaThrow>().is_some() => {
                            stack.set(&mut caller, saved)?;
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                })
            },
        )
        .map_err(|e| anyhow::anyhow!("linking hacrl.protected_call: {e:?}"))?;
    Ok(())
}
