//! Shared set-up for the sandbox's integration tests: one real sandbox per test binary.

use std::sync::LazyLock;

use sandbox::{Config, Language, Sandbox};

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

/// Whether `language` runs here. CI installs every toolchain, so there a missing one fails;
/// elsewhere the test says why it checks nothing.
#[allow(dead_code)] // the per-language binaries use it; the Python, C and sandbox-wide ones do not
pub fn installed(language: Language) -> bool {
    match SANDBOX.unsupported_reason(language) {
        None => true,
        Some(why) if std::env::var_os("CI").is_some() => {
            panic!("{language} unsupported in CI: {why}")
        }
        Some(why) => {
            eprintln!("{language} unsupported here ({why}): its checks are skipped");
            false
        }
    }
}
