//! What a binary's `<sub> --help` documents, for the static checks of compose and Kubernetes
//! files against the real binaries (`tests/compose.rs`, `tests/k8s.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// A subcommand's long flags, and the env vars clap names with their defaults.
pub struct Help {
    /// `--flag` names.
    pub flags: BTreeSet<String>,
    /// Env var → the flag's `[default: …]`, if it shows one.
    pub env: BTreeMap<String, Option<String>>,
}

/// Runs `<binary> <sub> --help` and reads its flags and env vars.
pub fn help(binary: &Path, sub: &str) -> Help {
    let out = Command::new(binary)
        .args([sub, "--help"])
        .output()
        .expect("running --help");
    assert!(
        out.status.success(),
        "{} {sub} --help failed: {}",
        binary.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut flags = BTreeSet::new();
    let mut env = BTreeMap::new();
    let mut current_env: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(flag) = line.split_whitespace().find(|w| w.starts_with("--")) {
            flags.insert(flag.trim_end_matches(',').to_string());
            current_env = None;
        } else if let Some(name) = line
            .strip_prefix("[env: ")
            .and_then(|r| r.split('=').next())
        {
            env.insert(name.to_string(), None);
            current_env = Some(name.to_string());
        } else if let (Some(name), Some(d)) = (&current_env, line.strip_prefix("[default: ")) {
            env.insert(name.clone(), Some(d.trim_end_matches(']').to_string()));
        }
    }
    Help { flags, env }
}
