//! The Hugging Face JSON files of an imported model, from GGUF metadata: config.json,
//! tokenizer.json (byte-level BPE), tokenizer_config.json (special tokens, chat template) and
//! generation_config.json.

use anyhow::{Result, anyhow, bail, ensure};
use serde_json::{Value, json};

use super::file::{GgufFile, MetaValue};

/// Gemma 3's chat template (`google/gemma-3-*-it`), for Gemma GGUFs that carry none (the
/// pre-trained base models).
const GEMMA3_CHAT_TEMPLATE: &str = include_str!("../../assets/gemma3-chat-template.jinja");

/// config.json for the GGUF's architecture.
pub(super) fn hf_config(g: &GgufFile) -> Result<Value> {
    let arch = g.meta_str("general.architecture")?;
    ensure!(
        matches!(arch, "llama" | "qwen2" | "qwen3" | "gemma3"),
        "unsupported GGUF architecture {arch:?} (supported: llama, qwen2, qwen3, gemma3)"
    );
    let key = |k: &str| format!("{arch}.{k}");
    let heads = g.meta_u64(&key("attention.head_count"))?;
    let hidden = g.meta_u64(&key("embedding_length"))?;
    let vocab = g
        .meta("tokenizer.ggml.tokens")?
        .as_array()
        .map(|a| a.len())
        .ok_or_else(|| anyhow!("tokenizer.ggml.tokens is not an array"))?;
    let tied = !g.tensors.iter().any(|t| t.name == "output.weight");
    let arch_name = match arch {
        "llama" => "LlamaForCausalLM",
        "qwen2" => "Qwen2ForCausalLM",
        "gemma3" => "Gemma3ForCausalLM",
        _ => "Qwen3ForCausalLM",
    };
    let mut cfg = json!({
        "architectures": [arch_name],
        "model_type": arch,
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": g.meta_u64(&key("feed_forward_length"))?,
        "num_hidden_layers": g.meta_u64(&key("block_count"))?,
        "num_attention_heads": heads,
        "num_key_value_heads": g.meta_u64(&key("attention.head_count_kv")).unwrap_or(heads),
        "head_dim": g.meta_u64(&key("attention.key_length")).unwrap_or(hidden / heads),
        "rms_norm_eps": g.meta(&key("attention.layer_norm_rms_epsilon"))?.as_f64().ok_or_else(|| anyhow!("bad rms epsilon"))?,
        "rope_theta": g.metadata.get(&key("rope.freq_base")).and_then(MetaValue::as_f64).unwrap_or(10_000.0),
        "max_position_embeddings": g.meta_u64(&key("context_length"))?,
        "tie_word_embeddings": tied,
        "hidden_act": "silu",
        "torch_dtype": "float32",
    });
    if let Ok(bos) = g.meta_u64("tokenizer.ggml.bos_token_id") {
        cfg["bos_token_id"] = json!(bos);
    }
    if let Ok(eos) = g.meta_u64("tokenizer.ggml.eos_token_id") {
        cfg["eos_token_id"] = json!(eos);
    }
    if g.metadata.contains_key(&key("rope.scaling.type")) {
        bail!("GGUF rope scaling is not supported by the importer");
    }
    if arch == "gemma3" {
        // What the GGUF does not store is what llama.cpp assumes for Gemma 3: local RoPE base
        // 10,000, every sixth layer global, scores scaled by 1/√head_dim (the 27B differs).
        let obj = cfg.as_object_mut().expect("object");
        obj.remove("hidden_act");
        let head_dim = obj["head_dim"].clone();
        obj.extend([
            ("model_type".into(), json!("gemma3_text")),
            ("hidden_activation".into(), json!("gelu_pytorch_tanh")),
            ("rope_local_base_freq".into(), json!(10_000.0)),
            (
                "sliding_window".into(),
                json!(g.meta_u64(&key("attention.sliding_window"))?),
            ),
            ("sliding_window_pattern".into(), json!(6)),
            ("query_pre_attn_scalar".into(), head_dim),
            (
                "pad_token_id".into(),
                json!(g.meta_u64("tokenizer.ggml.padding_token_id").unwrap_or(0)),
            ),
        ]);
    }
    Ok(cfg)
}

/// tokenizer.json for a GGUF's tokenizer: `gpt2` (byte-level BPE), or Gemma's SentencePiece.
pub(super) fn hf_tokenizer(g: &GgufFile) -> Result<Value> {
    let model = g.meta_str("tokenizer.ggml.model")?;
    if model == "llama" && g.meta_str("general.architecture")? == "gemma3" {
        return super::spm::gemma_tokenizer(g);
    }
    ensure!(
        model == "gpt2",
        "unsupported GGUF tokenizer model {model:?} (supported: gpt2 byte-level BPE, and \
         SentencePiece for gemma3)"
    );
    let pre = g
        .metadata
        .get("tokenizer.ggml.pre")
        .and_then(MetaValue::as_str)
        .unwrap_or("default");
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
    let pre_tokenizer = match pre {
        // llama.cpp's "smollm" splits digits one by one, then applies the GPT-2 regex.
        "smollm" => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": true}, byte_level]}),
        "gpt2" | "default" => byte_level,
        other => bail!("unsupported GGUF pre-tokenizer {other:?} (supported: smollm, gpt2)"),
    };
    let tokens = g
        .meta("tokenizer.ggml.tokens")?
        .as_array()
        .ok_or_else(|| anyhow!("tokenizer.ggml.tokens is not an array"))?;
    let types = g
        .metadata
        .get("tokenizer.ggml.token_type")
        .and_then(MetaValue::as_array);
    let merges = g
        .meta("tokenizer.ggml.merges")?
        .as_array()
        .ok_or_else(|| anyhow!("tokenizer.ggml.merges is not an array"))?;
    let mut vocab = serde_json::Map::new();
    let mut added = Vec::new();
    for (id, tok) in tokens.iter().enumerate() {
        let tok = tok
            .as_str()
            .ok_or_else(|| anyhow!("token {id} is not a string"))?;
        vocab.insert(tok.to_owned(), json!(id));
        // ggml token types: 3 = control, 4 = user-defined; both must never be split by BPE.
        let ty = types.and_then(|t| t.get(id)).and_then(|v| match v {
            MetaValue::Int(i) => Some(*i),
            MetaValue::UInt(u) => Some(*u as i64),
            _ => None,
        });
        if matches!(ty, Some(3) | Some(4)) {
            added.push(
                json!({"id": id, "content": tok, "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": false, "special": ty == Some(3)}),
            );
        }
    }
    let merges: Vec<&str> = merges
        .iter()
        .map(|m| m.as_str().ok_or_else(|| anyhow!("merge is not a string")))
        .collect::<Result<_>>()?;
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
            "vocab": vocab, "merges": merges},
    }))
}

fn token_string(g: &GgufFile, key: &str) -> Option<String> {
    let id = g.meta_u64(key).ok()? as usize;
    g.metadata
        .get("tokenizer.ggml.tokens")?
        .as_array()?
        .get(id)?
        .as_str()
        .map(str::to_owned)
}

fn token_id(g: &GgufFile, token: &str) -> Option<u64> {
    g.metadata
        .get("tokenizer.ggml.tokens")?
        .as_array()?
        .iter()
        .position(|t| t.as_str() == Some(token))
        .map(|i| i as u64)
}

/// tokenizer_config.json (special tokens and chat template) from GGUF metadata.
pub(super) fn hf_tokenizer_config(g: &GgufFile) -> Value {
    let mut cfg = json!({
        "add_bos_token": g.metadata.get("tokenizer.ggml.add_bos_token").is_some_and(|v| *v == MetaValue::Bool(true)),
        "clean_up_tokenization_spaces": false,
        "tokenizer_class": "GPT2Tokenizer",
    });
    for (field, key) in [
        ("bos_token", "tokenizer.ggml.bos_token_id"),
        ("eos_token", "tokenizer.ggml.eos_token_id"),
        ("pad_token", "tokenizer.ggml.padding_token_id"),
        ("unk_token", "tokenizer.ggml.unknown_token_id"),
    ] {
        if let Some(tok) = token_string(g, key) {
            cfg[field] = json!(tok);
        }
    }
    let gemma = g
        .meta_str("general.architecture")
        .is_ok_and(|a| a == "gemma3");
    if gemma {
        cfg["tokenizer_class"] = json!("GemmaTokenizer");
        // The trainer appends `eos_token` to complete responses: for Gemma's chat that is the
        // end of the model's turn, not the end of the document.
        cfg["eos_token"] = json!("<end_of_turn>");
    }
    match g
        .metadata
        .get("tokenizer.chat_template")
        .and_then(MetaValue::as_str)
    {
        Some(t) => cfg["chat_template"] = json!(t),
        None if gemma => cfg["chat_template"] = json!(GEMMA3_CHAT_TEMPLATE),
        None => {}
    }
    cfg
}

/// generation_config.json: the BOS and EOS token ids the GGUF names.
pub(super) fn hf_generation_config(g: &GgufFile) -> Value {
    let mut gen_cfg = json!({});
    for (field, key) in [
        ("bos_token_id", "tokenizer.ggml.bos_token_id"),
        ("eos_token_id", "tokenizer.ggml.eos_token_id"),
    ] {
        if let Ok(id) = g.meta_u64(key) {
            gen_cfg[field] = json!(id);
        }
    }
    // Gemma ends a chat turn with <end_of_turn> and a document with <eos>: either stops.
    if g.meta_str("general.architecture")
        .is_ok_and(|a| a == "gemma3")
        && let (Ok(eos), Some(eot)) = (
            g.meta_u64("tokenizer.ggml.eos_token_id"),
            token_id(g, "<end_of_turn>"),
        )
    {
        gen_cfg["eos_token_id"] = json!([eos, eot]);
    }
    gen_cfg
}
