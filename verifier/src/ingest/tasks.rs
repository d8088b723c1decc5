//! Importing tasks: benchmark rows (JSON Lines) or task objects, checked, typed and stored all
//! or nothing; re-importing identical tasks is a no-op.

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;
use wire::{TaskOutcome, TaskStored, TasksStored};

use super::IngestError;
use crate::dataset;
use crate::pool::tasks::{self, InsertError, TaskRow};
use crate::refusal::{Fault, Refusal};
use crate::refusal::{check_json, check_text};
use crate::task::{NewTask, Reference};

/// Stores checked `rows` (from [`validate_tasks`]); a task already stored under the same
/// dataset and id with other content refuses the whole import, naming `{prefix}[i]`.
pub async fn import_tasks(
    db: &PgPool,
    rows: Vec<TaskRow>,
    prefix: &str,
    written_by: Option<Uuid>,
) -> Result<TasksStored, IngestError> {
    let stored = tasks::insert_batch(db, &rows, written_by)
        .await
        .map_err(|e| match e {
            InsertError::Conflict { index } => IngestError::Refused(Refusal::new(
                Fault::Conflict,
                format!("{prefix}[{index}]"),
                format!(
                    "task {}/{} already exists with different content",
                    rows[index].dataset, rows[index].external_id
                ),
            )),
            InsertError::Db(e) => IngestError::Database(e),
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
    Ok(TasksStored {
        created,
        unchanged: tasks.len() - created,
        tasks,
    })
}

/// Parses JSON Lines of benchmark rows (blank lines skipped).
pub fn parse_lines(dataset: &str, bytes: &[u8]) -> Result<Vec<NewTask>, Refusal> {
    let text = std::str::from_utf8(bytes).map_err(|e| Refusal {
        fault: Fault::Unreadable,
        field: None,
        message: format!("body is not UTF-8: {e}"),
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let row: Value = serde_json::from_str(line).map_err(|e| {
                Refusal::new(
                    Fault::Unreadable,
                    format!("lines[{i}]"),
                    format!("line {}: {e}", i + 1),
                )
            })?;
            dataset::task_from_row(dataset, i, row).map_err(|e| {
                Refusal::invalid(format!("lines[{i}]"), format!("line {}: {e}", i + 1))
            })
        })
        .collect()
}

/// Checks every task and types its reference; errors name `{prefix}[i].field`.
pub fn validate_tasks(new: Vec<NewTask>, prefix: &str) -> Result<Vec<TaskRow>, Refusal> {
    if new.is_empty() {
        return Err(Refusal::invalid(prefix, "no tasks given"));
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
                return Err(Refusal::invalid(at("dataset"), "dataset must not be empty"));
            }
            if !seen.insert((t.dataset.clone(), t.external_id.clone())) {
                return Err(Refusal::invalid(
                    at("external_id"),
                    format!("duplicate external_id `{}` in this upload", t.external_id),
                ));
            }
            let reference = Reference::from_json(t.kind, &t.reference).map_err(|e| {
                Refusal::invalid(
                    at("reference"),
                    format!("bad {} reference: {e}", t.kind.as_str()),
                )
            })?;
            let metadata = t
                .metadata
                .unwrap_or_else(|| Value::Object(Default::default()));
            if !metadata.is_object() {
                return Err(Refusal::invalid(
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
