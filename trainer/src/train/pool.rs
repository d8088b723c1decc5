//! What the trainer reads back from the pool: each agent's accuracy in a step's groups (P_{j,t},
//! the input of the capability update) and, on resume, the capability history of earlier steps.

use std::collections::HashMap;

use anyhow::Result;

use super::agent::Agent;
use crate::hacpo::CapabilityTracker;
use crate::verifier::VerifierClient;
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

/// Replays the pooled accuracies of steps `1..=upto` of `run` into `tracker`, so a resumed run
/// has the capabilities the interrupted one had.
pub(super) fn restore_capabilities(
    tracker: &mut CapabilityTracker,
    agents: &[Agent],
    client: &VerifierClient,
    run: &str,
    upto: usize,
) -> Result<()> {
    let histories = agents
        .iter()
        .map(|a| {
            let h = client.accuracy_history(a.id, run)?;
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
