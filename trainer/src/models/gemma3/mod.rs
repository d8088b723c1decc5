//! Gemma 3 (text): √d-scaled embeddings, RMSNorm with (1 + w), norms before and after both
//! attention and MLP, q/k norm, GeGLU with the tanh GELU, sliding-window attention on the local
//! layers and full attention on the global ones (each with its own RoPE base), scores scaled by
//! `query_pre_attn_scalar`, tied embeddings — as transformers' `Gemma3ForCausalLM` computes it.
//!
//! Parameter names follow the Hugging Face layout, so checkpoints load and save unrenamed.

mod config;

pub use config::{Config, LayerType, RopeParameters};

use anyhow::Result;
use tch::Tensor;
use tch::nn::Path;

use super::blocks::attention::attend;
use super::blocks::cache::KvCache;
use super::blocks::linear::{Linear, WeightInit};
use super::blocks::mask::sliding_window_mask;
use super::blocks::mlp::{Activation, Mlp};
use super::blocks::norm::RmsNorm;
use super::blocks::rope::{Rope, Rotation};
use super::config::Config as CommonConfig;

#[derive(Debug)]
struct Attention {
    q_proj: Linear,
    k_proj: Linear,
    v_proj: Linear,
    o_proj: Linear,
    q_norm: RmsNorm,
    k_norm: RmsNorm,
    n_heads: i64,
    n_kv_heads: i64,
    head_dim: i64,
    scale: f64,
}

impl Attention {
    fn new(p: Path, cfg: &Config, init: WeightInit) -> Self {
        let (h, kv, d, hidden) = (
            cfg.num_attention_heads,
            cfg.num_key_value_heads,
            cfg.head_dim,
            cfg.hidden_size,
        );
        let (w, bias) = (init.matrix(cfg.initializer_range), cfg.attention_bias);
        Self {
            q_proj: Linear::new(&p / "q_proj", hidden, h * d, bias, w),
            k_proj: Linear::new(&p / "k_proj", hidden, kv * d, bias, w),
            v_proj: Linear::new(&p / "v_proj", hidden, kv * d, bias, w),
            o_proj: Linear::new(&p / "o_proj", h * d, hidden, bias, w),
            q_norm: RmsNorm::one_plus(&p / "q_norm", d, cfg.rms_norm_eps),
            k_norm: RmsNorm::one_plus(&p / "k_norm", d, cfg.rms_norm_eps),
            n_heads: h,
            n_kv_heads: kv,
            head_dim: d,
            scale: cfg.query_pre_attn_scalar.powf(-0.5),
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
        let heads = |y: Tensor, n: i64| y.view([b, t, n, self.head_dim]).transpose(1, 2);
        let q = self
            .q_norm
            .forward(&heads(self.q_proj.forward(x), self.n_heads));
        let k = self
            .k_norm
            .forward(&heads(self.k_proj.forward(x), self.n_kv_heads));
        let v = heads(self.v_proj.forward(x), self.n_kv_heads);
        let (q, k) = (rope.apply(&q), rope.apply(&k));
        self.o_proj
            .forward(&attend(&q, k, v, mask, Some(self.scale), cache))
    }
}

#[derive(Debug)]
struct DecoderLayer {
    input_layernorm: RmsNorm,
    self_attn: Attention,
    post_attention_layernorm: RmsNorm,
    pre_feedforward_layernorm: RmsNorm,
    mlp: Mlp,
    post_feedforward_layernorm: RmsNorm,
    kind: LayerType,
}

impl DecoderLayer {
    fn new(p: Path, cfg: &Config, kind: LayerType, init: WeightInit) -> Self {
        let norm = |name: &str| RmsNorm::one_plus(&p / name, cfg.hidden_size, cfg.rms_norm_eps);
        Self {
            input_layernorm: norm("input_layernorm"),
            self_attn: Attention::new(&p / "self_attn", cfg, init),
            post_attention_layernorm: norm("post_attention_layernorm"),
            pre_feedforward_layernorm: norm("pre_feedforward_layernorm"),
            mlp: Mlp::new(
                &p / "mlp",
                cfg.hidden_size,
                cfg.intermediate_size,
                Activation::GeluTanh,
                init.matrix(cfg.initializer_range),
            ),
            post_feedforward_layernorm: norm("post_feedforward_layernorm"),
            kind,
        }
    }

    fn forward(
        &self,
        x: &Tensor,
        rope: &Rotation,
        mask: &Tensor,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Tensor {
        let a = self
            .self_attn
            .forward(&self.input_layernorm.forward(x), rope, mask, cache);
        let h = x + self.post_attention_layernorm.forward(&a);
        let m = self
            .mlp
            .forward(&self.pre_feedforward_layernorm.forward(&h));
        &h + self.post_feedforward_layernorm.forward(&m)
    }
}

/// A Gemma 3 causal language model (text only).
#[derive(Debug)]
pub struct Model {
    embed_tokens: Tensor,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    lm_head: Option<Tensor>,
    rope_local: Rope,
    rope_global: Rope,
    config: Config,
    common: CommonConfig,
    device: tch::Device,
}

impl Model {
    /// Creates the parameters under `p`.
    pub fn new(p: &Path, config: &Config, init: WeightInit) -> Result<Self> {
        config.validate()?;
        let m = p / "model";
        let embed_tokens = (&m / "embed_tokens").var(
            "weight",
            &[config.vocab_size, config.hidden_size],
            init.matrix(config.initializer_range),
        );
        let layers = config
            .layer_types()
            .into_iter()
            .enumerate()
            .map(|(i, kind)| DecoderLayer::new(&m / "layers" / i, config, kind, init))
            .collect();
        let lm_head = (!config.tie_word_embeddings).then(|| {
            (p / "lm_head").var(
                "weight",
                &[config.vocab_size, config.hidden_size],
                init.matrix(config.initializer_range),
            )
        });
        let rope = |t| -> Result<Rope> { Ok(Rope::new(&config.rope_inv_freq(t)?, p.device())) };
        Ok(Self {
            embed_tokens,
            layers,
            norm: RmsNorm::one_plus(&m / "norm", config.hidden_size, config.rms_norm_eps),
            lm_head,
            rope_local: rope(LayerType::SlidingAttention)?,
            rope_global: rope(LayerType::FullAttention)?,
            common: config.common(),
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

    /// The sizes every family reports ([`Config::common`]).
    pub fn common_config(&self) -> &CommonConfig {
        &self.common
    }

    /// Final hidden states [B, T, hidden]; the arguments are those of
    /// [`crate::models::Model::forward_hidden`]. Local layers narrow `mask` to their window.
    pub fn forward_hidden(
        &self,
        input_ids: &Tensor,
        positions: &Tensor,
        mask: &Tensor,
        mut cache: Option<&mut KvCache>,
    ) -> Tensor {
        let embedded = Tensor::embedding(
            &self.embed_tokens,
            input_ids,
            self.config.pad_token_id,
            false,
            false,
        );
        let kind = embedded.kind();
        // transformers rounds √d to the weights' dtype before multiplying.
        let scale = Tensor::from((self.config.hidden_size as f64).sqrt())
            .to_kind(kind)
            .to_device(self.device);
        let mut x = embedded * scale;
        let (rope_local, rope_global) = (
            self.rope_local.at(positions, kind),
            self.rope_global.at(positions, kind),
        );
        let local_mask = sliding_window_mask(mask, self.config.sliding_window);
        for (i, layer) in self.layers.iter().enumerate() {
            let layer_cache = cache.as_deref_mut().map(|c| (c, i));
            let (rope, mask) = match layer.kind {
                LayerType::SlidingAttention => (&rope_local, &local_mask),
                LayerType::FullAttention => (&rope_global, mask),
            };
            x = layer.forward(&x, rope, mask, layer_cache);
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
}
