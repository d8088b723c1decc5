//! The step every family's attention ends with: the cache, scaled-dot-product attention with
//! grouped-query heads, and the heads merged back.

use tch::Tensor;

use super::cache::KvCache;

/// Attention of the queries `q` [B, H, T, D] over the keys and values `k`, `v` [B, Hkv, T, D]
/// (first appended to layer `cache.1` of `cache.0`, when given) under `mask` [B, 1, T, S],
/// scores scaled by `scale` (`None`: 1/√D). Returns the heads side by side: [B, T, H·D].
pub(in crate::models) fn attend(
    q: &Tensor,
    k: Tensor,
    v: Tensor,
    mask: &Tensor,
    scale: Option<f64>,
    cache: Option<(&mut KvCache, usize)>,
) -> Tensor {
    let (b, h, t, d) = (q.size()[0], q.size()[1], q.size()[2], q.size()[3]);
    let (k, v) = match cache {
        Some((cache, layer)) => cache.append(layer, k, v),
        None => (k, v),
    };
    let y = Tensor::scaled_dot_product_attention(q, &k, &v, Some(mask), 0.0, false, scale, true);
    y.transpose(1, 2).reshape([b, t, h * d])
}
