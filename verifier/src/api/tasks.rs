//! `/v1/tasks`: importing tasks (JSON batches or JSON Lines files) and listing prompts.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::header;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use wire::{Page, TaskSummary, TasksStored};

use super::doc::{BodyErrors, QueryErrors, ReadErrors, WriteErrors};
use crate::auth::Caller;
use crate::code::CodeReference;
use crate::error::ApiError;
use crate::ingest;
use crate::pool::tasks::{self, TaskFilter};
use crate::request::{self, ApiQuery};
use crate::state::AppState;
use crate::task::{AnswerShape, MathReference, NewTask, TaskKind};

/// A JSON batch of tasks.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTasks {
    /// The tasks: at least one.
    #[schema(min_items = 1, value_type = Vec<NewTaskShape>)]
    pub tasks: Vec<NewTask>,
}

/// A task to create: one shape per kind (`oneOf`), each with the reference its kind takes.
// Only the API document uses this type; requests are read as `NewTask`, whose checks go further
// (a supported language, a runnable test) and answer 422 naming the field.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum NewTaskShape {
    /// A math task.
    Math(NewMathTask),
    /// A code task.
    Code(NewCodeTask),
}

/// `kind: "math"`.
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MathKind {
    /// Checked by the math checker.
    Math,
}

/// `kind: "code"`.
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeKind {
    /// Run against tests in the sandbox.
    Code,
}

/// A math task's reference: the answer itself (text or number), or `{answer, solution}`.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum MathReferenceShape {
    /// The answer alone.
    Answer(AnswerShape),
    /// The answer with a worked solution.
    Full(MathReference),
}

/// A math task.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMathTask {
    /// Dataset the task belongs to, e.g. `gsm8k` (not empty, no NUL).
    #[schema(min_length = 1, pattern = r"^[^\u0000]*$")]
    pub dataset: String,
    /// The task's id within its dataset (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub external_id: String,
    /// `math`.
    pub kind: MathKind,
    /// What agents see (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub prompt: String,
    /// The hidden gold answer.
    pub reference: MathReferenceShape,
    /// Free-form metadata, visible to agents.
    #[schema(schema_with = wire::json::optional_object_schema)]
    pub metadata: Option<serde_json::Value>,
}

/// A code task.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCodeTask {
    /// Dataset the task belongs to, e.g. `humaneval` (not empty, no NUL).
    #[schema(min_length = 1, pattern = r"^[^\u0000]*$")]
    pub dataset: String,
    /// The task's id within its dataset (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub external_id: String,
    /// `code`.
    pub kind: CodeKind,
    /// What agents see (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub prompt: String,
    /// The hidden tests.
    pub reference: CodeReference,
    /// Free-form metadata, visible to agents.
    #[schema(schema_with = wire::json::optional_object_schema)]
    pub metadata: Option<serde_json::Value>,
}

/// Query of a task upload.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// Dataset name for JSON Lines uploads of benchmark rows (GSM8K, MATH, HumanEval shapes).
    pub dataset: Option<String>,
}

/// Upload tasks: a JSON body `{"tasks": [...]}`, or JSON Lines (`Content-Type:
/// application/x-ndjson`, optionally gzip-encoded) of benchmark rows with `?dataset=NAME`.
/// All or nothing: one bad row rejects the upload.
#[utoipa::path(post, path = "/v1/tasks", tag = "tasks", params(UploadQuery),
    request_body(content = NewTasks, description = "JSON batch, or JSON Lines of rows"),
    responses((status = 200, body = TasksStored), BodyErrors, WriteErrors,
              (status = 409, description = "A stored task with other content", body = wire::ErrorBody)))]
pub async fn upload(
    State(s): State<AppState>,
    caller: Caller,
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
    let bytes = request::body_bytes(req, &()).await?;
    let (new, prefix) = if jsonl {
        let dataset = q
            .dataset
            .ok_or_else(|| ApiError::invalid("dataset", "JSON Lines uploads need ?dataset=NAME"))?;
        (ingest::parse_lines(&dataset, &bytes)?, "lines")
    } else {
        (request::parse_json::<NewTasks>(&bytes)?.tasks, "tasks")
    };
    let rows = ingest::validate_tasks(new, prefix)?;
    Ok(Json(
        ingest::import_tasks(&s.db, rows, prefix, caller.token_id()).await?,
    ))
}

/// Filters and cursor for listing tasks.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
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
    #[param(minimum = 1, maximum = 1000)]
    pub limit: i64,
}

/// List tasks (prompts only: references stay hidden).
#[utoipa::path(get, path = "/v1/tasks", tag = "tasks", params(ListQuery),
    responses((status = 200, body = Page<TaskSummary>), QueryErrors, ReadErrors))]
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
