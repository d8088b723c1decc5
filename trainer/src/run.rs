//! The training loop (HACPO Algorithm 1) for n heterogeneous agents, and its baselines: every
//! step each agent generates G responses per prompt, the verifier scores and pools them, every
//! learner updates from the step's groups, metrics and checkpoints are written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tch::{Device, Kind, Tensor};
use uuid::Uuid;

use crate::config::{AgentSection, RunConfig};
use crate::generation::{FinishReason, SamplingParams};
use crate::hacpo::{
    Algorithm, CapabilityTracker, GroupMember, SequenceSample, advantages, grpo_loss, kl_k3,
    sequence_loss,
};
use crate::optim::{self, AdamW, clip_grad_norm};
use crate::policy::{Policy, TextPair};
use crate::verifier::{Group, NewRollout, TaskPrompt, VerifierClient};

/// Largest gradient norm; larger gradients are scaled down (HACPO §4).
pub(crate) const MAX_GRAD_NORM: f64 = 1.0;

/// One agent during a run.
struct Agent {
    cfg: AgentSection,
    id: Uuid,
    policy: Policy,
    reference: Option<Policy>,
    opt: AdamW,
}

/// What a learner's update in one step measured.
#[derive(Debug, Default, Clone, Serialize)]
pub struct UpdateStats {
    /// Mean loss over mini-batches.
    pub loss: f64,
    /// Fraction of sequences outside their clip range.
    pub clip_fraction: f64,
    /// Mean KL to the reference (0 without one).
    pub kl: f64,
    /// Mean gradient norm before clipping.
    pub grad_norm: f64,
    /// Sequences trained on (own + others').
    pub sequences: usize,
    /// Of which written by other agents.
    pub cross_sequences: usize,
    /// Mean importance ratio of cross sequences.
    pub cross_ratio_mean: f64,
    /// Sequences skipped because they do not fit the learner's context.
    pub skipped: usize,
}

/// Checkpoint bookkeeping, in `output_dir/state.json`.
#[derive(Debug, Serialize, Deserialize)]
struct RunState {
    /// Last step whose updates are in the saved checkpoints.
    step: usize,
}

/// Runs (or resumes) the training run described by `cfg`.
pub fn run(cfg: &RunConfig) -> Result<()> {
    if cfg.run.threads > 0 {
        tch::set_num_threads(cfg.run.threads);
    }
    let client = VerifierClient::new(&cfg.verifier.url)?;
    let state_path = cfg.run.output_dir.join("state.json");
    let resumed: Option<RunState> = match std::fs::read_to_string(&state_path) {
        Ok(t) => Some(serde_json::from_str(&t).context("reading state.json")?),
        Err(_) => None,
    };
    let start = resumed.as_ref().map_or(1, |s| s.step + 1);
    let mut agents = cfg
        .agents
        .iter()
        .map(|a| {
            let from = match &resumed {
                Some(s) => checkpoint_dir(&cfg.run.output_dir, &a.name, s.step),
                None => a.model.clone(),
            };
            load_agent(a, &from, &client, cfg.algorithm.kl_beta > 0.0)
        })
        .collect::<Result<Vec<_>>>()?;
    let index: HashMap<String, usize> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (a.cfg.name.clone(), i))
        .collect();
    let mut tracker = CapabilityTracker::new(
        agents.len(),
        cfg.algorithm.capability_window,
        cfg.algorithm.omega_min,
        cfg.algorithm.omega_max,
    );
    if start > 1 {
        restore_capabilities(&mut tracker, &agents, &client, &cfg.run.name, start - 1)?;
        tracing::info!(step = start - 1, "resumed from checkpoint");
    }

    let train = client.tasks(&cfg.data.train)?;
    ensure!(
        !train.is_empty(),
        "dataset `{}` has no tasks in the verifier",
        cfg.data.train
    );
    let eval = match &cfg.data.eval {
        Some(d) => {
            let mut t = client.tasks(d)?;
            if cfg.data.eval_size > 0 {
                t.truncate(cfg.data.eval_size);
            }
            t
        }
        None => Vec::new(),
    };
    let g = cfg
        .algorithm
        .algorithm
        .rollouts_per_prompt(cfg.run.group_size);

    for step in start..=cfg.run.steps {
        let t0 = Instant::now();
        let groups = match client.groups(&cfg.run.name, step as i64)? {
            // A crash after submission leaves the step's rollouts in the pool: train on them.
            existing if !existing.is_empty() => existing,
            _ => {
                let prompts = sample_prompts(&train, cfg.run.prompts_per_step, cfg.run.seed, step);
                let rollouts = generate(&agents, &prompts, g, cfg, step)?;
                client.submit(&rollouts)?;
                client.groups(&cfg.run.name, step as i64)?
            }
        };
        let gen_secs = t0.elapsed().as_secs_f64();
        let accuracy = accuracy_per_agent(&groups, &index, agents.len());
        tracker.record(&accuracy);

        let t1 = Instant::now();
        let mut stats = Vec::with_capacity(agents.len());
        for k in 0..agents.len() {
            stats.push(update(
                &mut agents,
                k,
                &groups,
                &index,
                &tracker,
                cfg,
                step,
            )?);
        }
        let train_secs = t1.elapsed().as_secs_f64();
        let tokens: i64 = groups
            .iter()
            .flat_map(|g| &g.rollouts)
            .filter_map(|m| m.token_count.map(i64::from))
            .sum();

        let eval_acc = if cfg.run.eval_every > 0
            && !eval.is_empty()
            && (step % cfg.run.eval_every == 0 || step == cfg.run.steps)
        {
            Some(evaluate(&agents, &eval, &client, cfg, step)?)
        } else {
            None
        };
        for (k, a) in agents.iter().enumerate() {
            let s = &stats[k];
            let omegas: serde_json::Map<String, Value> = agents
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(j, b)| (b.cfg.name.clone(), json!(tracker.omega(j, k))))
                .collect();
            client.record_metrics(&json!({
                "run": cfg.run.name, "agent_id": a.id, "step": step,
                "loss": s.loss, "reward_mean": accuracy[k], "accuracy": accuracy[k],
                "clip_fraction": s.clip_fraction, "kl": s.kl, "grad_norm": s.grad_norm,
                "extra": {
                    "algorithm": cfg.algorithm.algorithm, "capability": tracker.capability(k),
                    "omega_source_over_learner": omegas, "sequences": s.sequences,
                    "cross_sequences": s.cross_sequences, "cross_ratio_mean": s.cross_ratio_mean,
                    "skipped": s.skipped, "eval_accuracy": eval_acc.as_ref().map(|e| e[k]),
                    "generate_seconds": gen_secs, "train_seconds": train_secs,
                },
            }))?;
        }
        let summary: Vec<String> = agents
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let eval = eval_acc
                    .as_ref()
                    .map_or(String::new(), |e| format!(" eval={:.3}", e[k]));
                format!(
                    "{}: acc={:.3} loss={:.4} clip={:.2}{eval}",
                    a.cfg.name, accuracy[k], stats[k].loss, stats[k].clip_fraction
                )
            })
            .collect();
        tracing::info!(
            "step {step}/{} [{}] {:.1}s ({:.0} gen tok/s)",
            cfg.run.steps,
            summary.join("; "),
            t0.elapsed().as_secs_f64(),
            tokens as f64 / gen_secs.max(1e-9)
        );

        if step % cfg.run.checkpoint_every == 0 || step == cfg.run.steps {
            for a in &agents {
                let dir = checkpoint_dir(&cfg.run.output_dir, &a.cfg.name, step);
                a.policy.save(&dir)?;
                a.opt.save(&dir)?;
            }
            std::fs::create_dir_all(&cfg.run.output_dir)?;
            std::fs::write(&state_path, serde_json::to_vec(&RunState { step })?)?;
        }
    }
    Ok(())
}

/// Where an agent's checkpoint after `step` lives.
pub fn checkpoint_dir(output: &Path, agent: &str, step: usize) -> PathBuf {
    output.join(agent).join(format!("step-{step}"))
}

/// Parses `cpu`, `cuda` or `cuda:N`.
pub fn parse_device(s: &str) -> Result<Device> {
    Ok(match s {
        "cpu" => Device::Cpu,
        "cuda" => Device::Cuda(0),
        other => match other.strip_prefix("cuda:") {
            Some(n) => Device::Cuda(n.parse().with_context(|| format!("bad device {other}"))?),
            None => bail!("unknown device `{other}` (cpu, cuda, cuda:N)"),
        },
    })
}

fn load_agent(
    cfg: &AgentSection,
    from: &Path,
    client: &VerifierClient,
    with_reference: bool,
) -> Result<Agent> {
    let device = parse_device(&cfg.device)?;
    let policy = Policy::load(from, device)
        .with_context(|| format!("loading agent {} from {}", cfg.name, from.display()))?;
    // The KL reference is the agent's starting model, frozen.
    let reference = if with_reference {
        Some(Policy::load(&cfg.model, device)?)
    } else {
        None
    };
    let id = register_agent(client, &cfg.name, &policy)?;
    let mut opt = AdamW::new(policy.var_store(), cfg.lr, cfg.weight_decay);
    // Resuming from a checkpoint continues the optimisation it was taken in.
    if from != cfg.model {
        if from.join(optim::STATE_FILE).is_file() {
            opt.load(from)
                .with_context(|| format!("restoring {}'s optimizer", cfg.name))?;
        } else {
            tracing::warn!(agent = %cfg.name, dir = %from.display(), "checkpoint has no optimizer state; AdamW restarts its moments");
        }
    }
    Ok(Agent {
        cfg: cfg.clone(),
        id,
        policy,
        reference,
        opt,
    })
}

/// Registers (or finds) the agent `name` in the pool, describing it by `policy`.
pub fn register_agent(client: &VerifierClient, name: &str, policy: &Policy) -> Result<Uuid> {
    let mc = policy.model().config();
    let params: i64 = policy
        .var_store()
        .trainable_variables()
        .iter()
        .map(Tensor::numel)
        .sum::<usize>() as i64;
    client.register_agent(
        name,
        &mc.model_type,
        params,
        &format!("vocab{}", mc.vocab_size),
    )
}

fn restore_capabilities(
    tracker: &mut CapabilityTracker,
    agents: &[Agent],
    client: &VerifierClient,
    run: &str,
    upto: usize,
) -> Result<()> {
    let histories = agents
        .iter()
        .map(|a| {
            let h = client.accuracy_history(a.id, run)?;
            Ok(h.into_iter()
                .filter(|s| s.step as usize <= upto)
                .map(|s| (s.step, s.accuracy))
                .collect::<HashMap<_, _>>())
        })
        .collect::<Result<Vec<_>>>()?;
    for step in 1..=upto as i64 {
        let acc: Option<Vec<f64>> = histories.iter().map(|h| h.get(&step).copied()).collect();
        if let Some(acc) = acc {
            tracker.record(&acc);
        }
    }
    Ok(())
}

/// The prompts of `step`: a deterministic draw (seed, step) without replacement.
fn sample_prompts(tasks: &[TaskPrompt], n: usize, seed: u64, step: usize) -> Vec<TaskPrompt> {
    let mut rng = SplitMix64(seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut idx: Vec<usize> = (0..tasks.len()).collect();
    // Partial Fisher–Yates.
    for i in 0..n.min(idx.len()) {
        let j = i + rng.below(idx.len() - i);
        idx.swap(i, j);
    }
    idx.into_iter().take(n).map(|i| tasks[i].clone()).collect()
}

/// splitmix64: small, fast and identical on every platform (prompt draws, generated tasks).
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every agent samples `g` responses per prompt; their mean token log-probs are recomputed by
/// the training model through the same re-tokenizing path learners use, so self ratios start at 1
/// (up to the rounding of differently padded batches).
fn generate(
    agents: &[Agent],
    prompts: &[TaskPrompt],
    g: usize,
    cfg: &RunConfig,
    step: usize,
) -> Result<Vec<NewRollout>> {
    let mut rollouts = Vec::new();
    for (a_idx, a) in agents.iter().enumerate() {
        let messages: Vec<String> = prompts
            .iter()
            .flat_map(|p| std::iter::repeat_n(p.prompt.clone(), g))
            .collect();
        let params = SamplingParams {
            max_new_tokens: cfg.run.max_new_tokens,
            temperature: cfg.run.temperature,
            top_p: cfg.run.top_p,
            seed: Some(
                (cfg.run.seed as i64)
                    .wrapping_mul(1_000_003)
                    .wrapping_add((step * 101 + a_idx) as i64),
            ),
            ..SamplingParams::default()
        };
        let gens = tch::no_grad(|| a.policy.generate(&messages, &params))?;
        let pairs: Vec<TextPair> = gens
            .iter()
            .zip(&messages)
            .map(|(o, m)| text_pair(m, &o.text, o.sampled.finish_reason == FinishReason::Stop))
            .collect();
        // Scored `micro_batch` sequences at a time, like the update: one pass over a whole
        // step's responses would hold [responses × tokens × vocabulary] logits at once.
        let mut means = Vec::with_capacity(pairs.len());
        let mut lengths = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(cfg.run.micro_chunk()) {
            let scores = tch::no_grad(|| a.policy.score_texts(chunk))?;
            means.extend(Vec::<f64>::try_from(
                &scores
                    .mean_logprob
                    .to_kind(Kind::Double)
                    .to_device(Device::Cpu),
            )?);
            lengths.extend(scores.lengths);
        }
        for (i, o) in gens.iter().enumerate() {
            let tokens = o.sampled.token_ids.len() as i32;
            rollouts.push(NewRollout {
                id: Uuid::new_v4(),
                task_id: prompts[i / g].id,
                agent_id: a.id,
                run: cfg.run.name.clone(),
                step: step as i64,
                policy_version: step as i64 - 1,
                response: o.text.clone(),
                token_count: tokens,
                logprob_mean: means[i].min(0.0),
                logprob_sum: (means[i] * lengths[i] as f64).min(0.0),
                metadata: json!({ "ends_turn": pairs[i].ends_turn }),
            });
        }
    }
    Ok(rollouts)
}

/// A (prompt, response) pair; an empty unfinished response is scored as finished so that it has
/// at least one token.
fn text_pair(prompt: &str, response: &str, ends_turn: bool) -> TextPair {
    TextPair {
        prompt: prompt.to_string(),
        response: response.to_string(),
        ends_turn: ends_turn || response.is_empty(),
    }
}

fn accuracy_per_agent(groups: &[Group], index: &HashMap<String, usize>, n: usize) -> Vec<f64> {
    let mut sum = vec![0.0; n];
    let mut count = vec![0usize; n];
    for m in groups.iter().flat_map(|g| &g.rollouts) {
        if let Some(&j) = index.get(&m.agent) {
            sum[j] += m.reward;
            count[j] += 1;
        }
    }
    sum.iter()
        .zip(&count)
        .map(|(s, &c)| if c == 0 { 0.0 } else { s / c as f64 })
        .collect()
}

/// One learner's update from the step's groups: advantages, mini-batches, optimizer steps.
fn update(
    agents: &mut [Agent],
    k: usize,
    groups: &[Group],
    index: &HashMap<String, usize>,
    tracker: &CapabilityTracker,
    cfg: &RunConfig,
    step: usize,
) -> Result<UpdateStats> {
    let hc = &cfg.algorithm;
    let learner = &agents[k];
    let context = learner.policy.model().config().max_position_embeddings as usize;
    let mut items: Vec<(TextPair, SequenceSample)> = Vec::new();
    let mut skipped = 0;
    for g in groups {
        let members: Vec<(usize, &crate::verifier::Member)> = g
            .rollouts
            .iter()
            .filter_map(|m| index.get(&m.agent).map(|&j| (j, m)))
            .collect();
        let gm: Vec<GroupMember> = members
            .iter()
            .map(|(j, m)| GroupMember {
                source: *j,
                reward: m.reward,
            })
            .collect();
        let adv = advantages(&gm, k, tracker, hc);
        for ((j, m), a) in members.iter().zip(adv) {
            if !hc.algorithm.shares() && *j != k {
                continue;
            }
            let pair = text_pair(&g.prompt, &m.response, m.ends_turn());
            let len = learner.policy.encode_prompt(&pair.prompt)?.len()
                + learner
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
                    omega: tracker.omega(*j, k),
                },
            ));
        }
    }
    if items.is_empty() {
        return Ok(UpdateStats {
            skipped,
            ..Default::default()
        });
    }
    shuffle(&mut items, cfg.run.seed ^ (step as u64) << 8 ^ k as u64);
    let chunk = items.len().div_ceil(cfg.run.minibatches);
    let batches: Vec<&[(TextPair, SequenceSample)]> = items.chunks(chunk).collect();
    let micro = cfg.run.micro_chunk();
    // GRPO's token ratios need the old policy's token log-probs: taken before any update, per
    // micro-batch so that their shapes match the scores taken during the update.
    let old_tokens: Vec<Vec<Option<Tensor>>> = batches
        .iter()
        .map(|b| {
            b.chunks(micro)
                .map(|mb| {
                    if hc.algorithm != Algorithm::Grpo {
                        return Ok(None);
                    }
                    let pairs: Vec<TextPair> = mb.iter().map(|(p, _)| p.clone()).collect();
                    Ok(Some(
                        tch::no_grad(|| agents[k].policy.score_texts(&pairs))?.token_logprobs,
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
    for (m, (batch, old)) in batches.iter().zip(old_tokens).enumerate() {
        let agent = &mut agents[k];
        agent.opt.zero_grad();
        let n_seq = batch.len() as f64;
        let n_self = batch.iter().filter(|(_, s)| !s.cross).count().max(1) as f64;
        let (mut loss_sum, mut kl_sum, mut clipped) = (0.0, 0.0, 0.0);
        // Gradient accumulation: the loss is a mean of per-sequence terms, so each micro-batch's
        // share (its terms summed, over the mini-batch size) back-propagates on its own and the
        // update is the same as with the whole mini-batch in one pass.
        for (micro_batch, old) in batch.chunks(micro).zip(old) {
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
                "{}: non-finite loss at step {step}",
                agent.cfg.name
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

fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed.wrapping_add(0x2545_F491_4F6C_DD1D);
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

/// Greedy pass@1 of every agent on the held-out tasks.
fn evaluate(
    agents: &[Agent],
    tasks: &[TaskPrompt],
    client: &VerifierClient,
    cfg: &RunConfig,
    step: usize,
) -> Result<Vec<f64>> {
    let run = format!("{}/eval", cfg.run.name);
    agents
        .iter()
        .map(|a| {
            evaluate_policy(
                &a.policy,
                a.id,
                tasks,
                client,
                &run,
                step,
                cfg.run.max_new_tokens,
            )
        })
        .collect()
}

/// Greedy pass@1 of one policy on `tasks`; the rollouts are pooled under `run` (by convention
/// `<training run>/eval`) and `step`, so they can be inspected with SQL like training ones.
pub fn evaluate_policy(
    policy: &Policy,
    agent_id: Uuid,
    tasks: &[TaskPrompt],
    client: &VerifierClient,
    run: &str,
    step: usize,
    max_new_tokens: usize,
) -> Result<f64> {
    let messages: Vec<String> = tasks.iter().map(|t| t.prompt.clone()).collect();
    let gens =
        tch::no_grad(|| policy.generate(&messages, &SamplingParams::greedy(max_new_tokens)))?;
    let rollouts: Vec<NewRollout> = gens
        .iter()
        .zip(tasks)
        .map(|(o, t)| {
            let n = o.sampled.logprobs.len();
            let sum: f64 = o.sampled.logprobs.iter().map(|&x| f64::from(x)).sum();
            let mean = if n == 0 { 0.0 } else { sum / n as f64 };
            NewRollout {
                id: Uuid::new_v4(),
                task_id: t.id,
                agent_id,
                run: run.to_string(),
                step: step as i64,
                policy_version: step as i64,
                response: o.text.clone(),
                token_count: n as i32,
                logprob_mean: mean.min(0.0),
                logprob_sum: sum.min(0.0),
                metadata: json!({ "greedy": true }),
            }
        })
        .collect();
    let scored = client.submit(&rollouts)?;
    Ok(scored.iter().map(|s| s.reward).sum::<f64>() / scored.len().max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DataSection, RunSection, VerifierSection};
    use crate::hacpo::HacpoConfig;
    use crate::optim::tests::flat_weights;
    use crate::verifier::Member;

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
            device: "cpu".into(),
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
        let stats = update(
            &mut agents,
            0,
            std::slice::from_ref(&g),
            &index,
            &tracker,
            &cfg,
            1,
        )
        .unwrap();
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
                let st = update(&mut agents, 0, &[g], &index, &tracker, &cfg, 1).unwrap();
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
        for algorithm in [Algorithm::Gspo, Algorithm::Grpo] {
            let st = update(
                &mut agents,
                1,
                std::slice::from_ref(&g),
                &index,
                &tracker,
                &run_config(algorithm),
                1,
            )
            .unwrap();
            assert_eq!((st.sequences, st.cross_sequences), (2, 0), "{algorithm:?}");
            assert!(st.loss.is_finite());
        }
        let naive = update(
            &mut agents,
            1,
            std::slice::from_ref(&g),
            &index,
            &tracker,
            &run_config(Algorithm::Naive),
            1,
        )
        .unwrap();
        assert_eq!((naive.sequences, naive.cross_sequences), (4, 2));
    }

    #[test]
    fn prompt_draws_are_deterministic_and_without_replacement() {
        let tasks: Vec<TaskPrompt> = (0..10)
            .map(|i| TaskPrompt {
                id: Uuid::new_v4(),
                external_id: i.to_string(),
                prompt: format!("p{i}"),
            })
            .collect();
        let a: Vec<String> = sample_prompts(&tasks, 5, 3, 7)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        let b: Vec<String> = sample_prompts(&tasks, 5, 3, 7)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        let c: Vec<String> = sample_prompts(&tasks, 5, 3, 8)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 5);
    }
}
