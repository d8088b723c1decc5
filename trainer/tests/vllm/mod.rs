//! One HACPO run in which a real model generates on vLLM (CPU build, from
//! `scripts/setup.d/50-vllm.sh`) while a tiny tch agent generates on its own, the real verifier
//! scoring and pooling; the trainer syncs the engine's weights after every step. The checks are
//! the same for every served model: `engine.rs` (SmolLM2) and `engine_gemma.rs` (Gemma 3) run it.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use tch::Device;
use testkit::VllmProcess;
use trainer::Policy;
use trainer::config::RunConfig;
use trainer::engine::EngineClient;

/// An agent of the run: its name, starting model folder and learning rate.
#[derive(Clone, Copy)]
pub struct Agent<'a> {
    pub name: &'a str,
    pub model: &'a Path,
    pub lr: f64,
}

/// What differs between the served models.
pub struct Case<'a> {
    /// The agent on vLLM, which serves its model as `name`. Its lr must be large enough that
    /// its log-probs visibly move within the run.
    pub served: Agent<'a>,
    /// The agent that generates with tch.
    pub partner: Agent<'a>,
    pub steps: usize,
    pub prompts: usize,
    pub group: usize,
    pub max_new_tokens: usize,
}

/// Mean and largest absolute difference of two equally long log-prob sequences.
fn distance(a: &[f32], b: &[f32]) -> (f64, f64) {
    assert_eq!(a.len(), b.len());
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from((x - y).abs()))
        .collect();
    (
        d.iter().sum::<f64>() / d.len() as f64,
        d.iter().copied().fold(0.0, f64::max),
    )
}

/// The trainer's per-token log-probs of `response` after `prompt` under `policy`.
fn trainer_logprobs(policy: &Policy, prompt: &[i64], response: &[i64]) -> Vec<f32> {
    let s = tch::no_grad(|| {
        policy
            .score_ids(&[(prompt.to_vec(), response.to_vec())])
            .unwrap()
    });
    let n = response.len() as i64;
    Vec::<f32>::try_from(s.token_logprobs.get(0).narrow(0, 0, n)).unwrap()
}

/// Runs `case` and checks that the engine's rollouts carry the sampled ids, the tokenizer, the
/// engine's log-prob mean and the previous step's weight version, and that the engine's
/// log-probs of a fixed completion agree with the trainer's before the run and after it, when
/// they have moved with training. `dir` holds the run's files.
pub fn train_with_an_agent_on_vllm(dir: &Path, case: &Case) {
    crate::support::init();
    let started = Instant::now();
    let Case {
        served: Agent {
            name: agent, model, ..
        },
        partner,
        steps,
        prompts,
        group,
        ..
    } = *case;
    // f32 like the trainer on CPU, so that the engine's log-probs compare closely with its own.
    let mut vllm = VllmProcess::start(model, agent, "float32", &dir.join("vllm.log")).unwrap();
    let (url, db, rt) = crate::support::start_verifier();
    crate::support::import_addition_tasks(&url, "toy-train", 12, 0);
    let engine = EngineClient::new(&vllm.url, agent).unwrap();
    // Minutes on a loaded 2-core machine: a generous wait, not a measurement.
    if let Err(e) = engine.wait_ready(Duration::from_secs(1800)) {
        panic!("vLLM not ready: {e:#}\n{}", vllm.report(40));
    }
    let ready = started.elapsed();

    // A fixed completion, scored by the engine and the trainer on the starting weights.
    let start = Policy::load(model, Device::Cpu).unwrap();
    let prompt = start
        .encode_prompt("What is 2+3? Answer with one number.")
        .unwrap();
    let response = start.encode_response("The answer is 5.", true).unwrap();
    let engine_before = engine.logprobs(&prompt, &response).unwrap();
    let trainer_before = trainer_logprobs(&start, &prompt, &response);
    let agreement_before = distance(&engine_before, &trainer_before);
    let fingerprint = start.tokenizer_fingerprint().to_owned();
    drop(start);

    let config = dir.join("run.toml");
    let mut toml = std::fs::File::create(&config).unwrap();
    write!(
        toml,
        "[run]\nname = \"engine-test\"\nsteps = {steps}\nseed = 3\nprompts_per_step = {prompts}\n\
         group_size = {group}\nminibatches = 2\nmicro_batch = 4\nmax_new_tokens = {}\n\
         checkpoint_every = {steps}\noutput_dir = \"out\"\nthreads = 1\n\n\
         [verifier]\nurl = \"{url}\"\n\n[data]\ntrain = \"toy-train\"\n\n\
         [algorithm]\nalgorithm = \"hacpo\"\n\n\
         [[agents]]\nname = \"{}\"\nmodel = \"{}\"\nlr = {:e}\n\n\
         [[agents]]\nname = \"{agent}\"\nmodel = \"{}\"\nlr = {:e}\n\n\
         [agents.generation]\nbackend = \"openai\"\nurl = \"{}\"\nmodel = \"{agent}\"\n",
        case.max_new_tokens,
        partner.name,
        partner.model.display(),
        partner.lr,
        model.display(),
        case.served.lr,
        vllm.url
    )
    .unwrap();
    drop(toml);
    let run_started = Instant::now();
    if let Err(e) = trainer::train::run(&RunConfig::load(&config).unwrap()) {
        panic!("the run failed: {e:#}\n{}", vllm.report(40));
    }
    let run_time = run_started.elapsed();

    // Every step, each agent's rollouts: the engine's carry the sampled ids, the tokenizer, the
    // engine's own mean log-prob, and the version of the weights that sampled them — the
    // previous step's, which the sync after that step gave the engine.
    let rows: Vec<(String, i64, i64, serde_json::Value, f64, i32)> = rt
        .block_on(
            sqlx::query_as(
                "select a.name, r.step, r.policy_version, r.metadata, r.logprob_mean, r.token_count
                 from rollouts r join agents a on a.id = r.agent_id where r.run = 'engine-test'
                 order by r.step, a.name",
            )
            .fetch_all(&db),
        )
        .unwrap();
    for step in 1..=steps as i64 {
        for name in [partner.name, agent] {
            let n = rows.iter().filter(|r| r.0 == name && r.1 == step).count();
            assert_eq!(n, prompts * group, "{name} at step {step}");
        }
    }
    let mut gaps = Vec::new();
    for (name, step, version, meta, mean, tokens) in &rows {
        assert_eq!(*version, step - 1, "{name} step {step}");
        let ids = meta["token_ids"].as_array().expect("token_ids");
        assert_eq!(ids.len(), *tokens as usize, "{meta}");
        if name == agent {
            assert_eq!(meta["tokenizer"], fingerprint, "{meta}");
            let engine_mean = meta["engine_logprob_mean"]
                .as_f64()
                .expect("engine_logprob_mean");
            if !ids.is_empty() {
                // ℓ_old (recomputed by the trainer on the weights of `version`) and the engine's
                // own mean agree only if the engine sampled with those same weights.
                gaps.push((step, (engine_mean - mean.min(0.0)).abs()));
            }
        } else {
            assert!(meta.get("engine_logprob_mean").is_none(), "{meta}");
        }
    }
    assert!(!gaps.is_empty());

    // After the run the engine serves the last step's weights: its log-probs of the fixed
    // completion moved away from the starting ones, and agree with the trainer's for the final
    // checkpoint far better than training moved them. Not as closely as on the starting weights:
    // vLLM 0.32's in-place reload leaves a tied output layer at the weights the engine started
    // with (Gemma 3 270M, 2026-12-03: 1.7e-2 mean |Δ| per token after 3 steps, 4.7e-6 before).
    assert_eq!(engine.weight_version().unwrap(), Some(steps as i64));
    let last = Policy::load(
        &trainer::train::checkpoint_dir(&dir.join("out"), agent, steps),
        Device::Cpu,
    )
    .unwrap();
    let engine_after = engine.logprobs(&prompt, &response).unwrap();
    let trainer_after = trainer_logprobs(&last, &prompt, &response);
    let moved = distance(&trainer_after, &trainer_before).0;
    let agreement_after = distance(&engine_after, &trainer_after);
    let mismatch = agreement_before.0.max(agreement_after.0);
    eprintln!(
        "{agent}: engine vs trainer per token of {} (mean / max |Δ|): {:.2e} / {:.2e} before, \
         {:.2e} / {:.2e} after; training moved the trainer's by {moved:.2e}; ℓ_old gaps per \
         rollout: {gaps:?}; engine ready after {:.0} s, {steps} steps in {:.0} s, {:.0} s in all",
        response.len(),
        agreement_before.0,
        agreement_before.1,
        agreement_after.0,
        agreement_after.1,
        ready.as_secs_f64(),
        run_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        moved > 10.0 * mismatch,
        "training must move the log-probs well beyond the engine/trainer mismatch: moved \
         {moved:.2e}, mean mismatch {:.2e} before / {:.2e} after",
        agreement_before.0,
        agreement_after.0
    );
    assert!(
        distance(&engine_after, &engine_before).0 > 10.0 * agreement_after.0,
        "the engine's log-probs did not follow the training: {engine_before:?} → {engine_after:?}"
    );
    let worst_gap = gaps.iter().map(|g| g.1).fold(0.0, f64::max);
    assert!(
        worst_gap < moved / 4.0,
        "a rollout's engine and trainer ℓ_old differ by {worst_gap:.2e}, as much as training moves \
         log-probs ({moved:.2e}): the engine sampled with other weights ({gaps:?})"
    );
}
