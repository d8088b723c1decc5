//! The names of a training run and of its steps, checked once: wherever a request names a run
//! or a step (a path, a query, a body), these rules apply.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// Longest run name, in bytes.
pub const MAX_RUN_BYTES: usize = 200;

/// A training run's name: at most [`MAX_RUN_BYTES`] bytes, no NUL (Postgres text cannot hold
/// one). Rollouts also need it non-empty, which [`crate::ingest::submit_rollouts`] checks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct RunName(String);

impl RunName {
    /// Checks a run name without taking it.
    pub fn check(name: &str) -> Result<(), String> {
        if name.len() > MAX_RUN_BYTES {
            return Err(format!(
                "a run name is at most {MAX_RUN_BYTES} bytes, this one {}",
                name.len()
            ));
        }
        if name.contains('\0') {
            return Err("a run name cannot hold a NUL character (U+0000)".into());
        }
        Ok(())
    }

    /// The run a request names when it names none (`default`).
    pub fn default_run() -> Self {
        Self(wire::default_run())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RunName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::check(&name)?;
        Ok(Self(name))
    }
}

impl From<RunName> for String {
    fn from(name: RunName) -> Self {
        name.0
    }
}

impl fmt::Display for RunName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A training step: an integer >= 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "i64")]
pub struct Step(i64);

impl Step {
    /// Checks a step number without taking it.
    pub fn check(step: i64) -> Result<(), String> {
        if step < 0 {
            return Err(format!("a step is >= 0, got {step}"));
        }
        Ok(())
    }

    /// The number.
    pub fn get(self) -> i64 {
        self.0
    }
}

impl TryFrom<i64> for Step {
    type Error = String;

    fn try_from(step: i64) -> Result<Self, String> {
        Self::check(step)?;
        Ok(Self(step))
    }
}

/// Reads a step as a path writes it.
impl FromStr for Step {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        s.parse::<i64>()
            .ok()
            .and_then(|n| Self::try_from(n).ok())
            .ok_or_else(|| format!("a step is an integer >= 0, got `{s}`"))
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_steps_are_checked_when_read() {
        let run = |s: &str| serde_json::from_value::<RunName>(serde_json::json!(s));
        assert_eq!(run("demo").unwrap().as_str(), "demo");
        assert!(run(&"x".repeat(MAX_RUN_BYTES)).is_ok());
        assert!(run(&"x".repeat(MAX_RUN_BYTES + 1)).is_err());
        assert!(run("a\0b").is_err());
        assert_eq!(serde_json::from_str::<Step>("3").unwrap().get(), 3);
        assert!(serde_json::from_str::<Step>("-1").is_err());
        assert_eq!("7".parse::<Step>().unwrap().get(), 7);
        assert!("-1".parse::<Step>().is_err() && "x".parse::<Step>().is_err());
    }
}
