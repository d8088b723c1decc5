//! Checkpoints written as safetensors reload to identical logits (single file, shards, bf16),
//! and broken checkpoints give clear errors.

mod support;

use std::collections::BTreeMap;

use tch::{Device, Kind, Tensor};
use trainer::Policy;
use trainer::checkpoint::write_safetensors;

fn logits(p: &Policy) -> Tensor {
    let ids = p.encode_prompt("Checkpoint me, please.").unwrap();
    let resp = p.encode_response("Done.", true).unwrap();
    tch::no_grad(|| {
        assert!(p.score_ids(&[(ids.clone(), resp)]).is_ok());
        let t = Tensor::from_slice(&ids).unsqueeze(0);
        let valid = Tensor::ones_like(&t).to_kind(Kind::Bool);
        let n = ids.len() as i64;
        p.model().forward(
            &t,
            &trainer::models::mask::positions_from_valid(&valid),
            &trainer::models::mask::attention_mask(&valid, 0, n),
            None,
        )
    })
}

fn tiny(model_type: &str, kind: Kind) -> Policy {
    let dir = support::smollm2_dir();
    let cfg = support::tiny_config(model_type, 49152, 0.1);
    Policy::from_config(cfg, &dir, Device::Cpu, kind, 3).unwrap()
}

#[test]
fn save_and_reload_gives_identical_logits() {
    for family in ["llama", "qwen2", "qwen3"] {
        let p = tiny(family, Kind::Float);
        let dir = tempfile::tempdir().unwrap();
        p.save(dir.path()).unwrap();
        for f in [
            "config.json",
            "model.safetensors",
            "tokenizer.json",
            "tokenizer_config.json",
        ] {
            assert!(dir.path().join(f).is_file(), "{f} missing");
        }
        let q = Policy::load(dir.path(), Device::Cpu).unwrap();
        assert!(
            logits(&p).equal(&logits(&q)),
            "{family}: logits differ after reload"
        );
        assert_eq!(
            q.chat_template().map(|t| t.source().to_owned()),
            p.chat_template().map(|t| t.source().to_owned())
        );
        assert_eq!(q.stop_token_ids(), p.stop_token_ids());
    }
}

#[test]
fn duplicate_is_identical_and_independent() {
    let p = tiny("qwen2", Kind::Float);
    let q = p.duplicate().unwrap();
    assert!(logits(&p).equal(&logits(&q)));
    tch::no_grad(|| {
        let mut w = q.var_store().variables()["model.norm.weight"].shallow_clone();
        let _ = w.fill_(0.5);
    });
    assert!(
        !logits(&p).equal(&logits(&q)),
        "changing the copy must not touch the original"
    );
}

#[test]
fn bf16_checkpoint_reloads_identically() {
    let p = tiny("qwen3", Kind::BFloat16);
    let dir = tempfile::tempdir().unwrap();
    p.save(dir.path()).unwrap();
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(cfg["torch_dtype"], "bfloat16");
    let q = Policy::load_with_kind(dir.path(), Device::Cpu, Kind::BFloat16).unwrap();
    assert!(logits(&p).equal(&logits(&q)));
}

#[test]
fn sharded_checkpoint_loads() {
    let p = tiny("llama", Kind::Float);
    let dir = tempfile::tempdir().unwrap();
    p.save(dir.path()).unwrap();
    // Re-split the single file into two shards plus an index, as large HF models ship.
    let tensors = Tensor::read_safetensors(dir.path().join("model.safetensors")).unwrap();
    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    let mut map = serde_json::Map::new();
    for (i, (name, t)) in tensors.into_iter().enumerate() {
        let shard = if i % 2 == 0 {
            "model-00001-of-00002.safetensors"
        } else {
            "model-00002-of-00002.safetensors"
        };
        map.insert(name.clone(), shard.into());
        if i % 2 == 0 {
            a.insert(name, t)
        } else {
            b.insert(name, t)
        };
    }
    write_safetensors(&dir.path().join("model-00001-of-00002.safetensors"), &a).unwrap();
    write_safetensors(&dir.path().join("model-00002-of-00002.safetensors"), &b).unwrap();
    std::fs::write(
        dir.path().join("model.safetensors.index.json"),
        serde_json::json!({"metadata": {}, "weight_map": map}).to_string(),
    )
    .unwrap();
    let q = Policy::load(dir.path(), Device::Cpu).unwrap();
    assert!(logits(&p).equal(&logits(&q)));
}

#[test]
fn broken_checkpoints_are_rejected_clearly() {
    let p = tiny("llama", Kind::Float);
    let dir = tempfile::tempdir().unwrap();
    p.save(dir.path()).unwrap();
    let file = dir.path().join("model.safetensors");
    let mut tensors: BTreeMap<String, Tensor> = Tensor::read_safetensors(&file)
        .unwrap()
        .into_iter()
        .collect();

    let mut missing: BTreeMap<String, Tensor> = tensors
        .iter()
        .map(|(k, v)| (k.clone(), v.shallow_clone()))
        .collect();
    missing.remove("model.norm.weight");
    write_safetensors(&file, &missing).unwrap();
    let err = format!("{:#}", Policy::load(dir.path(), Device::Cpu).unwrap_err());
    assert!(err.contains("lacks tensors: model.norm.weight"), "{err}");

    tensors.insert(
        "model.norm.weight".into(),
        Tensor::ones([7], (Kind::Float, Device::Cpu)),
    );
    write_safetensors(&file, &tensors).unwrap();
    let err = format!("{:#}", Policy::load(dir.path(), Device::Cpu).unwrap_err());
    assert!(
        err.contains("model.norm.weight: checkpoint shape [7]"),
        "{err}"
    );

    std::fs::write(&file, b"not a safetensors file").unwrap();
    assert!(Policy::load(dir.path(), Device::Cpu).is_err());
    std::fs::write(dir.path().join("config.json"), "{").unwrap();
    let err = format!("{:#}", Policy::load(dir.path(), Device::Cpu).unwrap_err());
    assert!(err.contains("invalid JSON"), "{err}");
    assert!(Policy::load(&dir.path().join("nope"), Device::Cpu).is_err());
}
