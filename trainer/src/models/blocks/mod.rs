//! The layers every family is built from: linear layers and their init, RMSNorm, RoPE, the
//! gated MLP, the KV cache, attention masks, and the attention step after the projections.
//! A family composes them and writes only what is its own.

pub(super) mod attention;
pub(super) mod cache;
pub(super) mod linear;
pub mod mask;
pub(super) mod mlp;
pub(super) mod norm;
pub(super) mod rope;
