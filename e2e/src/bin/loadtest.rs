//! `loadtest`: bounded load against a running verifier (start one with `scripts/up`).
//!
//! N concurrent clients submit mixed math/code rollout batches built from the example datasets;
//! prints throughput, latency percentiles and errors, and exits non-zero unless every request
//! was acknowledged, every reward agrees with the known answer and every rollout is stored once.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use e2e::load::{self, Fixture, LoadConfig};
use e2e::workload::Examples;
use wire::client::Client;

/// Load-tests a running verifier on loopback.
#[derive(Parser)]
#[command(version, about, long_about)]
struct Args {
    /// Base URL of the service.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Folder with gsm8k_test.jsonl and HumanEval.jsonl[.gz] (default: $HACRL_DATA, else
    /// data/ in the repository).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Concurrent clients (comma-separated list: one run per value).
    #[arg(long, value_delimiter = ',', default_value = "16")]
    clients: Vec<usize>,
    /// Requests per client, at most.
    #[arg(long, default_value_t = 50)]
    requests: usize,
    /// Rollouts per request (comma-separated list: one run per value).
    #[arg(long, value_delimiter = ',', default_value = "16")]
    batch: Vec<usize>,
    /// Share of rollouts answering code tasks.
    #[arg(long, default_value_t = 0.25)]
    code_share: f64,
    /// Seconds after which no new request starts, per run.
    #[arg(long, default_value_t = 60)]
    max_secs: u64,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Print one JSON object per run instead of a Markdown table.
    #[arg(long)]
    json: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("loadtest: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(a: Args) -> anyhow::Result<bool> {
    anyhow::ensure!(
        a.clients.iter().all(|&c| c > 0),
        "--clients must be positive"
    );
    anyhow::ensure!(a.batch.iter().all(|&b| b > 0), "--batch must be positive");
    let data = a.data.unwrap_or_else(e2e::example_data);
    let examples = Examples::load(&data)?;
    let api = Client::new(&a.url, None, Duration::from_secs(a.timeout_secs))?;
    api.get::<serde_json::Value>("/readyz")
        .await
        .map_err(|e| anyhow::anyhow!("{e} (is the service up? start it with scripts/up)"))?;
    eprintln!(
        "loadtest: {} math and {} code tasks from {}",
        examples.math.len(),
        examples.code.len(),
        data.display()
    );
    let fixture = Arc::new(Fixture::prepare(&api, &examples).await?);
    let mut clean = true;
    if !a.json {
        println!("{}", load::MARKDOWN_HEADER);
    }
    for &batch in &a.batch {
        for &clients in &a.clients {
            let cfg = LoadConfig {
                clients,
                requests_per_client: a.requests,
                batch,
                code_share: a.code_share,
                max_duration: Duration::from_secs(a.max_secs),
                run: format!("loadtest-{}", uuid::Uuid::new_v4().simple()),
                progress: true,
            };
            let report = load::run(fixture.clone(), &cfg).await?;
            if a.json {
                println!("{}", report.to_json());
            } else {
                println!("{}", report.markdown_row());
            }
            for f in &report.failures {
                eprintln!("loadtest: failure: {f}");
            }
            if !report.is_clean() {
                eprintln!(
                    "loadtest: NOT CLEAN: {} errors, {} wrong rewards, {} of {} acknowledged rollouts stored",
                    report.errors, report.wrong_rewards, report.stored, report.rollouts
                );
                clean = false;
            }
        }
    }
    Ok(clean)
}
