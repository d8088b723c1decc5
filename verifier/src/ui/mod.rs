//! The web dashboard (`/ui`) and the API docs (`/docs`), both read-only and served from the
//! binary with nothing fetched from elsewhere.
//!
//! Pages are rendered on the server: HTML from auto-escaping templates (model responses are
//! untrusted text) with charts as inline SVG ([`chart`]), so there is no JavaScript library to
//! vendor or build, every number on a page can be checked in its DOM, and the only script is a
//! few lines that long-poll the run page for a newer rendering. `/docs` is Swagger UI from
//! `utoipa-swagger-ui`'s crates.io-vendored copy, reading the same `/openapi.json`.

pub mod chart;
pub mod curves;
pub mod responses;

use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::ApiError;
use crate::ingest::RunName;
use crate::pool::dashboard::{self, StepAccuracy};
use crate::refusal::check_text;
use crate::request::{ApiQuery, RunPath, RunStep};
use crate::state::AppState;

/// Most rollouts the task page lists.
const TASK_ROLLOUTS: i64 = 500;
/// How long a live poll waits for the run to change, in one-second probes.
const LIVE_PROBES: u32 = 20;

/// A failed page: the API's error, rendered as an HTML page with the same status and field.
#[derive(Debug)]
pub struct PageError(ApiError);

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> Self {
        Self(e)
    }
}

impl From<sqlx::Error> for PageError {
    fn from(e: sqlx::Error) -> Self {
        Self(e.into())
    }
}

impl From<crate::refusal::Refusal> for PageError {
    fn from(e: crate::refusal::Refusal) -> Self {
        Self(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, field) = (self.0.status(), self.0.field());
        if status.is_server_error() {
            tracing::error!(error = %self.0, "page failed");
        }
        let page = TEMPLATES.get_template("error.html").and_then(|t| {
            t.render(context! {
                status => status.to_string(), code => status.as_u16(), field, message => self.0.to_string(),
            })
        });
        match page {
            Ok(html) => (status, Html(html)).into_response(),
            Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")).into_response(),
        }
    }
}

/// The templates, compiled once; `.html` names are auto-escaped.
static TEMPLATES: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.add_filter("segment", segment);
    for (name, source) in [
        ("layout.html", include_str!("templates/layout.html")),
        ("error.html", include_str!("templates/error.html")),
        ("runs.html", include_str!("templates/runs.html")),
        ("run.html", include_str!("templates/run.html")),
        ("live.html", include_str!("templates/live.html")),
        ("step.html", include_str!("templates/step.html")),
        ("group.html", include_str!("templates/group.html")),
        ("rollout.html", include_str!("templates/rollout.html")),
        ("task.html", include_str!("templates/task.html")),
    ] {
        env.add_template(name, source)
            .unwrap_or_else(|e| panic!("template {name}: {e:#}"));
    }
    env
});

fn render(name: &str, ctx: Value) -> Result<Html<String>, PageError> {
    TEMPLATES
        .get_template(name)
        .and_then(|t| t.render(ctx))
        .map(Html)
        .map_err(|e| PageError(ApiError::Internal(format!("rendering {name}: {e:#}"))))
}

/// Percent-encodes all but RFC 3986's unreserved characters: a run name may hold `/`, `?`
/// or `#` and must stay one path segment.
fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One row of the run page's step table.
#[derive(Debug, Serialize)]
struct StepRow {
    step: i64,
    /// `accuracy (rollouts)` per agent, in the page's agent order.
    cells: Vec<String>,
}

/// The agents of `rows` by name, and one table row per step, latest first.
fn step_table(rows: &[StepAccuracy]) -> (Vec<String>, Vec<StepRow>) {
    // Rows come by agent then step.
    let mut agents: Vec<String> = rows.iter().map(|r| r.agent.clone()).collect();
    agents.dedup();
    let cell: HashMap<(i64, &str), &StepAccuracy> = rows
        .iter()
        .map(|r| ((r.step, r.agent.as_str()), r))
        .collect();
    let mut steps: Vec<i64> = rows.iter().map(|r| r.step).collect();
    steps.sort_unstable_by(|a, b| b.cmp(a));
    steps.dedup();
    let table = steps
        .into_iter()
        .map(|step| StepRow {
            step,
            cells: agents
                .iter()
                .map(|a| {
                    cell.get(&(step, a.as_str())).map_or("–".into(), |r| {
                        format!("{} ({})", chart::number(r.accuracy), r.rollouts)
                    })
                })
                .collect(),
        })
        .collect();
    (agents, table)
}

/// What `live.html` shows of `run` at `version`.
async fn live_context(s: &AppState, run: &RunName, version: &str) -> Result<Value, PageError> {
    let accuracy = dashboard::step_accuracy(&s.db, run.as_str()).await?;
    let metrics = dashboard::metrics(&s.db, run.as_str()).await?;
    let (agents, steps) = step_table(&accuracy);
    Ok(context! {
        run => run.as_str(), version, agents, steps => Serde(&steps),
        charts => Serde(curves::charts(&accuracy, &metrics)),
    })
}

/// `GET /ui`: every run.
pub async fn runs(State(s): State<AppState>) -> Result<Html<String>, PageError> {
    #[derive(Serialize)]
    struct Row {
        run: String,
        last_step: Option<i64>,
        rollouts: i64,
        agents: i64,
        metric_rows: i64,
        last_written: Option<String>,
    }
    let rows: Vec<Row> = dashboard::runs(&s.db)
        .await?
        .into_iter()
        .map(|r| Row {
            run: r.run,
            last_step: r.last_step,
            rollouts: r.rollouts,
            agents: r.agents,
            metric_rows: r.metric_rows,
            last_written: r
                .last_written
                .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string()),
        })
        .collect();
    render("runs.html", context! { runs => Serde(&rows) })
}

/// `GET /ui/runs/{run}`: the run's curves and steps.
pub async fn run(
    State(s): State<AppState>,
    path: Result<RunPath, ApiError>,
) -> Result<Html<String>, PageError> {
    let RunPath(run) = path?;
    let Some(version) = dashboard::run_version(&s.db, run.as_str()).await? else {
        return Err(no_run(&run));
    };
    let live = live_context(&s, &run, &version).await?;
    render("run.html", live)
}

fn no_run(run: &RunName) -> PageError {
    PageError(ApiError::not_found(
        "run",
        format!("no rollouts or metrics for run `{run}`"),
    ))
}

/// Which rendering the page shows.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveQuery {
    /// The `data-version` of the page's rendering.
    after: String,
}

/// `GET /ui/runs/{run}/live?after=V`: the run's live part once it differs from version V
/// (at once if it already does), or 204 when it has not changed for a while.
pub async fn live(
    State(s): State<AppState>,
    path: Result<RunPath, ApiError>,
    ApiQuery(q): ApiQuery<LiveQuery>,
) -> Result<Response, PageError> {
    let RunPath(run) = path?;
    check_text("after", &q.after, 200)?;
    for probe in 0..LIVE_PROBES {
        if probe > 0 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let Some(version) = dashboard::run_version(&s.db, run.as_str()).await? else {
            return Err(no_run(&run));
        };
        if version != q.after {
            let live = live_context(&s, &run, &version).await?;
            return Ok(render("live.html", live)?.into_response());
        }
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /ui/runs/{run}/steps/{step}`: every agent's responses per task of one step.
pub async fn step(
    State(s): State<AppState>,
    path: Result<RunStep, ApiError>,
) -> Result<Html<String>, PageError> {
    let RunStep { run, step } = path?;
    let rows = dashboard::step_rollouts(&s.db, run.as_str(), step.get()).await?;
    if rows.is_empty() {
        if dashboard::run_version(&s.db, run.as_str()).await?.is_none() {
            return Err(no_run(&run));
        }
        return Err(PageError(ApiError::not_found(
            "step",
            format!("no rollouts in step {step} of run `{run}`"),
        )));
    }
    let (previous, next) = dashboard::neighbours(&s.db, run.as_str(), step.get()).await?;
    let groups = responses::groups(&rows);
    let complementary = groups
        .iter()
        .filter(|g| !g.complementary.is_empty())
        .count();
    render(
        "step.html",
        context! {
            run => run.as_str(), step => step.get(), previous, next, rollouts => rows.len(),
            complementary, groups => Serde(groups),
        },
    )
}

/// `GET /ui/tasks/{task}`: a task's prompt and its rollouts across runs.
pub async fn task(
    State(s): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Html<String>, PageError> {
    let Path(id) = path.map_err(|e| ApiError::invalid("task", e.body_text()))?;
    let id = Uuid::parse_str(&id)
        .map_err(|e| ApiError::invalid("task", format!("task must be a UUID, got `{id}`: {e}")))?;
    let Some(task) = dashboard::task(&s.db, id).await? else {
        return Err(PageError(ApiError::not_found(
            "task",
            format!("no task {id}"),
        )));
    };
    let mut rows = dashboard::task_rollouts(&s.db, id, TASK_ROLLOUTS + 1).await?;
    let more = rows.len() as i64 > TASK_ROLLOUTS;
    rows.truncate(TASK_ROLLOUTS as usize);
    let shown: Vec<responses::Shown> = rows.iter().map(responses::Shown::of).collect();
    render(
        "task.html",
        context! {
            task => context! {
                dataset => task.dataset, external_id => task.external_id, kind => task.kind,
                prompt => task.prompt,
            },
            rollouts => Serde(&shown), more, show_step => true,
        },
    )
}

/// Any other `/ui/…` path.
pub async fn unknown() -> PageError {
    PageError(ApiError::not_found("path", "no such page"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_stay_one_path_segment() {
        assert_eq!(segment("run-1.a_b~"), "run-1.a_b~");
        assert_eq!(segment("a/b c?#α"), "a%2Fb%20c%3F%23%CE%B1");
    }

    #[test]
    fn every_template_compiles_and_escapes_what_it_shows() {
        let page = render(
            "error.html",
            context! { status => "404", code => 404, field => "run", message => "<script>x</script>" },
        )
        .unwrap()
        .0;
        assert!(
            page.contains("&lt;script&gt;x&lt;&#x2f;script&gt;"),
            "{page}"
        );
        assert!(!page.contains("<script>x"));
        assert!(TEMPLATES.templates().count() >= 9);
    }

    #[test]
    fn the_step_table_has_a_cell_per_agent_and_steps_latest_first() {
        let row = |agent: &str, step, accuracy| StepAccuracy {
            agent: agent.into(),
            step,
            rollouts: 2,
            accuracy,
            tokens: None,
        };
        let (agents, table) = step_table(&[row("a", 0, 0.5), row("a", 1, 1.0), row("b", 1, 0.0)]);
        assert_eq!(agents, ["a", "b"]);
        assert_eq!(table[0].step, 1);
        assert_eq!(table[0].cells, ["1.00 (2)", "0 (2)"]);
        assert_eq!(table[1].cells, ["0.500 (2)", "–"]);
    }
}
