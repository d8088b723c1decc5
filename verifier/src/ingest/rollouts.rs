//! Submitting rollouts: each response verified against its task, then the batch stored in one
//! transaction, idempotently by client-chosen id.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;
use wire::{NewRollout, RolloutResult, RolloutRow, SubmitResult};

use super::{IngestError, RunName, Step};
use crate::pool::rollouts;
use crate::pool::{agents, tasks};
use crate::refusal::{Fault, Refusal};
use crate::refusal::{check_json, check_text};
use crate::scoring::Scorer;
use crate::task::Reference;
use crate::verdict::PublicVerdict;

/// How much one submission may hold.
#[derive(Debug, Clone, Copy)]
pub struct BatchLimits {
    /// Most rollouts in one batch.
    pub max_batch: usize,
    /// Most bytes in one response.
    pub max_response_bytes: usize,
}

/// Verifies and stores `items`: all or nothing (an unknown task or agent refuses the batch);
/// ids already stored with the same content come back as duplicates, with other content as a
/// conflict; rows a concurrent submission stored first are reported as duplicates too.
pub async fn submit_rollouts(
    db: &PgPool,
    scorer: &Arc<Scorer>,
    items: Vec<NewRollout>,
    limits: BatchLimits,
    written_by: Option<Uuid>,
) -> Result<SubmitResult, IngestError> {
    validate(&items, limits.max_batch, limits.max_response_bytes)?;
    let ids: Vec<Uuid> = items
        .iter()
        .map(|r| r.id.unwrap_or_else(Uuid::now_v7))
        .collect();

    let mut stored: HashMap<Uuid, RolloutRow> = rollouts::by_ids(db, &ids)
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
    let task_map: HashMap<Uuid, tasks::ScoringTask> = tasks::for_scoring(db, &task_ids)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let agent_ids: Vec<Uuid> = unique(fresh.iter().map(|&i| items[i].agent_id));
    let known_agents: HashSet<Uuid> = agents::existing(db, &agent_ids)
        .await?
        .into_iter()
        .collect();
    for &i in &fresh {
        if !task_map.contains_key(&items[i].task_id) {
            return Err(Refusal::new(
                Fault::NotFound,
                format!("rollouts[{i}].task_id"),
                format!("no task {}", items[i].task_id),
            )
            .into());
        }
        if !known_agents.contains(&items[i].agent_id) {
            return Err(Refusal::new(
                Fault::NotFound,
                format!("rollouts[{i}].agent_id"),
                format!("no agent {}", items[i].agent_id),
            )
            .into());
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
    let scores = scorer
        .score_batch(jobs)
        .await
        .map_err(IngestError::Internal)?;

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
                verdict: score.verdict.stored(),
                metadata: stored_metadata(r),
            }
        })
        .collect();
    let inserted: HashSet<Uuid> = rollouts::insert_batch(db, &rows, written_by)
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
        for r in rollouts::by_ids(db, &raced).await? {
            stored.insert(r.row.id, r.row);
        }
    }
    for r in rows.into_iter().filter(|r| inserted.contains(&r.id)) {
        stored.insert(r.id, r);
    }
    let results: Vec<RolloutResult> = ids
        .iter()
        .map(|id| result(&stored[id], !inserted.contains(id)))
        .collect();
    metrics::counter!("verifier_rollouts_stored_total").increment(inserted.len() as u64);
    Ok(SubmitResult {
        created: inserted.len(),
        duplicates: results.len() - inserted.len(),
        results,
    })
}

/// The API view of a stored row: its verdict without reference-side details.
fn result(r: &RolloutRow, duplicate: bool) -> RolloutResult {
    RolloutResult {
        id: r.id,
        task_id: r.task_id,
        agent_id: r.agent_id,
        reward: r.reward,
        correct: r.correct,
        status: r.status.clone(),
        verdict: PublicVerdict::of_stored(&r.verdict),
        duplicate,
    }
}

/// The metadata column of a submission: its metadata (`{}` when absent) with a typed
/// `ends_turn` stored under that key, where readers of the pool have always found it.
fn stored_metadata(r: &NewRollout) -> Value {
    let mut metadata = r
        .metadata
        .clone()
        .unwrap_or_else(|| Value::Object(Default::default()));
    if let (Some(ends_turn), Value::Object(m)) = (r.ends_turn, &mut metadata) {
        m.insert("ends_turn".into(), Value::Bool(ends_turn));
    }
    metadata
}

fn unique(ids: impl Iterator<Item = Uuid>) -> Vec<Uuid> {
    let set: HashSet<Uuid> = ids.collect();
    set.into_iter().collect()
}

fn validate(items: &[NewRollout], max_batch: usize, max_response: usize) -> Result<(), Refusal> {
    if items.is_empty() {
        return Err(Refusal::invalid("rollouts", "no rollouts given"));
    }
    if items.len() > max_batch {
        return Err(Refusal::invalid(
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
            return Err(Refusal::invalid(
                at("id"),
                format!("id {id} appears twice in this batch"),
            ));
        }
        check_text(&at("response"), &r.response, max_response)?;
        RunName::check(&r.run).map_err(|e| Refusal::invalid(at("run"), e))?;
        // The rollouts table holds no empty run name (wire::NewRollout documents it).
        if r.run.is_empty() {
            return Err(Refusal::invalid(at("run"), "run must not be empty"));
        }
        Step::check(r.step).map_err(|e| Refusal::invalid(at("step"), e))?;
        if r.token_count.is_some_and(|n| n < 0) {
            return Err(Refusal::invalid(
                at("token_count"),
                "token_count must be >= 0",
            ));
        }
        for (name, v) in [
            ("logprob_mean", r.logprob_mean),
            ("logprob_sum", r.logprob_sum),
        ] {
            if v.is_some_and(|x| !x.is_finite() || x > 0.0) {
                return Err(Refusal::invalid(
                    at(name),
                    format!("{name} must be a finite log-probability (<= 0)"),
                ));
            }
        }
        if let Some(m) = &r.metadata {
            if !m.is_object() {
                return Err(Refusal::invalid(
                    at("metadata"),
                    "metadata must be a JSON object",
                ));
            }
            check_json(&at("metadata"), m)?;
        }
        let said = r.metadata.as_ref().and_then(|m| m.get("ends_turn"));
        if let (Some(typed), Some(said)) = (r.ends_turn, said)
            && *said != Value::Bool(typed)
        {
            return Err(Refusal::invalid(
                at("ends_turn"),
                format!("ends_turn is {typed} but metadata.ends_turn is {said}"),
            ));
        }
    }
    Ok(())
}

fn ensure_same(i: usize, new: &NewRollout, old: &RolloutRow) -> Result<(), Refusal> {
    let same = new.task_id == old.task_id
        && new.agent_id == old.agent_id
        && new.run == old.run
        && new.step == old.step
        && new.response == old.response;
    if same {
        Ok(())
    } else {
        Err(Refusal::new(
            Fault::Conflict,
            format!("rollouts[{i}].id"),
            format!(
                "rollout {} is already stored with different content",
                old.id
            ),
        ))
    }
}
