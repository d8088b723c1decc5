//! Import of a GGUF file into a Hugging Face-layout model directory, and the cache that makes
//! a `.gguf` model path usable wherever a model directory is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use tch::Kind;

use super::file::GgufFile;
use super::hf::{hf_config, hf_generation_config, hf_tokenizer, hf_tokenizer_config};
use super::names::{hf_name, required_tensors, unpermute_qk};

/// Converts a GGUF file into `out_dir` (config.json, model.safetensors in f32, tokenizer.json,
/// tokenizer_config.json, generation_config.json).
pub fn import(gguf: &Path, out_dir: &Path) -> Result<()> {
    let g = GgufFile::read(gguf)?;
    let config = hf_config(&g)?;
    let arch = g.meta_str("general.architecture")?.to_owned();
    let layers = config["num_hidden_layers"].as_u64().unwrap_or(0);
    for name in required_tensors(&arch, layers) {
        ensure!(
            g.tensors.iter().any(|t| t.name == name),
            "{} lacks tensor {name}, which a {arch} model needs",
            gguf.display()
        );
    }
    let tokenizer = hf_tokenizer(&g)?;
    let heads = config["num_attention_heads"].as_i64().unwrap_or(1);
    let kv_heads = config["num_key_value_heads"].as_i64().unwrap_or(heads);
    let mut weights = BTreeMap::new();
    for (i, info) in g.tensors.iter().enumerate() {
        let name = hf_name(&arch, &info.name)?;
        let mut t = g.tensor(info)?;
        // llama.cpp stores Gemma's RMSNorm weights as 1 + w (ggml multiplies by them directly);
        // Hugging Face's Gemma3RMSNorm adds the 1 itself.
        if arch == "gemma3" && name.ends_with("norm.weight") {
            t -= 1.0;
        }
        // Only the Llama converter permutes Q/K; Qwen GGUFs keep Hugging Face's order.
        if arch == "llama" && name.ends_with("q_proj.weight") {
            t = unpermute_qk(&t, heads);
        } else if arch == "llama" && name.ends_with("k_proj.weight") {
            t = unpermute_qk(&t, kv_heads);
        }
        if i % 50 == 0 {
            tracing::info!(tensor = %info.name, done = i, total = g.tensors.len(), "dequantising GGUF");
        }
        weights.insert(name, t.to_kind(Kind::Float).contiguous());
    }
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    crate::checkpoint::write_safetensors(&out_dir.join("model.safetensors"), &weights)?;
    let write_json = |name: &str, v: &Value| -> Result<()> {
        std::fs::write(out_dir.join(name), serde_json::to_string_pretty(v)?)
            .with_context(|| format!("cannot write {name}"))
    };
    write_json("config.json", &config)?;
    write_json("tokenizer.json", &tokenizer)?;
    write_json("tokenizer_config.json", &hf_tokenizer_config(&g))?;
    write_json("generation_config.json", &hf_generation_config(&g))
}

/// Imports `gguf` into a cache directory (once; later calls reuse it) and returns that directory.
///
/// The directory is keyed by the file's name and size and lives under `cache_root`; the
/// conversion writes to a temporary directory first so concurrent callers never see half a model.
pub fn import_cached(gguf: &Path, cache_root: &Path) -> Result<PathBuf> {
    let meta =
        std::fs::metadata(gguf).with_context(|| format!("cannot open {}", gguf.display()))?;
    let stem = gguf.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let dir = cache_root.join(format!("{stem}-{}", meta.len()));
    if dir.join("model.safetensors").is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(cache_root)?;
    // Unique per call: tests import concurrently from several threads of one process.
    static IMPORTS: AtomicU64 = AtomicU64::new(0);
    let tmp = cache_root.join(format!(
        ".{stem}-{}-{}-{}",
        meta.len(),
        std::process::id(),
        IMPORTS.fetch_add(1, Ordering::Relaxed)
    ));
    tracing::info!(gguf = %gguf.display(), out = %dir.display(), "importing GGUF");
    import(gguf, &tmp)?;
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        // Another import finished first: use its copy.
        Err(_) if dir.join("model.safetensors").is_file() => {
            std::fs::remove_dir_all(&tmp).ok();
            Ok(dir)
        }
        Err(e) => Err(e).with_context(|| format!("cannot move import to {}", dir.display())),
    }
}

/// The model folder at `path`: a `.gguf` file imported into the default cache
/// ([`import_cached`]), anything else as it is.
pub fn model_dir(path: &Path) -> Result<PathBuf> {
    if path.extension().is_some_and(|e| e == "gguf") {
        import_cached(path, &default_cache_root())
    } else {
        Ok(path.to_owned())
    }
}

/// Default cache location for imported GGUF models: `${HACRL_CACHE:-$HOME/.cache/hacrl}/gguf`.
pub fn default_cache_root() -> PathBuf {
    crate::cache_dir().join("gguf")
}
