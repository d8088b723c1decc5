//! Attention masks and positions of left-padded batches: the causal mask every layer uses, and
//! its sliding-window narrowing for local layers.

use tch::{Kind, Tensor};

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

/// The causal mask [B, 1, T, S] of T queries after S − T cached keys, narrowed to keys fewer
/// than `window` positions back (transformers' `kv_idx > q_idx - sliding_window`, on indices
/// into the padded sequence). A query always keeps itself, as in the causal mask.
pub(in crate::models) fn sliding_window_mask(mask: &Tensor, window: i64) -> Tensor {
    let (t, s) = (mask.size()[2], mask.size()[3]);
    let device = mask.device();
    let q_pos = Tensor::arange_start(s - t, s, (Kind::Int64, device)).unsqueeze(1);
    let k_pos = Tensor::arange(s, (Kind::Int64, device)).unsqueeze(0);
    let near = (q_pos - k_pos).lt(window);
    mask.logical_and(&near.unsqueeze(0).unsqueeze(0))
}
