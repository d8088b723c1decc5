//! A tiny random Gemma 3 (two sliding layers with a 4-token window around a global one, GQA,
//! random norms) against transformers' `Gemma3ForCausalLM` on the same weights: logits of
//! left-padded rows, response log-probs, the gradient of their mean, and greedy generation
//! through both caches.

use serde_json::json;
use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};
use trainer::SamplingParams;
use trainer::generation::{left_pad, sample};
use trainer::logprob::score;
use trainer::models::mask::{attention_mask, positions_from_valid};
use trainer::models::{Model, WeightInit};

const PAD: i64 = 0;

fn tiny_gemma() -> serde_json::Value {
    json!({
        "architectures": ["Gemma3ForCausalLM"],
        "model_type": "gemma3_text",
        "vocab_size": 96,
        "hidden_size": 32,
        "intermediate_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "rms_norm_eps": 1e-6,
        "query_pre_attn_scalar": 24,
        "sliding_window": 4,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
        "rope_theta": 1_000_000.0,
        "rope_local_base_freq": 10_000.0,
        "max_position_embeddings": 128,
        "hidden_activation": "gelu_pytorch_tanh",
        "tie_word_embeddings": true,
        "pad_token_id": PAD,
        "bos_token_id": 2,
        "eos_token_id": 1,
        "torch_dtype": "float32",
    })
}

#[test]
fn tiny_gemma3_matches_transformers() {
    super::support::init();
    let dir = tempfile::tempdir().unwrap();
    let cfg = tiny_gemma();
    tch::manual_seed(3);
    let vs = VarStore::new(Device::Cpu);
    let model = Model::from_json(&vs.root(), &cfg, WeightInit::Random).unwrap();
    // Norm weights start at 0 (unit scale); random ones check the (1 + w) convention too.
    tch::no_grad(|| {
        for (name, mut v) in vs.variables() {
            if name.ends_with("norm.weight") {
                v.copy_(&(Tensor::randn(v.size(), (Kind::Float, Device::Cpu)) * 0.3));
            } else {
                v.copy_(&(Tensor::randn(v.size(), (Kind::Float, Device::Cpu)) * 0.2));
            }
        }
    });
    std::fs::write(dir.path().join("config.json"), cfg.to_string()).unwrap();
    trainer::checkpoint::save_weights(&vs, dir.path()).unwrap();

    // Rows longer than the window, left padding of different lengths.
    let pairs: Vec<(Vec<i64>, Vec<i64>)> = vec![
        (vec![2, 17, 33, 4, 58, 9, 71], vec![12, 40, 5, 88, 23, 61]),
        (vec![2, 90], vec![7, 7, 19]),
        (vec![2, 44, 45, 46, 47, 48, 49, 50, 51, 52], vec![3]),
    ];
    let prompts: Vec<Vec<i64>> = vec![vec![2, 5, 9, 13, 17, 21, 25], vec![2, 80, 81]];
    let max_new = 10;
    let out = dir.path().join("ref.safetensors");
    super::run_reference(
        &super::transformers_python(),
        dir.path(),
        &json!({"job": "parity", "model_dir": dir.path(), "pad": PAD, "pairs": pairs,
                "prompts": prompts, "max_new_tokens": max_new, "out": out}),
    );
    let theirs: std::collections::HashMap<String, Tensor> = Tensor::read_safetensors(&out)
        .unwrap()
        .into_iter()
        .collect();

    // Forward: logits at every real position.
    let rows: Vec<Vec<i64>> = pairs
        .iter()
        .map(|(p, r)| [p.clone(), r.clone()].concat())
        .collect();
    let (ids, valid) = left_pad(&rows, PAD, Device::Cpu);
    let t = ids.size()[1];
    let logits = tch::no_grad(|| {
        model.forward(
            &ids,
            &positions_from_valid(&valid),
            &attention_mask(&valid, 0, t),
            None,
        )
    });
    let real = valid.unsqueeze(-1).to_kind(Kind::Float);
    let d_logits = super::max_abs_diff(&(&logits * &real), &(&theirs["logits"] * &real));

    // Log-probs and the gradient of the summed mean log-prob.
    let scores = score(&model, &pairs, PAD, 1.0).unwrap();
    let r_max = scores.token_logprobs.size()[1];
    let mut d_logprob = 0f64;
    for (i, (_, r)) in pairs.iter().enumerate() {
        let n = r.len() as i64;
        let ours = scores.token_logprobs.get(i as i64).narrow(0, r_max - n, n);
        d_logprob = d_logprob.max(super::max_abs_diff(
            &ours,
            &theirs[&format!("logprobs.{i}")],
        ));
    }
    scores.mean_logprob.sum(Kind::Float).backward();
    let mut d_grad = 0f64;
    let mut grad_scale = 0f64;
    for (name, v) in vs.variables() {
        let g = &theirs[&format!("grad.{name}")];
        d_grad = d_grad.max(super::max_abs_diff(&v.grad(), g));
        grad_scale = grad_scale.max(f64::try_from(g.abs().max()).unwrap());
    }

    // Greedy generation on our KV cache against transformers' generate().
    let params = SamplingParams {
        stop_token_ids: Some(vec![]),
        ..SamplingParams::greedy(max_new)
    };
    let gens = sample(&model, &prompts, &params, &[], PAD).unwrap();
    let their_ids = Vec::<Vec<i64>>::try_from(&theirs["gen_ids"]).unwrap();
    let mut d_gen = 0f64;
    for (i, g) in gens.iter().enumerate() {
        assert_eq!(g.token_ids, their_ids[i], "row {i}: generated ids differ");
        let ours = Tensor::from_slice(&g.logprobs);
        d_gen = d_gen.max(super::max_abs_diff(
            &ours,
            &theirs["gen_logprobs"].get(i as i64),
        ));
    }
    eprintln!(
        "tiny Gemma 3 vs transformers: max |Δ| logits {d_logits:.2e}, log-probs {d_logprob:.2e}, \
         grads {d_grad:.2e} (largest grad {grad_scale:.2e}), greedy generation {d_gen:.2e} \
         ({max_new} tokens × {} rows, ids equal)",
        prompts.len()
    );
    assert!(d_logits < 1e-4, "logits differ by {d_logits}");
    assert!(d_logprob < 1e-4, "log-probs differ by {d_logprob}");
    assert!(
        d_grad < 1e-4 * grad_scale.max(1.0),
        "gradients differ by {d_grad}"
    );
    assert!(d_gen < 1e-4, "generation log-probs differ by {d_gen}");
}

/// The Gemma family is reachable through every public config path, and bad configs say why.
#[test]
fn gemma3_configs_are_checked() {
    let vs = VarStore::new(Device::Cpu);
    let mut cfg = tiny_gemma();
    cfg["final_logit_softcapping"] = json!(30.0);
    let err = Model::from_json(&vs.root(), &cfg, WeightInit::Zeros).unwrap_err();
    assert!(format!("{err:#}").contains("soft-capping"), "{err:#}");
    let mut cfg = tiny_gemma();
    cfg["layer_types"] = json!(["full_attention"]);
    let err = Model::from_json(&vs.root(), &cfg, WeightInit::Zeros).unwrap_err();
    assert!(format!("{err:#}").contains("layer_types"), "{err:#}");
    // Published checkpoints' flat layout: every sixth layer global.
    let mut cfg = tiny_gemma();
    cfg.as_object_mut().unwrap().remove("layer_types");
    cfg["num_hidden_layers"] = json!(6);
    let c: trainer::models::gemma3::Config = serde_json::from_value(cfg).unwrap();
    use trainer::models::gemma3::LayerType::*;
    assert_eq!(
        c.layer_types(),
        [
            SlidingAttention,
            SlidingAttention,
            SlidingAttention,
            SlidingAttention,
            SlidingAttention,
            FullAttention
        ]
    );
}
