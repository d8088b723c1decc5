//! How fresh parameters are filled, and the linear layer.

use tch::Tensor;
use tch::nn::{Init, Path};

/// How freshly created parameters are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightInit {
    /// Normal(0, initializer_range) matrices, unit norms: a model to train from scratch.
    Random,
    /// Zeros: cheap placeholders about to be overwritten by a checkpoint.
    Zeros,
}

impl WeightInit {
    /// The init of a weight matrix: Normal(0, `std`) or zeros.
    pub(in crate::models) fn matrix(self, std: f64) -> Init {
        match self {
            WeightInit::Random => Init::Randn {
                mean: 0.0,
                stdev: std,
            },
            WeightInit::Zeros => Init::Const(0.0),
        }
    }
}

/// A linear layer stored as `weight` [out, in] and optional `bias`, as in PyTorch.
#[derive(Debug)]
pub(in crate::models) struct Linear {
    weight: Tensor,
    bias: Option<Tensor>,
}

impl Linear {
    pub(in crate::models) fn new(
        p: Path,
        in_dim: i64,
        out_dim: i64,
        bias: bool,
        init: Init,
    ) -> Self {
        let weight = p.var("weight", &[out_dim, in_dim], init);
        let bias = bias.then(|| p.var("bias", &[out_dim], Init::Const(0.0)));
        Self { weight, bias }
    }

    pub(in crate::models) fn forward(&self, x: &Tensor) -> Tensor {
        x.linear(&self.weight, self.bias.as_ref())
    }
}
