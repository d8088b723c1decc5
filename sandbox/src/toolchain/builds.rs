//! Compiled programs (C, C++, Go) kept as native code, by source, so a program judged case by
//! case (verl sends one `/run_code` per test case; the stdio judge runs one program per case)
//! costs one compile and one Cranelift compile, then milliseconds per run.
//!
//! Two levels: wasmtime modules in memory (a module belongs to its engine, so each sandbox keeps
//! its own), and their serialised native code on disk ([`build_disk`](super::build_disk)), which survives
//! restarts. A build is keyed by the source's digest; the disk name adds the engine's
//! compatibility hash and the toolchain's identity, so a build made by another engine
//! configuration or another compiler is never loaded. Only successful compiles are kept: their
//! output depends on nothing but the language and the source, whereas a compile timeout depends
//! on the machine's load. Concurrent runs of one new source (verl sends a problem's cases at
//! once) wait for a single compile instead of each starting its own.

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use super::build_disk::BuildDisk;
use crate::outcome::CompileOutcome;
use crate::program::Language;

/// Most bytes of native code kept in memory; the least recently used builds go first.
const MEMORY_BYTES: usize = 256 << 20;

/// The key of a program: its language and source.
pub(crate) type Key = [u8; 32];

/// A successful compile: the loaded module and what the compiler said.
#[derive(Clone)]
pub(crate) struct Build {
    pub(crate) module: Module,
    pub(crate) compile: CompileOutcome,
}

/// How often each level answered, and how often a compiler had to run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildCounts {
    /// Compiler runs, clang's or Go's (successful or not).
    pub compiles: u64,
    /// Cranelift compiles of a wasm module into native code.
    pub native: u64,
    /// Runs whose module was already loaded in memory.
    pub memory_hits: u64,
    /// Runs whose native code was loaded from the disk cache.
    pub disk_hits: u64,
}

/// The builds of one engine.
pub(crate) struct Builds {
    engine: Engine,
    /// Digest of the engine's compatibility hash and the toolchain's identity.
    tag: [u8; 32],
    memory: Mutex<Recent>,
    /// One lock per source being built, so concurrent runs of it compile once.
    building: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
    disk: Option<BuildDisk>,
    compiles: AtomicU64,
    native: AtomicU64,
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
}

/// Loaded builds, least recently used first, bounded in bytes of native code.
#[derive(Default)]
struct Recent {
    builds: HashMap<Key, (Build, usize)>,
    order: VecDeque<Key>,
    bytes: usize,
}

/// The key of a program: its language and source.
pub(crate) fn key(language: Language, source: &str) -> Key {
    let mut h = Sha256::new();
    h.update(language.as_str().as_bytes());
    h.update([0]);
    h.update(source.as_bytes());
    h.finalize().into()
}

impl Builds {
    /// Builds for `engine`, made by the toolchain `toolchain` identifies, kept on disk under
    /// `dir` (none when `dir` cannot be made private to this user: then memory only).
    pub(crate) fn open(engine: &Engine, toolchain: &[u8], dir: &Path) -> Builds {
        let mut compat = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut compat);
        let mut tag = Sha256::new();
        tag.update(compat.finish().to_le_bytes());
        tag.update(toolchain);
        let disk = match BuildDisk::open(dir) {
            Ok(d) => Some(d),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "no disk cache of builds");
                None
            }
        };
        Builds {
            engine: engine.clone(),
            tag: tag.finalize().into(),
            memory: Mutex::default(),
            building: Mutex::default(),
            disk,
            compiles: AtomicU64::new(0),
            native: AtomicU64::new(0),
            memory_hits: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
        }
    }

    /// The counts so far.
    pub(crate) fn counts(&self) -> BuildCounts {
        BuildCounts {
            compiles: self.compiles.load(Ordering::Relaxed),
            native: self.native.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
        }
    }

    /// The build of `key`: from memory, from disk, or made by `compile` (the compiler, returning
    /// the wasm and what it said, or why there is none) then Cranelift. A reused build's compile
    /// says `cached`.
    pub(crate) async fn get_or_build<E: From<CompileOutcome>>(
        &self,
        key: Key,
        compile: impl AsyncFnOnce() -> Result<(CompileOutcome, Vec<u8>), E>,
    ) -> Result<Build, E> {
        if let Some(b) = self.recent(&key) {
            return Ok(b);
        }
        let lock = {
            let mut building = self.building.lock().unwrap_or_else(|e| e.into_inner());
            building.entry(key).or_default().clone()
        };
        let result = async {
            let _held = lock.lock().await;
            // Whoever held the lock before may have built it.
            if let Some(b) = self.recent(&key) {
                return Ok(b);
            }
            if let Some(b) = self.stored(&key) {
                return Ok(b);
            }
            self.compiles.fetch_add(1, Ordering::Relaxed);
            let (outcome, wasm) = compile().await?;
            self.native.fetch_add(1, Ordering::Relaxed);
            let failed = |why: String| {
                E::from(CompileOutcome {
                    ok: false,
                    exit_code: None,
                    stderr: format!("{}{why}\n", outcome.stderr),
                    ..outcome.clone()
                })
            };
            let native = self
                .engine
                .precompile_module(&wasm)
                .map_err(|e| failed(format!("loading the compiled program: {e:?}")))?;
            // SAFETY: `native` was produced just now by `precompile_module` of this engine.
            let module = unsafe { Module::deserialize(&self.engine, &native) }
                .map_err(|e| failed(format!("loading the compiled program: {e:?}")))?;
            if let Some(disk) = &self.disk {
                disk.store(&self.disk_name(&key), &outcome, &native);
            }
            let build = Build {
                module,
                compile: outcome,
            };
            self.remember(key, build.clone(), native.len());
            Ok(build)
        }
        .await;
        let mut building = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if Arc::strong_count(&lock) <= 2 {
            building.remove(&key);
        }
        result
    }

    /// The loaded build of `key`, marked as reused.
    fn recent(&self, key: &Key) -> Option<Build> {
        let mut recent = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        let (build, _) = recent.builds.get(key)?;
        let build = reused(build.clone());
        recent.order.retain(|k| k != key);
        recent.order.push_back(*key);
        self.memory_hits.fetch_add(1, Ordering::Relaxed);
        Some(build)
    }

    /// The build of `key` from the disk cache, loaded and remembered.
    fn stored(&self, key: &Key) -> Option<Build> {
        let disk = self.disk.as_ref()?;
        let name = self.disk_name(key);
        let (compile, native) = disk.load(&name)?;
        // SAFETY: the bytes were written by `store` above (from `precompile_module`) into a
        // folder only this user can write, and their checksum matches; wasmtime checks their
        // header against this engine's configuration as well.
        let module = match unsafe { Module::deserialize(&self.engine, &native) } {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "dropping an unloadable cached build");
                disk.remove(&name);
                return None;
            }
        };
        let build = Build { module, compile };
        self.remember(*key, build.clone(), native.len());
        self.disk_hits.fetch_add(1, Ordering::Relaxed);
        Some(reused(build))
    }

    /// Keeps a loaded build, dropping the least recently used past the byte budget.
    fn remember(&self, key: Key, build: Build, size: usize) {
        if size > MEMORY_BYTES {
            return;
        }
        let mut recent = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        if recent.builds.contains_key(&key) {
            return;
        }
        while recent.bytes + size > MEMORY_BYTES {
            let Some(old) = recent.order.pop_front() else {
                break;
            };
            if let Some((_, n)) = recent.builds.remove(&old) {
                recent.bytes -= n;
            }
        }
        recent.bytes += size;
        recent.order.push_back(key);
        recent.builds.insert(key, (build, size));
    }

    /// The disk file name of `key` for this engine and toolchain.
    fn disk_name(&self, key: &Key) -> String {
        let mut h = Sha256::new();
        h.update(self.tag);
        h.update(key);
        hex::encode(h.finalize())
    }
}

/// A build as a reuse reports it: no compile time spent.
fn reused(mut build: Build) -> Build {
    build.compile.cached = true;
    build.compile.wall_time = std::time::Duration::ZERO;
    build
}
