//! `/v1/tasks`: importing tasks (JSON batches or JSON Lines files) and listing prompts.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::{ApiQuery, AppState, check_json, check_text, extract};
use crate::dataset;
use crate::error::ApiError;
use crate::pool::Page;
use crate::pool::tasks::{self, InsertError, TaskFilter, TaskOutcome, TaskRow, TaskSummary};
use crate::task::{NewTask, Reference, TaskKind};

/// A JSON batch of tasks.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTasks {
    /// The tasks.
    pub tasks: Vec<NewTask>,
}

/// Query of a task upload.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// Dataset name for JSON Lines uploads of benchmark rows (GSM8K, MATH, HumanEval shapes).
    pub dataset: Option<String>,
}

/// What happened to one uploaded task.
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskStored {
    /// Stable id.
    pub id: Uuid,
    /// Dataset.
    pub dataset: String,
    /// Id within the dataset.
    pub external_id: String,
    /// `created` or `unchanged`.
    pub status: TaskOutcome,
}

/// Result of an upload.
#[derive(Debug, Serialize, ToSchema)]
pub struct TasksStored {
    /// Newly stored.
    pub created: usize,
    /// Already present, identical.
    pub unchanged: usize,
    /// Per task, in upload order.
    pub tasks: Vec<TaskStored>,
}

/// Upload tasks: a JSON body `{"tasks": [...]}`, or JSON Lines (`Content-Type:
/// application/x-ndjson`, optionally gzip-encoded) of benchmark rows with `?dataset=NAME`.
/// All or nothing: one bad row rejects the upload.
#[utoipa::path(post, path = "/v1/tasks", tag = "tasks", params(UploadQuery),
    request_body(content = NewTasks, description = "JSON batch, or JSON Lines of rows"),
    responses((status = 200, body = TasksStored), (status = 409, body = crate::error::ErrorBody),
              (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<UploadQuery>,
    req: Request,
) -> Result<Json<TasksStored>, ApiError> {
    let jsonl = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ["ndjson", "jsonl", "jsonlines", "json-seq"]
                .iter()
                .any(|k| ct.contains(k))
        });
    let bytes = extract::body_bytes(req, &()).await?;
    let (new, prefix) = if jsonl {
        let dataset = q
            .dataset
            .ok_or_else(|| ApiError::invalid("dataset", "JSON Lines uploads need ?dataset=NAME"))?;
        (parse_lines(&dataset, &bytes)?, "lines")
    } else {
        (extract::parse_json::<NewTasks>(&bytes)?.tasks, "tasks")
    };
    let rows = validate(new, prefix)?;
    let stored = tasks::insert_batch(&s.db, &rows)
        .await
        .map_err(|e| match e {
            InsertError::Conflict { index } => ApiError::conflict(
                format!("{prefix}[{index}]"),
                format!(
                    "task {}/{} already exists with different content",
                    rows[index].dataset, rows[index].external_id
                ),
            ),
            InsertError::Db(e) => e.into(),
        })?;
    let tasks: Vec<TaskStored> = rows
        .into_iter()
        .zip(stored)
        .map(|(r, (id, status))| TaskStored {
            id,
            dataset: r.dataset,
            external_id: r.external_id,
            status,
        })
        .collect();
    let created = tasks
        .iter()
        .filter(|t| t.status == TaskOutcome::Created)
        .count();
    Ok(Json(TasksStored {
        created,
        unchanged: tasks.len() - created,
        tasks,
    }))
}

/// Parses JSON Lines of benchmark rows (blank lines skipped).
pub fn parse_lines(dataset: &str, bytes: &[u8]) -> Result<Vec<NewTask>, ApiError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ApiError::Invalid {
        field: None,
        message: format!("body is not UTF-8: {e}"),
        status: StatusCode::BAD_REQUEST,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let row: Value = serde_json::from_str(line).map_err(|e| ApiError::Invalid {
                field: Some(format!("lines[{i}]")),
                message: format!("line {}: {e}", i + 1),
                status: StatusCode::BAD_REQUEST,
            })?;
            dataset::task_from_row(dataset, i, row).map_err(|e| {
                ApiError::invalid(format!("lines[{i}]"), format!("line {}: {e}", i + 1))
            })
        })
        .collect()
}

/// Checks every task and types its reference; errors name `{prefix}[i].field`.
pub fn validate(new: Vec<NewTask>, prefix: &str) -> Result<Vec<TaskRow>, ApiError> {
    if new.is_empty() {
        return Err(ApiError::invalid(prefix, "no tasks given"));
    }
    let mut seen = std::collections::HashSet::new();
    new.into_iter()
        .enumerate()
        .map(|(i, t)| {
            let at = |f: &str| format!("{prefix}[{i}].{f}");
            check_text(&at("dataset"), &t.dataset, 200)?;
            check_text(&at("external_id"), &t.external_id, 500)?;
            check_text(&at("prompt"), &t.prompt, 1 << 20)?;
            if t.dataset.is_empty() {
                return Err(ApiError::invalid(
                    at("dataset"),
                    "dataset must not be empty",
                ));
            }
            if !seen.insert((t.dataset.clone(), t.external_id.clone())) {
                return Err(ApiError::invalid(
                    at("external_id"),
                    format!("duplicate external_id `{}` in this upload", t.external_id),
                ));
            }
            let reference = Reference::from_json(t.kind, &t.reference).map_err(|e| {
                ApiError::invalid(
                    at("reference"),
                    format!("bad {} reference: {e}", t.kind.as_str()),
                )
            })?;
            let metadata = t
                .metadata
                .unwrap_or_else(|| Value::Object(Default::default()));
            if !metadata.is_object() {
                return Err(ApiError::invalid(
                    at("metadata"),
                    "metadata must be a JSON object",
                ));
            }
            check_json(&at("metadata"), &metadata)?;
            check_json(&at("reference"), &t.reference)?;
            Ok(TaskRow {
                dataset: t.dataset,
                external_id: t.external_id,
                kind: t.kind,
                prompt: t.prompt,
                reference,
                metadata,
            })
        })
        .collect()
}

/// Filters and cursor for listing tasks.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only this dataset.
    pub dataset: Option<String>,
    /// Only this kind.
    pub kind: Option<TaskKind>,
    /// Cursor from the previous page's `next`.
    #[serde(default)]
    pub after: i64,
    /// Page size, 1–1000 (default 100).
    #[serde(default = "super::default_limit")]
    pub limit: i64,
}

/// List tasks (prompts only: references stay hidden).
#[utoipa::path(get, path = "/v1/tasks", tag = "tasks", params(ListQuery),
    responses((status = 200, body = Page<TaskSummary>)))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Page<TaskSummary>>, ApiError> {
    super::check_limit(q.limit)?;
    let filter = TaskFilter {
        dataset: q.dataset.as_deref(),
        kind: q.kind,
    };
    Ok(Json(tasks::list(&s.db, &filter, q.after, q.limit).await?))
}
