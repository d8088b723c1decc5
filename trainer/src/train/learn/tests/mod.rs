//! Tests of one learner's update through `update`, with tiny random models.

use std::path::{Path, PathBuf};

use serde_json::json;
use tch::Device;
use uuid::Uuid;

use super::*;
use crate::config::{AgentSection, DataSection, RunSection, VerifierSection};
use crate::hacpo::{Algorithm, HacpoConfig};
use crate::optim::AdamW;
use crate::optim::tests::flat_weights;
use crate::policy::Policy;

/// The mini-batch order and the KL scope: pure functions, no model.
mod arrange;

fn tiny(model_type: &str, seed: i64) -> Policy {
    let cfg = json!({
        "model_type": model_type, "vocab_size": 259, "hidden_size": 32, "intermediate_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 256,
        "tie_word_embeddings": true, "initializer_range": 0.5,
    });
    let tok = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/byte-tokenizer");
    Policy::from_config(cfg, &tok, Device::Cpu, Kind::Float, seed).unwrap()
}

fn agent(name: &str, policy: Policy) -> Agent {
    let cfg = AgentSection {
        name: name.into(),
        model: PathBuf::new(),
        device: Device::Cpu,
        lr: 3e-3,
        weight_decay: 0.0,
        generation: Default::default(),
    };
    let opt = AdamW::new(policy.var_store(), cfg.lr, 0.0);
    Agent {
        cfg,
        id: Uuid::new_v4(),
        policy,
        reference: None,
        opt,
        engine: None,
    }
}

fn run_config(algorithm: Algorithm) -> RunConfig {
    RunConfig {
        run: RunSection {
            name: "t".into(),
            steps: 1,
            seed: 0,
            prompts_per_step: 1,
            group_size: 2,
            minibatches: 1,
            micro_batch: 0,
            max_new_tokens: 4,
            temperature: 1.0,
            top_p: 1.0,
            checkpoint_every: 1,
            eval_every: 0,
            output_dir: PathBuf::new(),
            threads: 1,
            deterministic_kernels: false,
            barrier_timeout_s: 600,
            gate_prompts: 0,
            max_staleness: None,
        },
        verifier: VerifierSection {
            url: String::new(),
            token: None,
        },
        data: DataSection {
            train: String::new(),
            eval: None,
            eval_size: 0,
        },
        algorithm: HacpoConfig {
            algorithm,
            ..HacpoConfig::default()
        },
        agents: Vec::new(),
    }
}

/// The update batch of step 1.
fn step_one<'a>(
    groups: &'a [Group],
    index: &'a HashMap<String, usize>,
    tracker: &'a CapabilityTracker,
    cfg: &'a RunConfig,
) -> UpdateBatch<'a> {
    static NO_HISTORY: PairCalibration = PairCalibration::new(5);
    UpdateBatch {
        groups: vec![(1, groups)],
        used: &[],
        index,
        tracker,
        calibration: &NO_HISTORY,
        cfg,
        step: 1,
    }
}

fn mean_logprob(p: &Policy, prompt: &str, response: &str) -> f64 {
    let ids = (
        p.encode_prompt(prompt).unwrap(),
        p.encode_response(response, false).unwrap(),
    );
    let s = tch::no_grad(|| p.score_ids(&[ids])).unwrap();
    s.mean_logprob.double_value(&[0])
}

/// A pooled response of `agent` with old log-prob `logprob_mean`, as `/v1/pool/groups` has it.
fn pooled(
    agent_id: Uuid,
    agent: &str,
    response: &str,
    reward: f64,
    logprob_mean: f64,
) -> wire::GroupMember {
    wire::GroupMember {
        id: Uuid::new_v4(),
        agent_id,
        agent: agent.into(),
        response: response.into(),
        reward,
        correct: reward == 1.0,
        token_count: Some(response.len() as i32),
        logprob_mean: Some(logprob_mean),
        logprob_sum: None,
        policy_version: 0,
        metadata: json!({ "ends_turn": true }),
    }
}

/// One prompt: each agent wrote a right and a wrong answer. Old log-probs are the sources' own.
fn group(agents: &[Agent]) -> Group {
    let prompt = "2+2=";
    let member = |agent: &Agent, response: &str, reward: f64| {
        pooled(
            agent.id,
            &agent.cfg.name,
            response,
            reward,
            mean_logprob(&agent.policy, prompt, response),
        )
    };
    Group {
        task_id: Uuid::new_v4(),
        prompt: prompt.into(),
        rollouts: vec![
            member(&agents[0], "4", 1.0),
            member(&agents[0], "5", 0.0),
            member(&agents[1], "four: 4", 1.0),
            member(&agents[1], "7", 0.0),
        ],
    }
}

#[test]
fn an_update_ascends_the_advantage_weighted_log_likelihood_of_both_agents_responses() {
    let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    // A step small enough for the first-order reading below (Adam moves every weight by
    // about lr, and these random weights are large).
    agents[0].opt = AdamW::new(agents[0].policy.var_store(), 1e-4, 0.0);
    // Give b's responses old log-probs just above the learner's current ones, so that cross
    // ratios start at 0.99, inside [0.8, 1], and their gradients flow (random models of different architecture
    // would otherwise sit outside [0.8, 1] and be dropped).
    let mut g = group(&agents);
    for m in g.rollouts.iter_mut().filter(|m| m.agent == "b") {
        m.logprob_mean = Some(mean_logprob(&agents[0].policy, &g.prompt, &m.response) + 0.01);
    }
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let mut tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    tracker.record(&[0.5, 0.5]);
    let cfg = run_config(Algorithm::Hacpo);
    let members: Vec<GroupMember> = g
        .rollouts
        .iter()
        .map(|m| GroupMember {
            source: index[&m.agent],
            reward: m.reward,
        })
        .collect();
    let adv = advantages(&members, 0, &tracker, &cfg.algorithm);
    let before: Vec<f64> = g
        .rollouts
        .iter()
        .map(|m| mean_logprob(&agents[0].policy, &g.prompt, &m.response))
        .collect();
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let stats = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
    let after: Vec<f64> = g
        .rollouts
        .iter()
        .map(|m| mean_logprob(&agents[0].policy, &g.prompt, &m.response))
        .collect();
    assert_eq!((stats.sequences, stats.cross_sequences), (4, 2));
    assert!(stats.loss.is_finite() && stats.grad_norm > 0.0, "{stats:?}");
    // With every ratio at 1 the loss is −mean(A·ℓ) to first order: a gradient step must raise
    // Σ A·Δℓ, own and other agent's responses alike.
    let ascent: f64 = adv
        .iter()
        .zip(before.iter().zip(&after))
        .map(|(a, (b, c))| a * (c - b))
        .sum();
    assert!(
        ascent > 0.0,
        "advantages {adv:?}, log-probs {before:?} -> {after:?}"
    );
    assert!(
        before.iter().zip(&after).all(|(b, c)| b != c),
        "every sequence's log-prob moved"
    );
}

#[test]
fn micro_batches_give_the_same_update_as_one_pass() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let mut tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    tracker.record(&[0.5, 0.25]);
    for (algorithm, kl_beta) in [(Algorithm::Hacpo, 0.1), (Algorithm::Grpo, 0.0)] {
        let mut results = Vec::new();
        for micro_batch in [0, 1, 3] {
            let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
            agents[0].reference = Some(agents[0].policy.duplicate().unwrap());
            let mut g = group(&agents);
            for m in g.rollouts.iter_mut().filter(|m| m.agent == "b") {
                m.logprob_mean =
                    Some(mean_logprob(&agents[0].policy, &g.prompt, &m.response) + 0.01);
            }
            let mut cfg = run_config(algorithm);
            cfg.run.micro_batch = micro_batch;
            cfg.algorithm.kl_beta = kl_beta;
            let groups = [g];
            let batch = step_one(&groups, &index, &tracker, &cfg);
            let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
            results.push((st, flat_weights(agents[0].policy.var_store())));
        }
        let (one, w_one) = &results[0];
        assert!(one.grad_norm > 0.0, "{algorithm:?}: {one:?}");
        for (st, w) in &results[1..] {
            assert!(
                (st.loss - one.loss).abs() < 1e-5,
                "{algorithm:?}: {st:?} vs {one:?}"
            );
            assert!(
                (st.kl - one.kl).abs() < 1e-6,
                "{algorithm:?}: {st:?} vs {one:?}"
            );
            assert!(
                (st.grad_norm - one.grad_norm).abs() < 1e-4 * one.grad_norm,
                "{algorithm:?}: {st:?} vs {one:?}"
            );
            let max_diff = w
                .iter()
                .zip(w_one)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            // Summation order differs, and Adam's first step moves every weight by about lr
            // (3e-3) whatever its gradient's size, so near-zero gradients amplify rounding;
            // the gradient norm above is the scale-sensitive check.
            assert!(
                max_diff < 3e-4,
                "{algorithm:?}: weights differ by {max_diff}"
            );
        }
    }
}

#[test]
fn isolated_rules_train_on_own_responses_only() {
    let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let g = group(&agents);
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let update_b = |agents: &mut [Agent], algorithm| {
        let cfg = run_config(algorithm);
        let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
        update(&mut agents[1], 1, &batch, &Phase::hidden()).unwrap()
    };
    for algorithm in [Algorithm::Gspo, Algorithm::Grpo] {
        let st = update_b(&mut agents, algorithm);
        assert_eq!((st.sequences, st.cross_sequences), (2, 0), "{algorithm:?}");
        assert!(st.loss.is_finite());
    }
    let naive = update_b(&mut agents, Algorithm::Naive);
    assert_eq!((naive.sequences, naive.cross_sequences), (4, 2));
    // Distillation adds only the partner's correct response ("4" of a), never its wrong one.
    let distill = update_b(&mut agents, Algorithm::Distill);
    assert_eq!((distill.sequences, distill.cross_sequences), (3, 1));
    assert_eq!(
        distill.origin.clip_cross, 0.0,
        "imitation has no ratio to clip"
    );
}

/// A group holding only `b`'s four responses (rewards 1, 0, 0, 0), with old log-probs set so
/// that learner `a`'s current cross ratio of each is `s`.
fn cross_only_group(agents: &[Agent], s: f64) -> Group {
    let prompt = "3+4=";
    let member = |response: &str, reward: f64| {
        let old = mean_logprob(&agents[0].policy, prompt, response) - s.ln();
        pooled(Uuid::new_v4(), "b", response, reward, old)
    };
    Group {
        task_id: Uuid::new_v4(),
        prompt: prompt.into(),
        rollouts: vec![
            member("7", 1.0),
            member("8", 0.0),
            member("seven: 7", 0.0),
            member("6", 0.0),
        ],
    }
}

#[test]
fn the_cross_lower_bound_rises_by_delta_step_with_each_minibatch_of_an_update() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let mut tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    tracker.record(&[0.5, 0.5]);
    // Four mini-batches of one cross sample each, at m = 0..3 with bounds 0.8, 0.825, 0.85,
    // 0.875. A negligible learning rate keeps every s where it was set.
    for (s, stepwise, inside) in [
        (0.84, true, 0.5),
        (0.86, true, 0.75),
        (0.81, true, 0.25),
        (0.84, false, 1.0),
    ] {
        let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
        agents[0].opt = AdamW::new(agents[0].policy.var_store(), 1e-9, 0.0);
        let g = cross_only_group(&agents, s);
        let mut cfg = run_config(Algorithm::Hacpo);
        cfg.run.minibatches = 4;
        cfg.algorithm.stepwise_clip = stepwise;
        let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
        let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
        let o = &st.origin;
        assert_eq!((st.sequences, st.cross_sequences), (4, 4));
        assert!(
            (o.cross_inside - inside).abs() < 1e-12
                && (o.cross_below - (1.0 - inside)).abs() < 1e-12
                && o.cross_above == 0.0
                && (o.clip_cross - (1.0 - inside)).abs() < 1e-12,
            "s = {s}, stepwise {stepwise}: {o:?}"
        );
        assert!((st.cross_ratio_mean - s).abs() < 1e-4, "{st:?}");
    }
}

#[test]
fn omega_scales_cross_terms_by_the_sources_capability_over_the_learners() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let mut tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    tracker.record(&[0.2, 0.8]); // b is four times as capable as a
    let agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let to_a = cross_only_group(&agents, 1.0);
    // The same four responses, written by a and learned by b.
    let mut to_b = cross_only_group(&[agent("b", tiny("qwen3", 2))], 1.0);
    for m in &mut to_b.rollouts {
        m.agent = "a".into();
    }
    let loss = |learner: usize, g: &Group, omega_in_loss: bool| {
        let mut agents = [agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
        let mut cfg = run_config(Algorithm::Hacpo);
        cfg.algorithm.omega_in_loss = omega_in_loss;
        let batch = step_one(std::slice::from_ref(g), &index, &tracker, &cfg);
        update(&mut agents[learner], learner, &batch, &Phase::hidden())
            .unwrap()
            .loss
    };
    // Every c = 1 and α = 1: the loss is −ω(j,k)·mean(A), so switching ω off divides by it.
    let stronger_partner = loss(0, &to_a, true) / loss(0, &to_a, false);
    let weaker_partner = loss(1, &to_b, true) / loss(1, &to_b, false);
    assert!((stronger_partner - 4.0).abs() < 1e-4, "{stronger_partner}");
    assert!((weaker_partner - 0.25).abs() < 1e-4, "{weaker_partner}");
}

#[test]
fn own_responses_train_on_their_sampled_ids_and_others_tokenizers_are_re_encoded() {
    let agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let mut g = group(&agents);
    // Ids that are not what "4" encodes to: only the sampled ids can give them back.
    let fp = agents[0].policy.tokenizer_fingerprint().to_string();
    g.rollouts[0].metadata = json!({ "token_ids": [40, 41, 42], "tokenizer": fp });
    g.rollouts[1].metadata = json!({ "token_ids": [43], "tokenizer": "another" });
    let cfg = run_config(Algorithm::Hacpo);
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let (items, skipped) = learner_batch(&agents[0], 0, &batch).unwrap();
    assert_eq!((items.len(), skipped), (4, 0));
    assert_eq!(items[0].response, [40, 41, 42]);
    let p = &agents[0].policy;
    assert_eq!(items[1].response, p.encode_response("5", false).unwrap());
    // No trajectory ends with the end-of-turn token.
    let eos = p.eos_token_id().unwrap();
    assert!(items.iter().all(|t| t.response.last() != Some(&eos)));
}

#[test]
fn own_first_order_puts_cross_samples_in_the_last_minibatches() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let mut tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    tracker.record(&[0.5, 0.5]);
    let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    agents[0].opt = AdamW::new(agents[0].policy.var_store(), 1e-9, 0.0);
    let mut g = group(&agents);
    // Cross ratios 0.84: inside at m = 0, 1 and below at m = 2, 3.
    for m in g.rollouts.iter_mut().filter(|m| m.agent == "b") {
        m.logprob_mean =
            Some(mean_logprob(&agents[0].policy, &g.prompt, &m.response) - 0.84f64.ln());
    }
    let mut cfg = run_config(Algorithm::Hacpo);
    cfg.run.minibatches = 4;
    cfg.algorithm.minibatch_order = MinibatchOrder::OwnFirst;
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
    assert_eq!(st.origin.cross_below, 1.0, "{st:?}");
}

#[test]
fn own_ratios_compare_log_probs_at_the_rollout_temperature() {
    // ℓ_old recorded at T = 2, as the training loop records it: at the first mini-batch the
    // learner has not moved, so its own sequence ratios are exactly 1 and nothing is clipped.
    let index: HashMap<String, usize> = [("a".to_string(), 0)].into();
    let tracker = CapabilityTracker::new(1, 5, 0.1, 10.0);
    let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    agents[0].opt = AdamW::new(agents[0].policy.var_store(), 1e-9, 0.0);
    let mut g = group(&agents);
    g.rollouts.retain(|m| m.agent == "a");
    for m in g.rollouts.iter_mut() {
        let ids = (
            agents[0].policy.encode_prompt(&g.prompt).unwrap(),
            agents[0]
                .policy
                .encode_response(&m.response, false)
                .unwrap(),
        );
        let at_two = tch::no_grad(|| agents[0].policy.score_ids_at(&[ids], 2.0)).unwrap();
        m.logprob_mean = Some(at_two.mean_logprob.double_value(&[0]));
    }
    let mut cfg = run_config(Algorithm::Gspo);
    cfg.run.temperature = 2.0;
    cfg.algorithm.kl_beta = 0.0;
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
    assert_eq!(st.origin.clip_own, 0.0, "{st:?}");
    // Scored at T = 1 against ℓ_old at T = 2, the same sequences fall outside GSPO's ε.
    cfg.algorithm.logprob_temperature = crate::hacpo::LogprobTemperature::One;
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
    assert_eq!(st.origin.clip_own, 1.0, "{st:?}");
}

#[test]
fn per_byte_cross_ratios_compare_summed_likelihoods_per_byte_of_text() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let g = group(&agents);
    let mut cfg = run_config(Algorithm::Hacpo);
    cfg.algorithm.cross_ratio = CrossRatio::PerByte;
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let (items, _) = learner_batch(&agents[0], 0, &batch).unwrap();
    let b_four = &g.rollouts[2]; // "four: 4", written by b
    let t = &items[2];
    assert!(t.sample.cross && t.bytes == 7);
    let old_sum = b_four.logprob_mean.unwrap() * f64::from(b_four.token_count.unwrap());
    assert!((t.sample.old_logprob - old_sum / 7.0).abs() < 1e-12);
    assert_eq!(t.normaliser(CrossRatio::PerByte), 7.0);
    assert_eq!(
        items[0].normaliser(CrossRatio::PerByte),
        items[0].response.len() as f64
    );
}

#[test]
fn an_update_reports_its_distance_from_the_start_and_the_kl_of_its_own_samples() {
    let mut agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    // The reference is the learner's starting model, as `Agent::new` makes it.
    agents[0].reference = Some(tiny("llama", 1));
    let g = group(&agents);
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let mut cfg = run_config(Algorithm::Hacpo);
    // Two optimizer steps: the second is taken away from the reference, so its KL is > 0.
    cfg.run.minibatches = 2;
    let before = flat_weights(agents[0].policy.var_store());
    let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &cfg);
    let st = update(&mut agents[0], 0, &batch, &Phase::hidden()).unwrap();
    let after = flat_weights(agents[0].policy.var_store());
    let moved = before
        .iter()
        .zip(&after)
        .map(|(a, b)| f64::from(a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    let reported = st
        .displacement
        .expect("a reference model gives a displacement");
    assert!(
        moved > 0.0 && (reported - moved).abs() < 1e-4 * moved,
        "{reported} vs {moved}"
    );
    assert!(
        st.origin.kl_own > 0.0 && st.origin.kl_own.is_finite(),
        "{st:?}"
    );
    // Without a reference there is nothing to measure from.
    agents[1].reference = None;
    let st_b = update(&mut agents[1], 1, &batch, &Phase::hidden()).unwrap();
    assert_eq!(st_b.displacement, None);
}

#[test]
fn the_calibrated_rule_divides_each_cross_ratio_by_its_directions_offset() {
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let g = group(&agents);
    let mut cfg = run_config(Algorithm::Hacpo);
    cfg.algorithm.cross_rule = CrossRule::Calibrated;
    // b → a's typical ratio 0.25 (one recorded step); a → b's is not a's business here.
    let mut calibration = PairCalibration::new(5);
    calibration.record(1, 0, 0.25);
    calibration.record(0, 1, 4.0);
    let batch = UpdateBatch {
        calibration: &calibration,
        ..step_one(std::slice::from_ref(&g), &index, &tracker, &cfg)
    };
    let (items, _) = learner_batch(&agents[0], 0, &batch).unwrap();
    let uncalibrated = {
        let mut plain = cfg.clone();
        plain.algorithm.cross_rule = CrossRule::Window;
        let batch = step_one(std::slice::from_ref(&g), &index, &tracker, &plain);
        learner_batch(&agents[0], 0, &batch).unwrap().0
    };
    for (t, u) in items.iter().zip(&uncalibrated) {
        let (offset, shift) = if t.sample.cross {
            (0.25, 0.25f64.ln())
        } else {
            (1.0, 0.0)
        };
        assert_eq!(t.offset, offset);
        // exp(ℓ_k − (ℓ_{j,old} + ln ŝ)) = s / ŝ: the old log-prob moves by ln ŝ, nothing else.
        assert!((t.sample.old_logprob - (u.sample.old_logprob + shift)).abs() < 1e-12);
        assert_eq!(t.sample.advantage, u.sample.advantage);
    }
    assert!(items.iter().any(|t| t.sample.cross) && items.iter().any(|t| !t.sample.cross));
}

#[test]
fn an_asynchronous_batch_takes_late_partner_rollouts_once_and_decouples_stale_own_ones() {
    let agents = vec![agent("a", tiny("llama", 1)), agent("b", tiny("qwen3", 2))];
    let index: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
    let tracker = CapabilityTracker::new(2, 5, 0.1, 10.0);
    let mut cfg = run_config(Algorithm::Hacpo);
    cfg.run.max_staleness = Some(1);
    let cfg = cfg;
    // Update 3 (learner a at version 2): step 2's group again, and step 3's, whose own
    // responses came from version 1 (an engine one update behind).
    let (g2, mut g3) = (group(&agents), group(&agents));
    for m in g3.rollouts.iter_mut().filter(|m| m.agent == "a") {
        m.policy_version = 1;
        m.logprob_mean = Some(m.logprob_mean.unwrap() - 0.2);
    }
    let used_b = g2.rollouts[2].id;
    let used = [HashSet::from([used_b]), HashSet::new()];
    let batch = UpdateBatch {
        groups: vec![
            (2, std::slice::from_ref(&g2)),
            (3, std::slice::from_ref(&g3)),
        ],
        used: &used,
        step: 3,
        ..step_one(&[], &index, &tracker, &cfg)
    };
    let (mut items, _) = learner_batch(&agents[0], 0, &batch).unwrap();
    let picked: Vec<(Uuid, u64)> = items
        .iter()
        .map(|t| (t.used.id, t.used.staleness))
        .collect();
    assert_eq!(
        picked,
        [
            // Step 2: a's own responses were trained on at update 2, b's first one too.
            (g2.rollouts[3].id, 1),
            // Step 3: own (one version stale), then b's, on time.
            (g3.rollouts[0].id, 1),
            (g3.rollouts[1].id, 1),
            (g3.rollouts[2].id, 0),
            (g3.rollouts[3].id, 0),
        ]
    );
    // ℓ_prox is a's score now (the sources' own log-probs in `group`), 0.2 above ℓ_behav:
    // w = e^{0.2}, under the cap; cross and fresh samples keep weight 1.
    decouple_stale(&agents[0], &mut items, 4, 1.0, &cfg.algorithm).unwrap();
    for (t, member) in items[1..3].iter().zip(&g3.rollouts) {
        let prox = mean_logprob(&agents[0].policy, &g3.prompt, &member.response);
        assert!((t.sample.old_logprob - prox).abs() < 1e-5, "{t:?}");
        assert!(
            (t.sample.behaviour_weight - 0.2f64.exp()).abs() < 1e-4,
            "{t:?}"
        );
    }
    assert!(
        [0, 3, 4]
            .iter()
            .all(|&i| items[i].sample.behaviour_weight == 1.0)
    );
    // η = 0 drops the late step and the stale own responses: b's step-3 ones remain.
    let mut on_time = cfg.clone();
    on_time.run.max_staleness = Some(0);
    let batch = UpdateBatch {
        cfg: &on_time,
        ..batch
    };
    let (items, _) = learner_batch(&agents[0], 0, &batch).unwrap();
    let picked: Vec<Uuid> = items.iter().map(|t| t.used.id).collect();
    assert_eq!(picked, [g3.rollouts[2].id, g3.rollouts[3].id]);
}
