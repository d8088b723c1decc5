//! What a run's metrics log says about how it learned: per agent, the mean over steps of the
//! clip fractions, where cross ratios fell, KL, displacement from the start and ω.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::train::{METRICS_FILE, metrics_entries};

/// Keys of a `train_metrics` row (columns and `extra`) averaged into a run's diagnostics.
pub const KEYS: [&str; 18] = [
    "accuracy",
    "clip_fraction",
    "clip_own",
    "clip_cross",
    "cross_below",
    "cross_inside",
    "cross_above",
    "cross_ratio_mean",
    "adv_abs_own",
    "adv_abs_cross",
    "response_tokens",
    "entropy",
    "kl",
    "kl_own",
    "displacement",
    "omega",
    "wait_seconds",
    "cross_staleness_mean",
];

/// Per agent (by name), the mean over a run's steps of each [`KEYS`] key (`displacement`: its
/// last value), over a run's metrics log ([`read_log`]).
pub fn run_diagnostics(rows: &Rows) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut sums: BTreeMap<String, BTreeMap<String, (f64, usize)>> = BTreeMap::new();
    for ((agent, _), row) in rows {
        let extra = &row["extra"];
        for key in KEYS {
            let value = match key {
                // One partner in the experiments; with more, their mean.
                "omega" => {
                    let w: Vec<f64> = extra["omega_source_over_learner"]
                        .as_object()
                        .map(|o| o.values().filter_map(|v| v.as_f64()).collect())
                        .unwrap_or_default();
                    (!w.is_empty()).then(|| w.iter().sum::<f64>() / w.len() as f64)
                }
                _ => row[key].as_f64().or_else(|| extra[key].as_f64()),
            };
            // Cross keys mean nothing in a step without cross samples.
            let no_cross = extra["cross_sequences"].as_u64() == Some(0);
            if let Some(v) = value
                && !(no_cross && key.contains("cross"))
            {
                let e = sums
                    .entry(agent.clone())
                    .or_default()
                    .entry(key.to_string())
                    .or_default();
                if key == "displacement" {
                    // How far the run went, not its average distance on the way: the last step.
                    *e = (v, 1);
                } else {
                    e.0 += v;
                    e.1 += 1;
                }
            }
        }
    }
    sums.into_iter()
        .map(|(a, m)| {
            let means = m.into_iter().map(|(k, (s, n))| (k, s / n as f64)).collect();
            (a, means)
        })
        .collect()
}

/// Per agent of `agents` (in that order): (step, seconds since its training began) at every
/// step of a run's metrics log ([`read_log`]), from the rows' `elapsed_seconds` (empty for runs logged before it was kept).
pub fn run_clock(rows: &Rows, agents: &[String]) -> Vec<Vec<(usize, f64)>> {
    agents
        .iter()
        .map(|agent| {
            (rows.iter())
                .filter(|((a, _), _)| a == agent)
                .filter_map(|((_, step), row)| {
                    Some((*step as usize, row["extra"]["elapsed_seconds"].as_f64()?))
                })
                .collect()
        })
        .collect()
}

/// A run's metrics log by (agent, step).
pub type Rows = BTreeMap<(String, u64), serde_json::Value>;

/// The rows of a run's metrics log (or, agents trained at their own pace, of each agent's) by
/// (agent, step); a step logged twice as last logged. Read once per run, for its diagnostics
/// and its clock.
pub fn read_log(output_dir: &Path) -> Result<Rows> {
    let path = output_dir.join(METRICS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) => {
            per_agent_logs(output_dir).with_context(|| format!("reading {}", path.display()))?
        }
    };
    metrics_entries(&text)
        .map(|entry| entry.map(|(agent, step, row)| ((agent, step), row)))
        .collect()
}

/// The metrics logs of every agent's folder under `output_dir`, one after another.
fn per_agent_logs(output_dir: &Path) -> Result<String> {
    let mut logs: Vec<_> = std::fs::read_dir(output_dir)?
        .filter_map(|e| Some(e.ok()?.path().join(METRICS_FILE)))
        .filter(|p| p.is_file())
        .collect();
    anyhow::ensure!(!logs.is_empty(), "no metrics log");
    logs.sort();
    let mut text = String::new();
    for log in logs {
        text += &std::fs::read_to_string(&log)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_average_steps_and_skip_cross_keys_without_cross_samples() {
        let dir = tempfile::tempdir().unwrap();
        let row = |step: u64, clip_own: f64, cross: u64| {
            serde_json::json!({"agent": "a", "row": {"step": step, "accuracy": 0.5, "kl": 0.0,
                "clip_fraction": 0.2, "extra": {"clip_own": clip_own, "clip_cross": 0.9,
                "cross_sequences": cross, "omega_source_over_learner": {"b": 2.0}}}})
            .to_string()
        };
        // Step 2 logged twice (a crash after its metrics): the later line counts.
        let text = [row(1, 0.1, 4), row(2, 0.9, 0), row(2, 0.3, 0)].join("\n");
        std::fs::write(dir.path().join(METRICS_FILE), text).unwrap();
        let d = run_diagnostics(&read_log(dir.path()).unwrap());
        let a = &d["a"];
        assert!((a["clip_own"] - 0.2).abs() < 1e-12, "{a:?}");
        assert_eq!(a["clip_cross"], 0.9, "only step 1 had cross samples");
        assert_eq!(a["omega"], 2.0);
        assert_eq!(
            run_clock(&read_log(dir.path()).unwrap(), &["a".into()]),
            [Vec::<(usize, f64)>::new()],
            "rows without elapsed_seconds: no clock"
        );
    }

    #[test]
    fn the_clock_is_each_agents_elapsed_seconds_by_step_the_later_line_of_a_repeated_step() {
        let dir = tempfile::tempdir().unwrap();
        let row = |agent: &str, step: u64, elapsed: f64| {
            serde_json::json!({"agent": agent, "row": {"step": step,
                "extra": {"elapsed_seconds": elapsed}}})
            .to_string()
        };
        let text = [
            row("a", 1, 5.0),
            row("b", 1, 9.0),
            row("a", 2, 10.0),
            row("a", 2, 12.0),
        ];
        std::fs::write(dir.path().join(METRICS_FILE), text.join("\n")).unwrap();
        let clock = run_clock(&read_log(dir.path()).unwrap(), &["b".into(), "a".into()]);
        assert_eq!(clock, [vec![(1, 9.0)], vec![(1, 5.0), (2, 12.0)]]);
    }
}
