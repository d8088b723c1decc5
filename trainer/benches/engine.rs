//! Bench: whole HACPO training steps with SmolLM2-135M generating on a vLLM server
//! (`backend = "openai"`, engine weight sync included) and on this crate's tch sampler
//! (`backend = "tch"`) — the tiny-cpu example's settings, with a tiny qwen3 as the second
//! agent; then generation alone, side by side — same prompts, temperature 1, the same number of
//! new tokens (end-of-sequence ignored, so every sequence runs to the end) — at several batch
//! sizes. The engine's log is kept at `target/tmp/engine-bench-vllm.log`.
//!
//! Run: `. scripts/env && cargo bench -p trainer --bench engine` (vLLM from `scripts/setup`;
//! the training steps need PostgreSQL, as the tests do: `DATABASE_URL`).
//! Knobs (env): BENCH_BATCHES (default 1,8,64), BENCH_NEW_TOKENS (64), BENCH_THREADS (tch's
//! libtorch threads, default 1), BENCH_ENGINE_DTYPE (bfloat16), BENCH_STEPS (training steps per
//! backend, default 2; 0 skips them).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use tch::{Device, Kind};
use testkit::{VerifierProcess, VllmProcess};
use trainer::config::RunConfig;
use trainer::engine::EngineClient;
use trainer::{Policy, SamplingParams};

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const SERVED: &str = "smollm2";

fn main() -> Result<()> {
    let threads: i32 = env_or("BENCH_THREADS", 1);
    tch::set_num_threads(threads);
    let batches: Vec<usize> = env_or("BENCH_BATCHES", "1,8,64".to_string())
        .split(',')
        .map(|b| {
            b.trim()
                .parse()
                .context("BENCH_BATCHES: comma-separated sizes")
        })
        .collect::<Result<_>>()?;
    let new_tokens: usize = env_or("BENCH_NEW_TOKENS", 64);
    let dtype: String = env_or("BENCH_ENGINE_DTYPE", "bfloat16".to_string());
    let steps: usize = env_or("BENCH_STEPS", 2);

    let smol = trainer::gguf::import_cached(
        &trainer::smollm2_gguf_path(),
        &trainer::gguf::default_cache_root(),
    )?;
    let work = tempfile::tempdir()?;
    let started = Instant::now();
    // The engine's log outlives the bench: a failed request's root cause is in it.
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("engine-bench-vllm.log");
    let mut vllm = VllmProcess::start(&smol, SERVED, &dtype, &log)?;
    let engine = EngineClient::new(&vllm.url, SERVED)?;
    engine
        .wait_ready(Duration::from_secs(1800))
        .map_err(|e| anyhow::anyhow!("{e:#}\n{}", vllm.report(40)))?;
    println!(
        "vLLM ({dtype}) ready after {:.0} s; tch: f32, {threads} thread(s)",
        started.elapsed().as_secs_f64()
    );

    let policy = Policy::load(&smol, Device::Cpu)?;
    let prompts: Vec<Vec<i64>> = (0..batches.iter().copied().max().unwrap_or(1))
        .map(|i| {
            policy.encode_prompt(&format!(
                "What is {}+{}? Explain step by step.",
                i,
                3 * i + 7
            ))
        })
        .collect::<Result<_>>()?;
    let params = SamplingParams {
        max_new_tokens: new_tokens,
        temperature: 1.0,
        seed: Some(0),
        // No stop token: every sequence generates `new_tokens`.
        stop_token_ids: Some(Vec::new()),
        ..SamplingParams::default()
    };
    // Training steps first: a request that kills the engine core in the sweep below (one did at
    // batch 64 before whole prefills, docs/benchmarks/trainer.md#engine) must not take them
    // with it.
    if steps > 0 {
        training_steps(&smol, &vllm.url, work.path(), steps)?;
    }
    // Warm-ups: the engine's first requests compile and allocate.
    engine.complete(&prompts[..1], 1, &params, &[])?;
    tch::no_grad(|| policy.generate_from_ids(prompts[..1].to_vec(), &params))?;

    println!("\n| batch | vLLM tok/s | tch tok/s | vLLM / tch |\n|---:|---:|---:|---:|");
    for &b in &batches {
        let batch = &prompts[..b];
        let t = Instant::now();
        // The engine's own log says why a request failed.
        let out = engine
            .complete(batch, 1, &params, &[])
            .map_err(|e| anyhow::anyhow!("vLLM at batch {b}: {e:#}\n{}", vllm.report(40)))?;
        let engine_s = t.elapsed().as_secs_f64();
        let engine_tokens: usize = out.iter().map(|s| s.token_ids.len()).sum();
        let t = Instant::now();
        let out = tch::no_grad(|| policy.generate_from_ids(batch.to_vec(), &params))?;
        let tch_s = t.elapsed().as_secs_f64();
        let tch_tokens: usize = out.iter().map(|g| g.sampled.token_ids.len()).sum();
        ensure!(
            engine_tokens == b * new_tokens && tch_tokens == b * new_tokens,
            "expected {} tokens, got {engine_tokens} (vLLM) and {tch_tokens} (tch)",
            b * new_tokens
        );
        let (e, c) = (engine_tokens as f64 / engine_s, tch_tokens as f64 / tch_s);
        println!("| {b} | {e:.0} | {c:.0} | {:.2} |", e / c);
    }

    Ok(())
}

/// `steps` HACPO steps with SmolLM2 generating on tch, then as many with it on the engine, on
/// the tiny-cpu example's settings; prints the per-step seconds from each run's metrics.
fn training_steps(smol: &Path, engine_url: &str, work: &Path, steps: usize) -> Result<()> {
    let rt = tokio::runtime::Runtime::new()?;
    let verifier = rt.block_on(VerifierProcess::start("engine_bench"))?;
    let tasks =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tiny-cpu/arith-train.jsonl");
    let body = std::fs::read(&tasks).with_context(|| format!("reading {}", tasks.display()))?;
    let r = reqwest::blocking::Client::new()
        .post(format!("{}/v1/tasks?dataset=arith-train", verifier.url))
        .header("content-type", "application/x-ndjson")
        .body(body)
        .send()?;
    ensure!(r.status().is_success(), "importing tasks: {}", r.text()?);
    let tiny = work.join("tiny-qwen3-bytes");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tiny-cpu");
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(example.join("qwen3.json"))?)?;
    let bytes_tok = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/byte-tokenizer");
    Policy::from_config(cfg, &bytes_tok, Device::Cpu, Kind::Float, 1)?.save(&tiny)?;

    println!(
        "\n| SmolLM2 generates on | step | generate s | train s | engine sync s | sum s |\n|---|---:|---:|---:|---:|---:|"
    );
    for backend in ["tch", "openai"] {
        let name = format!("bench-{backend}");
        let generation = match backend {
            "tch" => String::new(),
            _ => format!(
                "\n[agents.generation]\nbackend = \"openai\"\nurl = \"{engine_url}\"\nmodel = \"{SERVED}\"\n"
            ),
        };
        let path = work.join(format!("{name}.toml"));
        let mut f = std::fs::File::create(&path)?;
        write!(
            f,
            "[run]\nname = \"{name}\"\nsteps = {steps}\nseed = 0\nprompts_per_step = 4\ngroup_size = 4\n\
             minibatches = 4\nmax_new_tokens = 24\ncheckpoint_every = 1000\noutput_dir = \"out-{name}\"\n\n\
             [verifier]\nurl = \"{}\"\n\n[data]\ntrain = \"arith-train\"\n\n[algorithm]\nalgorithm = \"hacpo\"\n\n\
             [[agents]]\nname = \"tiny-qwen3-bytes\"\nmodel = \"{}\"\nlr = 1e-3\n\n\
             [[agents]]\nname = \"smollm2\"\nmodel = \"{}\"\nlr = 1e-5\n{generation}",
            verifier.url,
            tiny.display(),
            smol.display()
        )?;
        drop(f);
        trainer::train::run(&RunConfig::load(&path)?)?;
        let metrics = std::fs::read_to_string(
            work.join(format!("out-{name}"))
                .join(trainer::train::METRICS_FILE),
        )?;
        for line in metrics.lines() {
            let v: Value = serde_json::from_str(line)?;
            if v["agent"] != "smollm2" {
                continue;
            }
            let x = &v["row"]["extra"];
            let secs = |k: &str| x[k].as_f64().unwrap_or(0.0);
            let (g, t, s) = (
                secs("generate_seconds"),
                secs("train_seconds"),
                secs("sync_seconds"),
            );
            println!(
                "| {backend} | {} | {g:.1} | {t:.1} | {s:.1} | {:.1} |",
                v["row"]["step"],
                g + t + s
            );
        }
    }
    Ok(())
}
