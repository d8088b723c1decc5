//! Gemma's SentencePiece vocabulary (GGUF `tokenizer.ggml.model = llama`) as a tokenizer.json,
//! built the way transformers' GGUF conversion builds it (`gemma_tokenizer` in
//! `integrations/gguf/gguf_tokenizer_mapping.py`), so that both give the same token ids: a BPE
//! with byte fallback whose merges are recovered from the vocabulary in file order, spaces
//! written as `▁`, control tokens special, user-defined tokens (runs of newlines, …) whole.

use std::collections::HashMap;

use anyhow::{Result, anyhow};
use serde_json::{Value, json};

use super::file::{GgufFile, MetaValue};

/// ggml's token types that become added tokens.
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

/// tokenizer.json for a Gemma GGUF.
pub(super) fn gemma_tokenizer(g: &GgufFile) -> Result<Value> {
    let raw: Vec<&str> = g
        .meta("tokenizer.ggml.tokens")?
        .as_array()
        .ok_or_else(|| anyhow!("tokenizer.ggml.tokens is not an array"))?
        .iter()
        .enumerate()
        .map(|(id, t)| {
            t.as_str()
                .ok_or_else(|| anyhow!("token {id} is not a string"))
        })
        .collect::<Result<_>>()?;
    let types: Vec<i64> = match g.metadata.get("tokenizer.ggml.token_type") {
        Some(MetaValue::Array(a)) => a
            .iter()
            .map(|v| match v {
                MetaValue::Int(i) => *i,
                MetaValue::UInt(u) => *u as i64,
                _ => 1,
            })
            .collect(),
        _ => vec![1; raw.len()],
    };
    // Gemma files store multi-space tokens as real spaces; the tokenizer looks them up as `▁`s.
    let tokens: Vec<String> = raw
        .iter()
        .map(|t| {
            if t.contains(' ') && t.trim().is_empty() {
                "\u{2581}".repeat(t.chars().count())
            } else {
                (*t).to_owned()
            }
        })
        .collect();
    // Python dict semantics: a repeated token keeps its first place but its last id.
    let mut id_of: HashMap<&str, usize> = HashMap::with_capacity(tokens.len());
    let mut order: Vec<&str> = Vec::with_capacity(tokens.len());
    for (id, t) in tokens.iter().enumerate() {
        if id_of.insert(t.as_str(), id).is_none() {
            order.push(t.as_str());
        }
    }
    let merges = merges_from_vocab(&order, &id_of);
    let vocab: serde_json::Map<String, Value> = id_of
        .iter()
        .map(|(t, &id)| ((*t).to_owned(), json!(id)))
        .collect();
    let mut added: Vec<(usize, Value)> = Vec::new();
    for (id, (&tok, &ty)) in raw.iter().zip(&types).enumerate() {
        // User-defined tokens count only where their file spelling is a vocabulary entry
        // (the respelled space runs are not).
        let special = ty == CONTROL;
        if special || (ty == USER_DEFINED && id_of.contains_key(tok)) {
            added.push((
                id,
                json!({"id": id, "content": tok, "single_word": false, "lstrip": false,
                    "rstrip": false, "normalized": false, "special": special}),
            ));
        }
    }
    added.sort_by_key(|(id, _)| *id);
    let unk = g
        .meta_u64("tokenizer.ggml.unknown_token_id")
        .ok()
        .and_then(|id| raw.get(id as usize))
        .copied()
        .unwrap_or("<unk>");
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u{2581}"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": null, "unk_token": unk, "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": true, "ignore_merges": false,
            "vocab": vocab, "merges": merges},
    }))
}

/// transformers' `generate_merges` with Gemma's sort key (a token's place in the file, not its
/// score): every split of every token into two vocabulary entries, the splits of one token by
/// the pieces' ids, then all of them stably by (earlier token, longer left, longer right).
fn merges_from_vocab(order: &[&str], id_of: &HashMap<&str, usize>) -> Vec<[String; 2]> {
    let mut merges: Vec<(usize, usize, usize, &str, &str)> = Vec::new();
    let mut local = Vec::new();
    for &token in order {
        let rank = id_of[token];
        local.clear();
        for (cut, _) in token.char_indices().skip(1) {
            let (l, r) = token.split_at(cut);
            if let (Some(&li), Some(&ri)) = (id_of.get(l), id_of.get(r)) {
                local.push((li, ri, l, r));
            }
        }
        local.sort_by_key(|&(li, ri, _, _)| (li, ri));
        merges.extend(
            local
                .iter()
                .map(|&(_, _, l, r)| (rank, l.chars().count(), r.chars().count(), l, r)),
        );
    }
    // Python sorts (−rank, len l, len r) descending, stably: earliest token first, then the
    // longer pieces; ties keep their order.
    merges.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
    merges
        .into_iter()
        .map(|(_, _, _, l, r)| [l.to_owned(), r.to_owned()])
        .collect()
}
