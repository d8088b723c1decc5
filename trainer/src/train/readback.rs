//! What the trainer reads back from the pool: which agents have submitted a step (the barrier
//! between agents in separate processes), each agent's accuracy in a step's groups (P_{j,t}, the
//! input of the capability update) and, on resume, the capability history of earlier steps.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::client::VerifierClient;
use crate::config::RunConfig;
use crate::hacpo::CapabilityTracker;
use crate::progress::Phase;
use wire::Group;

/// Mean reward of each agent's rollouts in `groups` (0 for an agent with none); `index` maps
/// agent names to positions.
pub(super) fn accuracy_per_agent(
    groups: &[Group],
    index: &HashMap<String, usize>,
    n: usize,
) -> Vec<f64> {
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
        .map(|(s, &c)| if c == 0 { 0.0 } else { s / c as f64 })
        .collect()
}

/// The agents of the run (in config order) with no rollouts in `step` yet.
pub(super) fn missing_agents(
    client: &VerifierClient,
    cfg: &RunConfig,
    step: usize,
) -> Result<Vec<String>> {
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
    client: &VerifierClient,
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
    client: &VerifierClient,
    cfg: &RunConfig,
    upto: usize,
) -> Result<()> {
    let histories = cfg
        .agents
        .iter()
        .map(|a| {
            let h = client.accuracy_history(&a.name, &cfg.run.name)?;
            Ok(h.into_iter()
                .filter(|s| s.step as usize <= upto)
                .map(|s| (s.step, s.accuracy))
                .collect::<HashMap<_, _>>())
        })
        .collect::<Result<Vec<_>>>()?;
    for step in 1..=upto as i64 {
        let acc: Option<Vec<f64>> = histories.iter().map(|h| h.get(&step).copied()).collect();
        if let Some(acc) = acc {
            tracker.record(&acc);
        }
    }
    Ok(())
}
