//! Two (or more) agents of different families doing HACPO steps on the device from rollouts they
//! generate there, through the loop's generation and update functions ([`LocalRun`]).

use std::path::PathBuf;

use anyhow::{Context, Result, bail, ensure};
use clap::Args;
use serde_json::json;
use tch::{Device, Kind, Tensor};
use uuid::Uuid;
use wire::TaskSummary;

use super::{ModelSpec, Target, open_device, write_part};
use crate::config::RunConfig;
use crate::train::LocalRun;

/// Arguments of the agents part.
#[derive(Args)]
pub struct AgentsArgs {
    #[command(flatten)]
    target: Target,
    /// An agent as NAME:CONFIG_JSON:TOKENIZER_DIR; two or more, of different families.
    #[arg(long = "agent", value_name = "NAME:CONFIG:TOKENIZER", required = true)]
    agents: Vec<String>,
    /// Override a numeric config field of every agent, e.g. `num_hidden_layers=2`.
    #[arg(long = "set", value_name = "KEY=NUMBER", value_parser = super::parse_override)]
    overrides: Vec<(String, f64)>,
    /// Training steps.
    #[arg(long, default_value_t = 3)]
    steps: usize,
    /// Prompts per step.
    #[arg(long, default_value_t = 8)]
    prompts: usize,
    /// Responses per agent per prompt (G).
    #[arg(long, default_value_t = 8)]
    group_size: usize,
    /// Most new tokens per response.
    #[arg(long, default_value_t = 256)]
    max_new_tokens: usize,
    /// Sequences per forward/backward pass (the run's `micro_batch`; 0 = a whole mini-batch).
    #[arg(long, default_value_t = 16)]
    micro_batch: usize,
}

/// Arithmetic prompts; their answers are not used (see [`digit_share`]).
fn tasks() -> Result<Vec<TaskSummary>> {
    (0..32u32)
        .map(|i| {
            // Through JSON: the trainer has no clock type of its own for `created_at`.
            Ok(serde_json::from_value(json!({
                "id": Uuid::from_u128(0x6770_7563_6865_636b_0000_0000_0000_0000 | u128::from(i)),
                "dataset": "gpu-check",
                "external_id": i.to_string(),
                "kind": "math",
                "prompt": format!(
                    "What is {} + {}? Put the answer in \\boxed{{}}.",
                    17 * i + 3,
                    29 * i + 11
                ),
                "metadata": {},
                "created_at": "2026-01-01T00:00:00Z",
            }))?)
        })
        .collect()
}

/// The stand-in reward: the share of the response's characters that are ASCII digits, in
/// [0, 1]. Random-weight models never answer correctly, so a correctness reward would give every
/// group zero advantages and leave the loss without gradient; this one varies within a group,
/// so advantages, ratios and gradients are all non-zero. Real rewards come from the verifier,
/// which CI tests with the loop.
fn digit_share(_task: &TaskSummary, response: &str) -> f64 {
    let n = response.chars().count();
    if n == 0 {
        return 0.0;
    }
    response.chars().filter(char::is_ascii_digit).count() as f64 / n as f64
}

fn device_name(d: Device) -> String {
    match d {
        Device::Cuda(i) => format!("cuda:{i}"),
        _ => "cpu".into(),
    }
}

/// A flat copy of an agent's first trainable tensor, to see that updates moved the weights.
fn probe(run: &LocalRun, k: usize) -> Result<Tensor> {
    let vars = run.policy(k).var_store().trainable_variables();
    let first = vars
        .first()
        .context("the model has no trainable variables")?;
    Ok(first
        .detach()
        .to_kind(Kind::Float)
        .to_device(Device::Cpu)
        .copy())
}

/// Runs the part.
pub(super) fn run(a: AgentsArgs) -> Result<()> {
    let device = a.target.device;
    let memory = open_device(device)?;
    ensure!(a.agents.len() >= 2, "give at least two --agent");
    let dir = a.target.out.join("agents");
    let mut families = Vec::new();
    let mut toml = format!(
        "[run]\nname = \"gpu-check\"\nsteps = {steps}\nprompts_per_step = {p}\ngroup_size = {g}\n\
         minibatches = 2\nmicro_batch = {m}\nmax_new_tokens = {t}\noutput_dir = {out:?}\n\
         [verifier]\nurl = \"http://127.0.0.1:9\"\n[data]\ntrain = \"gpu-check\"\n\
         [algorithm]\nalgorithm = \"hacpo\"\n",
        steps = a.steps,
        p = a.prompts,
        g = a.group_size,
        m = a.micro_batch,
        t = a.max_new_tokens,
        out = dir.join("run"),
    );
    for spec in &a.agents {
        let parts: Vec<&str> = spec.splitn(3, ':').collect();
        let [name, config, tokenizer] = parts[..] else {
            bail!("--agent `{spec}`: expected NAME:CONFIG:TOKENIZER");
        };
        let model = ModelSpec {
            name: name.to_owned(),
            config: PathBuf::from(config),
            tokenizer: PathBuf::from(tokenizer),
            overrides: a.overrides.clone(),
        };
        // Built on the CPU in f32 and saved: the run loads it like any starting model.
        let policy = model.policy(Device::Cpu)?;
        families.push(json!({
            "name": name,
            "family": policy.model().config().model_type.as_str(),
            "vocab": policy.model().config().vocab_size,
        }));
        let path = dir.join(name);
        policy.save(&path)?;
        toml += &format!(
            "[[agents]]\nname = {name:?}\nmodel = {path:?}\ndevice = {:?}\nlr = 1e-5\n",
            device_name(device)
        );
    }
    let cfg: RunConfig = toml::from_str(&toml).context("the check's run config")?;
    let mut run = LocalRun::open(cfg)?;
    let n = a.agents.len();
    let before = (0..n).map(|k| probe(&run, k)).collect::<Result<Vec<_>>>()?;
    let tasks = tasks()?;
    let mut steps = Vec::new();
    for step in 1..=a.steps {
        let s = run.step(step, &tasks, &digit_share)?;
        println!(
            "step {step}: generate {:.2}s, update {:.2}s, tokens {:?}, losses {:?}",
            s.generate_seconds,
            s.update_seconds,
            s.tokens,
            s.updates.iter().map(|u| u.loss).collect::<Vec<_>>()
        );
        steps.push(s);
    }
    let moved = (0..n)
        .map(|k| Ok((probe(&run, k)? - &before[k]).abs().max().double_value(&[])))
        .collect::<Result<Vec<f64>>>()?;
    ensure!(
        moved.iter().all(|&m| m > 0.0),
        "an agent's weights did not change over {} steps (max |Δ| per agent: {moved:?})",
        a.steps
    );
    drop(run);
    write_part(
        &a.target.out,
        "agents.json",
        &json!({
            "device": device_name(device),
            "agents": families,
            "steps": steps,
            "max_weight_change": moved,
            "peak_memory_bytes": memory.finish()?,
        }),
    )
}
