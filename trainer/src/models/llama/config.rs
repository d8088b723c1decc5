//! The family's `config.json`: architecture sizes, RoPE settings (with Llama 3 scaling) and the
//! flags that select Qwen2's q/k/v bias and Qwen3's q/k norm, read with serde and validated.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The architectures this family runs (`model_type` in config.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub enum ModelType {
    /// Llama (also SmolLM2).
    Llama,
    /// Qwen2: q/k/v projections with bias.
    Qwen2,
    /// Qwen3: q/k norm.
    Qwen3,
    /// Gemma 3 (text), its own family (`models::gemma3`); listed here so that every family's
    /// config.json reads into this [`Config`] as the sizes the rest of the trainer uses.
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

/// How RoPE frequencies are scaled (`rope_scaling.rope_type` in config.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub enum RopeType {
    /// Llama 3's wavelength-dependent scaling.
    Llama3,
    /// Every frequency divided by the factor.
    Linear,
    /// No scaling.
    Default,
}

impl TryFrom<String> for RopeType {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "llama3" => Ok(Self::Llama3),
            "linear" => Ok(Self::Linear),
            "default" => Ok(Self::Default),
            _ => Err(format!(
                "unsupported rope_scaling type {name:?} (supported: llama3, linear, default)"
            )),
        }
    }
}

impl From<RopeType> for String {
    fn from(t: RopeType) -> String {
        match t {
            RopeType::Llama3 => "llama3",
            RopeType::Linear => "linear",
            RopeType::Default => "default",
        }
        .to_string()
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

/// RoPE frequency scaling (`rope_scaling` in config.json).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RopeScaling {
    /// `llama3`, `linear` or `default` (older configs call the key `type`).
    #[serde(alias = "type")]
    pub rope_type: RopeType,
    /// Scale factor.
    #[serde(default = "one")]
    pub factor: f64,
    /// Llama 3: wavelengths longer than `original / low_freq_factor` are fully scaled.
    #[serde(default = "one")]
    pub low_freq_factor: f64,
    /// Llama 3: wavelengths shorter than `original / high_freq_factor` are left alone.
    #[serde(default = "four")]
    pub high_freq_factor: f64,
    /// Llama 3: the context length the model was pre-trained with.
    #[serde(default = "default_original_max")]
    pub original_max_position_embeddings: i64,
}

fn one() -> f64 {
    1.0
}
fn four() -> f64 {
    4.0
}
fn default_original_max() -> i64 {
    8192
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

/// The fields of a Hugging Face `config.json` this family reads.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Config {
    /// `llama` (also SmolLM2), `qwen2` or `qwen3`.
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
    /// Activation; only SiLU is implemented.
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
    /// Checks the config describes a model this family can run.
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.hidden_act == "silu",
            "unsupported hidden_act {:?}",
            self.hidden_act
        );
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

    pub(super) fn qkv_bias(&self) -> bool {
        self.model_type == ModelType::Qwen2 || self.attention_bias == Some(true)
    }

    pub(super) fn o_bias(&self) -> bool {
        self.model_type == ModelType::Llama && self.attention_bias == Some(true)
    }

    pub(super) fn qk_norm(&self) -> bool {
        self.model_type == ModelType::Qwen3
    }

    /// RoPE inverse frequencies (head_dim / 2 of them), with the config's scaling applied.
    pub fn rope_inv_freq(&self) -> Vec<f64> {
        let d = self.head_dim() as f64;
        let base: Vec<f64> = (0..self.head_dim() / 2)
            .map(|i| 1.0 / self.rope_theta.powf(2.0 * i as f64 / d))
            .collect();
        match &self.rope_scaling {
            Some(s) if s.rope_type == RopeType::Linear => {
                base.iter().map(|f| f / s.factor).collect()
            }
            Some(s) if s.rope_type == RopeType::Llama3 => {
                let old = s.original_max_position_embeddings as f64;
                let low_wavelen = old / s.low_freq_factor;
                let high_wavelen = old / s.high_freq_factor;
                base.iter()
                    .map(|&f| {
                        let wavelen = 2.0 * std::f64::consts::PI / f;
                        if wavelen < high_wavelen {
                            f
                        } else if wavelen > low_wavelen {
                            f / s.factor
                        } else {
                            let smooth = (old / wavelen - s.low_freq_factor)
                                / (s.high_freq_factor - s.low_freq_factor);
                            (1.0 - smooth) * f / s.factor + smooth * f
                        }
                    })
                    .collect()
            }
            _ => base,
        }
    }
}
