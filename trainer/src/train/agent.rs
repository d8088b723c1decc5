//! The agents of a run: each one's policy, AdamW state, optional frozen reference model, id in
//! the pool and serving engine, loaded from its starting model or from the checkpoint a run
//! resumes from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use tch::Tensor;
use uuid::Uuid;
use wire::NewAgent;
use wire::client::blocking::Client;

use crate::config::{AgentSection, GenerationBackend};
use crate::engine::EngineClient;
use crate::optim::{self, AdamW};
use crate::policy::Policy;

/// One agent during a run.
pub(super) struct Agent {
    pub(super) cfg: AgentSection,
    pub(super) id: Uuid,
    pub(super) policy: Policy,
    /// π_ref of the KL term: the agent's starting model, frozen.
    pub(super) reference: Option<Policy>,
    pub(super) opt: AdamW,
    /// The engine that samples its rollouts (`backend = "openai"`), if any.
    pub(super) engine: Option<Engine>,
}

/// An agent's serving engine and the folder its weights reach it through.
pub(super) struct Engine {
    pub(super) client: EngineClient,
    dir: PathBuf,
}

impl Agent {
    /// Loads the agent's weights from `from` (its starting model or a checkpoint of it) and
    /// registers it in the pool.
    /// An `openai` agent's engine is waited for (its `ready_timeout_s`); its weights are synced
    /// by the caller ([`Agent::sync_engine`]). `output` is the run's output folder.
    pub(super) fn load(
        cfg: &AgentSection,
        from: &Path,
        client: &Client,
        with_reference: bool,
        output: &Path,
    ) -> Result<Self> {
        let policy = Policy::load(from, cfg.device)
            .with_context(|| format!("loading agent {} from {}", cfg.name, from.display()))?;
        let reference = if with_reference {
            Some(Policy::load(&cfg.model, cfg.device)?)
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
        let engine = match &cfg.generation {
            GenerationBackend::Tch => None,
            GenerationBackend::Openai {
                url,
                model,
                sync_dir,
                ready_timeout_s,
            } => {
                let client = EngineClient::new(url, model)?;
                client
                    .wait_ready(Duration::from_secs(*ready_timeout_s))
                    .with_context(|| format!("agent {}'s engine", cfg.name))?;
                let dir = sync_dir
                    .clone()
                    .unwrap_or_else(|| output.join(&cfg.name).join("engine"));
                Some(Engine { client, dir })
            }
        };
        Ok(Self {
            cfg: cfg.clone(),
            id,
            policy,
            reference,
            opt,
            engine,
        })
    }

    /// Makes the agent's engine (if any) serve its current weights as `version` (the number of
    /// training steps in them): a safetensors checkpoint in the sync folder, reloaded by the
    /// engine, the previous one removed. The engine's answer is checked, not assumed.
    pub(super) fn sync_engine(&self, version: i64) -> Result<()> {
        let Some(engine) = &self.engine else {
            return Ok(());
        };
        let dir = engine.dir.join(format!("v{version}"));
        self.policy.save(&dir)?;
        engine
            .client
            .load_weights(&dir, version)
            .with_context(|| format!("syncing agent {}'s weights to its engine", self.cfg.name))?;
        let served = engine.client.weight_version()?;
        ensure!(
            served == Some(version),
            "agent {}'s engine serves weight version {served:?} after a sync to {version}",
            self.cfg.name
        );
        // Older versions are no longer served; a full-size checkpoint per step would fill disks.
        for entry in std::fs::read_dir(&engine.dir)? {
            let path = entry?.path();
            if path != dir
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('v'))
            {
                std::fs::remove_dir_all(&path)
                    .with_context(|| format!("removing {}", path.display()))?;
            }
        }
        tracing::info!(agent = %self.cfg.name, version, "engine serves the new weights");
        Ok(())
    }
}

/// Registers (or finds) the agent `name` in the pool, describing it by `policy`.
pub fn register_agent(client: &Client, name: &str, policy: &Policy) -> Result<Uuid> {
    let mc = policy.model().config();
    let params: i64 = policy
        .var_store()
        .trainable_variables()
        .iter()
        .map(Tensor::numel)
        .sum::<usize>() as i64;
    let agent = client.register_agent(&NewAgent {
        name: name.to_string(),
        family: Some(mc.model_type.to_string()),
        size_params: Some(params),
        tokenizer: Some(format!("vocab{}", mc.vocab_size)),
        metadata: None,
    })?;
    Ok(agent.id)
}
