//! Rotary position embeddings: the scaling settings config.json writes, the inverse frequencies
//! they give, the cos/sin tables of a batch's positions, and the rotate-half rotation (the
//! Hugging Face convention).

use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

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

impl RopeScaling {
    /// Every frequency divided by `factor`.
    pub fn linear(factor: f64) -> Self {
        Self {
            rope_type: RopeType::Linear,
            factor,
            low_freq_factor: one(),
            high_freq_factor: four(),
            original_max_position_embeddings: default_original_max(),
        }
    }
}

/// Inverse frequencies θ^(−2i/d) for i < head_dim / 2, with `scaling` applied.
pub fn inv_freq(head_dim: i64, theta: f64, scaling: Option<&RopeScaling>) -> Vec<f64> {
    let d = head_dim as f64;
    let base: Vec<f64> = (0..head_dim / 2)
        .map(|i| 1.0 / theta.powf(2.0 * i as f64 / d))
        .collect();
    match scaling {
        Some(s) if s.rope_type == RopeType::Linear => base.iter().map(|f| f / s.factor).collect(),
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

/// One RoPE: its inverse frequencies (f32) on the model's device.
#[derive(Debug)]
pub(in crate::models) struct Rope {
    inv_freq: Tensor,
}

impl Rope {
    pub(in crate::models) fn new(inv_freq: &[f64], device: Device) -> Self {
        Self {
            inv_freq: Tensor::from_slice(inv_freq)
                .to_kind(Kind::Float)
                .to_device(device),
        }
    }

    /// The rotation of `positions` [B, T]: angles in f32 like Hugging Face, cos/sin [B, 1, T, D]
    /// cast to the compute dtype `kind` afterwards.
    pub(in crate::models) fn at(&self, positions: &Tensor, kind: Kind) -> Rotation {
        let angles = positions.to_kind(Kind::Float).unsqueeze(-1) * &self.inv_freq;
        let angles = Tensor::cat(&[&angles, &angles], -1).unsqueeze(1);
        Rotation {
            cos: angles.cos().to_kind(kind),
            sin: angles.sin().to_kind(kind),
        }
    }
}

/// The cos/sin tables of one batch's positions.
#[derive(Debug)]
pub(in crate::models) struct Rotation {
    cos: Tensor,
    sin: Tensor,
}

impl Rotation {
    /// Rotates the heads `x` [B, H, T, D] (rotate-half).
    pub(in crate::models) fn apply(&self, x: &Tensor) -> Tensor {
        let half = x.size()[3] / 2;
        let x1 = x.narrow(3, 0, half);
        let x2 = x.narrow(3, half, half);
        let rotated = Tensor::cat(&[x2.neg(), x1], 3);
        x * &self.cos + rotated * &self.sin
    }
}
