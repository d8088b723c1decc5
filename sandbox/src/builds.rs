//! Compiled C/C++ programs kept by source, so a program judged case by case (verl sends one
//! `/run_code` per test case; the stdio judge runs one program per case) compiles once.
//!
//! Only successful compiles are kept: their output depends on nothing but the language and the
//! source (the flags and headers are fixed for the life of the binary), whereas a timeout
//! depends on the machine's load. The wasm bytes are kept, not wasmtime modules, because a
//! module belongs to one engine and a process may run several sandboxes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::Language;
use crate::outcome::CompileOutcome;

/// Most bytes of wasm kept; the oldest builds go first.
const BUDGET_BYTES: usize = 64 << 20;

/// A successful compile: the module's bytes and what the compiler said.
#[derive(Debug, Clone)]
pub(crate) struct Build {
    pub(crate) wasm: Arc<Vec<u8>>,
    pub(crate) compile: CompileOutcome,
}

/// Builds by (language, source) digest, bounded in bytes, shared by clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Builds {
    inner: Arc<Mutex<Store>>,
}

#[derive(Debug, Default)]
struct Store {
    builds: HashMap<[u8; 32], Build>,
    order: VecDeque<[u8; 32]>,
    bytes: usize,
}

/// The key of a program: its language and source.
pub(crate) fn key(language: Language, source: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(language.as_str().as_bytes());
    h.update([0]);
    h.update(source.as_bytes());
    h.finalize().into()
}

impl Builds {
    /// The build kept for `key`, if any.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<Build> {
        let store = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        store.builds.get(key).cloned()
    }

    /// Keeps a successful build, dropping the oldest ones past the byte budget.
    pub(crate) fn put(&self, key: [u8; 32], build: Build) {
        let size = build.wasm.len();
        if size > BUDGET_BYTES {
            return;
        }
        let mut store = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if store.builds.contains_key(&key) {
            return;
        }
        while store.bytes + size > BUDGET_BYTES {
            let Some(old) = store.order.pop_front() else {
                break;
            };
            if let Some(b) = store.builds.remove(&old) {
                store.bytes -= b.wasm.len();
            }
        }
        store.bytes += size;
        store.order.push_back(key);
        store.builds.insert(key, build);
    }
}
