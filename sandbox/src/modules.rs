//! The wasmtime engine and the on-disk cache of precompiled runtimes (Python, interpreters).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Enabled, Engine, InstanceAllocationStrategy, Module, PoolingAllocationConfig};

/// Core instances one run may create: the fast runtime is a component of a few dozen
/// dynamically linked core modules; command modules have one.
const CORE_INSTANCES_PER_RUN: u32 = 64;
/// Linear memories one run may create.
const MEMORIES_PER_RUN: u32 = 4;
/// Lua protected calls (pcall, coroutine resumes, the main chunk) one run may nest
/// (`interpreters` ends a run that nests more). Each holds a fiber stack of the pool, so
/// [`engine`] sizes the pool for this many per run besides the run's own.
pub(crate) const MAX_PROTECTED_DEPTH: u32 = 8;
/// Tables one run may create.
const TABLES_PER_RUN: u32 = 64;
/// Elements a table may hold: the scientific runtime's function table starts at 47,157 (numpy,
/// scipy and the rest linked into one module), past the pool's default of 20,000. A table slot
/// reserves address space for this many pointers, touched only as far as a table grows.
const TABLE_ELEMENTS: usize = 1 << 16;
/// Bytes of an instance's own state (its VMContext: function references, globals, table and
/// memory pointers): the scientific runtime's needs 1.5 MB, past the pool's default of 1 MiB.
const CORE_INSTANCE_BYTES: usize = 4 << 20;
/// Linear-memory bytes per slot reset in place (only the pages a run dirtied, found with the
/// `PAGEMAP_SCAN` ioctl) rather than discarded, so the next run does not fault them back in.
const KEEP_RESIDENT: usize = 64 << 20;

/// Builds the engine every run uses.
///
/// Instances come from a pooling allocator sized for `runs` admitted runs at once: a run reuses a
/// slot whose address space and copy-on-write heap image are already mapped, and the pages the
/// last run dirtied are reset in place. Each page fault on a fresh mapping costs a TLB-shootdown
/// interrupt to the other cores running sandbox threads, which made two concurrent runs slower
/// than one with a fresh mapping per run (docs/benchmarks/sandbox.md#sandbox).
pub(crate) fn engine(fuel: bool, runs: usize) -> Result<Engine> {
    // Twice the permits: a slot is only released once its store is dropped, and a fallback run
    // starts right after the fast run's store goes.
    let slots = u32::try_from(runs.saturating_mul(2).max(2)).context("max_runs")?;
    let mut pool = PoolingAllocationConfig::new();
    // A Lua run holds one more fiber stack per protected call it nests.
    let stacks = slots.saturating_mul(1 + MAX_PROTECTED_DEPTH);
    pool.total_component_instances(slots)
        .total_stacks(stacks)
        .total_core_instances(slots * CORE_INSTANCES_PER_RUN)
        .max_core_instances_per_component(CORE_INSTANCES_PER_RUN)
        .total_memories(slots * MEMORIES_PER_RUN)
        .max_memories_per_component(MEMORIES_PER_RUN)
        .total_tables(slots * TABLES_PER_RUN)
        .max_tables_per_component(TABLES_PER_RUN)
        .table_elements(TABLE_ELEMENTS)
        .max_core_instance_size(CORE_INSTANCE_BYTES)
        .linear_memory_keep_resident(KEEP_RESIDENT)
        // wasmtime 48.0.11 scans for every dirty page, swapped out or not, and resumes past a
        // full buffer of regions (48.0.8 stopped at 32 and decommitted the rest, which cost the
        // next run a copy-on-write fault and a TLB-shootdown interrupt per page: print(1)
        // through HTTP with 8 workers 478 runs/s before, 1,189-1,231 after,
        // docs/benchmarks/sandbox.md#throughput).
        .pagemap_scan(Enabled::Auto);
    let mut config = wasmtime::Config::new();
    config
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        .epoch_interruption(true)
        .consume_fuel(fuel)
        // Deep recursion must end as a Python RecursionError or a wasm stack-overflow trap,
        // never by exhausting a host thread's stack. 8 MiB of native stack, as a Linux
        // process's default: a correct C++ DFS 10⁵ calls deep fits, as it does natively.
        .max_wasm_stack(8 << 20)
        .async_stack_size(12 << 20);
    Engine::new(&config).map_err(|e| anyhow::anyhow!("creating wasmtime engine: {e:?}"))
}

/// What kind of artefact a wasm file is.
#[derive(Clone, Copy)]
enum Kind {
    Component,
    Module,
}

/// Key for a cached precompiled artefact: the input bytes plus the engine's settings and version.
fn cache_key(engine: &Engine, bytes: &[u8]) -> String {
    let mut compat = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut compat);
    let mut digest = Sha256::new();
    digest.update(bytes);
    digest.update(compat.finish().to_le_bytes());
    hex::encode(&digest.finalize()[..16])
}

/// Loads `wasm` precompiled from `cache_dir`, compiling and caching it on first use.
fn load_cached(engine: &Engine, wasm: &Path, cache_dir: &Path, kind: Kind) -> Result<PathBuf> {
    let bytes = std::fs::read(wasm).with_context(|| {
        format!(
            "reading {} (run scripts/setup to fetch or build the runtimes)",
            wasm.display()
        )
    })?;
    let stem = wasm
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("module");
    let cached = cache_dir.join(format!("{stem}-{}.cwasm", cache_key(engine, &bytes)));
    if cached.is_file() {
        return Ok(cached);
    }
    std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("creating cache folder {}", cache_dir.display()))?;
    tracing::info!(wasm = %wasm.display(), "compiling wasm runtime once; cached at {}", cached.display());
    let started = Instant::now();
    let compiled = match kind {
        Kind::Component => engine.precompile_component(&bytes),
        Kind::Module => engine.precompile_module(&bytes),
    }
    .map_err(|e| anyhow::anyhow!("compiling {}: {e:?}", wasm.display()))?;
    // Write then rename, so a concurrent or interrupted build never leaves a torn file behind.
    let tmp = tempfile::NamedTempFile::new_in(cache_dir)?;
    std::fs::write(tmp.path(), &compiled)?;
    tmp.persist(&cached)
        .map_err(|e| anyhow::anyhow!("saving {}: {}", cached.display(), e.error))?;
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        "compiled {}",
        wasm.display()
    );
    Ok(cached)
}

/// Loads a component (compiled once, then from the disk cache).
pub(crate) fn component(engine: &Engine, wasm: &Path, cache_dir: &Path) -> Result<Component> {
    let path = load_cached(engine, wasm, cache_dir, Kind::Component)?;
    // SAFETY: the file was produced by `precompile_component` for an engine with the same
    // compatibility hash (it is in the file name) and is only written through an atomic rename.
    unsafe { Component::deserialize_file(engine, &path) }
        .map_err(|e| anyhow::anyhow!("loading {}: {e:?}", path.display()))
}

/// Loads a core module (compiled once, then from the disk cache).
pub(crate) fn module(engine: &Engine, wasm: &Path, cache_dir: &Path) -> Result<Module> {
    let path = load_cached(engine, wasm, cache_dir, Kind::Module)?;
    // SAFETY: as for `component`.
    unsafe { Module::deserialize_file(engine, &path) }
        .map_err(|e| anyhow::anyhow!("loading {}: {e:?}", path.display()))
}
