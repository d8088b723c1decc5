//! The load test: N concurrent clients submit mixed math/code rollout batches to a running
//! service, bounded in count and time; latency per request, throughput, errors, and a check
//! that every acknowledged rollout is in the pool exactly once with the expected reward.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use splitmix::SplitMix64;
use uuid::Uuid;

use wire::client::Client;

use crate::client;
use crate::workload::{self, CodeItem, Examples, MathItem, Program};

/// How hard and how long to push.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Concurrent clients, each with one request in flight at a time.
    pub clients: usize,
    /// Requests each client sends at most.
    pub requests_per_client: usize,
    /// Rollouts per request.
    pub batch: usize,
    /// Share of rollouts that answer code tasks (the rest answer math tasks).
    pub code_share: f64,
    /// No request starts after this much time.
    pub max_duration: Duration,
    /// Training run the rollouts are stored under.
    pub run: String,
    /// Print progress to stderr every few seconds.
    pub progress: bool,
}

/// Tasks and agents the load is made of.
pub struct Fixture {
    api: Client,
    agents: [Uuid; 2],
    math: Vec<(Uuid, MathItem)>,
    code: Vec<(Uuid, CodeItem)>,
}

impl Fixture {
    /// Registers two agents and makes sure the example tasks are in the pool (uploading them is
    /// idempotent, so this works whether or not `scripts/up` imported the same files).
    pub async fn prepare(api: &Client, examples: &Examples) -> anyhow::Result<Self> {
        let agents = [
            client::agent(api, "load-qwen3", "qwen3").await?,
            client::agent(api, "load-llama", "llama").await?,
        ];
        api.upload_tasks("gsm8k", &Examples::raw(&examples.gsm8k_file)?)
            .await?;
        api.upload_tasks("humaneval", &Examples::raw(&examples.humaneval_file)?)
            .await?;
        let math_ids = client::task_ids(api, "gsm8k").await?;
        let code_ids = client::task_ids(api, "humaneval").await?;
        let pick = |ids: &std::collections::HashMap<String, Uuid>, ext: &str| {
            ids.get(ext)
                .copied()
                .ok_or_else(|| anyhow::anyhow!("task {ext} missing after upload"))
        };
        let math = examples
            .math
            .iter()
            .map(|m| Ok((pick(&math_ids, &m.external_id)?, m.clone())))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let code = examples
            .code
            .iter()
            .map(|c| Ok((pick(&code_ids, &c.external_id)?, c.clone())))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self {
            api: api.clone(),
            agents,
            math,
            code,
        })
    }
}

/// The `q`-quantile in [0, 1] of values sorted ascending, by nearest rank; zero when empty.
pub fn nearest_rank<T: Copy + Default>(sorted: &[T], q: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// What one load run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// The configuration that ran.
    pub config: LoadConfig,
    /// Requests acknowledged with 200.
    pub requests: usize,
    /// Rollouts in those requests.
    pub rollouts: usize,
    /// Requests that failed (any transport error or non-200 status).
    pub errors: usize,
    /// Acknowledged rollouts whose reward contradicts the known answer.
    pub wrong_rewards: usize,
    /// Acknowledged rollouts found in the pool afterwards (each id once).
    pub stored: usize,
    /// The first few failures, for the report.
    pub failures: Vec<String>,
    /// Wall time from the first request to the last answer.
    pub elapsed: Duration,
    /// Per-request latency, sorted ascending.
    pub latencies: Vec<Duration>,
}

impl LoadReport {
    /// The latency at quantile `q` in [0, 1] (nearest rank).
    pub fn percentile(&self, q: f64) -> Duration {
        nearest_rank(&self.latencies, q)
    }

    /// Rollouts verified and stored per second.
    pub fn rollouts_per_sec(&self) -> f64 {
        self.rollouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Requests answered per second.
    pub fn requests_per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// No error, no wrong reward, every acknowledged rollout stored once.
    pub fn is_clean(&self) -> bool {
        self.errors == 0 && self.wrong_rewards == 0 && self.stored == self.rollouts
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        let ms = |d: Duration| (d.as_secs_f64() * 1e5).round() / 1e2;
        json!({
            "clients": self.config.clients, "batch": self.config.batch,
            "code_share": self.config.code_share, "run": self.config.run,
            "requests": self.requests, "rollouts": self.rollouts, "errors": self.errors,
            "wrong_rewards": self.wrong_rewards, "stored": self.stored,
            "elapsed_s": self.elapsed.as_secs_f64(),
            "rollouts_per_s": self.rollouts_per_sec(), "requests_per_s": self.requests_per_sec(),
            "p50_ms": ms(self.percentile(0.5)), "p90_ms": ms(self.percentile(0.9)),
            "p99_ms": ms(self.percentile(0.99)), "max_ms": ms(self.percentile(1.0)),
            "failures": self.failures,
        })
    }

    /// One Markdown table row: clients, batch, code share, requests, rollouts/s, requests/s,
    /// p50, p99, max (ms), errors.
    pub fn markdown_row(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        format!(
            "| {} | {} | {:.2} | {} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {} |",
            self.config.clients,
            self.config.batch,
            self.config.code_share,
            self.requests,
            self.rollouts_per_sec(),
            self.requests_per_sec(),
            ms(self.percentile(0.5)),
            ms(self.percentile(0.99)),
            ms(self.percentile(1.0)),
            self.errors + self.wrong_rewards + (self.rollouts - self.stored.min(self.rollouts)),
        )
    }
}

/// The header matching [`LoadReport::markdown_row`].
pub const MARKDOWN_HEADER: &str = "| clients | batch | code share | requests | rollouts/s | requests/s | p50 ms | p99 ms | max ms | errors |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

/// What a rollout's verdict must say, given the response sent.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Math(bool),
    Code(Program),
}

impl Expect {
    /// Whether an acknowledged result agrees with what was sent: canonical programs pass, every
    /// other program fails, math answers get exactly the expected reward.
    fn agrees(self, result: &Value) -> bool {
        let correct = result["correct"].as_bool();
        let reward = result["reward"].as_f64();
        match self {
            Expect::Math(c) => {
                correct == Some(c)
                    && reward == Some(if c { 1.0 } else { 0.0 })
                    && result["status"] == "scored"
            }
            Expect::Code(Program::Canonical) => {
                correct == Some(true) && result["status"] == "scored"
            }
            Expect::Code(_) => correct == Some(false) && reward.is_some_and(|r| r < 1.0),
        }
    }
}

fn batch(
    f: &Fixture,
    cfg: &LoadConfig,
    choices: &mut SplitMix64,
    step: i64,
) -> (Vec<wire::NewRollout>, Vec<Expect>) {
    let mut rollouts = Vec::with_capacity(cfg.batch);
    let mut expects = Vec::with_capacity(cfg.batch);
    for _ in 0..cfg.batch {
        let agent = f.agents[choices.below(2)];
        let (task, response, expect) = if choices.unit() < cfg.code_share {
            let (task, item) = &f.code[choices.below(f.code.len())];
            // Half canonical, a quarter wrong, a quarter hostile.
            let program = match choices.below(4) {
                0 | 1 => Program::Canonical,
                2 => Program::Wrong,
                _ => Program::HOSTILE[choices.below(Program::HOSTILE.len())],
            };
            (
                *task,
                workload::code_response(item, program),
                Expect::Code(program),
            )
        } else {
            let (task, item) = &f.math[choices.below(f.math.len())];
            let correct = choices.below(2) == 0;
            (
                *task,
                workload::math_response(item, correct),
                Expect::Math(correct),
            )
        };
        rollouts.push(workload::rollout(
            Uuid::new_v4(),
            task,
            agent,
            &cfg.run,
            step,
            &response,
        ));
        expects.push(expect);
    }
    (rollouts, expects)
}

#[derive(Default)]
struct ClientTally {
    requests: usize,
    rollouts: usize,
    errors: usize,
    wrong_rewards: usize,
    failures: Vec<String>,
    latencies: Vec<Duration>,
}

/// Runs the load described by `cfg` against the fixture's service and checks the pool after.
pub async fn run(fixture: Arc<Fixture>, cfg: &LoadConfig) -> anyhow::Result<LoadReport> {
    anyhow::ensure!(
        cfg.clients > 0 && cfg.batch > 0,
        "clients and batch must be positive"
    );
    anyhow::ensure!(
        (0.0..=1.0).contains(&cfg.code_share),
        "code share must be within [0, 1]"
    );
    let start = Instant::now();
    let done = Arc::new(AtomicUsize::new(0));
    let total = cfg.clients * cfg.requests_per_client;
    let progress = cfg.progress.then(|| {
        let done = done.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(2)).await;
                eprintln!(
                    "loadtest: {}/{total} requests after {:.0} s",
                    done.load(Ordering::Relaxed),
                    start.elapsed().as_secs_f64()
                );
            }
        })
    });
    let mut handles = Vec::new();
    for client in 0..cfg.clients {
        let (f, cfg, done) = (fixture.clone(), cfg.clone(), done.clone());
        handles.push(tokio::spawn(async move {
            let mut tally = ClientTally::default();
            let mut choices = SplitMix64(0x5EED ^ ((client as u64) << 32));
            for request in 0..cfg.requests_per_client {
                if start.elapsed() >= cfg.max_duration {
                    break;
                }
                let (rollouts, expects) = batch(&f, &cfg, &mut choices, request as i64);
                let sent = Instant::now();
                let outcome = client::submit(&f.api, &rollouts).await;
                tally.latencies.push(sent.elapsed());
                done.fetch_add(1, Ordering::Relaxed);
                match outcome {
                    Ok(body) => {
                        tally.requests += 1;
                        tally.rollouts += rollouts.len();
                        let results = body["results"].as_array().cloned().unwrap_or_default();
                        if results.len() != expects.len() {
                            tally.wrong_rewards += expects.len();
                            continue;
                        }
                        tally.wrong_rewards += results
                            .iter()
                            .zip(&expects)
                            .filter(|(r, e)| !e.agrees(r))
                            .count();
                    }
                    Err(e) => {
                        tally.errors += 1;
                        if tally.failures.len() < 3 {
                            tally.failures.push(e.to_string());
                        }
                    }
                }
            }
            tally
        }));
    }
    let mut all = ClientTally::default();
    for h in handles {
        let t = h.await?;
        all.requests += t.requests;
        all.rollouts += t.rollouts;
        all.errors += t.errors;
        all.wrong_rewards += t.wrong_rewards;
        all.failures.extend(t.failures);
        all.latencies.extend(t.latencies);
    }
    let elapsed = start.elapsed();
    if let Some(p) = progress {
        p.abort();
    }
    all.latencies.sort();
    let stored_rows = fixture.api.rollouts(&cfg.run).await?;
    let ids: std::collections::HashSet<Uuid> = stored_rows.iter().map(|r| r.row.id).collect();
    anyhow::ensure!(
        ids.len() == stored_rows.len(),
        "a rollout id appears twice in the pool"
    );
    Ok(LoadReport {
        config: cfg.clone(),
        requests: all.requests,
        rollouts: all.rollouts,
        errors: all.errors,
        wrong_rewards: all.wrong_rewards,
        stored: stored_rows.len(),
        failures: all.failures,
        elapsed,
        latencies: all.latencies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_picks_the_ceiling_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 0.5), 50.0);
        assert_eq!(nearest_rank(&v, 0.99), 99.0);
        assert_eq!(nearest_rank(&v, 1.0), 100.0);
        assert_eq!(nearest_rank::<f64>(&[], 0.5), 0.0);
        assert_eq!(nearest_rank::<Duration>(&[], 0.5), Duration::ZERO);
    }
}
