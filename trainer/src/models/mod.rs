//! Model architecture families behind one [`Model`] that generation, scoring and training use
//! whatever the family (candle-transformers style): the shared layers (`blocks`: linear, norm,
//! RoPE, MLP, KV cache, masks, the attention step), the config every family reports
//! ([`config`]), and one module per family holding only what is its own.

mod blocks;
pub mod config;
pub mod gemma3;
pub mod llama;

pub use blocks::cache::KvCache;
pub use blocks::linear::WeightInit;
pub use blocks::mask;
pub use config::{Config, ModelType, RopeScaling, RopeType, TokenIds};

use anyhow::{Context, Result};
use tch::Tensor;
use tch::nn::Path;

/// A decoder-only causal LM of any supported family.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per policy, moved rarely: boxing buys nothing
pub enum Model {
    /// Llama 3.x, SmolLM2, Qwen2, Qwen3.
    Llama(llama::Model),
    /// Gemma 3 (text).
    Gemma3(gemma3::Model),
}

impl From<llama::Model> for Model {
    fn from(m: llama::Model) -> Self {
        Self::Llama(m)
    }
}

impl Model {
    /// Creates the parameters under `p` for the family `config_json` names by `model_type`.
    pub fn from_json(p: &Path, config_json: &serde_json::Value, init: WeightInit) -> Result<Self> {
        let common: Config = serde_json::from_value(config_json.clone())
            .context("config.json does not describe a supported model")?;
        Ok(match common.model_type {
            ModelType::Gemma3Text => {
                let cfg: gemma3::Config = serde_json::from_value(config_json.clone())
                    .context("config.json does not describe a Gemma 3 text model")?;
                Self::Gemma3(gemma3::Model::new(p, &cfg, init)?)
            }
            _ => Self::Llama(llama::Model::new(p, &common, init)?),
        })
    }

    /// Device holding the parameters.
    pub fn device(&self) -> tch::Device {
        match self {
            Self::Llama(m) => m.device(),
            Self::Gemma3(m) => m.device(),
        }
    }

    /// The sizes, vocabulary, context and special ids every family reports.
    pub fn config(&self) -> &Config {
        match self {
            Self::Llama(m) => m.config(),
            Self::Gemma3(m) => m.common_config(),
        }
    }

    /// Final hidden states [B, T, hidden] for `input_ids` [B, T] at `positions` [B, T].
    ///
    /// `mask` [B, 1, T, S] (bool, true = may attend; [`mask::attention_mask`]) covers the
    /// S = cached + T keys. With a cache the new keys/values are appended to it.
    pub fn forward_hidden(
        &self,
        input_ids: &Tensor,
        positions: &Tensor,
        mask: &Tensor,
        cache: Option<&mut KvCache>,
    ) -> Tensor {
        match self {
            Self::Llama(m) => m.forward_hidden(input_ids, positions, mask, cache),
            Self::Gemma3(m) => m.forward_hidden(input_ids, positions, mask, cache),
        }
    }

    /// Logits [.., vocab] for hidden states [.., hidden].
    pub fn logits(&self, hidden: &Tensor) -> Tensor {
        match self {
            Self::Llama(m) => m.logits(hidden),
            Self::Gemma3(m) => m.logits(hidden),
        }
    }

    /// Logits [B, T, vocab]; see [`Model::forward_hidden`] for the arguments.
    pub fn forward(
        &self,
        input_ids: &Tensor,
        positions: &Tensor,
        mask: &Tensor,
        cache: Option<&mut KvCache>,
    ) -> Tensor {
        self.logits(&self.forward_hidden(input_ids, positions, mask, cache))
    }
}
