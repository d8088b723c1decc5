//! What every family's `config.json` says in the standard Hugging Face layout: the model type,
//! the sizes, RoPE, the special ids. Llama and Qwen read theirs as this [`Config`]; a family
//! with its own layout (Gemma 3) converts to it, so the rest of the trainer reads one type.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use super::blocks::rope::{RopeScaling, RopeType};

/// The architectures the trainer runs (`model_type` in config.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub enum ModelType {
    /// Llama (also SmolLM2).
    Llama,
    /// Qwen2: q/k/v projections with bias.
    Qwen2,
    /// Qwen3: q/k norm.
    Qwen3,
    /// Gemma 3 (text), its own family (`models::gemma3`) with its own config layout.
    Gemma3Text,
}

impl ModelType {
    /// The name config.json uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Llama => "llama",
            Self::Qwen2 => "qwen2",
            Self::Qwen3 => "qwen3",
            Self::Gemma3Text => "gemma3_text",
        }
    }
}

impl TryFrom<String> for ModelType {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "llama" => Ok(Self::Llama),
            "qwen2" => Ok(Self::Qwen2),
            "qwen3" => Ok(Self::Qwen3),
            "gemma3_text" => Ok(Self::Gemma3Text),
            _ => Err(format!(
                "unsupported model_type {name:?} (supported: llama, qwen2, qwen3, gemma3_text)"
            )),
        }
    }
}

impl From<ModelType> for String {
    fn from(t: ModelType) -> String {
        t.as_str().to_string()
    }
}

impl fmt::Display for ModelType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One token id or several (`eos_token_id` is either in the wild).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum TokenIds {
    /// A single id.
    One(i64),
    /// Several ids.
    Many(Vec<i64>),
}

impl TokenIds {
    /// The ids as a list.
    pub fn to_vec(&self) -> Vec<i64> {
        match self {
            TokenIds::One(id) => vec![*id],
            TokenIds::Many(ids) => ids.clone(),
        }
    }
}

fn default_rope_theta() -> f64 {
    10_000.0
}
fn default_init_range() -> f64 {
    0.02
}
fn default_act() -> String {
    "silu".into()
}

/// The fields of a Hugging Face `config.json` in the standard layout (Llama's): every family's
/// sizes, vocabulary, context and special ids.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Config {
    /// The architecture.
    pub model_type: ModelType,
    /// Vocabulary size (rows of the embedding).
    pub vocab_size: i64,
    /// Width of the residual stream.
    pub hidden_size: i64,
    /// Width of the MLP.
    pub intermediate_size: i64,
    /// Number of decoder layers.
    pub num_hidden_layers: i64,
    /// Number of query heads.
    pub num_attention_heads: i64,
    /// Number of key/value heads (grouped-query attention); defaults to the query heads.
    #[serde(default)]
    pub num_key_value_heads: Option<i64>,
    /// Per-head width; defaults to hidden_size / num_attention_heads.
    #[serde(default)]
    pub head_dim: Option<i64>,
    /// RMSNorm epsilon.
    pub rms_norm_eps: f64,
    /// RoPE base.
    #[serde(default = "default_rope_theta")]
    pub rope_theta: f64,
    /// Optional RoPE frequency scaling.
    #[serde(default)]
    pub rope_scaling: Option<RopeScaling>,
    /// Whether the output projection shares the embedding matrix.
    #[serde(default)]
    pub tie_word_embeddings: bool,
    /// Llama: bias on q/k/v/o projections. Qwen2 always has q/k/v bias; Qwen3 has none.
    #[serde(default)]
    pub attention_bias: Option<bool>,
    /// Longest supported context.
    pub max_position_embeddings: i64,
    /// Activation of the MLP's gate.
    #[serde(default = "default_act")]
    pub hidden_act: String,
    /// Std of the normal init used for models built from a config.
    #[serde(default = "default_init_range")]
    pub initializer_range: f64,
    /// Beginning-of-sequence id.
    #[serde(default)]
    pub bos_token_id: Option<TokenIds>,
    /// End-of-sequence id(s).
    #[serde(default)]
    pub eos_token_id: Option<TokenIds>,
}

impl Config {
    /// Checks the head counts and widths describe a decoder the shared blocks can run.
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.num_attention_heads > 0 && self.num_kv_heads() > 0,
            "head counts must be positive"
        );
        anyhow::ensure!(
            self.num_attention_heads % self.num_kv_heads() == 0,
            "num_attention_heads ({}) must be a multiple of num_key_value_heads ({})",
            self.num_attention_heads,
            self.num_kv_heads()
        );
        anyhow::ensure!(self.head_dim() % 2 == 0, "head_dim must be even for RoPE");
        Ok(())
    }

    /// Number of key/value heads.
    pub fn num_kv_heads(&self) -> i64 {
        self.num_key_value_heads.unwrap_or(self.num_attention_heads)
    }

    /// Per-head width.
    pub fn head_dim(&self) -> i64 {
        self.head_dim
            .unwrap_or(self.hidden_size / self.num_attention_heads)
    }

    /// RoPE inverse frequencies (head_dim / 2 of them), with the config's scaling applied.
    pub fn rope_inv_freq(&self) -> Vec<f64> {
        super::blocks::rope::inv_freq(self.head_dim(), self.rope_theta, self.rope_scaling.as_ref())
    }
}
