//! Weights on disk in the Hugging Face layout: `model.safetensors` (or shards listed in
//! `model.safetensors.index.json`) next to `config.json` and the tokenizer files.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail, ensure};
use serde_json::{Value, json};
use tch::nn::VarStore;
use tch::{Kind, Tensor};

fn dtype_name(kind: Kind) -> Result<&'static str> {
    Ok(match kind {
        Kind::Float => "F32",
        Kind::BFloat16 => "BF16",
        Kind::Half => "F16",
        Kind::Double => "F64",
        Kind::Int64 => "I64",
        Kind::Int => "I32",
        other => bail!("cannot store {other:?} tensors in safetensors"),
    })
}

/// Writes tensors to a safetensors file with `{"format": "pt"}` metadata, which
/// `transformers` requires. Tensors are streamed one by one, so memory stays at one tensor.
pub fn write_safetensors(path: &Path, tensors: &BTreeMap<String, Tensor>) -> Result<()> {
    let mut header = serde_json::Map::new();
    header.insert("__metadata__".into(), json!({"format": "pt"}));
    let mut offset = 0usize;
    for (name, t) in tensors {
        let n = t.numel() * t.kind().elt_size_in_bytes();
        header.insert(name.clone(), json!({"dtype": dtype_name(t.kind())?, "shape": t.size(), "data_offsets": [offset, offset + n]}));
        offset += n;
    }
    let mut header = serde_json::to_vec(&Value::Object(header))?;
    // The format pads the header with spaces to a multiple of 8 bytes.
    header.resize(header.len().div_ceil(8) * 8, b' ');
    let tmp = path.with_extension("safetensors.part");
    let file =
        std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut w = std::io::BufWriter::new(file);
    w.write_all(&(header.len() as u64).to_le_bytes())?;
    w.write_all(&header)?;
    for t in tensors.values() {
        let t = t.to_device(tch::Device::Cpu).contiguous();
        let mut buf = vec![0u8; t.numel() * t.kind().elt_size_in_bytes()];
        t.f_copy_data_u8(&mut buf, t.numel())?;
        w.write_all(&buf)?;
    }
    w.into_inner()
        .map_err(|e| anyhow!("write failed: {e}"))?
        .sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The safetensors files of a model directory: the shards of the index, or `model.safetensors`.
pub fn weight_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let index = dir.join("model.safetensors.index.json");
    if index.is_file() {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&index)?)
            .with_context(|| format!("invalid {}", index.display()))?;
        let map = v["weight_map"]
            .as_object()
            .ok_or_else(|| anyhow!("{} has no weight_map", index.display()))?;
        let mut files: Vec<String> = map
            .values()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        files.sort();
        files.dedup();
        ensure!(
            files.iter().all(|f| !f.contains('/') && !f.contains("..")),
            "shard names must be plain file names"
        );
        return Ok(files.into_iter().map(|f| dir.join(f)).collect());
    }
    let single = dir.join("model.safetensors");
    ensure!(
        single.is_file(),
        "{} has neither model.safetensors nor model.safetensors.index.json",
        dir.display()
    );
    Ok(vec![single])
}

/// Copies the weights of a model directory into `vs`. Every variable must be present with the
/// right shape; extra tensors are an error except a tied `lm_head.weight` and RoPE buffers.
pub fn load_weights(vs: &VarStore, dir: &Path) -> Result<()> {
    let mut vars: HashMap<String, Tensor> = vs.variables();
    let mut missing: std::collections::BTreeSet<String> = vars.keys().cloned().collect();
    let mut unexpected = Vec::new();
    for file in weight_files(dir)? {
        for (name, t) in Tensor::read_safetensors(&file)
            .with_context(|| format!("cannot read {}", file.display()))?
        {
            let Some(var) = vars.get_mut(&name) else {
                if !(name == "lm_head.weight" || name.ends_with("rotary_emb.inv_freq")) {
                    unexpected.push(name);
                }
                continue;
            };
            ensure!(
                var.size() == t.size(),
                "{name}: checkpoint shape {:?}, model shape {:?}",
                t.size(),
                var.size()
            );
            tch::no_grad(|| var.f_copy_(&t.to_kind(var.kind())))
                .with_context(|| format!("copying {name}"))?;
            missing.remove(&name);
        }
    }
    ensure!(
        unexpected.is_empty(),
        "checkpoint has tensors the model does not: {}",
        unexpected.join(", ")
    );
    ensure!(
        missing.is_empty(),
        "checkpoint lacks tensors: {}",
        missing.into_iter().collect::<Vec<_>>().join(", ")
    );
    Ok(())
}

/// Writes every variable of `vs` to `dir/model.safetensors` in its current dtype.
pub fn save_weights(vs: &VarStore, dir: &Path) -> Result<()> {
    let tensors: BTreeMap<String, Tensor> = vs
        .variables()
        .into_iter()
        .map(|(k, v)| (k, v.detach()))
        .collect();
    write_safetensors(&dir.join("model.safetensors"), &tensors)
}
