//! Algorithm 1's learning step for one learner k: its batch from the step's groups (all n·G
//! responses per prompt when the rule shares, re-tokenized with k's tokenizer), A_k, then one
//! AdamW step per mini-batch (m = 0, 1, … for the stepwise clip), micro-batched.

use std::collections::HashMap;

use anyhow::{Context, Result, ensure};
use tch::{Kind, Tensor};

use super::agent::Agent;
use super::generate::text_pair;
use super::metrics::UpdateStats;
use crate::config::RunConfig;
use crate::hacpo::{
    CapabilityTracker, GroupMember, SequenceSample, advantages, grpo_loss, kl_k3, sequence_loss,
};
use crate::optim::{MAX_GRAD_NORM, clip_grad_norm};
use crate::policy::TextPair;
use crate::rng::shuffle;
use crate::verifier::{Group, Member};

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
    let chunk = items.len().div_ceil(batch.cfg.run.minibatches);
    let batches: Vec<&[(TextPair, SequenceSample)]> = items.chunks(chunk).collect();
    let micro = batch.cfg.run.micro_chunk();
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
                    let pairs: Vec<TextPair> = mb.iter().map(|(p, _)| p.clone()).collect();
                    Ok(Some(
                        tch::no_grad(|| agent.policy.score_texts(&pairs))?.token_logprobs,
                    ))
                })
                .collect()
        })
        .collect::<Result<_>>()?;

    let mut st = UpdateStats {
        sequences: items.len(),
        skipped,
        ..Default::default()
    };
    let (mut cross_ratio_sum, mut cross_n) = (0.0, 0usize);
    for (m, (batch_m, old)) in batches.iter().zip(old_tokens).enumerate() {
        agent.opt.zero_grad();
        let n_seq = batch_m.len() as f64;
        let n_self = batch_m.iter().filter(|(_, s)| !s.cross).count().max(1) as f64;
        let (mut loss_sum, mut kl_sum, mut clipped) = (0.0, 0.0, 0.0);
        // Gradient accumulation: the loss is a mean of per-sequence terms, so each micro-batch's
        // share (its terms summed, over the mini-batch size) back-propagates on its own and the
        // update is the same as with the whole mini-batch in one pass.
        for (micro_batch, old) in batch_m.chunks(micro).zip(old) {
            let pairs: Vec<TextPair> = micro_batch.iter().map(|(p, _)| p.clone()).collect();
            let samples: Vec<SequenceSample> = micro_batch.iter().map(|(_, s)| *s).collect();
            let scores = agent.policy.score_texts(&pairs)?;
            let out = match old {
                Some(old) => {
                    let adv: Vec<f64> = samples.iter().map(|s| s.advantage).collect();
                    grpo_loss(&scores.token_logprobs, &old, &scores.mask, &adv, hc)
                }
                None => sequence_loss(&scores.mean_logprob, &samples, m, hc),
            };
            let mut loss = out.terms.sum(Kind::Float) / n_seq;
            if let Some(reference) = &agent.reference {
                let self_rows: Vec<i64> = samples
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| !s.cross)
                    .map(|(i, _)| i as i64)
                    .collect();
                if !self_rows.is_empty() {
                    let rows = Tensor::from_slice(&self_rows).to_device(agent.policy.device());
                    let ref_scores = tch::no_grad(|| reference.score_texts(&pairs))?;
                    let kl = kl_k3(
                        &scores.token_logprobs.index_select(0, &rows),
                        &ref_scores.token_logprobs.index_select(0, &rows),
                        &scores.mask.index_select(0, &rows),
                    )
                    .sum(Kind::Float)
                        / n_self;
                    kl_sum += kl.double_value(&[]);
                    loss += kl * hc.kl_beta;
                }
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
            clipped += out.clip_fraction * samples.len() as f64;
            for (s, r) in samples.iter().zip(&out.ratios) {
                if s.cross {
                    cross_ratio_sum += r;
                    cross_n += 1;
                }
            }
        }
        st.grad_norm += clip_grad_norm(agent.policy.var_store(), MAX_GRAD_NORM);
        agent.opt.step();
        st.loss += loss_sum;
        st.kl += kl_sum;
        st.clip_fraction += clipped / n_seq;
    }
    let n = batches.len() as f64;
    st.loss /= n;
    st.clip_fraction /= n;
    st.kl /= n;
    st.grad_norm /= n;
    st.cross_sequences = cross_n;
    st.cross_ratio_mean = if cross_n > 0 {
        cross_ratio_sum / cross_n as f64
    } else {
        0.0
    };
    Ok(st)
}

/// Learner `k`'s sequences of the step with their advantage, ℓ_old and ω (in group order), and
/// how many were skipped for not fitting its context.
fn learner_batch(
    agent: &Agent,
    k: usize,
    batch: &UpdateBatch,
) -> Result<(Vec<(TextPair, SequenceSample)>, usize)> {
    let hc = &batch.cfg.algorithm;
    let context = agent.policy.model().config().max_position_embeddings as usize;
    let mut items = Vec::new();
    let mut skipped = 0;
    for g in batch.groups {
        let members: Vec<(usize, &Member)> = g
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
        for ((j, m), a) in members.iter().zip(adv) {
            if !hc.algorithm.shares() && *j != k {
                continue;
            }
            let pair = text_pair(&g.prompt, &m.response, m.ends_turn());
            let len = agent.policy.encode_prompt(&pair.prompt)?.len()
                + agent
                    .policy
                    .encode_response(&pair.response, pair.ends_turn)?
                    .len();
            if len > context {
                skipped += 1;
                continue;
            }
            let old = m.logprob_mean.with_context(|| {
                format!(
                    "rollout {} has no log-prob: it was not generated by this trainer",
                    m.id
                )
            })?;
            items.push((
                pair,
                SequenceSample {
                    cross: *j != k,
                    advantage: a,
                    old_logprob: old,
                    omega: batch.tracker.omega(*j, k),
                },
            ));
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
        let s = tch::no_grad(|| p.score_texts(&[text_pair(prompt, response, true)])).unwrap();
        s.mean_logprob.double_value(&[0])
    }

    /// One prompt: each agent wrote a right and a wrong answer. Old log-probs are the sources' own.
    fn group(agents: &[Agent]) -> Group {
        let prompt = "2+2=";
        let member = |agent: &Agent, response: &str, reward: f64| Member {
            id: Uuid::new_v4(),
            agent: agent.cfg.name.clone(),
            response: response.into(),
            reward,
            token_count: Some(1),
            logprob_mean: Some(mean_logprob(&agent.policy, prompt, response)),
            metadata: json!({ "ends_turn": true }),
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
        // Give b's responses old log-probs equal to the learner's current ones, so that cross
        // ratios start at 1 and their gradients flow (random models of different architecture
        // would otherwise sit outside [0.8, 1] and be dropped).
        let mut g = group(&agents);
        for m in g.rollouts.iter_mut().filter(|m| m.agent == "b") {
            m.logprob_mean = Some(mean_logprob(&agents[0].policy, &g.prompt, &m.response));
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
                    m.logprob_mean = Some(mean_logprob(&agents[0].policy, &g.prompt, &m.response));
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
                assert!((st.grad_norm - one.grad_norm).abs() < 1e-4 * one.grad_norm);
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
}
