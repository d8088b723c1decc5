//! Shared fixtures: tiny configs and the real SmolLM2-135M-Instruct model.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;
use std::sync::Once;

use serde_json::{Value, json};

/// One libtorch thread per test: the test harness already runs tests in parallel, and OpenMP
/// spin-waiting across oversubscribed cores makes everything many times slower.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| tch::set_num_threads(1));
}

/// The imported SmolLM2 directory (importing the GGUF once into the cache).
pub fn smollm2_dir() -> PathBuf {
    init();
    let gguf = trainer::smollm2_gguf_path();
    assert!(
        gguf.is_file(),
        "{} is missing: run scripts/setup.d/31-smollm2.sh (or scripts/setup)",
        gguf.display()
    );
    trainer::gguf::import_cached(&gguf, &trainer::gguf::default_cache_root()).expect("GGUF import")
}

/// A tiny config of the given family; `std` controls how peaked the random logits are.
pub fn tiny_config(model_type: &str, vocab: i64, std: f64) -> Value {
    let mut cfg = json!({
        "model_type": model_type,
        "vocab_size": vocab,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "max_position_embeddings": 256,
        "tie_word_embeddings": model_type == "llama",
        "initializer_range": std,
    });
    if model_type == "qwen3" {
        cfg["head_dim"] = json!(16);
    }
    cfg
}
