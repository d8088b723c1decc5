//! The Llama decoder family: Llama 3.x, SmolLM2, Qwen2/2.5 (q/k/v bias) and Qwen3 (q/k RMSNorm),
//! selected by `model_type` and flags in a Hugging Face `config.json`.
//!
//! Parameter names follow the Hugging Face layout (`model.layers.0.self_attn.q_proj.weight`, …)
//! so checkpoints load and save without renaming.

mod config;

pub use config::{Config, ModelType, RopeScaling, RopeType, TokenIds};

use tch::nn::{Init, Path};
use tch::{Kind, Tensor};

/// How freshly created parameters are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightInit {
    /// Normal(0, initializer_range) matrices, unit norms: a model to train from scratch.
    Random,
    /// Zeros: cheap placeholders about to be overwritten by a checkpoint.
    Zeros,
}

impl WeightInit {
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

/// Root-mean-square norm computed in f32 (as Hugging Face does), scaled by a learned weight.
#[derive(Debug)]
struct RmsNorm {
    weight: Tensor,
    eps: f64,
}

impl RmsNorm {
    fn new(p: Path, dim: i64, eps: f64) -> Self {
        Self {
            weight: p.var("weight", &[dim], Init::Const(1.0)),
            eps,
        }
    }

    fn forward(&self, x: &Tensor) -> Tensor {
        let kind = x.kind();
        let x32 = x.to_kind(Kind::Float);
        let var = x32.pow_tensor_scalar(2).mean_dim(-1, true, Kind::Float);
        let normed = (x32 * (var + self.eps).rsqrt()).to_kind(kind);
        normed * &self.weight
    }
}

/// Rotate-half RoPE (the Hugging Face convention).
pub(in crate::models) fn apply_rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Tensor {
    let half = x.size()[3] / 2;
    let x1 = x.narrow(3, 0, half);
    let x2 = x.narrow(3, half, half);
    let rotated = Tensor::cat(&[x2.neg(), x1], 3);
    x * cos + rotated * sin
}

/// Per-layer key/value cache for incremental decoding.
#[derive(Debug, Default)]
pub struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
}

impl KvCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of cached positions.
    pub fn len(&self) -> i64 {
        match self.layers.first() {
            Some(Some((k, _))) => k.size()[2],
            _ => 0,
        }
    }

    /// Whether nothing is cached yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the given batch rows (e.g. to drop finished sequences).
    pub fn select_rows(&mut self, rows: &Tensor) {
        for (k, v) in self.layers.iter_mut().flatten() {
            *k = k.index_select(0, rows);
            *v = v.index_select(0, rows);
        }
    }

    pub(in crate::models) fn append(
        &mut self,
        layer: usize,
        k: Tensor,
        v: Tensor,
    ) -> (Tensor, Tensor) {
        if self.layers.len() <= layer {
            self.layers.resize_with(layer + 1, || None);
        }
        let (k, v) = match self.layers[layer].take() {
            Some((pk, pv)) => (Tensor::cat(&[pk, k], 2), Tensor::cat(&[pv, v], 2)),
            None => (k, v),
        };
        self.layers[layer] = Some((k.shallow_clone(), v.shallow_clone()));
        (k, v)
    }
}

#[derive(Debug)]
struct Attention {
    q_proj: Linear,
    k_proj: Linear,
    v_proj: Linear,
    o_proj: Linear,
    q_norm: Option<RmsNorm>,
    k_norm: Option<RmsNorm>,
    n_heads: i64,
    n_kv_heads: i64,
    head_dim: i64,
}

impl Attention {
    fn new(p: Path, cfg: &Config, init: WeightInit) -> Self {
        let (h, kv, d, w_init) = (
            cfg.num_attention_heads,
            cfg.num_kv_heads(),
            cfg.head_dim(),
            init.matrix(cfg.initializer_range),
        );
        let norm = |name: &str| {
            cfg.qk_norm()
                .then(|| RmsNorm::new(&p / name, d, cfg.rms_norm_eps))
        };
        Self {
            q_proj: Linear::new(
                &p / "q_proj",
                cfg.hidden_size,
                h * d,
                cfg.qkv_bias(),
                w_init,
            ),
            k_proj: Linear::new(
                &p / "k_proj",
                cfg.hidden_size,
                kv * d,
                cfg.qkv_bias(),
                w_init,
            ),
            v_proj: Linear::new(
                &p / "v_proj",
                cfg.hidden_size,
                kv * d,
                cfg.qkv_bias(),
                w_init,
            ),
            o_proj: Linear::new(&p / "o_proj", h * d, cfg.hidden_size, cfg.o_bias(), w_init),
            q_norm: norm("q_norm"),
            k_norm: norm("k_norm"),
            n_heads: h,
            n_kv_heads: kv,
            head_dim: d,
        }
    }

    fn forward(
        &self,
        x: &Tensor,
        rope: &(Tensor, Tensor),
        mask: &Tensor,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Tensor {
        let (b, t) = (x.size()[0], x.size()[1]);
        let heads = |y: Tensor, n: i64, norm: &Option<RmsNorm>| {
            let y = y.view([b, t, n, self.head_dim]);
            let y = match norm {
                Some(norm) => norm.forward(&y),
                None => y,
            };
            y.transpose(1, 2)
        };
        let q = heads(self.q_proj.forward(x), self.n_heads, &self.q_norm);
        let k = heads(self.k_proj.forward(x), self.n_kv_heads, &self.k_norm);
        let v = heads(self.v_proj.forward(x), self.n_kv_heads, &None);
        let q = apply_rope(&q, &rope.0, &rope.1);
        let k = apply_rope(&k, &rope.0, &rope.1);
        let (k, v) = match cache {
            Some((cache, layer)) => cache.append(layer, k, v),
            None => (k, v),
        };
        let y =
            Tensor::scaled_dot_product_attention(&q, &k, &v, Some(mask), 0.0, false, None, true);
        self.o_proj.forward(
            &y.transpose(1, 2)
                .reshape([b, t, self.n_heads * self.head_dim]),
        )
    }
}

#[derive(Debug)]
struct Mlp {
    gate_proj: Linear,
    up_proj: Linear,
    down_proj: Linear,
}

impl Mlp {
    fn new(p: Path, cfg: &Config, init: WeightInit) -> Self {
        let (h, i, w_init) = (
            cfg.hidden_size,
            cfg.intermediate_size,
            init.matrix(cfg.initializer_range),
        );
        Self {
            gate_proj: Linear::new(&p / "gate_proj", h, i, false, w_init),
            up_proj: Linear::new(&p / "up_proj", h, i, false, w_init),
            down_proj: Linear::new(&p / "down_proj", i, h, false, w_init),
        }
    }

    fn forward(&self, x: &Tensor) -> Tensor {
        self.down_proj
            .forward(&(self.gate_proj.forward(x).silu() * self.up_proj.forward(x)))
    }
}

#[derive(Debug)]
struct DecoderLayer {
    input_layernorm: RmsNorm,
    self_attn: Attention,
    post_attention_layernorm: RmsNorm,
    mlp: Mlp,
}

impl DecoderLayer {
    fn new(p: Path, cfg: &Config, init: WeightInit) -> Self {
        Self {
            input_layernorm: RmsNorm::new(
                &p / "input_layernorm",
                cfg.hidden_size,
                cfg.rms_norm_eps,
            ),
            self_attn: Attention::new(&p / "self_attn", cfg, init),
            post_attention_layernorm: RmsNorm::new(
                &p / "post_attention_layernorm",
                cfg.hidden_size,
                cfg.rms_norm_eps,
            ),
            mlp: Mlp::new(&p / "mlp", cfg, init),
        }
    }

    fn forward(
        &self,
        x: &Tensor,
        rope: &(Tensor, Tensor),
        mask: &Tensor,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Tensor {
        let h = x + self
            .self_attn
            .forward(&self.input_layernorm.forward(x), rope, mask, cache);
        &h + self.mlp.forward(&self.post_attention_layernorm.forward(&h))
    }
}

/// A decoder-only causal language model of the Llama family.
#[derive(Debug)]
pub struct Model {
    embed_tokens: Tensor,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    lm_head: Option<Tensor>,
    inv_freq: Tensor,
    config: Config,
    device: tch::Device,
}

impl Model {
    /// Creates the parameters under `p`.
    pub fn new(p: &Path, config: &Config, init: WeightInit) -> anyhow::Result<Self> {
        config.validate()?;
        anyhow::ensure!(
            config.model_type != ModelType::Gemma3Text,
            "gemma3_text is not of the Llama family (build it with models::Model::from_json)"
        );
        let m = p / "model";
        let embed_tokens = (&m / "embed_tokens").var(
            "weight",
            &[config.vocab_size, config.hidden_size],
            init.matrix(config.initializer_range),
        );
        let layers = (0..config.num_hidden_layers)
            .map(|i| DecoderLayer::new(&m / "layers" / i, config, init))
            .collect();
        let norm = RmsNorm::new(&m / "norm", config.hidden_size, config.rms_norm_eps);
        let lm_head = (!config.tie_word_embeddings).then(|| {
            (p / "lm_head").var(
                "weight",
                &[config.vocab_size, config.hidden_size],
                init.matrix(config.initializer_range),
            )
        });
        let inv_freq = Tensor::from_slice(&config.rope_inv_freq())
            .to_kind(Kind::Float)
            .to_device(p.device());
        Ok(Self {
            embed_tokens,
            layers,
            norm,
            lm_head,
            inv_freq,
            config: config.clone(),
            device: p.device(),
        })
    }

    /// Device holding the parameters.
    pub fn device(&self) -> tch::Device {
        self.device
    }

    /// The configuration the model was built from.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Final hidden states [B, T, hidden] for `input_ids` [B, T] at `positions` [B, T].
    ///
    /// `mask` [B, 1, T, S] (bool, true = may attend) covers the S = cached + T keys. With a cache
    /// the new keys/values are appended to it.
    pub fn forward_hidden(
        &self,
        input_ids: &Tensor,
        positions: &Tensor,
        mask: &Tensor,
        mut cache: Option<&mut KvCache>,
    ) -> Tensor {
        let mut x = Tensor::embedding(&self.embed_tokens, input_ids, -1, false, false);
        let kind = x.kind();
        // Angles in f32 like Hugging Face; cos/sin cast to the compute dtype afterwards.
        let angles = positions.to_kind(Kind::Float).unsqueeze(-1) * &self.inv_freq;
        let angles = Tensor::cat(&[&angles, &angles], -1).unsqueeze(1);
        let rope = (angles.cos().to_kind(kind), angles.sin().to_kind(kind));
        for (i, layer) in self.layers.iter().enumerate() {
            let layer_cache = cache.as_deref_mut().map(|c| (c, i));
            x = layer.forward(&x, &rope, mask, layer_cache);
        }
        self.norm.forward(&x)
    }

    /// Logits [.., vocab] for hidden states [.., hidden].
    pub fn logits(&self, hidden: &Tensor) -> Tensor {
        hidden.linear(
            self.lm_head.as_ref().unwrap_or(&self.embed_tokens),
            None::<&Tensor>,
        )
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

/// Attention mask [B, 1, T, S] for T new queries after `past` cached positions.
///
/// `key_valid` [B, S] marks real (non-padding) keys. A query may see valid keys at or before its
/// own position; every query also sees itself, so padding rows never get an all-masked softmax
/// (which would give NaN and poison later layers through the padded keys' values).
pub fn attention_mask(key_valid: &Tensor, past: i64, t: i64) -> Tensor {
    let s = key_valid.size()[1];
    let device = key_valid.device();
    let q_pos = Tensor::arange_start(past, past + t, (Kind::Int64, device)).unsqueeze(1);
    let k_pos = Tensor::arange(s, (Kind::Int64, device)).unsqueeze(0);
    let causal = k_pos.le_tensor(&q_pos);
    let is_self = k_pos.eq_tensor(&q_pos);
    let valid = key_valid.to_kind(Kind::Bool).unsqueeze(1).unsqueeze(1);
    (valid.logical_and(&causal.unsqueeze(0).unsqueeze(0)))
        .logical_or(&is_self.unsqueeze(0).unsqueeze(0))
}

/// Positions [B, S] for left-padded rows: 0 at each row's first real token, counting up.
pub fn positions_from_valid(key_valid: &Tensor) -> Tensor {
    (key_valid.to_kind(Kind::Int64).cumsum(1, Kind::Int64) - 1).clamp_min(0)
}
