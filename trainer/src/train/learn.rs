//! Algorithm 1's learning step for one learner k: its batch from the step's groups (all n·G
//! responses per prompt when the rule shares), A_k, then one AdamW step per mini-batch (m = 0, 1,
//! … for the stepwise clip), micro-batched.
//!
//! Trajectories are token ids under k's tokenizer: the ids that were sampled when k wrote the
//! response (or an agent with the same tokenizer did), the re-encoded text otherwise. The
//! terminal end-of-turn token is in no trajectory, as in the official code.

use std::collections::HashMap;

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use tch::{Kind, Tensor};

use super::agent::Agent;
use super::metrics::{UpdateStats, UpdateTally};
use crate::config::RunConfig;
use crate::hacpo::{
    CapabilityTracker, CrossRatio, GroupMember, MinibatchOrder, SequenceSample, advantages,
    grpo_loss, kl_k3, sequence_loss,
};
use crate::optim::{MAX_GRAD_NORM, clip_grad_norm};
use crate::rng::shuffle;
use wire::Group;

/// What every learner of a step learns from: the step's groups read back from the pool, the
/// capabilities after this step's update, and the run's settings.
pub(super) struct UpdateBatch<'a> {
    /// Every agent's responses, per prompt.
    pub(super) groups: &'a [Group],
    /// Agent name → position (k, j).
    pub(super) index: &'a HashMap<String, usize>,
    /// P̂ and ω.
    pub(super) tracker: &'a CapabilityTracker,
    /// Algorithm, mini- and micro-batch sizes, seed.
    pub(super) cfg: &'a RunConfig,
    /// The training step.
    pub(super) step: usize,
}

/// One sequence of a learner's batch.
#[derive(Debug, Clone)]
struct Trajectory {
    /// The prompt under the learner's chat template and tokenizer.
    prompt: Vec<i64>,
    /// The response, end-of-turn token excluded.
    response: Vec<i64>,
    /// UTF-8 bytes of the response text: the unit of [`CrossRatio::PerByte`].
    bytes: usize,
    sample: SequenceSample,
}

impl Trajectory {
    /// What ℓ divides the summed token log-prob by: the learner's token count, or for a cross
    /// sample under [`CrossRatio::PerByte`] the text's bytes.
    fn normaliser(&self, unit: CrossRatio) -> f64 {
        match (self.sample.cross, unit) {
            (true, CrossRatio::PerByte) => self.bytes as f64,
            _ => self.response.len() as f64,
        }
    }
}

/// Learner `k`'s update (`agent` is agent k): advantages, mini-batches, optimizer steps.
pub(super) fn update(agent: &mut Agent, k: usize, batch: &UpdateBatch) -> Result<UpdateStats> {
    let hc = &batch.cfg.algorithm;
    let (mut items, skipped) = learner_batch(agent, k, batch)?;
    if items.is_empty() {
        return Ok(UpdateStats {
            skipped,
            ..Default::default()
        });
    }
    shuffle(
        &mut items,
        batch.cfg.run.seed ^ (batch.step as u64) << 8 ^ k as u64,
    );
    if hc.minibatch_order == MinibatchOrder::OwnFirst {
        // Stable: each part keeps its shuffled order.
        items.sort_by_key(|t| t.sample.cross);
    }
    let chunk = items.len().div_ceil(batch.cfg.run.minibatches);
    let batches: Vec<&[Trajectory]> = items.chunks(chunk).collect();
    let micro = batch.cfg.run.micro_chunk();
    let ids = |mb: &[Trajectory]| -> Vec<(Vec<i64>, Vec<i64>)> {
        mb.iter()
            .map(|t| (t.prompt.clone(), t.response.clone()))
            .collect()
    };
    // Token-level ratios need the old policy's token log-probs: taken before any update, per
    // micro-batch so that their shapes match the scores taken during the update.
    let old_tokens: Vec<Vec<Option<Tensor>>> = batches
        .iter()
        .map(|b| {
            b.chunks(micro)
                .map(|mb| {
                    if !hc.algorithm.needs_token_logprobs() {
                        return Ok(None);
                    }
                    Ok(Some(
                        tch::no_grad(|| agent.policy.score_ids(&ids(mb)))?.token_logprobs,
                    ))
                })
                .collect()
        })
        .collect::<Result<_>>()?;

    let mut tally = UpdateTally::default();
    for (m, (batch_m, old)) in batches.iter().zip(old_tokens).enumerate() {
        agent.opt.zero_grad();
        let n_seq = batch_m.len() as f64;
        let lower = hc.cross_lower_bound(m);
        let (mut loss_sum, mut kl_sum) = (0.0, 0.0);
        // Gradient accumulation: the loss is a mean of per-sequence terms, so each micro-batch's
        // share (its terms summed, over the mini-batch size) back-propagates on its own and the
        // update is the same as with the whole mini-batch in one pass.
        for (micro_batch, old) in batch_m.chunks(micro).zip(old) {
            let samples: Vec<SequenceSample> = micro_batch.iter().map(|t| t.sample).collect();
            let scores = agent.policy.score_ids(&ids(micro_batch))?;
            let out = match old {
                Some(old) => {
                    let adv: Vec<f64> = samples.iter().map(|s| s.advantage).collect();
                    grpo_loss(&scores.token_logprobs, &old, &scores.mask, &adv, hc)
                }
                None => {
                    let norm: Vec<f64> = micro_batch
                        .iter()
                        .map(|t| t.normaliser(hc.cross_ratio))
                        .collect();
                    let norm = Tensor::from_slice(&norm)
                        .to_kind(Kind::Float)
                        .to_device(agent.policy.device());
                    let ell = scores
                        .token_logprobs
                        .sum_dim_intlist(-1, false, Kind::Float)
                        / norm;
                    sequence_loss(&ell, &samples, m, hc)
                }
            };
            let mut loss = out.terms.sum(Kind::Float) / n_seq;
            if let Some(reference) = &agent.reference {
                // The official seq-mean-token-mean: every sequence's token-mean KL, averaged
                // over the mini-batch's sequences.
                let ref_scores = tch::no_grad(|| reference.score_ids(&ids(micro_batch)))?;
                let kl = kl_k3(
                    &scores.token_logprobs,
                    &ref_scores.token_logprobs,
                    &scores.mask,
                )
                .sum(Kind::Float)
                    / n_seq;
                kl_sum += kl.double_value(&[]);
                loss += kl * hc.kl_beta;
            }
            let value = loss.double_value(&[]);
            ensure!(
                value.is_finite(),
                "{}: non-finite loss at step {}",
                agent.cfg.name,
                batch.step
            );
            loss.backward();
            loss_sum += value;
            let entropy = Vec::<f64>::try_from(
                &scores
                    .entropy
                    .to_kind(Kind::Double)
                    .to_device(tch::Device::Cpu),
            )?;
            for (i, t) in micro_batch.iter().enumerate() {
                tally.add(
                    &t.sample,
                    out.ratios[i],
                    out.clipped[i],
                    lower,
                    t.response.len(),
                    entropy[i],
                );
            }
        }
        tally.grad_norm += clip_grad_norm(agent.policy.var_store(), MAX_GRAD_NORM);
        agent.opt.step();
        tally.loss += loss_sum;
        tally.kl += kl_sum;
    }
    Ok(tally.finish(batches.len(), skipped))
}

/// The ids of `m`'s response that `fingerprint`'s tokenizer would train on, if `m` carries
/// the ids its author sampled with a tokenizer of that fingerprint.
fn sampled_ids(m: &wire::GroupMember, fingerprint: &str) -> Option<Vec<i64>> {
    if m.metadata.get("tokenizer").and_then(Value::as_str) != Some(fingerprint) {
        return None;
    }
    m.metadata
        .get("token_ids")?
        .as_array()?
        .iter()
        .map(Value::as_i64)
        .collect()
}

/// Learner `k`'s sequences of the step with their advantage, ℓ_old and ω (in group order), and
/// how many were skipped for being empty or not fitting its context.
fn learner_batch(agent: &Agent, k: usize, batch: &UpdateBatch) -> Result<(Vec<Trajectory>, usize)> {
    let hc = &batch.cfg.algorithm;
    let policy = &agent.policy;
    let context = policy.model().config().max_position_embeddings as usize;
    let mut items = Vec::new();
    let mut skipped = 0;
    for g in batch.groups {
        let members: Vec<(usize, &wire::GroupMember)> = g
            .rollouts
            .iter()
            .filter_map(|m| batch.index.get(&m.agent).map(|&j| (j, m)))
            .collect();
        let gm: Vec<GroupMember> = members
            .iter()
            .map(|(j, m)| GroupMember {
                source: *j,
                reward: m.reward,
            })
            .collect();
        let adv = advantages(&gm, k, batch.tracker, hc);
        let prompt = policy.encode_prompt(&g.prompt)?;
        for ((j, m), a) in members.iter().zip(adv) {
            let cross = *j != k;
            if !hc.algorithm.shares() && cross {
                continue;
            }
            let response = match sampled_ids(m, policy.tokenizer_fingerprint()) {
                Some(ids) => ids,
                None => policy.encode_response(&m.response, false)?,
            };
            if response.is_empty() || prompt.len() + response.len() > context {
                skipped += 1;
                continue;
            }
            let mean = m.logprob_mean.with_context(|| {
                format!(
                    "rollout {} has no log-prob: it was not generated by this trainer",
                    m.id
                )
            })?;
            let bytes = m.response.len().max(1);
            let old_logprob = match (cross, hc.cross_ratio) {
                // ℓ_{j,old} summed over the source's tokens, per byte.
                (true, CrossRatio::PerByte) => {
                    let n = m
                        .token_count
                        .with_context(|| format!("rollout {} has no token count", m.id))?;
                    mean * f64::from(n) / bytes as f64
                }
                _ => mean,
            };
            items.push(Trajectory {
                prompt: prompt.clone(),
                response,
                bytes,
                sample: SequenceSample {
                    cross,
                    advantage: a,
                    old_logprob,
                    omega: batch.tracker.omega(*j, k),
                },
            });
        }
    }
    Ok((items, skipped))
}

#[cfg(test)]
mod tests {
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
        };
        let opt = AdamW::new(policy.var_store(), cfg.lr, 0.0);
        Agent {
            cfg,
            id: Uuid::new_v4(),
            policy,
            reference: None,
            opt,
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
                barrier_timeout_s: 600,
            },
            verifier: VerifierSection { url: String::new() },
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
        UpdateBatch {
            groups,
            index,
            tracker,
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
        let stats = update(&mut agents[0], 0, &batch).unwrap();
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
                let st = update(&mut agents[0], 0, &batch).unwrap();
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
            update(&mut agents[1], 1, &batch).unwrap()
        };
        for algorithm in [Algorithm::Gspo, Algorithm::Grpo] {
            let st = update_b(&mut agents, algorithm);
            assert_eq!((st.sequences, st.cross_sequences), (2, 0), "{algorithm:?}");
            assert!(st.loss.is_finite());
        }
        let naive = update_b(&mut agents, Algorithm::Naive);
        assert_eq!((naive.sequences, naive.cross_sequences), (4, 2));
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
            let st = update(&mut agents[0], 0, &batch).unwrap();
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
            update(&mut agents[learner], learner, &batch).unwrap().loss
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
        let st = update(&mut agents[0], 0, &batch).unwrap();
        assert_eq!(st.origin.cross_below, 1.0, "{st:?}");
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
}
