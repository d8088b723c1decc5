//! The model's batched, padded, cached forward against a naive per-position reference written
//! from the architecture's equations (f64, explicit loops), for each supported family.

mod support;

use std::collections::HashMap;

use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};
use trainer::SamplingParams;
use trainer::generation::{left_pad, sample};
use trainer::models::llama;
use trainer::models::mask::{attention_mask, positions_from_valid};
use trainer::models::{Config, Model, ModelType, WeightInit};

struct Reference {
    w: HashMap<String, Tensor>,
    cfg: Config,
}

impl Reference {
    fn new(vs: &VarStore, cfg: &Config) -> Self {
        let w = vs
            .variables()
            .into_iter()
            .map(|(k, v)| (k, v.detach().to_kind(Kind::Double)))
            .collect();
        Self {
            w,
            cfg: cfg.clone(),
        }
    }

    fn get(&self, name: &str) -> &Tensor {
        self.w
            .get(name)
            .unwrap_or_else(|| panic!("no weight {name}"))
    }

    fn linear(&self, x: &Tensor, name: &str) -> Tensor {
        let y = x.matmul(&self.get(&format!("{name}.weight")).tr());
        match self.w.get(&format!("{name}.bias")) {
            Some(b) => y + b,
            None => y,
        }
    }

    fn rms(&self, x: &Tensor, name: &str) -> Tensor {
        let ms = (x * x).mean_dim(-1, true, Kind::Double);
        x / (ms + self.cfg.rms_norm_eps).sqrt() * self.get(&format!("{name}.weight"))
    }

    /// Rotate-half RoPE on one head vector at position `pos`, frequency by frequency.
    fn rope(&self, v: &Tensor, pos: i64) -> Tensor {
        let d = self.cfg.head_dim();
        let half = d / 2;
        let vals = Vec::<f64>::try_from(v).unwrap();
        let mut out = vals.clone();
        for i in 0..half as usize {
            let inv = 1.0 / self.cfg.rope_theta.powf(2.0 * i as f64 / d as f64);
            let (s, c) = (pos as f64 * inv).sin_cos();
            out[i] = vals[i] * c - vals[i + half as usize] * s;
            out[i + half as usize] = vals[i + half as usize] * c + vals[i] * s;
        }
        Tensor::from_slice(&out)
    }

    /// Logits [T, V] of one unpadded sequence.
    fn logits(&self, ids: &[i64]) -> Tensor {
        let c = &self.cfg;
        let (h, kv, d) = (c.num_attention_heads, c.num_kv_heads(), c.head_dim());
        let t = ids.len() as i64;
        let mut x = self
            .get("model.embed_tokens.weight")
            .index_select(0, &Tensor::from_slice(ids));
        for l in 0..c.num_hidden_layers {
            let p = format!("model.layers.{l}");
            let hn = self.rms(&x, &format!("{p}.input_layernorm"));
            let q = self
                .linear(&hn, &format!("{p}.self_attn.q_proj"))
                .view([t, h, d]);
            let k = self
                .linear(&hn, &format!("{p}.self_attn.k_proj"))
                .view([t, kv, d]);
            let v = self
                .linear(&hn, &format!("{p}.self_attn.v_proj"))
                .view([t, kv, d]);
            let (q, k) = if c.model_type == ModelType::Qwen3 {
                (
                    self.rms(&q, &format!("{p}.self_attn.q_norm")),
                    self.rms(&k, &format!("{p}.self_attn.k_norm")),
                )
            } else {
                (q, k)
            };
            let mut rows = Vec::new();
            for pos in 0..t {
                let mut heads = Vec::new();
                for head in 0..h {
                    let g = head / (h / kv);
                    let qv = self.rope(&q.get(pos).get(head), pos);
                    let mut scores = Vec::new();
                    for s in 0..=pos {
                        let kvec = self.rope(&k.get(s).get(g), s);
                        scores.push(f64::try_from(qv.dot(&kvec)).unwrap() / (d as f64).sqrt());
                    }
                    let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let e: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
                    let z: f64 = e.iter().sum();
                    let mut acc = Tensor::zeros([d], (Kind::Double, Device::Cpu));
                    for (s, w) in e.iter().enumerate() {
                        acc += v.get(s as i64).get(g) * (w / z);
                    }
                    heads.push(acc);
                }
                rows.push(Tensor::cat(&heads, 0));
            }
            let attn = Tensor::stack(&rows, 0);
            x = &x + self.linear(&attn, &format!("{p}.self_attn.o_proj"));
            let hn = self.rms(&x, &format!("{p}.post_attention_layernorm"));
            let gate = self.linear(&hn, &format!("{p}.mlp.gate_proj"));
            let silu = &gate / (gate.neg().exp() + 1.0);
            let up = self.linear(&hn, &format!("{p}.mlp.up_proj"));
            x = &x + self.linear(&(silu * up), &format!("{p}.mlp.down_proj"));
        }
        let xn = self.rms(&x, "model.norm");
        let head = self
            .w
            .get("lm_head.weight")
            .unwrap_or_else(|| self.get("model.embed_tokens.weight"));
        xn.matmul(&head.tr())
    }
}

fn build(model_type: &str, std: f64, seed: i64) -> (VarStore, Model, Config) {
    support::init();
    tch::manual_seed(seed);
    let cfg: Config = serde_json::from_value(support::tiny_config(model_type, 97, std)).unwrap();
    let vs = VarStore::new(Device::Cpu);
    let model = Model::from(llama::Model::new(&vs.root(), &cfg, WeightInit::Random).unwrap());
    // Biases and norm weights start at 0 / 1; perturb them so they are actually exercised.
    tch::no_grad(|| {
        for (name, mut v) in vs.variables() {
            if name.ends_with("bias") || name.contains("norm") {
                let _ = v.f_add_(&(Tensor::randn_like(&v) * 0.3)).unwrap();
            }
        }
    });
    (vs, model, cfg)
}

fn check_family(model_type: &str) {
    let (vs, model, cfg) = build(model_type, 0.2, 7);
    let reference = Reference::new(&vs, &cfg);
    let seqs: Vec<Vec<i64>> = vec![
        vec![5, 17, 3, 88, 42, 9, 1],
        vec![60, 2, 33],
        vec![11, 12, 13, 14, 15],
    ];
    let (ids, valid) = left_pad(&seqs, 0, Device::Cpu);
    let t = ids.size()[1];
    let logits = tch::no_grad(|| {
        model.forward(
            &ids,
            &positions_from_valid(&valid),
            &attention_mask(&valid, 0, t),
            None,
        )
    });
    for (row, seq) in seqs.iter().enumerate() {
        let n = seq.len() as i64;
        let ours = logits
            .get(row as i64)
            .narrow(0, t - n, n)
            .to_kind(Kind::Double);
        let want = reference.logits(seq);
        let diff = f64::try_from((&ours - &want).abs().max()).unwrap();
        assert!(
            diff < 1e-4,
            "{model_type} row {row}: max |logit diff| {diff}"
        );
        assert!(
            f64::try_from(want.abs().max()).unwrap() > 0.1,
            "reference logits are degenerate"
        );
    }
}

#[test]
fn llama_tied_matches_reference() {
    check_family("llama");
}

#[test]
fn qwen2_bias_untied_matches_reference() {
    check_family("qwen2");
}

#[test]
fn qwen3_qk_norm_matches_reference() {
    check_family("qwen3");
}

#[test]
fn cached_and_uncached_greedy_agree() {
    for family in ["llama", "qwen2", "qwen3"] {
        let (_vs, model, _cfg) = build(family, 0.5, 11);
        let prompts = vec![vec![5, 17, 3, 88, 42], vec![60], vec![11, 12, 13]];
        let cached = SamplingParams {
            stop_token_ids: Some(vec![]),
            ..SamplingParams::greedy(24)
        };
        let uncached = SamplingParams {
            use_cache: false,
            ..cached.clone()
        };
        let a = sample(&model, &prompts, &cached, &[], 0).unwrap();
        let b = sample(&model, &prompts, &uncached, &[], 0).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.token_ids, y.token_ids, "{family}");
            assert_eq!(x.token_ids.len(), 24);
            for (p, q) in x.logprobs.iter().zip(&y.logprobs) {
                assert!((p - q).abs() < 1e-4, "{family}: logprob {p} vs {q}");
            }
        }
        // The rows must not all collapse to one token, or the comparison proves little.
        let distinct: std::collections::HashSet<i64> =
            a.iter().flat_map(|s| s.token_ids.clone()).collect();
        assert!(
            distinct.len() > 3,
            "{family}: degenerate generations {distinct:?}"
        );
    }
}

#[test]
fn llama3_rope_scaling_follows_the_reference_formula() {
    let mut cfg: Config = serde_json::from_value(support::tiny_config("llama", 97, 0.02)).unwrap();
    cfg.head_dim = Some(64);
    cfg.rope_theta = 500_000.0;
    cfg.rope_scaling =
        serde_json::from_value(serde_json::json!({"rope_type": "llama3", "factor": 32.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}))
        .unwrap();
    let inv = cfg.rope_inv_freq();
    let base = |i: usize| 1.0 / 500_000f64.powf(2.0 * i as f64 / 64.0);
    // Highest frequency: wavelength 2π < 8192/4, untouched.
    assert!((inv[0] - base(0)).abs() < 1e-12);
    // Lowest frequency: wavelength far above 8192, divided by the factor.
    assert!((inv[31] - base(31) / 32.0).abs() < 1e-15);
    // Frequencies never grow and the scaled ones lie between f/32 and f.
    for (i, f) in inv.iter().enumerate() {
        assert!(
            *f <= base(i) + 1e-15 && *f >= base(i) / 32.0 - 1e-15,
            "freq {i}"
        );
    }
}

#[test]
fn bad_inputs_give_errors() {
    let (_vs, model, _cfg) = build("llama", 0.02, 1);
    assert!(sample(&model, &[], &SamplingParams::greedy(4), &[], 0).is_err());
    assert!(sample(&model, &[vec![]], &SamplingParams::greedy(4), &[], 0).is_err());
    assert!(sample(&model, &[vec![1000]], &SamplingParams::greedy(4), &[], 0).is_err());
    assert!(sample(&model, &[vec![1]], &SamplingParams::greedy(1000), &[], 0).is_err());
    let bad_top_p = SamplingParams {
        top_p: 0.0,
        ..SamplingParams::default()
    };
    assert!(sample(&model, &[vec![1]], &bad_top_p, &[], 0).is_err());
    assert!(trainer::logprob::score(&model, &[(vec![1], vec![])], 0, 1.0).is_err());
    let mut cfg = support::tiny_config("mistral", 97, 0.02);
    let err = serde_json::from_value::<Config>(cfg.clone()).unwrap_err();
    assert!(err.to_string().contains("unsupported model_type"), "{err}");
    cfg["model_type"] = "llama".into();
    cfg["num_key_value_heads"] = 3.into();
    assert!(
        serde_json::from_value::<Config>(cfg)
            .unwrap()
            .validate()
            .is_err()
    );
}
