//! Shared set-up for the sandbox's integration tests: one real sandbox per test binary.

use std::sync::LazyLock;

use sandbox::{Config, Sandbox};

/// The sandbox every test in a binary shares (loading the runtimes once).
pub static SANDBOX: LazyLock<Sandbox> = LazyLock::new(|| {
    let _ = tracing_subscriber::fmt()
        .with_env_filter("info")
        .with_test_writer()
        .try_init();
    Sandbox::new(Config::default()).expect(
        "sandbox failed to start; run scripts/setup.d/20-python-wasm.sh to install the Python runtimes",
    )
});
