//! Rollouts as the step and task pages list them: the response (shortened when huge), its
//! reward and log-probs, and the verdict's public view only, so no gold answer, reference
//! program or expected output reaches a page.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use super::chart::number;
use crate::pool::dashboard::ListedRollout;
use crate::verdict::PublicVerdict;

/// Longest response shown in full; the rest is one click away in the REST API.
const SHOWN_CHARS: usize = 20_000;

/// One rollout on a page.
#[derive(Debug, Serialize)]
pub struct Shown {
    /// Rollout id.
    pub id: Uuid,
    /// Training run.
    pub run: String,
    /// Training step.
    pub step: i64,
    /// Agent name.
    pub agent: String,
    /// The response, up to [`SHOWN_CHARS`] characters.
    pub response: String,
    /// Characters left out of `response`.
    pub cut: usize,
    /// Reward, formatted.
    pub reward: String,
    /// Whether it was judged correct.
    pub correct: bool,
    /// Whether the judge failed (its reward means nothing).
    pub judge_error: bool,
    /// One line about the verdict's response side.
    pub summary: String,
    /// The verdict's public view, pretty-printed.
    pub verdict: String,
    /// Token count, mean and summed log-prob, policy version, as text.
    pub numbers: String,
    /// The name of the token that wrote it, when tokens were asked for.
    pub writer: Option<String>,
}

impl Shown {
    /// The page form of `r`.
    pub fn of(r: &ListedRollout) -> Self {
        let public = PublicVerdict::of_stored(&r.verdict);
        let total = r.response.chars().count();
        let response: String = r.response.chars().take(SHOWN_CHARS).collect();
        let opt = |v: Option<f64>| v.map_or("–".to_string(), number);
        Shown {
            id: r.id,
            run: r.run.clone(),
            step: r.step,
            agent: r.agent.clone(),
            response,
            cut: total.saturating_sub(SHOWN_CHARS),
            reward: number(r.reward),
            correct: r.correct,
            judge_error: r.status == "judge_error",
            summary: summary(&public),
            verdict: serde_json::to_string_pretty(&public).expect("JSON values serialize"),
            numbers: format!(
                "tokens {} · logprob mean {} · sum {} · policy v{}",
                r.token_count.map_or("–".to_string(), |t| t.to_string()),
                opt(r.logprob_mean),
                opt(r.logprob_sum),
                r.policy_version
            ),
            writer: r.writer.clone(),
        }
    }
}

/// A task's responses, for the step page.
#[derive(Debug, Serialize)]
pub struct Group {
    /// Task id.
    pub task_id: Uuid,
    /// `dataset/external_id`.
    pub task: String,
    /// The prompt.
    pub prompt: String,
    /// Its rollouts, by agent.
    pub rollouts: Vec<Shown>,
    /// Mean reward over them.
    pub mean_reward: String,
    /// When the task is complementary (one agent failed every scored sample while another
    /// solved one; the `complementary_prompts` view's rows): per such pair, what happened.
    pub complementary: Vec<String>,
}

/// Groups `rows` (ordered by task) into one [`Group`] per task.
pub fn groups(rows: &[ListedRollout]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut sums: Vec<f64> = Vec::new();
    for r in rows {
        if out.last().is_none_or(|g| g.task_id != r.task_id) {
            out.push(Group {
                task_id: r.task_id,
                task: format!("{}/{}", r.dataset, r.external_id),
                prompt: r.prompt.clone(),
                rollouts: Vec::new(),
                mean_reward: String::new(),
                complementary: Vec::new(),
            });
            sums.push(0.0);
        }
        let g = out.last_mut().expect("pushed above");
        g.rollouts.push(Shown::of(r));
        *sums.last_mut().expect("pushed above") += r.reward;
    }
    for (g, sum) in out.iter_mut().zip(sums) {
        g.mean_reward = number(sum / g.rollouts.len() as f64);
        g.complementary = complementary(&g.rollouts);
    }
    out
}

/// The (failed, solving) agent pairs of one task's rollouts, as the `complementary_prompts` view
/// defines them: judge errors do not count as samples.
fn complementary(rollouts: &[Shown]) -> Vec<String> {
    let mut by_agent: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in rollouts.iter().filter(|r| !r.judge_error) {
        let (samples, solved) = by_agent.entry(&r.agent).or_default();
        *samples += 1;
        *solved += usize::from(r.correct);
    }
    let failed = by_agent.iter().filter(|(_, (_, solved))| *solved == 0);
    failed
        .flat_map(|(f, (n, _))| {
            by_agent
                .iter()
                .filter(|(_, (_, solved))| *solved > 0)
                .map(move |(s, (m, k))| format!("{f} failed all {n}; {s} solved {k} of {m}"))
        })
        .collect()
}

/// What the verdict says about the response, from its public view.
fn summary(public: &Value) -> String {
    let text = |k: &str| public.get(k).and_then(Value::as_str);
    match text("kind") {
        Some("math") if text("rule").is_some() => {
            let rule = text("rule").unwrap_or_default();
            match text("response_answer") {
                Some(a) => format!("math · answer {a} · rule {rule}"),
                None => format!("math · no answer found · rule {rule}"),
            }
        }
        Some("code") if text("status").is_some() => {
            let n = |k: &str| public.get(k).and_then(Value::as_u64).unwrap_or(0);
            format!(
                "code · {} · {}/{} cases · {}",
                text("status").unwrap_or("?"),
                n("passed"),
                n("total"),
                text("message").unwrap_or("")
            )
        }
        Some(kind) => format!("{kind} · verdict of unknown shape"),
        None => "verdict of unknown shape".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn listed(task: Uuid, agent: &str, reward: f64, verdict: Value) -> ListedRollout {
        ListedRollout {
            id: Uuid::new_v4(),
            run: "r".into(),
            step: 1,
            task_id: task,
            dataset: "toy".into(),
            external_id: "1".into(),
            prompt: "p".into(),
            agent: agent.into(),
            response: "x".repeat(SHOWN_CHARS + 5),
            reward,
            correct: reward == 1.0,
            status: "scored".into(),
            verdict,
            token_count: Some(3),
            logprob_mean: Some(-0.5),
            logprob_sum: None,
            policy_version: 2,
            writer: None,
        }
    }

    #[test]
    fn pages_get_the_public_verdict_and_groups_by_task() {
        let (t1, t2) = (Uuid::new_v4(), Uuid::new_v4());
        let math = json!({"kind": "math", "correct": false, "reward": 0.0,
            "reference_answer": "GOLD-42", "response_answer": "7", "reference_source": "boxed",
            "response_source": "boxed", "reference_normalized": "GOLD-42",
            "response_normalized": "7", "rule": "exact", "note": null});
        let code = json!({"kind": "code", "correct": false, "reward": 0.5, "status": "failed",
            "message": "1/2 cases passed", "language": "python", "extraction": "fenced_block",
            "runtime": "python_fast", "passed": 1, "total": 2, "elapsed_seconds": 0.5,
            "cases": [{"index": 0, "status": "wrong_answer", "got": "4", "expected": "GOLD-3"}]});
        let rows = [
            listed(t1, "a", 0.0, math),
            listed(
                t1,
                "b",
                1.0,
                json!({"kind": "math", "reference_answer": "GOLD-1"}),
            ),
            listed(t2, "a", 0.5, code),
        ];
        let g = groups(&rows);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].rollouts.len(), 2);
        assert_eq!(g[0].mean_reward, "0.500");
        let shown = serde_json::to_string(&g).unwrap();
        assert!(!shown.contains("GOLD"), "{shown}");
        assert_eq!(g[0].rollouts[0].summary, "math · answer 7 · rule exact");
        assert_eq!(g[0].rollouts[1].summary, "math · verdict of unknown shape");
        assert_eq!(
            g[1].rollouts[0].summary,
            "code · failed · 1/2 cases · 1/2 cases passed"
        );
        assert_eq!(g[0].rollouts[0].cut, 5);
        assert_eq!(g[0].rollouts[0].response.len(), SHOWN_CHARS);
        assert_eq!(
            g[0].rollouts[0].numbers,
            "tokens 3 · logprob mean -0.500 · sum – · policy v2"
        );
    }

    #[test]
    fn a_task_is_complementary_when_one_agent_failed_every_scored_sample_and_another_solved_one() {
        let t = Uuid::new_v4();
        let mut judge_error = listed(t, "c", 0.0, json!({}));
        judge_error.status = "judge_error".into();
        let rows = vec![
            listed(t, "a", 0.0, json!({})),
            listed(t, "a", 0.0, json!({})),
            listed(t, "b", 1.0, json!({})),
            listed(t, "b", 0.0, json!({})),
            judge_error,
        ];
        assert_eq!(
            groups(&rows)[0].complementary,
            ["a failed all 2; b solved 1 of 2"],
            "a judge error is no failed sample"
        );
        let all_failed = vec![
            listed(t, "a", 0.0, json!({})),
            listed(t, "b", 0.0, json!({})),
        ];
        assert!(groups(&all_failed)[0].complementary.is_empty());
    }
}
