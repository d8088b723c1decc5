//! Read-only queries behind the web dashboard (`/ui`): runs, per-agent curves, a step's
//! responses, a task's rollouts. Stored verdicts leave here as stored; the dashboard shows
//! them only through [`crate::verdict::PublicVerdict`].

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

/// One run of the runs list.
#[derive(Debug, sqlx::FromRow)]
pub struct RunSummary {
    /// The run's name.
    pub run: String,
    /// Its latest step with rollouts.
    pub last_step: Option<i64>,
    /// Rollouts stored for it.
    pub rollouts: i64,
    /// Agents with rollouts in its latest step.
    pub agents: i64,
    /// `train_metrics` rows written for it.
    pub metric_rows: i64,
    /// When its latest step's rollouts or its latest metrics were written.
    pub last_written: Option<DateTime<Utc>>,
}

/// Every run with rollouts or metrics, by name.
pub async fn runs(db: &PgPool) -> sqlx::Result<Vec<RunSummary>> {
    // The distinct runs by skipping along the (run, step, task_id) index, one probe per run,
    // where `select distinct run` would read every rollout.
    sqlx::query_as(
        "with recursive named(run) as (
             (select run from rollouts order by run limit 1)
             union all
             select (select r.run from rollouts r where r.run > n.run order by r.run limit 1)
             from named n where n.run is not null
         ), every_run as (
             select run from named where run is not null
             union
             select distinct run from train_metrics
         )
         select e.run, s.last_step, coalesce(c.rollouts, 0) as rollouts,
                coalesce(l.agents, 0) as agents, m.metric_rows,
                greatest(l.written, m.written) as last_written
         from every_run e
         cross join lateral (select max(step) as last_step from rollouts r where r.run = e.run) s
         cross join lateral (select count(*) as rollouts from rollouts r where r.run = e.run) c
         cross join lateral (select count(distinct agent_id) as agents, max(created_at) as written
                             from rollouts r where r.run = e.run and r.step = s.last_step) l
         cross join lateral (select count(*) as metric_rows, max(created_at) as written
                             from train_metrics t where t.run = e.run) m
         order by e.run",
    )
    .fetch_all(db)
    .await
}

/// What changes whenever a run gains rollouts in its latest step, a new step, or metrics:
/// cheap enough (index probes and the run's metrics rows) to be asked every second by every
/// open dashboard. `None` when the run has neither rollouts nor metrics.
pub async fn run_version(db: &PgPool, run: &str) -> sqlx::Result<Option<String>> {
    let (last_step, at_last, metric_rows, written): (Option<i64>, i64, i64, Option<DateTime<Utc>>) =
        sqlx::query_as(
            "with s as (select max(step) as last_step from rollouts where run = $1)
         select s.last_step,
                (select count(*) from rollouts r where r.run = $1 and r.step = s.last_step),
                (select count(*) from train_metrics where run = $1),
                (select max(created_at) from train_metrics where run = $1)
         from s",
        )
        .bind(run)
        .fetch_one(db)
        .await?;
    if last_step.is_none() && metric_rows == 0 {
        return Ok(None);
    }
    let written = written.map_or(0, |t| t.timestamp_micros());
    Ok(Some(format!(
        "{}-{at_last}-{metric_rows}-{written}",
        last_step.unwrap_or(-1)
    )))
}

/// One agent's scored rollouts in one step: the `agent_step_accuracy` view's numbers plus the
/// mean response length.
#[derive(Debug, sqlx::FromRow)]
pub struct StepAccuracy {
    /// Agent name.
    pub agent: String,
    /// Training step.
    pub step: i64,
    /// Scored rollouts.
    pub rollouts: i64,
    /// Mean reward.
    pub accuracy: f64,
    /// Mean token count of the responses that carry one.
    pub tokens: Option<f64>,
}

/// Accuracy and response length per agent per step of `run`, by agent then step.
pub async fn step_accuracy(db: &PgPool, run: &str) -> sqlx::Result<Vec<StepAccuracy>> {
    // The view's definition with avg(token_count) added: one pass over the run's rollouts
    // instead of two.
    sqlx::query_as(
        "select a.name as agent, r.step, count(*) as rollouts, avg(r.reward) as accuracy,
                avg(r.token_count)::float8 as tokens
         from rollouts r join agents a on a.id = r.agent_id
         where r.run = $1 and r.status = 'scored'
         group by a.name, r.step
         order by a.name, r.step",
    )
    .bind(run)
    .fetch_all(db)
    .await
}

/// One `train_metrics` row with the agent's name.
#[derive(Debug, sqlx::FromRow)]
pub struct AgentMetrics {
    /// Agent name.
    pub agent: String,
    /// Training step.
    pub step: i64,
    /// Mean loss.
    pub loss: Option<f64>,
    /// KL to the reference.
    pub kl: Option<f64>,
    /// Gradient norm before clipping.
    pub grad_norm: Option<f64>,
    /// The trainer's other numbers (capability, ω, clip own/cross, eval accuracy, …).
    pub extra: Value,
}

/// Every metrics row of `run`, by agent then step.
pub async fn metrics(db: &PgPool, run: &str) -> sqlx::Result<Vec<AgentMetrics>> {
    sqlx::query_as(
        "select a.name as agent, m.step, m.loss, m.kl, m.grad_norm, m.extra
         from train_metrics m join agents a on a.id = m.agent_id
         where m.run = $1 order by a.name, m.step",
    )
    .bind(run)
    .fetch_all(db)
    .await
}

/// A rollout as the dashboard lists it, with its task and agent.
#[derive(Debug, sqlx::FromRow)]
pub struct ListedRollout {
    /// Rollout id.
    pub id: Uuid,
    /// Training run.
    pub run: String,
    /// Training step.
    pub step: i64,
    /// Task answered.
    pub task_id: Uuid,
    /// The task's dataset.
    pub dataset: String,
    /// The task's id in its dataset.
    pub external_id: String,
    /// The task's prompt.
    pub prompt: String,
    /// Agent name.
    pub agent: String,
    /// The response.
    pub response: String,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Whether it was judged correct.
    pub correct: bool,
    /// `scored` or `judge_error`.
    pub status: String,
    /// The stored verdict, reference side included: show only its public view.
    pub verdict: Value,
    /// Tokens in the response.
    pub token_count: Option<i32>,
    /// Generating policy's mean token log-prob.
    pub logprob_mean: Option<f64>,
    /// Generating policy's summed log-prob.
    pub logprob_sum: Option<f64>,
    /// Policy version that generated it.
    pub policy_version: i64,
    /// The name of the token that wrote it (`None`: written with no token asked).
    pub writer: Option<String>,
}

/// The columns of [`ListedRollout`], spliced into static SQL.
macro_rules! listed {
    () => {
        "select r.id, r.run, r.step, r.task_id, t.dataset, t.external_id, t.prompt,
                a.name as agent, r.response, r.reward, r.correct, r.status, r.verdict,
                r.token_count, r.logprob_mean, r.logprob_sum, r.policy_version, w.name as writer
         from rollouts r join agents a on a.id = r.agent_id join tasks t on t.id = r.task_id
         left join tokens w on w.id = r.written_by"
    };
}

/// Every rollout of `step` in `run` (judge errors included), by task, agent and arrival.
pub async fn step_rollouts(db: &PgPool, run: &str, step: i64) -> sqlx::Result<Vec<ListedRollout>> {
    sqlx::query_as(concat!(
        listed!(),
        " where r.run = $1 and r.step = $2 order by t.seq, a.name, r.seq"
    ))
    .bind(run)
    .bind(step)
    .fetch_all(db)
    .await
}

/// The steps of `run` with rollouts just before and just after `step`.
pub async fn neighbours(
    db: &PgPool,
    run: &str,
    step: i64,
) -> sqlx::Result<(Option<i64>, Option<i64>)> {
    sqlx::query_as(
        "select (select max(step) from rollouts where run = $1 and step < $2),
                (select min(step) from rollouts where run = $1 and step > $2)",
    )
    .bind(run)
    .bind(step)
    .fetch_one(db)
    .await
}

/// A task as agents see it: no reference.
#[derive(Debug, sqlx::FromRow)]
pub struct PublicTask {
    /// Task id.
    pub id: Uuid,
    /// Dataset name.
    pub dataset: String,
    /// Id within the dataset.
    pub external_id: String,
    /// `math` or `code`.
    pub kind: String,
    /// The prompt.
    pub prompt: String,
}

/// The task `id`, if stored.
pub async fn task(db: &PgPool, id: Uuid) -> sqlx::Result<Option<PublicTask>> {
    sqlx::query_as("select id, dataset, external_id, kind, prompt from tasks where id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

/// Up to `limit` rollouts of task `id` across runs, by run, step, agent and arrival.
pub async fn task_rollouts(db: &PgPool, id: Uuid, limit: i64) -> sqlx::Result<Vec<ListedRollout>> {
    sqlx::query_as(concat!(
        listed!(),
        " where r.task_id = $1 order by r.run, r.step, a.name, r.seq limit $2"
    ))
    .bind(id)
    .bind(limit)
    .fetch_all(db)
    .await
}
