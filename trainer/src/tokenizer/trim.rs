//! A byte-level BPE cut down to what a corpus needs: the tokens its texts encode to, every token
//! their merges pass through, the byte alphabet and the added tokens. Every text of the corpus
//! encodes to the same token strings as under the full vocabulary, and any other text still
//! encodes (down to single bytes at worst), so a small model on a 49k-token vocabulary can train
//! on a task whose text uses a few hundred of them at a fraction of the output layer's cost.
//!
//! Why the corpus's encodings are unchanged: BPE applies, at each step, the applicable merge of
//! lowest rank. Every merge applied while encoding a corpus text makes a token the closure keeps,
//! so it is kept, and it is still the lowest-ranked applicable one among a subset of the merges.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use super::Tokenizer;

/// `full` restricted to what `corpus` needs, with ids renumbered densely in their old order.
pub fn trim<S: AsRef<str>>(full: &Tokenizer, corpus: &[S]) -> Result<Tokenizer> {
    let json: Value = serde_json::from_str(
        &full
            .inner
            .to_string(false)
            .map_err(|e| anyhow::anyhow!("cannot serialize the tokenizer: {e}"))?,
    )?;
    let mut used = BTreeSet::new();
    for text in corpus {
        used.extend(full.encode(text.as_ref(), false)?);
    }
    Tokenizer::from_json(&trim_json(&json, &used)?.to_string())
}

/// Writes to folder `to` the tokenizer files of folder `from` with its tokenizer trimmed to
/// `corpus`: tokenizer.json; tokenizer_config.json and chat_template.jinja as they are (they name
/// tokens by their text); generation_config.json with its token ids renumbered. Returns the
/// number of tokens kept.
pub fn trim_dir<S: AsRef<str>>(from: &Path, to: &Path, corpus: &[S]) -> Result<usize> {
    let full = Tokenizer::from_file(&from.join("tokenizer.json"))?;
    let trimmed = trim(&full, corpus)?;
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    trimmed.save(&to.join("tokenizer.json"))?;
    for name in ["tokenizer_config.json", "chat_template.jinja"] {
        if from.join(name).is_file() {
            std::fs::copy(from.join(name), to.join(name))
                .with_context(|| format!("copying {name}"))?;
        }
    }
    let gc = from.join("generation_config.json");
    if gc.is_file() {
        let mut cfg: Value = serde_json::from_str(&std::fs::read_to_string(&gc)?)?;
        for field in ["bos_token_id", "eos_token_id", "pad_token_id"] {
            let renumber = |id: &Value| -> Result<Value> {
                let old = id.as_i64().context("a token id")?;
                let text = full.decode(&[old], false)?;
                let new = trimmed.token_id(&text).with_context(|| {
                    format!("generation_config.json's {field} {old} ({text:?}) was not kept")
                })?;
                Ok(json!(new))
            };
            cfg[field] = match &cfg[field] {
                Value::Null => continue,
                Value::Array(ids) => Value::Array(ids.iter().map(renumber).collect::<Result<_>>()?),
                id => renumber(id)?,
            };
        }
        std::fs::write(
            to.join("generation_config.json"),
            serde_json::to_string_pretty(&cfg)?,
        )?;
    }
    Ok(trimmed.vocab_size())
}

/// The trimmed tokenizer.json of `json` keeping the tokens of ids `used` (and what they need).
fn trim_json(json: &Value, used: &BTreeSet<i64>) -> Result<Value> {
    let model = &json["model"];
    ensure!(
        model["type"] == "BPE",
        "only BPE tokenizers can be trimmed, not {}",
        model["type"]
    );
    let vocab: HashMap<&str, i64> = model["vocab"]
        .as_object()
        .context("model.vocab is not an object")?
        .iter()
        .map(|(t, id)| Ok((t.as_str(), id.as_i64().context("a vocabulary id")?)))
        .collect::<Result<_>>()?;
    let token_of: HashMap<i64, &str> = vocab.iter().map(|(&t, &id)| (id, t)).collect();
    let merges = merge_pairs(&model["merges"])?;
    let made_by: HashMap<String, (&str, &str)> = merges
        .iter()
        .rev() // the lowest rank wins where two merges make one token
        .map(|&(a, b)| (format!("{a}{b}"), (a, b)))
        .collect();

    let added: Vec<&Value> = json["added_tokens"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let mut keep: BTreeSet<&str> = vocab
        .keys()
        .copied()
        .filter(|t| t.chars().count() == 1)
        .collect();
    keep.extend(added.iter().filter_map(|a| a["content"].as_str()));
    let mut open: Vec<&str> = Vec::new();
    for id in used {
        match token_of.get(id) {
            Some(&t) => open.push(t),
            None => bail!("token id {id} is not in the vocabulary"),
        }
    }
    while let Some(t) = open.pop() {
        if keep.insert(t)
            && let Some(&(a, b)) = made_by.get(t)
        {
            open.extend([a, b]);
        }
    }
    // An added token outside model.vocab keeps its own id after the vocabulary's.
    let mut old_ids: Vec<(i64, &str)> = keep
        .iter()
        .map(|&t| {
            let id = vocab.get(t).copied().or_else(|| {
                added
                    .iter()
                    .find(|a| a["content"] == t)
                    .and_then(|a| a["id"].as_i64())
            });
            Ok((
                id.with_context(|| format!("kept token {t:?} has no id"))?,
                t,
            ))
        })
        .collect::<Result<_>>()?;
    old_ids.sort();
    let new_id: HashMap<&str, i64> = old_ids
        .iter()
        .enumerate()
        .map(|(i, &(_, t))| (t, i as i64))
        .collect();

    let mut out = json.clone();
    out["model"]["vocab"] = Value::Object(
        old_ids
            .iter()
            .filter(|(_, t)| vocab.contains_key(t))
            .map(|&(_, t)| (t.to_owned(), json!(new_id[t])))
            .collect(),
    );
    out["model"]["merges"] = json!(
        merges
            .iter()
            .filter(|&&(a, b)| keep.contains(format!("{a}{b}").as_str()))
            .map(|(a, b)| format!("{a} {b}"))
            .collect::<Vec<_>>()
    );
    if let Some(list) = out["added_tokens"].as_array_mut() {
        for a in list {
            let t = a["content"].as_str().context("an added token's content")?;
            a["id"] = json!(new_id[t]);
        }
    }
    Ok(out)
}

/// The merges in rank order, written either as "a b" or as ["a", "b"].
fn merge_pairs(merges: &Value) -> Result<Vec<(&str, &str)>> {
    merges
        .as_array()
        .context("model.merges is not an array")?
        .iter()
        .map(|m| match m {
            Value::String(s) => s.split_once(' ').context("a merge without a space"),
            Value::Array(p) if p.len() == 2 => Ok((
                p[0].as_str().context("a merge part")?,
                p[1].as_str().context("a merge part")?,
            )),
            other => bail!("a merge is neither \"a b\" nor [a, b]: {other}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-level-free BPE by hand: a, b, c; merges a+b → ab, ab+c → abc, b+c → bc; one
    /// added token.
    fn hand_made() -> Tokenizer {
        let json = json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [{"id": 6, "content": "<e>", "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": false, "special": true}],
            "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
            "model": {"type": "BPE", "dropout": null, "unk_token": null,
                "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": false,
                "byte_fallback": false, "ignore_merges": false,
                "vocab": {"a": 0, "b": 1, "c": 2, "bc": 3, "ab": 4, "abc": 5, "<e>": 6},
                "merges": ["a b", "ab c", "b c"]},
        });
        Tokenizer::from_json(&json.to_string()).unwrap()
    }

    #[test]
    fn keeps_the_corpus_tokens_their_merges_the_alphabet_and_the_added_tokens() {
        let full = hand_made();
        assert_eq!(full.encode("abc", false).unwrap(), vec![5]);
        let t = trim(&full, &["abc"]).unwrap();
        // Kept: a b c (alphabet), ab (abc's parent), abc, <e>; bc goes. New ids in old order:
        // a 0, b 1, c 2, ab 3, abc 4, <e> 5.
        assert_eq!(t.vocab_size(), 6);
        assert_eq!(t.token_id("bc"), None);
        assert_eq!(t.token_id("ab"), Some(3));
        assert_eq!(t.encode("abc", false).unwrap(), vec![4]);
        assert_eq!(t.encode("abc<e>", false).unwrap(), vec![4, 5]);
        // What only the dropped merge made falls back to its parts.
        assert_eq!(full.encode("bc", false).unwrap(), vec![3]);
        assert_eq!(t.encode("bc", false).unwrap(), vec![1, 2]);
        assert_eq!(t.decode(&[1, 2], false).unwrap(), "b c");
    }

    #[test]
    fn an_empty_corpus_keeps_the_alphabet_and_the_added_tokens_only() {
        let t = trim(&hand_made(), &[] as &[&str]).unwrap();
        assert_eq!(t.vocab_size(), 4);
        assert_eq!(t.encode("abc", false).unwrap(), vec![0, 1, 2]);
    }

    /// SmolLM2's 49,152-token byte-level BPE (the GGUF of scripts/setup.d/31-smollm2.sh),
    /// trimmed to arithmetic text: that text encodes to the same tokens, any other text still
    /// encodes and decodes to itself.
    #[test]
    fn smollm2_trimmed_to_arithmetic_encodes_its_corpus_as_before() {
        let gguf = crate::smollm2_gguf_path();
        if !gguf.is_file() {
            eprintln!(
                "{} missing: run scripts/setup.d/31-smollm2.sh",
                gguf.display()
            );
            return;
        }
        let dir = crate::gguf::model_dir(&gguf).unwrap();
        let full = Tokenizer::from_file(&dir.join("tokenizer.json")).unwrap();
        let corpus = [
            "<|im_start|>user\nCompute 3 + 4 * 2. Put the final answer in \\boxed{}.<|im_end|>\n\
             <|im_start|>assistant\n",
            "4 * 2 = 8\n3 + 8 = 11\n\\boxed{11}",
            "Tom has 7 apples and buys 5 more. How many apples does he have now?",
        ];
        let t = trim(&full, &corpus).unwrap();
        assert!(t.vocab_size() < 1_000, "{} tokens kept", t.vocab_size());
        for text in corpus {
            let strings = |tok: &Tokenizer| -> Vec<String> {
                tok.encode(text, false)
                    .unwrap()
                    .iter()
                    .map(|&id| tok.decode(&[id], false).unwrap())
                    .collect()
            };
            assert_eq!(strings(&t), strings(&full), "{text}");
            assert_eq!(
                t.decode(&t.encode(text, false).unwrap(), false).unwrap(),
                text
            );
        }
        let other = "Ünïcödé 日本語 🙂 — zebra quartz 1234567";
        let ids = t.encode(other, false).unwrap();
        assert!(ids.iter().all(|&id| (id as usize) < t.vocab_size()));
        assert_eq!(t.decode(&ids, false).unwrap(), other);
        assert!(ids.len() > full.encode(other, false).unwrap().len());
    }
}
