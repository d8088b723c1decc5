//! Model FLOPs of a training pass and the device's measured matmul peak: the two sides of MFU.

use std::time::Instant;

use tch::{Device, Kind, Tensor};

use crate::models::Config;

/// Weights that multiply every token in the decoder layers (embedding lookups cost no FLOPs;
/// norms and biases are negligible and left out).
pub(super) fn layer_matmul_params(c: &Config) -> f64 {
    let (d, q, kv) = (
        c.hidden_size as f64,
        (c.num_attention_heads * c.head_dim()) as f64,
        (c.num_kv_heads() * c.head_dim()) as f64,
    );
    let attention = d * q + 2.0 * d * kv + q * d;
    let mlp = 3.0 * d * c.intermediate_size as f64;
    c.num_hidden_layers as f64 * (attention + mlp)
}

/// Model FLOPs of one forward + backward pass over sequences of `seq_len` tokens, per token:
/// 6 × the layers' matmul weights, plus PaLM's attention term 12 · L · heads · head_dim · T
/// (full T×T scores, as the kernels compute them under a causal mask), plus 6 × the
/// vocabulary projection for the `head_fraction` of tokens it runs on (the scorer projects
/// response positions only).
pub(super) fn train_flops_per_token(c: &Config, seq_len: f64, head_fraction: f64) -> f64 {
    let attention =
        12.0 * (c.num_hidden_layers * c.num_attention_heads * c.head_dim()) as f64 * seq_len;
    let head = 6.0 * (c.hidden_size * c.vocab_size) as f64 * head_fraction;
    6.0 * layer_matmul_params(c) + attention + head
}

/// What one dense matmul sustains on `device` in `kind`.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) struct MatmulPeak {
    /// Square matrix size.
    pub n: i64,
    /// FLOP/s: 2n³ per product over the median time of `repeats` products.
    pub flops_per_s: f64,
}

/// Median FLOP/s of `repeats` n×n products in `kind`, after one warm-up.
pub(super) fn matmul_peak(device: Device, kind: Kind, n: i64, repeats: usize) -> MatmulPeak {
    let a = Tensor::randn([n, n], (kind, device));
    let b = Tensor::randn([n, n], (kind, device));
    let mut times = Vec::with_capacity(repeats);
    for i in 0..=repeats {
        synchronize(device);
        let t = Instant::now();
        let c = a.matmul(&b);
        synchronize(device);
        let s = t.elapsed().as_secs_f64();
        drop(c);
        if i > 0 {
            times.push(s);
        }
    }
    times.sort_by(f64::total_cmp);
    MatmulPeak {
        n,
        flops_per_s: 2.0 * (n as f64).powi(3) / times[times.len() / 2],
    }
}

/// Waits for `device`'s queued kernels (CUDA launches are asynchronous).
pub(super) fn synchronize(device: Device) {
    if let Device::Cuda(i) = device {
        tch::Cuda::synchronize(i as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smollm2() -> Config {
        serde_json::from_str(include_str!("../../assets/gpu-check/smollm2-135m.json")).unwrap()
    }

    #[test]
    fn smollm2_layer_weights_match_its_parameter_count() {
        // SmolLM2-135M: 134.5 M parameters = layers + 49,152 × 576 tied embedding + norms.
        let c = smollm2();
        let embedding = (c.vocab_size * c.hidden_size) as f64;
        let norms = ((2 * c.num_hidden_layers + 1) * c.hidden_size) as f64;
        let total = layer_matmul_params(&c) + embedding + norms;
        assert!((total - 134_515_008.0).abs() < 1.0, "{total}");
    }

    #[test]
    fn attention_and_head_terms_scale_with_context_and_coverage() {
        let c = smollm2();
        let base = train_flops_per_token(&c, 0.0, 0.0);
        assert_eq!(base, 6.0 * layer_matmul_params(&c));
        let with_ctx = train_flops_per_token(&c, 1024.0, 0.0) - base;
        assert_eq!(with_ctx, 12.0 * 30.0 * 9.0 * 64.0 * 1024.0);
        let with_head = train_flops_per_token(&c, 0.0, 0.5) - base;
        assert_eq!(with_head, 3.0 * 576.0 * 49_152.0);
    }
}
