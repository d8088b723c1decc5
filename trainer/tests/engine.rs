//! Generation on a real serving engine: vLLM (CPU build, from `scripts/setup.d/50-vllm.sh`)
//! serves SmolLM2-135M for one agent of a HACPO run while the other generates with tch; the
//! trainer syncs the agent's weights to the engine after every step. The real verifier scores
//! and pools the rollouts.

mod support;

use std::io::Write;
use std::time::Duration;

use tch::Device;
use testkit::VllmProcess;
use trainer::Policy;
use trainer::config::RunConfig;
use trainer::engine::EngineClient;

/// The model name the engine serves.
const SERVED: &str = "smollm2";

/// Mean absolute difference of two equally long log-prob sequences.
fn distance(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from((x - y).abs()))
        .sum::<f64>()
        / a.len() as f64
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

#[test]
fn an_agent_generates_on_vllm_and_its_weights_follow_every_step() {
    support::init();
    let dir = tempfile::tempdir().unwrap();
    let smol = support::smollm2_dir();
    // f32 like the trainer on CPU, so that the engine's log-probs compare closely with its own.
    let mut vllm =
        VllmProcess::start(&smol, SERVED, "float32", &dir.path().join("vllm.log")).unwrap();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let [_, (tch_agent, tch_model)] = support::tiny_agents(dir.path());
    let engine = EngineClient::new(&vllm.url, SERVED).unwrap();
    // Minutes on a loaded 2-core machine: a generous wait, not a measurement.
    if let Err(e) = engine.wait_ready(Duration::from_secs(1800)) {
        panic!("vLLM not ready: {e:#}\n{}", vllm.report(40));
    }

    // A fixed completion, scored by the engine and the trainer on the starting weights.
    let start = Policy::load(&smol, Device::Cpu).unwrap();
    let prompt = start
        .encode_prompt("What is 2+3? Answer with one number.")
        .unwrap();
    let response = start.encode_response("The answer is 5.", true).unwrap();
    let engine_before = engine.logprobs(&prompt, &response).unwrap();
    let trainer_before = trainer_logprobs(&start, &prompt, &response);
    let agreement_before = distance(&engine_before, &trainer_before);

    // Enough responses that some are right (SmolLM2 adds small numbers correctly, not always):
    // a step whose groups all score alike has no advantage to learn from.
    let (steps, prompts, group) = (3, 4, 4);
    let config = dir.path().join("run.toml");
    let mut toml = std::fs::File::create(&config).unwrap();
    write!(
        toml,
        "[run]\nname = \"engine-test\"\nsteps = {steps}\nseed = 3\nprompts_per_step = {prompts}\n\
         group_size = {group}\nminibatches = 2\nmicro_batch = 4\nmax_new_tokens = 16\n\
         checkpoint_every = {steps}\noutput_dir = \"out\"\nthreads = 1\n\n\
         [verifier]\nurl = \"{url}\"\n\n[data]\ntrain = \"toy-train\"\n\n\
         [algorithm]\nalgorithm = \"hacpo\"\n\n\
         [[agents]]\nname = \"{tch_agent}\"\nmodel = \"{}\"\nlr = 1e-3\n\n\
         [[agents]]\nname = \"smol-vllm\"\nmodel = \"{}\"\nlr = 1e-3\n\n\
         [agents.generation]\nbackend = \"openai\"\nurl = \"{}\"\nmodel = \"{SERVED}\"\n",
        tch_model.display(),
        smol.display(),
        vllm.url
    )
    .unwrap();
    drop(toml);
    if let Err(e) = trainer::train::run(&RunConfig::load(&config).unwrap()) {
        panic!("the run failed: {e:#}\n{}", vllm.report(40));
    }

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
        for agent in [tch_agent, "smol-vllm"] {
            let n = rows.iter().filter(|r| r.0 == agent && r.1 == step).count();
            assert_eq!(n, prompts * group, "{agent} at step {step}");
        }
    }
    let fingerprint = start.tokenizer_fingerprint();
    let mut gaps = Vec::new();
    for (agent, step, version, meta, mean, tokens) in &rows {
        assert_eq!(*version, step - 1, "{agent} step {step}");
        let ids = meta["token_ids"].as_array().expect("token_ids");
        assert_eq!(ids.len(), *tokens as usize, "{meta}");
        if agent == "smol-vllm" {
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
    // completion moved away from the starting ones and agree with the trainer's for the final
    // checkpoint, as closely as they agreed on the starting weights.
    assert_eq!(engine.weight_version().unwrap(), Some(steps as i64));
    let last = Policy::load(
        &trainer::train::checkpoint_dir(&dir.path().join("out"), "smol-vllm", steps),
        Device::Cpu,
    )
    .unwrap();
    let engine_after = engine.logprobs(&prompt, &response).unwrap();
    let trainer_after = trainer_logprobs(&last, &prompt, &response);
    let moved = distance(&trainer_after, &trainer_before);
    let agreement_after = distance(&engine_after, &trainer_after);
    eprintln!(
        "engine vs trainer per token: {agreement_before:.2e} before, {agreement_after:.2e} after; \
         training moved the trainer's by {moved:.2e}; ℓ_old gaps per rollout: {gaps:?}"
    );
    assert!(
        moved > 10.0 * agreement_before.max(agreement_after),
        "training must move the log-probs well beyond the engine/trainer mismatch: moved \
         {moved:.2e}, mismatch {agreement_before:.2e} / {agreement_after:.2e}"
    );
    assert!(
        distance(&engine_after, &engine_before) > 10.0 * agreement_after,
        "the engine's log-probs did not follow the training: {engine_before:?} → {engine_after:?}"
    );
    let worst_gap = gaps.iter().map(|g| g.1).fold(0.0, f64::max);
    assert!(
        worst_gap < moved / 4.0,
        "a rollout's engine and trainer ℓ_old differ by {worst_gap:.2e}, as much as training moves \
         log-probs ({moved:.2e}): the engine sampled with other weights ({gaps:?})"
    );
}
