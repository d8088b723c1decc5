//! `replay`: a retool-style replay against a running verifier's `/run_code` (issue 32 §4).
//!
//! Many concurrent workers send SandboxFusion requests drawn from a mix of program kinds; prints
//! each kind's verdict tally and p50/p99 latency, and exits non-zero unless every request got
//! exactly its own verdict with no API error.

use std::process::ExitCode;

use clap::Parser;
use e2e::replay::{self, Mix, ReplayConfig};

/// Replays a mixed `/run_code` workload against a running verifier.
#[derive(Parser)]
#[command(version, about, long_about)]
struct Args {
    /// Base URL of the service.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Concurrent workers, each with one request in flight.
    #[arg(long, default_value_t = 128)]
    workers: usize,
    /// Requests in all.
    #[arg(long, default_value_t = 100_000)]
    requests: usize,
    /// Weights of the program kinds (print, sum, cpp_sum, wrong, crash, loop, bomb).
    #[arg(
        long,
        default_value = "sum=70,cpp_sum=10,wrong=10,crash=8,loop=1,bomb=1"
    )]
    mix: Mix,
    /// `run_timeout` of every request, in seconds.
    #[arg(long, default_value_t = 10.0)]
    run_timeout: f64,
    /// `memory_limit_MB` of every request.
    #[arg(long, default_value_t = 128)]
    memory_limit_mb: i64,
    /// Seed of the draws.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn main() -> ExitCode {
    let a = Args::parse();
    // One thread: the client must not take the cores it measures.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds");
    let token = std::env::var("HACRL_TOKEN").ok();
    let cfg = ReplayConfig {
        workers: a.workers,
        requests: a.requests,
        mix: a.mix,
        run_timeout: a.run_timeout,
        memory_limit_mb: a.memory_limit_mb,
        seed: a.seed,
    };
    match rt.block_on(replay::run(&a.url, token.as_deref(), &cfg)) {
        Ok(report) => {
            print!("{}", replay::markdown(&report));
            if report.failures() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            }
        }
        Err(e) => {
            eprintln!("replay: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
