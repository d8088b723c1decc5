//! Logs (tracing, text or JSON) and the Prometheus recorder.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

/// Log line format.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// Installs the global tracing subscriber (filter from `RUST_LOG`, default `info`).
pub fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx::postgres::notice=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Colour codes only for a terminal: piped logs (files, journald, CI) stay plain text.
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    // A second initialisation (tests) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// Upper bounds (seconds) of the sandbox queue-wait histogram's buckets: from "a slot was free"
/// to waits as long as the longest run budgets.
const QUEUE_WAIT_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Upper bounds (seconds) of every other latency histogram: request handling and sandbox runs,
/// from sub-millisecond math checks to programs that run into the time limit.
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The sandbox queue's gauge and histogram names.
const QUEUE_DEPTH: &str = "verifier_sandbox_queue_depth";
const QUEUE_WAIT: &str = "verifier_sandbox_queue_wait_seconds";
const RUNNING: &str = "verifier_sandbox_running";

/// The process-wide Prometheus recorder (the `metrics` facade is global by design).
pub fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            // Buckets make every histogram a Prometheus histogram (summaries' quantiles cannot
            // be aggregated across replicas).
            let handle = PrometheusBuilder::new()
                .set_buckets(LATENCY_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(QUEUE_WAIT.into()), QUEUE_WAIT_BUCKETS)
                })
                .expect("the bucket lists are not empty")
                .install_recorder()
                .expect("no other metrics recorder is installed");
            describe();
            handle
        })
        .clone()
}

/// The `# HELP` line of every metric the service exports.
fn describe() {
    use metrics::Unit;
    metrics::describe_counter!(
        "verifier_http_requests_total",
        "HTTP requests answered, by method, route and status"
    );
    metrics::describe_histogram!(
        "verifier_http_request_duration_seconds",
        Unit::Seconds,
        "Time to answer an HTTP request, by method, route and status"
    );
    metrics::describe_counter!(
        "verifier_verifications_total",
        "Responses scored, by kind (math, code) and outcome"
    );
    metrics::describe_counter!(
        "verifier_rollouts_stored_total",
        "Rollouts stored in the pool (duplicates not counted)"
    );
    metrics::describe_counter!(
        "verifier_sandbox_runs_total",
        "Sandbox runs, by runtime and status (refused and busy runs included)"
    );
    metrics::describe_histogram!(
        "verifier_sandbox_run_seconds",
        Unit::Seconds,
        "Wall time of a sandbox run, by runtime"
    );
    metrics::describe_gauge!(
        "verifier_pool_rollouts",
        "Rollouts in the pool, estimated from Postgres's table statistics"
    );
    metrics::describe_gauge!(QUEUE_DEPTH, "Sandbox runs waiting to be admitted");
    metrics::describe_histogram!(
        QUEUE_WAIT,
        Unit::Seconds,
        "How long sandbox runs waited to be admitted (time to start)"
    );
    metrics::describe_gauge!(RUNNING, "Sandbox runs admitted, running side by side");
    metrics::describe_counter!(
        "verifier_sandbox_builds_total",
        "C/C++ runs by whether their native build was reused (cached=true) or compiled"
    );
}

/// Exports the sandbox's admission: `verifier_sandbox_queue_depth` (runs waiting, gauge),
/// `verifier_sandbox_queue_wait_seconds` (how long runs waited, histogram with buckets) and
/// `verifier_sandbox_running` (runs admitted, gauge).
#[derive(Debug)]
pub struct SandboxQueueMetrics;

impl sandbox::QueueObserver for SandboxQueueMetrics {
    fn queue_depth(&self, waiting: usize) {
        metrics::gauge!(QUEUE_DEPTH).set(waiting as f64);
    }

    fn queue_wait(&self, waited: Duration) {
        metrics::histogram!(QUEUE_WAIT).record(waited.as_secs_f64());
    }

    fn running(&self, running: usize) {
        metrics::gauge!(RUNNING).set(running as f64);
    }
}
