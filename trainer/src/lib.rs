//! Heterogeneous agents on libtorch: model families, tokenizers and chat templates, GGUF
//! import, batched generation, log-probs of any response under any agent, checkpoints, AdamW
//! with resumable state, the HACPO training loop with its baselines, supervised warm-up, and
//! the reproducible experiment.

/// Chat templates (minijinja, transformers-compatible) and messages.
pub mod chat;
/// safetensors checkpoints: read (single or sharded) and write.
pub mod checkpoint;
/// The run's TOML file (`RunConfig`): agents, algorithm, data, verifier; devices.
pub mod config;
/// Loading libtorch's CUDA backend at run time into a binary linked without it.
pub mod cuda;
/// Generation on an OpenAI-compatible serving engine (vLLM) and the weight sync to it.
pub mod engine;
/// `trainer experiment`: generated arithmetic tasks, warm-up, arms × seeds, the report.
pub mod experiment;
/// The overlap gate: how much of each agent's text would carry gradient for each other, per rule.
pub mod gate;
/// Batched sampling with a KV cache: temperature, top-p, stop tokens.
pub mod generation;
/// GGUF files: the container, dequantisation, and import into a Hugging Face layout.
pub mod gguf;
/// `trainer gpu-check`: the parts of `scripts/gpu-check` (peak, update, generation, parity, agents).
pub mod gpucheck;
/// HACPO and its baselines as pure functions: capabilities, advantages, losses.
pub mod hacpo;
/// Pinning libtorch's CPU kernels to one instruction set, for runs that reproduce across CPUs.
pub mod kernels;
/// Log-probs of responses under a model (`ResponseScores`).
pub mod logprob;
/// Model families (Llama 3.x, SmolLM2, Qwen2, Qwen3).
pub mod models;
/// AdamW with resumable state, gradient-norm clipping.
pub mod optim;
/// An agent's policy: model, tokenizer, chat template, device and dtype.
pub mod policy;
/// Progress bars (or, off a terminal, log lines) of steps and their phases, with ETA.
pub mod progress;
/// Seeded, platform-independent random numbers (prompt draws, tasks, batch order).
pub mod rng;
/// `trainer roundtrip`: whether a tokenizer round-trips its own model's samples.
pub mod roundtrip;
/// Supervised fine-tuning on reference responses (the experiment's warm-up).
pub mod sft;
/// Tokenizers over `tokenizer.json`.
pub mod tokenizer;
/// The training loop (Algorithm 1): generate, pool, learn, evaluate, metrics, checkpoints.
pub mod train;

pub use chat::{ChatTemplate, Message};
pub use generation::{FinishReason, Sampled, SamplingParams};
pub use logprob::ResponseScores;
pub use policy::{Generation, Policy, TextPair};
pub use tokenizer::Tokenizer;

#[doc(hidden)]
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

/// The Gemma 3 270M Q4_K_M GGUF that `scripts/setup.d/32-gemma3.sh` assembles from PyPI.
pub fn gemma3_gguf_path() -> PathBuf {
    cache_dir().join("gemma3/gemma-3-270m-q4_k_m.gguf")
}
