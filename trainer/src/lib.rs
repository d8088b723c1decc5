//! Heterogeneous agents on libtorch: model families, tokenizers and chat templates, GGUF
//! import, batched generation, log-probs of any response under any agent, checkpoints, AdamW
//! with resumable state, the HACPO training loop with its baselines, supervised warm-up, and
//! the reproducible experiment.

pub mod chat;
pub mod checkpoint;
pub mod config;
pub mod experiment;
pub mod generation;
pub mod gguf;
pub mod hacpo;
pub mod logprob;
pub mod models;
pub mod optim;
pub mod policy;
pub mod run;
pub mod sft;
pub mod tokenizer;
pub mod verifier;

pub use chat::{ChatTemplate, Message};
pub use generation::{FinishReason, Sampled, SamplingParams};
pub use logprob::ResponseScores;
pub use policy::{Generation, Policy, TextPair};
pub use tokenizer::Tokenizer;

use std::path::PathBuf;

/// Root of downloads, venvs and converted models: `${HACRL_CACHE:-$HOME/.cache/hacrl}`.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("HACRL_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".cache/hacrl"),
    }
}

/// The SmolLM2-135M-Instruct GGUF that `scripts/setup.d/31-smollm2.sh` fetches.
pub fn smollm2_gguf_path() -> PathBuf {
    cache_dir().join("smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
}
