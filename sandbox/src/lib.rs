//! Runs untrusted programs inside wasmtime with hard limits.
