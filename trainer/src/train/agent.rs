//! The agents of a run: each one's policy, AdamW state, optional frozen reference model and id
//! in the pool, loaded from its starting model or from the checkpoint a run resumes from.

use std::path::Path;

use anyhow::{Context, Result};
use tch::Tensor;
use uuid::Uuid;

use crate::config::AgentSection;
use crate::optim::{self, AdamW};
use crate::policy::Policy;
use crate::verifier::VerifierClient;

/// One agent during a run.
pub(super) struct Agent {
    pub(super) cfg: AgentSection,
    pub(super) id: Uuid,
    pub(super) policy: Policy,
    /// π_ref of the KL term: the agent's starting model, frozen.
    pub(super) reference: Option<Policy>,
    pub(super) opt: AdamW,
}

impl Agent {
    /// Loads the agent's weights from `from` (its starting model or a checkpoint of it) and
    /// registers it in the pool.
    pub(super) fn load(
        cfg: &AgentSection,
        from: &Path,
        client: &VerifierClient,
        with_reference: bool,
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
        Ok(Self {
            cfg: cfg.clone(),
            id,
            policy,
            reference,
            opt,
        })
    }
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
