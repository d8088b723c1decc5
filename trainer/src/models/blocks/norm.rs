//! Root-mean-square norm, normalised in f32 as Hugging Face does, in the two weightings the
//! families use.

use tch::nn::{Init, Path};
use tch::{Kind, Tensor};

/// How the learned weight scales the normalised values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Weighting {
    /// Cast back to the input's dtype, then times w (Llama); w starts at one.
    Plain,
    /// Times (1 + w) in f32, then cast back (Gemma); w starts at zero.
    OnePlus,
}

/// RMSNorm over the last dimension.
#[derive(Debug)]
pub(in crate::models) struct RmsNorm {
    weight: Tensor,
    eps: f64,
    weighting: Weighting,
}

impl RmsNorm {
    /// Scaled by w after the cast back (Llama, Qwen).
    pub(in crate::models) fn new(p: Path, dim: i64, eps: f64) -> Self {
        Self {
            weight: p.var("weight", &[dim], Init::Const(1.0)),
            eps,
            weighting: Weighting::Plain,
        }
    }

    /// Scaled by (1 + w) in f32 before the cast back (Gemma).
    pub(in crate::models) fn one_plus(p: Path, dim: i64, eps: f64) -> Self {
        Self {
            weight: p.var("weight", &[dim], Init::Const(0.0)),
            eps,
            weighting: Weighting::OnePlus,
        }
    }

    pub(in crate::models) fn forward(&self, x: &Tensor) -> Tensor {
        let x32 = x.to_kind(Kind::Float);
        let var = x32.pow_tensor_scalar(2).mean_dim(-1, true, Kind::Float);
        match self.weighting {
            Weighting::Plain => (x32 * (var + self.eps).rsqrt()).to_kind(x.kind()) * &self.weight,
            Weighting::OnePlus => {
                let scale = self.weight.to_kind(Kind::Float) + 1.0;
                (x32 * (var + self.eps).rsqrt() * scale).to_kind(x.kind())
            }
        }
    }
}
