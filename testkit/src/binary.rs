//! Where the repository and this build's binaries are.

use std::path::{Path, PathBuf};

/// The repository root (the workspace this crate belongs to).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the testkit crate lives inside the workspace")
        .to_path_buf()
}

/// Finds the workspace binary `name` (e.g. `verifier`) built in the same target directory and
/// profile as the running executable. `HACRL_<NAME>_BIN` overrides the search.
///
/// `cargo test --workspace` builds the verifier binary before any test runs (the verifier has
/// integration tests); `cargo test -p e2e` or `-p trainer` alone does not, hence the clear error.
pub fn workspace_binary(name: &str) -> anyhow::Result<PathBuf> {
    let var = format!("HACRL_{}_BIN", name.to_uppercase());
    if let Some(p) = std::env::var_os(&var) {
        let p = PathBuf::from(p);
        anyhow::ensure!(
            p.is_file(),
            "{var} points at {}, which is not a file",
            p.display()
        );
        return Ok(p);
    }
    let mut candidates = Vec::new();
    // Test executables live in <target>/<profile>/deps, binaries in <target>/<profile>.
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        candidates.push(dir.join(name));
        if let Some(up) = dir.parent() {
            candidates.push(up.join(name));
        }
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    for profile in ["debug", "release"] {
        candidates.push(target.join(profile).join(name));
    }
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the `{name}` binary is not built (looked at {}); build it with `cargo build -p {name}` \
                 (`cargo test --workspace` does), or set {var}",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}
