//! Stateless scoring: `/v1/verify/math` and the OpenRLHF-compatible `/v1/reward`.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{ApiJson, AppState, check_size};
use crate::error::ApiError;
use crate::math;
use crate::pool::tasks::{self, ScoringTask};
use crate::scoring::ScoreStatus;
use crate::task::{Reference, TaskKind};
use crate::verdict::Verdict;

/// A math answer to check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyMath {
    /// Gold answer or a solution text with `\boxed{}` / `#### N`.
    pub reference: String,
    /// The model's response.
    pub response: String,
    /// Checker options.
    #[serde(default)]
    pub options: Option<math::Options>,
}

/// Check a math answer without storing anything.
#[utoipa::path(post, path = "/v1/verify/math", tag = "verify", request_body = VerifyMath,
    responses((status = 200, body = math::Verdict), (status = 400, description = "Unreadable JSON", body = wire::ErrorBody), (status = 413, description = "Body over the size limit", body = wire::ErrorBody), (status = 422, description = "Invalid values", body = wire::ErrorBody)))]
pub async fn math(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<VerifyMath>,
) -> Result<Json<math::Verdict>, ApiError> {
    check_size("reference", &req.reference, s.limits.max_response_bytes)?;
    check_size("response", &req.response, s.limits.max_response_bytes)?;
    let options = req
        .options
        .unwrap_or_else(|| s.scorer.math_options().clone());
    let verdict =
        tokio::task::spawn_blocking(move || math::verify(&req.reference, &req.response, &options))
            .await
            .map_err(|e| ApiError::Internal(format!("math grading failed: {e}")))?;
    metrics::counter!("verifier_verifications_total", "kind" => "math", "outcome" => if verdict.correct { "correct" } else { "incorrect" }).increment(1);
    Ok(Json(verdict))
}

/// OpenRLHF remote reward request (`--remote_rm_url`), exactly as its `remote_rm_fn_ray` posts it.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RewardRequest {
    /// Prompt + response texts.
    pub query: Vec<String>,
    /// The prompts, used to cut the response out of `query`.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// One label per query, the dataset's raw value (OpenRLHF sends whatever its `--label_key`
    /// column holds): a math answer (string or number; a list means any of them), a code
    /// reference object (as a code task's hidden reference), `{"answer": …}`, a pool task id
    /// (a UUID string or `{"task_id": …}`: graded against that task's hidden reference), a JSON
    /// text of any of these, or null (nothing to grade: reward 0).
    #[schema(value_type = Vec<serde_json::Value>)]
    pub labels: Vec<Value>,
}

/// OpenRLHF remote reward response.
#[derive(Debug, Serialize, ToSchema)]
pub struct RewardResponse {
    /// Reward per query.
    pub rewards: Vec<f64>,
    /// Same as `rewards` (OpenRLHF reads either).
    pub scores: Vec<f64>,
    /// Per-query numbers OpenRLHF averages into its logs: `correct` (1.0/0.0), `code` (1.0 for
    /// a code-graded query) and `judge_error` (1.0 when the sandbox failed: the reward means
    /// nothing).
    #[schema(value_type = Object)]
    pub extra_logs: Value,
}

/// What one label asks to grade against.
enum Label {
    /// A reference, and the prompt code judging completes (HumanEval-style tasks).
    Reference(Reference, Option<String>),
    /// Acceptable math answers: the best reward counts.
    AnyOf(Vec<String>),
    /// A pool task, loaded in one query for the whole batch.
    Task(Uuid),
    /// Null: nothing to grade.
    Ungraded,
}

/// Reads label `i`; the error names `labels[i]`.
fn label(i: usize, value: &Value) -> Result<Label, ApiError> {
    let field = format!("labels[{i}]");
    let bad = |why: String| ApiError::invalid(&field, why);
    match value {
        Value::Null => Ok(Label::Ungraded),
        Value::Number(n) => Ok(Label::AnyOf(vec![n.to_string()])),
        Value::Bool(b) => Ok(Label::AnyOf(vec![b.to_string()])),
        Value::String(s) => {
            if let Ok(id) = Uuid::parse_str(s.trim()) {
                return Ok(Label::Task(id));
            }
            // Datasets often store structured labels as JSON text in a string column.
            let t = s.trim_start();
            if t.starts_with('{')
                && let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(t)
            {
                return label(i, &inner);
            }
            Ok(Label::AnyOf(vec![s.clone()]))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(ApiError::invalid(
                    format!("{field}[{k}]"),
                    format!("a list of answers holds strings or numbers, not {other}"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .and_then(|answers| {
                if answers.is_empty() {
                    Err(bad("an empty list of answers".into()))
                } else {
                    Ok(Label::AnyOf(answers))
                }
            }),
        Value::Object(m) => {
            if let Some(id) = m.get("task_id") {
                return id
                    .as_str()
                    .and_then(|s| Uuid::parse_str(s).ok())
                    .map(Label::Task)
                    .ok_or_else(|| bad(format!("task_id must be a UUID string, got {id}")));
            }
            let kind = if m.contains_key("language") || m.contains_key("style") {
                TaskKind::Code
            } else if m.contains_key("answer") {
                TaskKind::Math
            } else {
                return Err(bad(
                    "an object label is a code reference ({\"language\", \"style\", …}), \
                     {\"answer\": …} or {\"task_id\": …}"
                        .into(),
                ));
            };
            let mut reference = value.clone();
            // A code label may carry the prompt its tests complete; it is not part of the
            // reference schema.
            let prompt = reference
                .as_object_mut()
                .and_then(|m| m.remove("prompt"))
                .and_then(|p| p.as_str().map(str::to_string));
            Reference::from_json(kind, &reference)
                .map(|r| Label::Reference(r, prompt))
                .map_err(bad)
        }
    }
}

/// OpenRLHF-compatible remote reward: grades each query's response against its label — a math
/// answer, a code reference (run in the sandbox) or a task of the pool.
#[utoipa::path(post, path = "/v1/reward", tag = "verify", request_body = RewardRequest,
    responses((status = 200, body = RewardResponse), (status = 400, description = "Unreadable JSON", body = wire::ErrorBody),
              (status = 404, description = "A label names an unknown task", body = wire::ErrorBody),
              (status = 413, description = "Body over the size limit", body = wire::ErrorBody), (status = 422, description = "Invalid values", body = wire::ErrorBody), (status = 503, description = "Database unavailable; nothing was stored", body = wire::ErrorBody)))]
pub async fn reward(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RewardRequest>,
) -> Result<Json<RewardResponse>, ApiError> {
    if req.labels.len() != req.query.len() {
        return Err(ApiError::invalid(
            "labels",
            format!(
                "{} labels for {} queries",
                req.labels.len(),
                req.query.len()
            ),
        ));
    }
    if !req.prompts.is_empty() && req.prompts.len() != req.query.len() {
        return Err(ApiError::invalid(
            "prompts",
            format!(
                "{} prompts for {} queries",
                req.prompts.len(),
                req.query.len()
            ),
        ));
    }
    for (i, q) in req.query.iter().enumerate() {
        check_size(&format!("query[{i}]"), q, s.limits.max_response_bytes)?;
    }
    let labels = req
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| label(i, l))
        .collect::<Result<Vec<_>, _>>()?;

    // Task ids resolve in one query; an unknown one rejects the request, as rollouts do.
    let ids: Vec<Uuid> = labels
        .iter()
        .filter_map(|l| match l {
            Label::Task(id) => Some(*id),
            _ => None,
        })
        .collect();
    let tasks: HashMap<Uuid, ScoringTask> = if ids.is_empty() {
        HashMap::new()
    } else {
        tasks::for_scoring(&s.db, &ids)
            .await?
            .into_iter()
            .map(|t| (t.id, t))
            .collect()
    };
    if let Some(i) = labels
        .iter()
        .position(|l| matches!(l, Label::Task(id) if !tasks.contains_key(id)))
    {
        return Err(ApiError::not_found(
            format!("labels[{i}]"),
            format!("no task with id {}", req.labels[i]),
        ));
    }

    // Code runs in the sandbox, which bounds its own concurrency; math is cheap and inline.
    let scorer = &s.scorer;
    let graded = futures::future::join_all(labels.iter().enumerate().map(|(i, l)| {
        let query = &req.query[i];
        let prompt = req.prompts.get(i).map(String::as_str);
        // The response is what follows the prompt; a query that does not start with its prompt
        // is graded whole.
        let response = prompt.and_then(|p| query.strip_prefix(p)).unwrap_or(query);
        // Reasoning models: after a closing `</think>`, only what follows holds the answer.
        let response = crate::math::after_thinking(response);
        let tasks = &tasks;
        async move {
            match l {
                Label::Ungraded => None,
                Label::AnyOf(answers) => answers
                    .iter()
                    .map(|a| scorer.score_math(a, response))
                    .max_by(|a, b| a.reward.total_cmp(&b.reward)),
                Label::Reference(r, label_prompt) => {
                    let p = label_prompt.as_deref().or(prompt).unwrap_or("");
                    Some(scorer.score(r, p, response).await)
                }
                Label::Task(id) => {
                    let t = &tasks[id];
                    Some(scorer.score(&t.reference, &t.prompt, response).await)
                }
            }
        }
    }))
    .await;

    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let rewards: Vec<f64> = graded
        .iter()
        .map(|g| g.as_ref().map_or(0.0, |g| g.reward))
        .collect();
    let correct: Vec<f64> = graded
        .iter()
        .map(|g| flag(g.as_ref().is_some_and(|g| g.correct)))
        .collect();
    let judge_error: Vec<f64> = graded
        .iter()
        .map(|g| {
            flag(
                g.as_ref()
                    .is_some_and(|g| g.status == ScoreStatus::JudgeError),
            )
        })
        .collect();
    let code: Vec<f64> = graded
        .iter()
        .map(|g| {
            flag(
                g.as_ref()
                    .is_some_and(|g| matches!(g.verdict, Verdict::Code(_))),
            )
        })
        .collect();
    Ok(Json(RewardResponse {
        scores: rewards.clone(),
        rewards,
        extra_logs: serde_json::json!({
            "correct": correct,
            "code": code,
            "judge_error": judge_error,
        }),
    }))
}
