//! What the trainer reads back from the pool: which agents have submitted a step (the barrier
//! between agents in separate processes), a step's groups, each agent's accuracy in them
//! (P_{j,t}, the input of the capability update) and, on resume, the capability history of
//! earlier steps and the rollouts already trained on.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use uuid::Uuid;

use crate::config::RunConfig;
use crate::hacpo::CapabilityTracker;
use crate::progress::Phase;
use wire::Group;
use wire::client::blocking::Client;

/// The groups of one step of the run, as read from the pool.
#[derive(Debug, Clone)]
pub(super) struct StepGroups {
    /// The step (its prompts are the run's draw for it).
    pub(super) step: usize,
    /// Every agent's responses so far, per prompt.
    pub(super) groups: Vec<Group>,
}

/// Mean reward of each agent's rollouts in `groups` (`None` for an agent with none); `index`
/// maps agent names to positions.
pub(super) fn accuracy_per_agent(
    groups: &[Group],
    index: &HashMap<String, usize>,
    n: usize,
) -> Vec<Option<f64>> {
    let mut sum = vec![0.0; n];
    let mut count = vec![0usize; n];
    for m in groups.iter().flat_map(|g| &g.rollouts) {
        if let Some(&j) = index.get(&m.agent) {
            sum[j] += m.reward;
            count[j] += 1;
        }
    }
    sum.iter()
        .zip(&count)
        .map(|(s, &c)| (c > 0).then(|| s / c as f64))
        .collect()
}

/// A process's metrics log by (step, position k), as [`logged_rows`] reads it.
pub(super) type LoggedRows = BTreeMap<(u64, usize), serde_json::Value>;

/// The rows of a process's metrics log (`METRICS_FILE`) for the steps `..=upto` of the run's
/// agents, by (step, position k); a step logged twice (trained again after an earlier resume)
/// as last logged. No log: none.
pub(super) fn logged_rows(
    metrics_log: &Path,
    index: &HashMap<String, usize>,
    upto: usize,
) -> Result<LoggedRows> {
    let mut rows = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(metrics_log) else {
        return Ok(rows);
    };
    for entry in super::metrics_entries(&text) {
        let (agent, step, row) = entry?;
        if let Some(&k) = index.get(&agent).filter(|_| step as usize <= upto) {
            rows.insert((step, k), row);
        }
    }
    Ok(rows)
}

/// The rollouts each agent of this process trained on in steps `..=upto`, by position k, from
/// the `uses` of its metrics log (a resumed asynchronous run must not train twice on a
/// partner's rollout, and trains again on those of updates lost with the crash).
pub(super) fn restore_uses(logged: &LoggedRows, agents: usize) -> Vec<HashSet<Uuid>> {
    let mut used = vec![HashSet::new(); agents];
    for ((_, k), row) in logged {
        let uses = row["extra"]["uses"].as_array().into_iter().flatten();
        used[*k].extend(uses.filter_map(|u| u["id"].as_str()?.parse::<Uuid>().ok()));
    }
    used
}

/// The training seconds a resumed process's run had logged by step `upto` (its largest
/// `elapsed_seconds`; 0 when none was logged), from which its clock continues.
pub(super) fn logged_elapsed(logged: &LoggedRows) -> f64 {
    logged
        .values()
        .filter_map(|row| row["extra"]["elapsed_seconds"].as_f64())
        .fold(0.0, f64::max)
}

/// The agents of the run (in config order) with no rollouts in `step` yet.
pub(super) fn missing_agents(client: &Client, cfg: &RunConfig, step: usize) -> Result<Vec<String>> {
    let done = client.submissions(&cfg.run.name, step as i64)?;
    Ok(cfg
        .agents
        .iter()
        .filter(|a| !done.agents.iter().any(|d| d.agent == a.name))
        .map(|a| a.name.clone())
        .collect())
}

/// Longest pause between two polls of the barrier.
const MAX_POLL: Duration = Duration::from_secs(2);

/// Returns once every agent of the run has rollouts in `step`, polling with back-off: the pool
/// is the barrier between agents training in separate processes (with all agents in one
/// process it holds at the first poll). Fails after `run.barrier_timeout_s`, naming the agents
/// still missing. `phase` counts the agents whose rollouts are in.
pub(super) fn await_agents(
    client: &Client,
    cfg: &RunConfig,
    step: usize,
    phase: &Phase,
) -> Result<()> {
    let timeout = Duration::from_secs(cfg.run.barrier_timeout_s);
    let deadline = Instant::now() + timeout;
    let mut wait = Duration::from_millis(50);
    let mut logged = false;
    loop {
        let missing = missing_agents(client, cfg, step)?;
        phase.set(cfg.agents.len() - missing.len());
        if missing.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            bail!(
                "step {step} of run `{}`: no rollouts from {} after {}s (run.barrier_timeout_s)",
                cfg.run.name,
                missing.join(", "),
                timeout.as_secs()
            );
        }
        phase.say(format!("waiting for {}", missing.join(", ")));
        if !logged {
            tracing::info!(step, missing = %missing.join(", "), "waiting for the other agents' rollouts");
            logged = true;
        }
        std::thread::sleep(wait.min(deadline - now));
        wait = (wait * 2).min(MAX_POLL);
    }
}

/// Replays the pooled accuracies of steps `1..=upto` of the run into `tracker`, so a resumed
/// run has the capabilities the interrupted one had.
pub(super) fn restore_capabilities(
    tracker: &mut CapabilityTracker,
    client: &Client,
    cfg: &RunConfig,
    upto: usize,
) -> Result<()> {
    for (j, a) in cfg.agents.iter().enumerate() {
        let history = client.capability(&a.name, &cfg.run.name, 1)?.steps;
        for s in history.into_iter().filter(|s| s.step as usize <= upto) {
            tracker.record_at(j, s.step as u64, s.accuracy);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_clock_continues_from_the_largest_elapsed_logged_by_its_step() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("metrics.jsonl");
        let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
        let elapsed = |upto| logged_elapsed(&logged_rows(&log, &index, upto).unwrap());
        assert_eq!(elapsed(5), 0.0, "no log: a new clock");
        let line = |agent: &str, step: u64, elapsed: f64| {
            serde_json::json!({"agent": agent, "row": {"step": step, "extra": {"elapsed_seconds": elapsed}}})
                .to_string()
        };
        let text = [
            line("a", 1, 10.0),
            line("b", 1, 10.5),
            line("a", 2, 20.0),
            // Past the checkpoint the process resumes from: trained again, not counted.
            line("a", 3, 99.0),
            // An agent of another process.
            line("c", 2, 50.0),
        ]
        .join("\n");
        std::fs::write(&log, text).unwrap();
        assert_eq!(elapsed(2), 20.0);
        assert_eq!(elapsed(1), 10.5);
    }
}
