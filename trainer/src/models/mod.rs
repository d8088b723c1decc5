//! Model architecture families, one file each (candle-transformers style).

pub mod llama;

pub use llama::{Config, KvCache, Model, ModelType, WeightInit};
