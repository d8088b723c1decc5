//! Text ↔ token ids, backed by a Hugging Face `tokenizer.json`.

pub mod trim;

use std::path::Path;

use anyhow::{Context, Result, anyhow};

/// A loaded `tokenizer.json`.
#[derive(Clone)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("vocab_size", &self.vocab_size())
            .finish()
    }
}

impl Tokenizer {
    /// Loads a `tokenizer.json` file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let inner = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| anyhow!("cannot load tokenizer {}: {e}", path.display()))?;
        Ok(Self { inner })
    }

    /// Parses a `tokenizer.json` document.
    pub fn from_json(json: &str) -> Result<Self> {
        let inner = json
            .parse::<tokenizers::Tokenizer>()
            .map_err(|e| anyhow!("invalid tokenizer.json: {e}"))?;
        Ok(Self { inner })
    }

    /// Writes `tokenizer.json`.
    pub fn save(&self, path: &Path) -> Result<()> {
        self.inner
            .save(path, false)
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
    }

    /// Token ids of `text`. Special tokens written in the text (e.g. `<|im_start|>`) are
    /// recognised; `add_special_tokens` adds the post-processor's BOS/EOS, if any.
    pub fn encode(&self, text: &str, add_special_tokens: bool) -> Result<Vec<i64>> {
        let enc = self
            .inner
            .encode_fast(text, add_special_tokens)
            .map_err(|e| anyhow!("tokenization failed: {e}"))?;
        Ok(enc.get_ids().iter().map(|&id| i64::from(id)).collect())
    }

    /// Text of `ids`; special tokens are dropped when `skip_special_tokens`.
    pub fn decode(&self, ids: &[i64], skip_special_tokens: bool) -> Result<String> {
        let ids = ids
            .iter()
            .map(|&id| u32::try_from(id).with_context(|| format!("token id {id} out of range")))
            .collect::<Result<Vec<_>>>()?;
        self.inner
            .decode(&ids, skip_special_tokens)
            .map_err(|e| anyhow!("detokenization failed: {e}"))
    }

    /// Id of a token given by its exact string (e.g. `<|im_end|>`).
    pub fn token_id(&self, token: &str) -> Option<i64> {
        self.inner.token_to_id(token).map(i64::from)
    }

    /// Number of tokens including added ones.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// A stable name of the text ↔ ids mapping (FNV-1a 64 of the serialized tokenizer): two
    /// agents with equal fingerprints can train on each other's token ids without re-tokenizing.
    pub fn fingerprint(&self) -> Result<String> {
        let json = self
            .inner
            .to_string(false)
            .map_err(|e| anyhow!("cannot serialize the tokenizer: {e}"))?;
        Ok(format!("{:016x}", crate::rng::fnv1a(json.as_bytes())))
    }
}
