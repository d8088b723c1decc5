//! The TOML file that describes a training run: agents, algorithm, data, verifier.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use tch::Device;
use wire::client::blocking::Client;
use wire::retry::RetryPolicy;

use crate::hacpo::HacpoConfig;

/// A whole run (`trainer run --config run.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Loop settings.
    pub run: RunSection,
    /// Where rollouts are scored and pooled.
    pub verifier: VerifierSection,
    /// Training and evaluation tasks.
    pub data: DataSection,
    /// Update rule and hyperparameters (defaults: the paper's).
    #[serde(default)]
    pub algorithm: HacpoConfig,
    /// The agents, at least one (two or more for sharing rules).
    pub agents: Vec<AgentSection>,
}

/// Loop settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Run name: the `run` column of every rollout and metric.
    pub name: String,
    /// Training steps.
    pub steps: usize,
    /// Seed for prompt sampling and generation.
    #[serde(default)]
    pub seed: u64,
    /// Prompts per training step.
    pub prompts_per_step: usize,
    /// G: responses per agent per prompt.
    pub group_size: usize,
    /// Optimizer steps per training step (the batch is split into this many mini-batches); the
    /// paper's 4, so that the stepwise clip rises through 0.8, 0.825, 0.85, 0.875.
    #[serde(default = "four")]
    pub minibatches: usize,
    /// Sequences per forward/backward pass within a mini-batch (gradient accumulation); 0 = the
    /// whole mini-batch at once. Bounds activation memory, which the [sequences × response
    /// tokens × vocabulary] logits dominate for large vocabularies, without changing the update.
    #[serde(default)]
    pub micro_batch: usize,
    /// Most new tokens per response.
    pub max_new_tokens: usize,
    /// Sampling temperature.
    #[serde(default = "one_f")]
    pub temperature: f64,
    /// Nucleus mass.
    #[serde(default = "one_f")]
    pub top_p: f64,
    /// Save every agent every this many steps (and at the end).
    #[serde(default = "one")]
    pub checkpoint_every: usize,
    /// Evaluate every this many steps (and at the end); 0 disables.
    #[serde(default)]
    pub eval_every: usize,
    /// Checkpoints and run state; relative paths are relative to the config file.
    pub output_dir: PathBuf,
    /// libtorch intra-op threads (0: libtorch's default).
    #[serde(default)]
    pub threads: i32,
    /// Pin libtorch's CPU kernels to AVX2 (see `kernels`), so that the run computes the same on
    /// CPUs of different generations, at some cost in speed (docs/benchmarks/trainer.md#kernels).
    #[serde(default)]
    pub deterministic_kernels: bool,
    /// With one agent per process (`trainer run --agent`): how long a step waits for the other
    /// agents' rollouts before failing with the names of those still missing.
    #[serde(default = "ten_minutes")]
    pub barrier_timeout_s: u64,
    /// Before HACPO's first step, every agent answers this many training prompts (4 times
    /// each) and the others score the answers: the run then says what share of cross samples
    /// would carry gradient under each cross rule, and warns where its own leaves sharing idle
    /// (`gate::announce`). 0 skips it; so does a process that holds one agent only.
    #[serde(default = "sixteen")]
    pub gate_prompts: usize,
    /// Asynchronous training (issue 55): no agent waits for another; each update uses every
    /// partner rollout of the last η steps that it has not used yet (η = `max_staleness`, see
    /// `hacpo::staleness`). Unset: every step waits until every agent has submitted it.
    #[serde(default)]
    pub max_staleness: Option<u64>,
}

impl RunSection {
    /// Sequences per forward/backward pass, for `chunks`: `micro_batch`, or all (0).
    pub fn micro_chunk(&self) -> usize {
        match self.micro_batch {
            0 => usize::MAX,
            n => n,
        }
    }
}

/// Where the verifier listens, and the token to call it with.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifierSection {
    /// Base URL.
    pub url: String,
    /// The bearer token (a `write` key for this trainer's agents): never in the file, which is
    /// shared and committed, but from `HACRL_TOKEN` ([`VerifierSection::token_from_env`]).
    #[serde(skip)]
    pub token: Option<String>,
}

/// Calls may meet a restarting verifier or a 503 from its database: 8 attempts, whose waits
/// (200 ms doubling to 10 s) add up to 22.6 s, ride out a restart.
const VERIFIER_RETRY: RetryPolicy = RetryPolicy {
    first_wait: Duration::from_millis(200),
    max_wait: Duration::from_secs(10),
    max_attempts: 8,
};

/// A call may wait this long for its answer (a large batch of code rollouts is judged in one).
const VERIFIER_TIMEOUT: Duration = Duration::from_secs(600);

/// The token stays out of debug output (a config printed into a log).
impl std::fmt::Debug for VerifierSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifierSection")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "(set)"))
            .finish()
    }
}

impl VerifierSection {
    /// The token in `HACRL_TOKEN`, when it is set and not blank.
    pub fn token_from_env() -> Option<String> {
        let token = std::env::var("HACRL_TOKEN").ok()?;
        Some(token.trim().to_string()).filter(|t| !t.is_empty())
    }

    /// A client of this verifier, sending the token, retrying through restarts.
    pub fn client(&self) -> Result<Client> {
        let client = Client::new(&self.url, self.token.as_deref(), VERIFIER_TIMEOUT)?;
        Ok(client.with_retry(VERIFIER_RETRY))
    }
}

/// Tasks by dataset name, as imported into the pool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSection {
    /// Training prompts.
    pub train: String,
    /// Held-out evaluation prompts.
    #[serde(default)]
    pub eval: Option<String>,
    /// Evaluate on the first this many held-out tasks (0: all).
    #[serde(default)]
    pub eval_size: usize,
}

/// One agent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSection {
    /// Unique name in the pool.
    pub name: String,
    /// Model directory (Hugging Face layout) or .gguf file; relative to the config file.
    pub model: PathBuf,
    /// `cpu`, `cuda` or `cuda:N`.
    #[serde(default = "cpu", deserialize_with = "deserialize_device")]
    pub device: Device,
    /// AdamW learning rate.
    pub lr: f64,
    /// AdamW weight decay (default the authors' 0.01; 0 was this trainer's before issue 53).
    #[serde(default = "authors_weight_decay")]
    pub weight_decay: f64,
    /// Where its rollouts are sampled (`[agents.generation]`; default: by the training model).
    #[serde(default)]
    pub generation: GenerationBackend,
}

/// Where an agent samples its rollouts (`backend = "tch" | "openai"`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(tag = "backend", rename_all = "lowercase", deny_unknown_fields)]
pub enum GenerationBackend {
    /// The training model itself, on libtorch.
    #[default]
    Tch,
    /// An OpenAI-compatible serving engine (vLLM, `VLLM_SERVER_DEV_MODE=1`) serving the agent's
    /// starting model; the trainer syncs its weights to it after every step.
    Openai {
        /// The engine's base URL, e.g. `http://127.0.0.1:8000`.
        url: String,
        /// The model name the engine serves (its `--served-model-name`, or the path it loaded).
        model: String,
        /// Where the weights for the engine are written, a folder the engine can read
        /// (default `output_dir/<agent>/engine`); relative to the config file.
        #[serde(default)]
        sync_dir: Option<PathBuf>,
        /// How long a run waits at start for the engine to answer.
        #[serde(default = "ten_minutes")]
        ready_timeout_s: u64,
    },
}

fn one() -> usize {
    1
}
fn four() -> usize {
    4
}
fn sixteen() -> usize {
    16
}

fn ten_minutes() -> u64 {
    600
}

/// The authors' AdamW weight decay (their recipe's `optim.weight_decay`).
pub fn authors_weight_decay() -> f64 {
    0.01
}

fn one_f() -> f64 {
    1.0
}
pub(crate) fn cpu() -> Device {
    Device::Cpu
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

/// A device written as [`parse_device`] reads it: parsed once, when the file is.
pub(crate) fn deserialize_device<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Device, D::Error> {
    parse_device(&String::deserialize(d)?).map_err(serde::de::Error::custom)
}

/// Parses a TOML file; returns it with the folder its relative paths are relative to.
pub(crate) fn read_toml<T: DeserializeOwned>(path: &Path) -> Result<(T, &Path)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value = toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok((value, path.parent().unwrap_or(Path::new("."))))
}

impl RunConfig {
    /// Reads and checks a config file; relative paths become relative to its folder.
    pub fn load(path: &Path) -> Result<Self> {
        let (mut cfg, base): (Self, _) = read_toml(path)?;
        cfg.run.output_dir = base.join(&cfg.run.output_dir);
        for a in &mut cfg.agents {
            a.model = base.join(&a.model);
            if let GenerationBackend::Openai {
                sync_dir: Some(d), ..
            } = &mut a.generation
            {
                *d = base.join(&*d);
            }
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks values a run cannot start with.
    pub fn validate(&self) -> Result<()> {
        let r = &self.run;
        ensure!(!r.name.is_empty(), "run.name must not be empty");
        ensure!(
            r.steps > 0 && r.prompts_per_step > 0,
            "run.steps and run.prompts_per_step must be positive"
        );
        ensure!(
            r.group_size >= 2,
            "run.group_size must be at least 2 (advantages need a group)"
        );
        ensure!(
            r.minibatches >= 1 && r.checkpoint_every >= 1,
            "run.minibatches and run.checkpoint_every must be positive"
        );
        ensure!(
            !self.agents.is_empty(),
            "at least one [[agents]] entry is needed"
        );
        ensure!(
            !self.algorithm.algorithm.shares() || self.agents.len() >= 2,
            "{:?} shares rollouts between agents: give at least two",
            self.algorithm.algorithm
        );
        let mut names: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
        names.sort();
        names.dedup();
        ensure!(
            names.len() == self.agents.len(),
            "agent names must be unique"
        );
        ensure!(
            self.agents.iter().all(|a| a.lr > 0.0),
            "every agent needs lr > 0"
        );
        for a in &self.agents {
            if let GenerationBackend::Openai { url, model, .. } = &a.generation {
                ensure!(
                    url.starts_with("http://") || url.starts_with("https://"),
                    "agents.generation.url of agent `{}` must be an http(s) URL, got `{url}`",
                    a.name
                );
                ensure!(
                    !model.is_empty(),
                    "agents.generation.model of agent `{}` must not be empty",
                    a.name
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(extra: &str) -> Result<AgentSection, toml::de::Error> {
        toml::from_str(&format!("name = \"a\"\nmodel = \"m\"\nlr = 1e-3\n{extra}"))
    }

    #[test]
    fn generation_defaults_to_tch_and_reads_an_openai_engine() {
        assert_eq!(agent("").unwrap().generation, GenerationBackend::Tch);
        let a = agent(
            "[generation]\nbackend = \"openai\"\nurl = \"http://127.0.0.1:8000\"\nmodel = \"smol\"\n",
        )
        .unwrap();
        assert_eq!(
            a.generation,
            GenerationBackend::Openai {
                url: "http://127.0.0.1:8000".into(),
                model: "smol".into(),
                sync_dir: None,
                ready_timeout_s: 600,
            }
        );
    }

    #[test]
    fn bad_generation_sections_are_errors_naming_the_field() {
        let e = agent("[generation]\nbackend = \"sglang\"\n").unwrap_err();
        assert!(e.to_string().contains("sglang"), "{e}");
        let e = agent("[generation]\nbackend = \"openai\"\nurl = \"http://x\"\n").unwrap_err();
        assert!(e.to_string().contains("model"), "{e}");
        let e = agent(
            "[generation]\nbackend = \"openai\"\nurl = \"http://x\"\nmodel = \"m\"\nport = 1\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("port"), "{e}");
    }
}
