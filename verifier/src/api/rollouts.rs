//! `/v1/rollouts`: submitting responses for verification into the pool, and reading them back.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::{ApiJson, ApiQuery, AppState, check_json, check_text};
use crate::error::ApiError;
use crate::pool::rollouts::{self, Rollout, RolloutFilter, RolloutRow};
use crate::pool::{Page, agents, tasks};
use crate::scoring::{Score, Scorer, redact};
use crate::task::Reference;

/// A batch of responses to verify and store.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitRollouts {
    /// The rollouts, at most `--max-batch`.
    pub rollouts: Vec<NewRollout>,
}

/// One response to verify and store.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRollout {
    /// Client-chosen id: resubmitting it returns the stored result instead of a duplicate.
    /// Generated (UUIDv7) when absent.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// Task answered.
    pub task_id: Uuid,
    /// Agent that answered.
    pub agent_id: Uuid,
    /// Training run (default `default`).
    #[serde(default = "super::default_run")]
    pub run: String,
    /// Training step (default 0).
    #[serde(default)]
    pub step: i64,
    /// Version of the generating policy (default 0).
    #[serde(default)]
    pub policy_version: i64,
    /// The full response text.
    pub response: String,
    /// Response tokens under the generating tokenizer.
    #[serde(default)]
    pub token_count: Option<i32>,
    /// Mean token log-prob under the generating policy.
    #[serde(default)]
    pub logprob_mean: Option<f64>,
    /// Summed token log-prob under the generating policy.
    #[serde(default)]
    pub logprob_sum: Option<f64>,
    /// Free-form metadata (sampling settings, …).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub metadata: Option<Value>,
}

/// The stored result of one submitted rollout.
#[derive(Debug, Serialize, ToSchema)]
pub struct RolloutResult {
    /// Rollout id.
    pub id: Uuid,
    /// Task.
    pub task_id: Uuid,
    /// Agent.
    pub agent_id: Uuid,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Fully correct.
    pub correct: bool,
    /// `scored` or `judge_error`.
    pub status: String,
    /// Verdict without reference-side details.
    #[schema(value_type = Object)]
    pub verdict: Value,
    /// True when this id was already stored (the stored result is returned).
    pub duplicate: bool,
}

/// Response to a submission.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubmitResult {
    /// Stored now.
    pub created: usize,
    /// Already stored before.
    pub duplicates: usize,
    /// Per rollout, in submission order.
    pub results: Vec<RolloutResult>,
}

/// Verify a batch of rollouts and store them with their rewards in one transaction.
/// Idempotent by rollout id; all or nothing (an unknown task or agent rejects the batch).
#[utoipa::path(post, path = "/v1/rollouts", tag = "rollouts", request_body = SubmitRollouts,
    responses((status = 200, body = SubmitResult), (status = 404, body = crate::error::ErrorBody),
              (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody),
              (status = 503, body = crate::error::ErrorBody)))]
pub async fn submit(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<SubmitRollouts>,
) -> Result<Json<SubmitResult>, ApiError> {
    validate(
        &req.rollouts,
        s.limits.max_batch,
        s.limits.max_response_bytes,
    )?;
    let items = req.rollouts;
    let ids: Vec<Uuid> = items
        .iter()
        .map(|r| r.id.unwrap_or_else(Uuid::now_v7))
        .collect();

    let mut stored: HashMap<Uuid, RolloutRow> = rollouts::by_ids(&s.db, &ids)
        .await?
        .into_iter()
        .map(|r| (r.row.id, r.row))
        .collect();
    for (i, (item, id)) in items.iter().zip(&ids).enumerate() {
        if let Some(old) = stored.get(id) {
            ensure_same(i, item, old)?;
        }
    }
    let fresh: Vec<usize> = (0..items.len())
        .filter(|&i| !stored.contains_key(&ids[i]))
        .collect();

    let task_ids: Vec<Uuid> = unique(fresh.iter().map(|&i| items[i].task_id));
    let task_map: HashMap<Uuid, tasks::ScoringTask> = tasks::for_scoring(&s.db, &task_ids)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let agent_ids: Vec<Uuid> = unique(fresh.iter().map(|&i| items[i].agent_id));
    let known_agents: HashSet<Uuid> = agents::existing(&s.db, &agent_ids)
        .await?
        .into_iter()
        .collect();
    for &i in &fresh {
        if !task_map.contains_key(&items[i].task_id) {
            return Err(ApiError::not_found(
                format!("rollouts[{i}].task_id"),
                format!("no task {}", items[i].task_id),
            ));
        }
        if !known_agents.contains(&items[i].agent_id) {
            return Err(ApiError::not_found(
                format!("rollouts[{i}].agent_id"),
                format!("no agent {}", items[i].agent_id),
            ));
        }
    }

    let jobs: Vec<(Reference, String, String)> = fresh
        .iter()
        .map(|&i| {
            let t = &task_map[&items[i].task_id];
            (
                t.reference.clone(),
                t.prompt.clone(),
                items[i].response.clone(),
            )
        })
        .collect();
    let scores = score_all(s.scorer.clone(), jobs).await?;

    let rows: Vec<RolloutRow> = fresh
        .iter()
        .zip(scores)
        .map(|(&i, score)| {
            let r = &items[i];
            RolloutRow {
                id: ids[i],
                run: r.run.clone(),
                task_id: r.task_id,
                agent_id: r.agent_id,
                step: r.step,
                policy_version: r.policy_version,
                response: r.response.clone(),
                token_count: r.token_count,
                logprob_mean: r.logprob_mean,
                logprob_sum: r.logprob_sum,
                reward: score.reward,
                correct: score.correct,
                status: score.status.as_str().to_string(),
                verdict: score.verdict,
                metadata: r
                    .metadata
                    .clone()
                    .unwrap_or_else(|| Value::Object(Default::default())),
            }
        })
        .collect();
    let inserted: HashSet<Uuid> = rollouts::insert_batch(&s.db, &rows)
        .await?
        .into_iter()
        .collect();

    // Rows a concurrent submission of the same ids stored first are reported as duplicates.
    let raced: Vec<Uuid> = rows
        .iter()
        .map(|r| r.id)
        .filter(|id| !inserted.contains(id))
        .collect();
    if !raced.is_empty() {
        for r in rollouts::by_ids(&s.db, &raced).await? {
            stored.insert(r.row.id, r.row);
        }
    }
    for r in rows.into_iter().filter(|r| inserted.contains(&r.id)) {
        stored.insert(r.id, r);
    }
    let results: Vec<RolloutResult> = ids
        .iter()
        .map(|id| RolloutResult::new(&stored[id], !inserted.contains(id)))
        .collect();
    metrics::counter!("verifier_rollouts_stored_total").increment(inserted.len() as u64);
    Ok(Json(SubmitResult {
        created: inserted.len(),
        duplicates: results.len() - inserted.len(),
        results,
    }))
}

impl RolloutResult {
    fn new(r: &RolloutRow, duplicate: bool) -> Self {
        Self {
            id: r.id,
            task_id: r.task_id,
            agent_id: r.agent_id,
            reward: r.reward,
            correct: r.correct,
            status: r.status.clone(),
            verdict: redact(&r.verdict),
            duplicate,
        }
    }
}

fn unique(ids: impl Iterator<Item = Uuid>) -> Vec<Uuid> {
    let set: HashSet<Uuid> = ids.collect();
    set.into_iter().collect()
}

/// Math answers are graded on a blocking thread (cheap but CPU-bound); programs go to the
/// sandbox concurrently (its semaphore bounds the load).
async fn score_all(
    scorer: Arc<Scorer>,
    jobs: Vec<(Reference, String, String)>,
) -> Result<Vec<Score>, ApiError> {
    let (math, code): (Vec<_>, Vec<_>) = jobs
        .into_iter()
        .enumerate()
        .partition(|(_, (r, _, _))| matches!(r, Reference::Math(_)));
    let math_scorer = scorer.clone();
    let math_scores = tokio::task::spawn_blocking(move || {
        math.into_iter()
            .map(|(i, (reference, _, response))| {
                let Reference::Math(m) = reference else {
                    unreachable!("partitioned by kind")
                };
                (i, math_scorer.score_math(&m.answer, &response))
            })
            .collect::<Vec<_>>()
    });
    let code_scores =
        futures::future::join_all(code.into_iter().map(|(i, (reference, prompt, response))| {
            let scorer = scorer.clone();
            async move { (i, scorer.score(&reference, &prompt, &response).await) }
        }))
        .await;
    let math_scores = math_scores
        .await
        .map_err(|e| ApiError::Internal(format!("math grading failed: {e}")))?;
    let mut all: Vec<(usize, Score)> = math_scores.into_iter().chain(code_scores).collect();
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, s)| s).collect())
}

fn validate(items: &[NewRollout], max_batch: usize, max_response: usize) -> Result<(), ApiError> {
    if items.is_empty() {
        return Err(ApiError::invalid("rollouts", "no rollouts given"));
    }
    if items.len() > max_batch {
        return Err(ApiError::invalid(
            "rollouts",
            format!(
                "{} rollouts exceed the batch limit of {max_batch}",
                items.len()
            ),
        ));
    }
    let mut ids = HashSet::new();
    for (i, r) in items.iter().enumerate() {
        let at = |f: &str| format!("rollouts[{i}].{f}");
        if let Some(id) = r.id
            && !ids.insert(id)
        {
            return Err(ApiError::invalid(
                at("id"),
                format!("id {id} appears twice in this batch"),
            ));
        }
        check_text(&at("response"), &r.response, max_response)?;
        check_text(&at("run"), &r.run, 200)?;
        if r.run.is_empty() {
            return Err(ApiError::invalid(at("run"), "run must not be empty"));
        }
        if r.step < 0 {
            return Err(ApiError::invalid(at("step"), "step must be >= 0"));
        }
        if r.token_count.is_some_and(|n| n < 0) {
            return Err(ApiError::invalid(
                at("token_count"),
                "token_count must be >= 0",
            ));
        }
        for (name, v) in [
            ("logprob_mean", r.logprob_mean),
            ("logprob_sum", r.logprob_sum),
        ] {
            if v.is_some_and(|x| !x.is_finite() || x > 0.0) {
                return Err(ApiError::invalid(
                    at(name),
                    format!("{name} must be a finite log-probability (<= 0)"),
                ));
            }
        }
        if r.metadata.as_ref().is_some_and(|m| !m.is_object()) {
            return Err(ApiError::invalid(
                at("metadata"),
                "metadata must be a JSON object",
            ));
        }
        if let Some(m) = &r.metadata {
            check_json(&at("metadata"), m)?;
        }
    }
    Ok(())
}

fn ensure_same(i: usize, new: &NewRollout, old: &RolloutRow) -> Result<(), ApiError> {
    let same = new.task_id == old.task_id
        && new.agent_id == old.agent_id
        && new.run == old.run
        && new.step == old.step
        && new.response == old.response;
    if same {
        Ok(())
    } else {
        Err(ApiError::conflict(
            format!("rollouts[{i}].id"),
            format!(
                "rollout {} is already stored with different content",
                old.id
            ),
        ))
    }
}

/// Filters and cursor for listing rollouts.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Training run.
    pub run: Option<String>,
    /// Training step.
    pub step: Option<i64>,
    /// Agent.
    pub agent_id: Option<Uuid>,
    /// Task.
    pub task_id: Option<Uuid>,
    /// Cursor from the previous page's `next`.
    #[serde(default)]
    pub after: i64,
    /// Page size, 1–1000 (default 100).
    #[serde(default = "super::default_limit")]
    pub limit: i64,
}

/// List rollouts in insertion order with keyset pagination (verdicts without gold answers).
#[utoipa::path(get, path = "/v1/rollouts", tag = "rollouts", params(ListQuery),
    responses((status = 200, body = Page<Rollout>)))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Page<Rollout>>, ApiError> {
    super::check_limit(q.limit)?;
    let filter = RolloutFilter {
        run: q.run.as_deref(),
        step: q.step,
        agent_id: q.agent_id,
        task_id: q.task_id,
    };
    let mut page = rollouts::list(&s.db, &filter, q.after, q.limit).await?;
    for r in &mut page.items {
        r.row.verdict = redact(&r.row.verdict);
    }
    Ok(Json(page))
}
