//! Held-out accuracy per skill (the tasks' `metadata.style`: word problems, bare expressions),
//! read from the pool's evaluation rollouts: the measure of cell A's question, whether a
//! specialist learns the skill only its partner had.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use uuid::Uuid;

use wire::client::blocking::Client;
use wire::{Group, TaskSummary};

/// Skill → per agent: (step, accuracy on that skill's tasks), like `SeedResult::curves`.
pub type SkillCurves = BTreeMap<String, Vec<Vec<(usize, f64)>>>;

/// Each task's skill, from its `metadata.style`; tasks without one are left out.
pub fn task_skills(tasks: &[TaskSummary]) -> HashMap<Uuid, String> {
    tasks
        .iter()
        .filter_map(|t| Some((t.id, t.metadata.get("style")?.as_str()?.to_string())))
        .collect()
}

/// Whether per-skill curves say anything: the tasks carry at least two skills.
pub fn worth_splitting(skills: &HashMap<Uuid, String>) -> bool {
    let mut names = skills.values();
    names
        .next()
        .is_some_and(|first| names.any(|other| other != first))
}

/// `agent`'s accuracy (mean reward, as the pool's `agent_step_accuracy`) per skill over the
/// responses in `groups`.
pub fn accuracy_by_skill(
    groups: &[Group],
    agent: Uuid,
    skills: &HashMap<Uuid, String>,
) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for g in groups {
        let Some(skill) = skills.get(&g.task_id) else {
            continue;
        };
        for m in g.rollouts.iter().filter(|m| m.agent_id == agent) {
            let entry = sums.entry(skill.clone()).or_default();
            entry.0 += m.reward;
            entry.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(skill, (sum, n))| (skill, sum / n as f64))
        .collect()
}

/// Per-skill curves of `agents` in the evaluation run `eval_run` at `steps`, each starting at
/// step 0 with the agent's warm-up evaluation (`warm_runs[k]`, its step 0).
pub fn curves(
    client: &Client,
    eval_run: &str,
    steps: &[usize],
    agents: &[Uuid],
    warm_runs: &[String],
    skills: &HashMap<Uuid, String>,
) -> Result<SkillCurves> {
    let mut out = SkillCurves::new();
    let mut add = |k: usize, step: usize, by_skill: BTreeMap<String, f64>| {
        for (skill, acc) in by_skill {
            let per_agent = out
                .entry(skill)
                .or_insert_with(|| vec![Vec::new(); agents.len()]);
            per_agent[k].push((step, acc));
        }
    };
    for (k, (&agent, warm_run)) in agents.iter().zip(warm_runs).enumerate() {
        add(
            k,
            0,
            accuracy_by_skill(&client.groups(warm_run, 0)?, agent, skills),
        );
    }
    for &step in steps {
        let groups = client.groups(eval_run, step as i64)?;
        for (k, &agent) in agents.iter().enumerate() {
            add(k, step, accuracy_by_skill(&groups, agent, skills));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(agent: Uuid, reward: f64) -> wire::GroupMember {
        wire::GroupMember {
            id: Uuid::new_v4(),
            agent_id: agent,
            agent: "a".into(),
            response: "r".into(),
            reward,
            correct: reward > 0.5,
            token_count: None,
            logprob_mean: None,
            logprob_sum: None,
            policy_version: 0,
            metadata: serde_json::Value::Null,
        }
    }

    #[test]
    fn accuracy_is_split_by_the_tasks_style_and_by_agent() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let (t1, t2, t3, t4) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let skills: HashMap<Uuid, String> = [
            (t1, "word".to_string()),
            (t2, "word".to_string()),
            (t3, "expression".to_string()),
        ]
        .into();
        let group = |task, rollouts| Group {
            task_id: task,
            prompt: String::new(),
            rollouts,
        };
        let groups = vec![
            group(t1, vec![member(a, 1.0), member(b, 0.0)]),
            group(t2, vec![member(a, 0.0), member(b, 0.0)]),
            group(t3, vec![member(a, 1.0), member(b, 1.0)]),
            // No skill: not counted anywhere.
            group(t4, vec![member(a, 0.0), member(b, 1.0)]),
        ];
        let of_a = accuracy_by_skill(&groups, a, &skills);
        assert_eq!(
            of_a,
            [("expression".into(), 1.0), ("word".into(), 0.5)].into()
        );
        let of_b = accuracy_by_skill(&groups, b, &skills);
        assert_eq!(
            of_b,
            [("expression".into(), 1.0), ("word".into(), 0.0)].into()
        );
        assert!(worth_splitting(&skills));
        let one: HashMap<Uuid, String> = [(t1, "word".to_string())].into();
        assert!(!worth_splitting(&one));
        assert!(!worth_splitting(&HashMap::new()));
    }
}
