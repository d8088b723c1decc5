//! The Llama decoder family: Llama 3.x, SmolLM2, Qwen2/2.5 (q/k/v bias) and Qwen3 (q/k RMSNorm),
//! selected by `model_type` and flags in a Hugging Face `config.json` in the standard layout
//! ([`Config`]). Pre-norm decoder layers of attention and a SwiGLU MLP.
//!
//! Parameter names follow the Hugging Face layout (`model.layers.0.self_attn.q_proj.weight`, …)
//! so checkpoints load and save without renaming.

pub use super::config::Config;

use tch::Tensor;
use tch::nn::Path;

use super::blocks::attention::attend;
use super::blocks::cache::KvCache;
use super::blocks::linear::{Linear, WeightInit};
use super::blocks::mlp::{Activation, Mlp};
use super::blocks::norm::RmsNorm;
use super::blocks::rope::{Rope, Rotation};
use super::config::ModelType;

/// What the family's members change in the attention.
#[derive(Debug, Clone, Copy)]
struct Variant {
    /// Bias on q/k/v: Qwen2 always, Llama with `attention_bias`.
    qkv_bias: bool,
    /// Bias on o: Llama with `attention_bias`.
    o_bias: bool,
    /// RMSNorm of each query and key head: Qwen3.
    qk_norm: bool,
}

impl Variant {
    fn of(cfg: &Config) -> Self {
        Self {
            qkv_bias: cfg.model_type == ModelType::Qwen2 || cfg.attention_bias == Some(true),
            o_bias: cfg.model_type == ModelType::Llama && cfg.attention_bias == Some(true),
            qk_norm: cfg.model_type == ModelType::Qwen3,
        }
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
        let (h, kv, d, hidden, w) = (
            cfg.num_attention_heads,
            cfg.num_kv_heads(),
            cfg.head_dim(),
            cfg.hidden_size,
            init.matrix(cfg.initializer_range),
        );
        let var = Variant::of(cfg);
        let norm = |name: &str| {
            var.qk_norm
                .then(|| RmsNorm::new(&p / name, d, cfg.rms_norm_eps))
        };
        Self {
            q_proj: Linear::new(&p / "q_proj", hidden, h * d, var.qkv_bias, w),
            k_proj: Linear::new(&p / "k_proj", hidden, kv * d, var.qkv_bias, w),
            v_proj: Linear::new(&p / "v_proj", hidden, kv * d, var.qkv_bias, w),
            o_proj: Linear::new(&p / "o_proj", h * d, hidden, var.o_bias, w),
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
        rope: &Rotation,
        mask: &Tensor,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Tensor {
        let (b, t) = (x.size()[0], x.size()[1]);
        // Qwen3 normalises each head before the transpose to [B, heads, T, D].
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
        let (q, k) = (rope.apply(&q), rope.apply(&k));
        self.o_proj.forward(&attend(&q, k, v, mask, None, cache))
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
        let norm = |name: &str| RmsNorm::new(&p / name, cfg.hidden_size, cfg.rms_norm_eps);
        Self {
            input_layernorm: norm("input_layernorm"),
            self_attn: Attention::new(&p / "self_attn", cfg, init),
            post_attention_layernorm: norm("post_attention_layernorm"),
            mlp: Mlp::new(
                &p / "mlp",
                cfg.hidden_size,
                cfg.intermediate_size,
                Activation::Silu,
                init.matrix(cfg.initializer_range),
            ),
        }
    }

    fn forward(
        &self,
        x: &Tensor,
        rope: &Rotation,
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
    rope: Rope,
    config: Config,
    device: tch::Device,
}

impl Model {
    /// Creates the parameters under `p`.
    pub fn new(p: &Path, config: &Config, init: WeightInit) -> anyhow::Result<Self> {
        anyhow::ensure!(
            config.hidden_act == "silu",
            "unsupported hidden_act {:?}",
            config.hidden_act
        );
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
        Ok(Self {
            embed_tokens,
            layers,
            norm,
            lm_head,
            rope: Rope::new(&config.rope_inv_freq(), p.device()),
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
        let rope = self.rope.at(positions, x.kind());
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
