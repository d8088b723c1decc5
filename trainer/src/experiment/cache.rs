//! Results reused while the settings that produced them are unchanged: a warm-up, the gate and
//! each finished run store `{settings, result}` as JSON next to their output, so that repeating
//! the command resumes, and a changed setting is computed afresh instead of silently reused.

use std::path::Path;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize)]
struct Entry<K, T> {
    settings: K,
    result: T,
}

/// The result stored at `path` with these `settings`, or else `make()`'s, stored there.
pub fn cached<K, T>(path: &Path, settings: &K, make: impl FnOnce() -> Result<T>) -> Result<T>
where
    K: Serialize,
    T: Serialize + DeserializeOwned,
{
    if let Some(result) = load(path, settings) {
        return Ok(result);
    }
    let result = make()?;
    store(path, settings, &result)?;
    Ok(result)
}

/// The result stored at `path`, if it was stored with these `settings`.
pub fn load<K: Serialize, T: DeserializeOwned>(path: &Path, settings: &K) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    let entry: Entry<Value, T> = serde_json::from_slice(&bytes).ok()?;
    (entry.settings == serde_json::to_value(settings).ok()?).then_some(entry.result)
}

/// Stores `result` with its `settings` at `path` (whole or not at all: written aside, then
/// renamed, so that a crash never leaves a half-written entry that reads as done).
pub fn store<K: Serialize, T: Serialize>(path: &Path, settings: &K, result: &T) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(&Entry { settings, result })?;
    let part = path.with_extension("json.part");
    std::fs::write(&part, bytes).with_context(|| format!("writing {}", part.display()))?;
    std::fs::rename(&part, path).with_context(|| format!("writing {}", path.display()))
}

/// The settings stored at `path`, whatever its result.
pub fn settings_of(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let entry: Entry<Value, Value> = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a stored result", path.display()))?;
    Ok(entry.settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_reused_only_for_equal_settings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("done.json");
        let mut calls = 0;
        let mut get = |lr: f64| {
            cached(&path, &serde_json::json!({ "lr": lr }), || {
                calls += 1;
                Ok(calls)
            })
            .unwrap()
        };
        assert_eq!(get(1e-4), 1);
        assert_eq!(get(1e-4), 1, "same settings: stored result");
        assert_eq!(get(2e-4), 2, "changed settings: computed afresh");
        assert_eq!(get(2e-4), 2);
        assert_eq!(settings_of(&path).unwrap()["lr"], 2e-4);
        assert!(!dir.path().join("done.json.part").exists());
        std::fs::write(&path, b"{\"truncated").unwrap();
        assert_eq!(
            load::<_, i32>(&path, &serde_json::json!({ "lr": 2e-4 })),
            None
        );
    }
}
