//! The gated MLP, down(act(gate(x)) · up(x)), parameterised by its activation: SwiGLU (Llama,
//! Qwen) or GeGLU with the tanh GELU (Gemma).

use tch::Tensor;
use tch::nn::{Init, Path};

use super::linear::Linear;

/// The gate's activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::models) enum Activation {
    /// SiLU (`silu`).
    Silu,
    /// GELU, tanh approximation (`gelu_pytorch_tanh`).
    GeluTanh,
}

impl Activation {
    fn apply(self, x: &Tensor) -> Tensor {
        match self {
            Self::Silu => x.silu(),
            Self::GeluTanh => x.gelu("tanh"),
        }
    }
}

/// `gate_proj`, `up_proj` and `down_proj`, without bias.
#[derive(Debug)]
pub(in crate::models) struct Mlp {
    gate_proj: Linear,
    up_proj: Linear,
    down_proj: Linear,
    act: Activation,
}

impl Mlp {
    /// `hidden` → `intermediate` → `hidden`, the matrices filled by `init`.
    pub(in crate::models) fn new(
        p: Path,
        hidden: i64,
        intermediate: i64,
        act: Activation,
        init: Init,
    ) -> Self {
        Self {
            gate_proj: Linear::new(&p / "gate_proj", hidden, intermediate, false, init),
            up_proj: Linear::new(&p / "up_proj", hidden, intermediate, false, init),
            down_proj: Linear::new(&p / "down_proj", intermediate, hidden, false, init),
            act,
        }
    }

    pub(in crate::models) fn forward(&self, x: &Tensor) -> Tensor {
        let gate = self.act.apply(&self.gate_proj.forward(x));
        self.down_proj.forward(&(gate * self.up_proj.forward(x)))
    }
}
