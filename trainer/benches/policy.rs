//! Bench: generation tokens/s, forward+backward tokens/s and one HACPO update step's tokens/s
//! for SmolLM2-135M (or Gemma 3 270M, `BENCH_MODEL=gemma3`) under this crate, side by side with PyTorch eager (transformers) on the same
//! weights, batches and loops.
//!
//! Run: `source scripts/env.d/30-torch.sh && cargo bench -p trainer --bench policy`
//! Knobs (env): BENCH_MODEL (smollm2|gemma3), BENCH_DEVICE (cpu|cuda), BENCH_THREADS, BENCH_BATCH, BENCH_NEW_TOKENS,
//! BENCH_TRAIN_BATCH, BENCH_TRAIN_LEN, BENCH_REPEATS, HACRL_TORCH_PYTHON (the reference's python;
//! default: the venv that `HACRL_TORCH_FULL=1 scripts/setup.d/30-torch.sh` creates).

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::json;
use tch::{Device, Kind, Tensor};
use trainer::gpucheck::{LEARNING_RATE, SyntheticBatch, WEIGHT_DECAY};
use trainer::optim::MAX_GRAD_NORM;
use trainer::{Policy, SamplingParams};

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time_it(repeats: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?; // warm-up
    let mut times = Vec::new();
    for _ in 0..repeats {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(median(times))
}

fn main() -> Result<()> {
    // `cargo bench` passes --bench; nothing else is accepted.
    let device = match std::env::var("BENCH_DEVICE").as_deref() {
        Ok("cuda") => Device::Cuda(0),
        _ => Device::Cpu,
    };
    let threads: i32 = env_or("BENCH_THREADS", tch::get_num_threads());
    tch::set_num_threads(threads);
    let (batch, new_tokens) = (
        env_or("BENCH_BATCH", 8usize),
        env_or("BENCH_NEW_TOKENS", 64usize),
    );
    let (train_batch, train_len) = (
        env_or("BENCH_TRAIN_BATCH", 4usize),
        env_or("BENCH_TRAIN_LEN", 128usize),
    );
    let repeats = env_or("BENCH_REPEATS", 3usize);

    let gguf = match std::env::var("BENCH_MODEL").as_deref() {
        Ok("gemma3") => trainer::gemma3_gguf_path(),
        _ => trainer::smollm2_gguf_path(),
    };
    let dir = trainer::gguf::import_cached(&gguf, &trainer::gguf::default_cache_root())
        .with_context(|| {
            format!(
                "{} missing: run scripts/setup.d/31-smollm2.sh or 32-gemma3.sh",
                gguf.display()
            )
        })?;
    let policy = Policy::load(&dir, device)?;
    let questions = [
        "What is the capital of France?",
        "Write a haiku about autumn.",
        "Explain photosynthesis briefly.",
        "What is 17 times 23?",
        "Name three prime numbers.",
        "Describe a cat in one sentence.",
        "Why is the sky blue?",
        "Give me a synonym for happy.",
    ];
    let prompts: Vec<Vec<i64>> = (0..batch)
        .map(|i| policy.encode_prompt(questions[i % questions.len()]))
        .collect::<Result<_>>()?;
    let params = SamplingParams {
        max_new_tokens: new_tokens,
        seed: Some(0),
        stop_token_ids: Some(vec![]),
        ..SamplingParams::default()
    };
    let gen_secs = time_it(repeats, || {
        policy
            .generate_from_ids(prompts.clone(), &params)
            .map(|_| ())
    })?;

    // Training batch: each prompt followed by a fixed pseudo-random response of train_len tokens.
    tch::manual_seed(1);
    let train_pairs: Vec<(Vec<i64>, Vec<i64>)> = (0..train_batch)
        .map(|i| {
            let resp = Vec::<i64>::try_from(Tensor::randint_low(
                100,
                40_000,
                [train_len as i64],
                (Kind::Int64, Device::Cpu),
            ))
            .unwrap();
            (prompts[i % prompts.len()].clone(), resp)
        })
        .collect();
    let train_tokens: usize = train_pairs.iter().map(|(p, r)| p.len() + r.len()).sum();
    let vars = policy.var_store().trainable_variables();
    let train_secs = time_it(repeats, || {
        let s = policy.score_ids(&train_pairs)?;
        s.mean_logprob.mean(Kind::Float).backward();
        for v in &vars {
            let mut g = v.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
        Ok(())
    })?;

    // One HACPO update step on the same batch (the GPU check's), on a copy of the model (the
    // parity check below needs the original weights).
    let update = SyntheticBatch::new(&policy, train_pairs)?;
    let learner = policy.duplicate()?;
    let mut opt = SyntheticBatch::optimizer(&learner);
    let update_secs = time_it(repeats, || update.update(&learner, &mut opt).map(|_| ()))?;
    drop(learner);

    let gen_tps = (batch * new_tokens) as f64 / gen_secs;
    let train_tps = train_tokens as f64 / train_secs;
    let update_tps = train_tokens as f64 / update_secs;
    println!(
        "device {device:?}, threads {threads}, dtype {:?}",
        policy.var_store().kind()
    );
    println!(
        "trainer  generate: {gen_tps:.1} tok/s (batch {batch} x {new_tokens} new tokens, {gen_secs:.3} s)"
    );
    println!(
        "trainer  fwd+bwd : {train_tps:.1} tok/s (batch {train_batch}, {train_tokens} tokens, {train_secs:.3} s)"
    );
    println!(
        "trainer  update  : {update_tps:.1} tok/s (HACPO loss + backward + clip + AdamW, {update_secs:.3} s)"
    );

    // The reference, when its venv is there.
    let python = std::env::var("HACRL_TORCH_PYTHON").unwrap_or_else(|_| {
        trainer::cache_dir()
            .join("torch-venv-full/bin/python")
            .display()
            .to_string()
    });
    if !std::path::Path::new(&python).is_file() {
        println!(
            "reference skipped: {python} not found (HACRL_TORCH_FULL=1 scripts/setup.d/30-torch.sh installs it)"
        );
        return Ok(());
    }
    let tmp = std::env::temp_dir().join(format!("trainer-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let ids = Tensor::from_slice(&prompts[0])
        .unsqueeze(0)
        .to_device(device);
    let n = prompts[0].len() as i64;
    let valid = ids.ones_like().to_kind(Kind::Bool);
    let logits = tch::no_grad(|| {
        policy.model().forward(
            &ids,
            &trainer::models::mask::positions_from_valid(&valid),
            &trainer::models::mask::attention_mask(&valid, 0, n),
            None,
        )
    });
    let parity = tmp.join("parity.safetensors");
    let mut parity_tensors = BTreeMap::new();
    parity_tensors.insert("input_ids".to_owned(), ids.to_device(Device::Cpu));
    parity_tensors.insert(
        "logits".to_owned(),
        logits.to_kind(Kind::Float).to_device(Device::Cpu),
    );
    trainer::checkpoint::write_safetensors(&parity, &parity_tensors)?;
    let job = json!({
        "model_dir": dir, "device": if device.is_cuda() { "cuda" } else { "cpu" }, "threads": threads,
        "prompts": prompts, "new_tokens": new_tokens, "train_pairs": update.pairs, "repeats": repeats,
        "pad_id": policy.pad_token_id(), "parity_file": parity,
        "update": {
            "cross": update.samples.iter().map(|s| s.cross).collect::<Vec<_>>(),
            "advantage": update.samples.iter().map(|s| s.advantage).collect::<Vec<_>>(),
            "old_logprob": update.samples.iter().map(|s| s.old_logprob).collect::<Vec<_>>(),
            "omega": update.samples.iter().map(|s| s.omega).collect::<Vec<_>>(),
            "gspo_eps": [update.hacpo.gspo_eps_low, update.hacpo.gspo_eps_high],
            "cross_lower": update.hacpo.cross_lower_bound(0), "alpha": update.hacpo.alpha,
            "lr": LEARNING_RATE, "weight_decay": WEIGHT_DECAY, "max_grad_norm": MAX_GRAD_NORM,
        },
    });
    let job_file = tmp.join("job.json");
    std::fs::write(&job_file, job.to_string())?;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/policy_reference.py");
    let out = std::process::Command::new(&python)
        .arg(script)
        .arg(&job_file)
        .output()?;
    std::fs::remove_dir_all(&tmp).ok();
    if !out.status.success() {
        bail!("reference failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let stdout = String::from_utf8(out.stdout)?;
    let r: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or("")).context("reference output")?;
    let ref_gen = (batch * new_tokens) as f64 / r["generate_secs"].as_f64().unwrap_or(f64::NAN);
    let ref_train = train_tokens as f64 / r["train_secs"].as_f64().unwrap_or(f64::NAN);
    let ref_update = train_tokens as f64 / r["update_secs"].as_f64().unwrap_or(f64::NAN);
    println!("pytorch  generate: {ref_gen:.1} tok/s");
    println!("pytorch  fwd+bwd : {ref_train:.1} tok/s");
    println!("pytorch  update  : {ref_update:.1} tok/s");
    println!(
        "ratio (trainer / pytorch): generate {:.2}x, fwd+bwd {:.2}x, update {:.2}x",
        gen_tps / ref_gen,
        train_tps / ref_train,
        update_tps / ref_update
    );
    println!(
        "logit parity vs transformers: max |diff| = {:.2e}",
        r["max_abs_logit_diff"].as_f64().unwrap_or(f64::NAN)
    );
    if let Some(m) = r["train_peak_mem_bytes"].as_f64() {
        let gen_mem = r["generate_peak_mem_bytes"].as_f64().unwrap_or(0.0);
        let upd_mem = r["update_peak_mem_bytes"].as_f64().unwrap_or(0.0);
        println!(
            "pytorch peak memory: generate {:.0} MiB, fwd+bwd {:.0} MiB, update {:.0} MiB",
            gen_mem / 1048576.0,
            m / 1048576.0,
            upd_mem / 1048576.0
        );
    }
    Ok(())
}
