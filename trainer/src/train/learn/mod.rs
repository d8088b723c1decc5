//! Algorithm 1's learning step for one learner k: its batch from the step's groups (all n·G
//! responses per prompt when the rule shares), A_k, then one AdamW step per mini-batch (m = 0, 1,
//! … for the stepwise clip), micro-batched.
//!
//! Trajectories are token ids under k's tokenizer: the ids that were sampled when k wrote the
//! response (or an agent with the same tokenizer did), the re-encoded text otherwise. The
//! terminal end-of-turn token is in no trajectory, as in the official code.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use tch::{Kind, Tensor};
use uuid::Uuid;

use super::agent::Agent;
use super::metrics::{RolloutUse, UpdateStats, UpdateTally};
use crate::config::RunConfig;
use crate::hacpo::calibration::calibrated_old_logprob;
use crate::hacpo::staleness::{admitted, behaviour_weight, staleness};
use crate::hacpo::{
    CapabilityTracker, CrossRatio, CrossRule, GroupMember, HacpoConfig, KlScope, MinibatchOrder,
    PairCalibration, SequenceSample, advantages, grpo_loss, kl_k3, sequence_loss,
};
use crate::optim::{MAX_GRAD_NORM, clip_grad_norm};
use crate::progress::Phase;
use crate::rng::shuffle;
use wire::Group;

/// What every learner of a step learns from: the step's groups read back from the pool (and in
/// an asynchronous run the last η steps' groups), the capabilities after this step's update, and
/// the run's settings.
pub(super) struct UpdateBatch<'a> {
    /// Every agent's responses, per prompt, by step (s, its groups): this step's last.
    pub(super) groups: Vec<(usize, &'a [Group])>,
    /// Per agent position k: the rollouts learner k has trained on in earlier updates (an
    /// asynchronous run reads a step's groups again until η has passed); none past the end.
    pub(super) used: &'a [HashSet<Uuid>],
    /// Agent name → position (k, j).
    pub(super) index: &'a HashMap<String, usize>,
    /// P̂ and ω.
    pub(super) tracker: &'a CapabilityTracker,
    /// ŝ_{j→k} of every direction, for [`CrossRule::Calibrated`].
    pub(super) calibration: &'a PairCalibration,
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
    /// The agent that wrote it.
    source: usize,
    /// ŝ the sample's ratio is divided by ([`CrossRule::Calibrated`]; 1 otherwise).
    offset: f64,
    /// The rollout, and how many of the learner's updates old it is.
    used: RolloutUse,
}

impl Trajectory {
    /// What ℓ divides the summed token log-prob by: the learner's token count, or for a cross
    /// sample under [`CrossRatio::PerByte`] the text's bytes.
    fn normaliser(&self, unit: CrossRatio) -> f64 {
        if self.sample.cross {
            unit.normaliser(self.response.len(), self.bytes)
        } else {
            self.response.len() as f64
        }
    }
}

/// Learner `k`'s update (`agent` is agent k): advantages, mini-batches, optimizer steps.
/// `phase` counts `run.minibatches` for the update, one per optimizer step (fewer sequences
/// than that make fewer steps: the rest count at the end).
pub(super) fn update(
    agent: &mut Agent,
    k: usize,
    batch: &UpdateBatch,
    phase: &Phase,
) -> Result<UpdateStats> {
    let hc = &batch.cfg.algorithm;
    let (items, skipped) = learner_batch(agent, k, batch)?;
    if items.is_empty() {
        phase.inc(batch.cfg.run.minibatches);
        return Ok(UpdateStats {
            skipped,
            displacement: displacement(agent),
            ..Default::default()
        });
    }
    let temperature = hc.logprob_temperature.divisor(batch.cfg.run.temperature);
    let mut items = items;
    decouple_stale(
        agent,
        &mut items,
        batch.cfg.run.micro_chunk(),
        temperature,
        hc,
    )?;
    let uses: Vec<RolloutUse> = items.iter().map(|t| t.used).collect();
    let cross: Vec<f64> = (items.iter().filter(|t| t.sample.cross))
        .map(|t| t.used.staleness as f64)
        .collect();
    let cross_staleness_mean =
        (!cross.is_empty()).then(|| cross.iter().sum::<f64>() / cross.len() as f64);
    let minibatches = arrange(
        items,
        hc,
        batch.cfg.run.minibatches,
        batch.cfg.run.seed ^ (batch.step as u64) << 8 ^ k as u64,
    );
    let batches: Vec<&[Trajectory]> = minibatches.iter().map(Vec::as_slice).collect();
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
                        tch::no_grad(|| agent.policy.score_ids_at(&ids(mb), temperature))?
                            .token_logprobs,
                    ))
                })
                .collect()
        })
        .collect::<Result<_>>()?;

    let mut tally = UpdateTally::default();
    for (m, (batch_m, old)) in batches.iter().zip(old_tokens).enumerate() {
        agent.opt.zero_grad();
        let n_seq = batch_m.len() as f64;
        let lower = hc.gradient_floor(m);
        let (mut loss_sum, mut kl_sum) = (0.0, 0.0);
        // Gradient accumulation: the loss is a mean of per-sequence terms, so each micro-batch's
        // share (its terms summed, over the mini-batch size) back-propagates on its own and the
        // update is the same as with the whole mini-batch in one pass.
        for (micro_batch, old) in batch_m.chunks(micro).zip(old) {
            let samples: Vec<SequenceSample> = micro_batch.iter().map(|t| t.sample).collect();
            let pairs = ids(micro_batch);
            let scores = agent.policy.score_ids_at(&pairs, temperature)?;
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
                // The official seq-mean-token-mean: each sequence's token-mean KL, summed over
                // the sequences `kl_scope` covers and divided by the mini-batch's sequences.
                let ref_scores = tch::no_grad(|| reference.score_ids_at(&pairs, temperature))?;
                let per_seq = kl_k3(
                    &scores.token_logprobs,
                    &ref_scores.token_logprobs,
                    &scores.mask,
                );
                let own = own_mask(&samples, per_seq.device());
                tally.kl_own += (per_seq.detach() * &own)
                    .sum(Kind::Double)
                    .double_value(&[]);
                let kl = kl_penalty(&per_seq, &own, hc.kl_scope) / n_seq;
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
                    t.source,
                    &t.sample,
                    (out.ratios[i], t.offset),
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
        phase.inc(1);
    }
    phase.inc(batch.cfg.run.minibatches.saturating_sub(batches.len()));
    let mut stats = tally.finish(batches.len(), skipped, displacement(agent));
    stats.uses = uses;
    stats.cross_staleness_mean = cross_staleness_mean;
    if hc.cross_rule == CrossRule::Calibrated {
        stats.calibration_offsets = (0..batch.cfg.agents.len())
            .filter(|&j| j != k)
            .map(|j| (j, batch.calibration.offset(j, k)))
            .collect();
    }
    Ok(stats)
}

/// Own samples generated by older weights than the learner's now (staleness > 0): ℓ_old
/// becomes the proximal policy's (these weights, before this update's first step) and the
/// sample takes the decoupled weight min(π_prox / π_behav, cap) ([`behaviour_weight`]); fresh
/// samples keep ℓ_old = ℓ_behav and weight 1, so a synchronous run is unchanged.
fn decouple_stale(
    agent: &Agent,
    items: &mut [Trajectory],
    micro: usize,
    temperature: f64,
    hc: &HacpoConfig,
) -> Result<()> {
    let stale: Vec<usize> = (0..items.len())
        .filter(|&i| !items[i].sample.cross && items[i].used.staleness > 0)
        .collect();
    for part in stale.chunks(micro) {
        let pairs: Vec<(Vec<i64>, Vec<i64>)> = part
            .iter()
            .map(|&i| (items[i].prompt.clone(), items[i].response.clone()))
            .collect();
        let scores = tch::no_grad(|| agent.policy.score_ids_at(&pairs, temperature))?;
        let prox = Vec::<f64>::try_from(
            &scores
                .mean_logprob
                .to_kind(Kind::Double)
                .to_device(tch::Device::Cpu),
        )?;
        for (&i, prox) in part.iter().zip(prox) {
            let s = &mut items[i].sample;
            s.behaviour_weight = behaviour_weight(prox, s.old_logprob, hc.behaviour_weight_cap);
            s.old_logprob = prox;
        }
    }
    Ok(())
}

/// A learner's sequences (in group order) as `count` mini-batches m = 0, 1, … in the config's
/// order, `seed` drawing any shuffle; fewer when there are fewer sequences.
fn arrange(
    mut items: Vec<Trajectory>,
    hc: &HacpoConfig,
    count: usize,
    seed: u64,
) -> Vec<Vec<Trajectory>> {
    let in_chunks = |items: Vec<Trajectory>, pieces: usize| -> Vec<Vec<Trajectory>> {
        let size = items_per(items.len(), pieces);
        items.chunks(size).map(<[_]>::to_vec).collect()
    };
    // Stable sorts: each part keeps its group (or shuffled) order.
    match hc.minibatch_order {
        MinibatchOrder::Shuffled => {
            shuffle(&mut items, seed);
            in_chunks(items, count)
        }
        MinibatchOrder::OwnFirstShuffled => {
            shuffle(&mut items, seed);
            items.sort_by_key(|t| t.sample.cross);
            in_chunks(items, count)
        }
        MinibatchOrder::OwnFirst => {
            items.sort_by_key(|t| t.sample.cross);
            // One contiguous part per rank; mini-batch m is every part's m-th slice. No more
            // ranks than leave each at least one sequence per mini-batch (verl would refuse).
            let ranks = hc
                .data_parallel_ranks
                .clamp(1, (items.len() / count.max(1)).max(1));
            let slice = items_per(items_per(items.len(), ranks), count);
            let parts = in_chunks(items, ranks);
            (0..count)
                .map(|m| {
                    parts
                        .iter()
                        .flat_map(|p| p.iter().skip(m * slice).take(slice).cloned())
                        .collect::<Vec<_>>()
                })
                .filter(|mb| !mb.is_empty())
                .collect()
        }
    }
}

/// Items per piece when `n` items are cut into `pieces` (the last piece may be shorter).
fn items_per(n: usize, pieces: usize) -> usize {
    n.div_ceil(pieces.max(1)).max(1)
}

/// 1.0 for the learner's own sequences, 0.0 for cross ones [B].
fn own_mask(samples: &[SequenceSample], device: tch::Device) -> Tensor {
    let own: Vec<f32> = samples
        .iter()
        .map(|s| f32::from(u8::from(!s.cross)))
        .collect();
    Tensor::from_slice(&own).to_device(device)
}

/// The KL penalty's sum over a micro-batch's sequences (`per_seq` [B], each sequence's
/// token-mean KL) under `scope`: over own sequences only, the authors' way, cross sequences get
/// exactly zero gradient from it.
fn kl_penalty(per_seq: &Tensor, own: &Tensor, scope: KlScope) -> Tensor {
    match scope {
        KlScope::Own => (per_seq * own).sum(Kind::Float),
        KlScope::All => per_seq.sum(Kind::Float),
    }
}

/// ‖θ − θ₀‖ over every weight, θ₀ the frozen reference (the run's start); `None` without one.
/// Step sizes then compare across rules whose losses differ in scale.
fn displacement(agent: &Agent) -> Option<f64> {
    let reference = agent.reference.as_ref()?.var_store().variables();
    // By name: `variables()` is a HashMap, and a sum in its order differs in the last bits
    // from one process to the next.
    let weights: std::collections::BTreeMap<String, Tensor> =
        agent.policy.var_store().variables().into_iter().collect();
    let sq: f64 = tch::no_grad(|| {
        weights
            .iter()
            .filter_map(|(name, w)| {
                let w0 = reference.get(name)?;
                // Summed in f64 without f64 copies of the weights (a 262k-row embedding
                // would double in memory at every step).
                Some((w - w0).square().sum(Kind::Double).double_value(&[]))
            })
            .sum()
    });
    Some(sq.sqrt())
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
    let t = batch.step as u64;
    let eta = batch.cfg.run.max_staleness;
    for (s, g) in (batch.groups.iter()).flat_map(|&(s, groups)| groups.iter().map(move |g| (s, g)))
    {
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
            // Isolated rules skip other agents' responses; distillation keeps the correct ones.
            if cross && !hc.algorithm.shares() && !(hc.algorithm.distills() && m.correct) {
                continue;
            }
            // Versions count updates, so a step-s rollout is generated by version s − 1 when
            // its author is on time; the learner is at version t − 1.
            let stale = match cross {
                true => staleness(t as i64 - 1, s as i64 - 1),
                false => staleness(t as i64 - 1, m.policy_version),
            };
            let in_time = match cross {
                // A partner's rollout teaches once, while its step is at most η behind.
                true => {
                    admitted(t, s as u64, eta.unwrap_or(0))
                        && !batch.used.get(k).is_some_and(|u| u.contains(&m.id))
                }
                // Own rollouts are trained on in their own step only (and dropped when their
                // weights are more than η updates old).
                false => s as u64 == t && eta.is_none_or(|eta| stale <= eta),
            };
            if !in_time {
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
            let offset = match hc.cross_rule {
                CrossRule::Calibrated if cross => batch.calibration.offset(*j, k),
                _ => 1.0,
            };
            items.push(Trajectory {
                prompt: prompt.clone(),
                response,
                bytes,
                source: *j,
                offset,
                sample: SequenceSample {
                    cross,
                    advantage: a,
                    old_logprob: calibrated_old_logprob(old_logprob, offset),
                    omega: batch.tracker.omega(*j, k),
                    behaviour_weight: 1.0,
                },
                used: RolloutUse {
                    id: m.id,
                    staleness: stale,
                },
            });
        }
    }
    Ok((items, skipped))
}

#[cfg(test)]
mod tests;
