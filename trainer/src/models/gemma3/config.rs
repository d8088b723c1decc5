//! The text config of Gemma 3 (`model_type: gemma3_text`, `Gemma3ForCausalLM`), read with serde
//! in both layouts transformers writes: the flat one of the published checkpoints (`rope_theta`,
//! `rope_local_base_freq`, `sliding_window_pattern`) and the newer `rope_parameters` per layer
//! type.

use std::collections::HashMap;

use anyhow::{Result, bail, ensure};
use serde::{Deserialize, Serialize};

use crate::models::blocks::rope::{self, RopeScaling, RopeType};
use crate::models::config::{self as common, ModelType, TokenIds};

/// What one layer attends to (`layer_types` in config.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerType {
    /// Keys within the last `sliding_window` positions, local RoPE base.
    SlidingAttention,
    /// Every earlier key, global RoPE base.
    FullAttention,
}

/// One layer type's RoPE (`rope_parameters.<layer type>` in newer config.json files).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RopeParameters {
    /// `default` or `linear`.
    #[serde(default = "default_rope_type")]
    pub rope_type: RopeType,
    /// RoPE base.
    pub rope_theta: f64,
    /// Linear scaling factor.
    #[serde(default)]
    pub factor: Option<f64>,
}

fn default_rope_type() -> RopeType {
    RopeType::Default
}
fn default_global_theta() -> f64 {
    1_000_000.0
}
fn default_local_theta() -> f64 {
    10_000.0
}
fn default_query_pre_attn_scalar() -> f64 {
    256.0
}
fn default_pattern() -> usize {
    6
}
fn default_act() -> String {
    "gelu_pytorch_tanh".into()
}
fn default_init_range() -> f64 {
    0.02
}
fn default_pad() -> i64 {
    0
}

/// The fields of a Gemma 3 text `config.json` this family reads.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Config {
    /// Always `gemma3_text`.
    pub model_type: ModelType,
    /// Vocabulary size (rows of the embedding).
    pub vocab_size: i64,
    /// Width of the residual stream.
    pub hidden_size: i64,
    /// Width of the GeGLU MLP.
    pub intermediate_size: i64,
    /// Number of decoder layers.
    pub num_hidden_layers: i64,
    /// Number of query heads.
    pub num_attention_heads: i64,
    /// Number of key/value heads (grouped-query attention).
    pub num_key_value_heads: i64,
    /// Per-head width (Gemma's is not hidden_size / heads).
    pub head_dim: i64,
    /// RMSNorm epsilon.
    pub rms_norm_eps: f64,
    /// Attention scores are scaled by `query_pre_attn_scalar^-1/2`, not `head_dim^-1/2`.
    #[serde(default = "default_query_pre_attn_scalar")]
    pub query_pre_attn_scalar: f64,
    /// Keys a local layer sees: those less than this many positions back.
    pub sliding_window: i64,
    /// Each layer's type; defaults to every `sliding_window_pattern`-th layer global.
    #[serde(default)]
    pub layer_types: Option<Vec<LayerType>>,
    /// Older configs' layer pattern (transformers writes it as `_sliding_window_pattern`).
    #[serde(default = "default_pattern", alias = "_sliding_window_pattern")]
    pub sliding_window_pattern: usize,
    /// RoPE base of the global layers (flat layout).
    #[serde(default = "default_global_theta")]
    pub rope_theta: f64,
    /// RoPE base of the local layers (flat layout).
    #[serde(default = "default_local_theta")]
    pub rope_local_base_freq: f64,
    /// Scaling of the global layers' RoPE (flat layout; the larger Gemma 3 use `linear`).
    #[serde(default)]
    pub rope_scaling: Option<RopeScaling>,
    /// RoPE per layer type (newer layout); wins over the flat fields.
    #[serde(default)]
    pub rope_parameters: Option<HashMap<LayerType, RopeParameters>>,
    /// Activation of the gate; only the tanh-approximate GELU is implemented.
    #[serde(default = "default_act")]
    pub hidden_activation: String,
    /// Longest supported context.
    pub max_position_embeddings: i64,
    /// Whether the output projection shares the embedding matrix (Gemma's does).
    #[serde(default = "yes")]
    pub tie_word_embeddings: bool,
    /// Bias on the q/k/v/o projections.
    #[serde(default)]
    pub attention_bias: bool,
    /// Gemma 2's logit soft-capping; Gemma 3 has none (must be null).
    #[serde(default)]
    pub final_logit_softcapping: Option<f64>,
    /// Gemma 2's attention soft-capping; Gemma 3 has none (must be null).
    #[serde(default)]
    pub attn_logit_softcapping: Option<f64>,
    /// EmbeddingGemma's bidirectional attention; must be false for a causal LM.
    #[serde(default)]
    pub use_bidirectional_attention: Option<bool>,
    /// Std of the normal init used for models built from a config.
    #[serde(default = "default_init_range")]
    pub initializer_range: f64,
    /// Padding id: its embedding row gets no gradient, as in `nn.Embedding(padding_idx=…)`.
    #[serde(default = "default_pad")]
    pub pad_token_id: i64,
    /// Beginning-of-sequence id.
    #[serde(default)]
    pub bos_token_id: Option<TokenIds>,
    /// End-of-sequence id(s).
    #[serde(default)]
    pub eos_token_id: Option<TokenIds>,
}

fn yes() -> bool {
    true
}

impl Config {
    /// Checks the config describes a model this family can run.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            self.model_type == ModelType::Gemma3Text,
            "the Gemma 3 family runs model_type gemma3_text, not {}",
            self.model_type
        );
        ensure!(
            self.hidden_activation == "gelu_pytorch_tanh",
            "unsupported hidden_activation {:?} (Gemma 3 uses gelu_pytorch_tanh)",
            self.hidden_activation
        );
        ensure!(
            self.final_logit_softcapping.is_none() && self.attn_logit_softcapping.is_none(),
            "logit soft-capping (Gemma 2) is not supported"
        );
        ensure!(
            self.use_bidirectional_attention != Some(true),
            "bidirectional attention is not supported"
        );
        ensure!(
            self.num_attention_heads > 0
                && self.num_key_value_heads > 0
                && self.num_attention_heads % self.num_key_value_heads == 0,
            "num_attention_heads ({}) must be a positive multiple of num_key_value_heads ({})",
            self.num_attention_heads,
            self.num_key_value_heads
        );
        ensure!(self.head_dim % 2 == 0, "head_dim must be even for RoPE");
        ensure!(self.sliding_window > 0, "sliding_window must be positive");
        ensure!(
            self.layer_types().len() == self.num_hidden_layers as usize,
            "layer_types lists {} layers, num_hidden_layers is {}",
            self.layer_types().len(),
            self.num_hidden_layers
        );
        for t in [LayerType::SlidingAttention, LayerType::FullAttention] {
            self.rope_inv_freq(t)?;
        }
        Ok(())
    }

    /// Each layer's type.
    pub fn layer_types(&self) -> Vec<LayerType> {
        match &self.layer_types {
            Some(types) => types.clone(),
            None => (0..self.num_hidden_layers as usize)
                .map(|i| {
                    if (i + 1) % self.sliding_window_pattern.max(1) == 0 {
                        LayerType::FullAttention
                    } else {
                        LayerType::SlidingAttention
                    }
                })
                .collect(),
        }
    }

    /// RoPE inverse frequencies (head_dim / 2) of one layer type.
    pub fn rope_inv_freq(&self, layer: LayerType) -> Result<Vec<f64>> {
        let (theta, factor) = match self.rope_parameters.as_ref().and_then(|p| p.get(&layer)) {
            Some(p) => match p.rope_type {
                RopeType::Default => (p.rope_theta, 1.0),
                RopeType::Linear => (p.rope_theta, p.factor.unwrap_or(1.0)),
                RopeType::Llama3 => bail!("llama3 RoPE scaling is not supported for Gemma 3"),
            },
            None if layer == LayerType::SlidingAttention => (self.rope_local_base_freq, 1.0),
            None => match &self.rope_scaling {
                None => (self.rope_theta, 1.0),
                Some(s) if s.rope_type == RopeType::Default => (self.rope_theta, 1.0),
                Some(s) if s.rope_type == RopeType::Linear => (self.rope_theta, s.factor),
                Some(_) => bail!("llama3 RoPE scaling is not supported for Gemma 3"),
            },
        };
        let scaling = RopeScaling::linear(factor);
        Ok(rope::inv_freq(self.head_dim, theta, Some(&scaling)))
    }

    /// The family-independent view of the sizes (vocabulary, context, widths) that the rest of
    /// the trainer reads from any model's config.
    pub fn common(&self) -> common::Config {
        common::Config {
            model_type: self.model_type,
            vocab_size: self.vocab_size,
            hidden_size: self.hidden_size,
            intermediate_size: self.intermediate_size,
            num_hidden_layers: self.num_hidden_layers,
            num_attention_heads: self.num_attention_heads,
            num_key_value_heads: Some(self.num_key_value_heads),
            head_dim: Some(self.head_dim),
            rms_norm_eps: self.rms_norm_eps,
            rope_theta: self.rope_theta,
            rope_scaling: self.rope_scaling.clone(),
            tie_word_embeddings: self.tie_word_embeddings,
            attention_bias: Some(self.attention_bias),
            max_position_embeddings: self.max_position_embeddings,
            hidden_act: self.hidden_activation.clone(),
            initializer_range: self.initializer_range,
            bos_token_id: self.bos_token_id.clone(),
            eos_token_id: self.eos_token_id.clone(),
        }
    }
}
