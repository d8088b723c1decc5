//! Gemma 3 against its references: the GGUF kernels against llama.cpp's `gguf` package (numpy),
//! the model against transformers' `Gemma3ForCausalLM` (tiny random config: logits, log-probs,
//! gradients, greedy generation; the real 270M: one forward), and the tokenizer rebuilt from the
//! GGUF against transformers' GGUF conversion. The Python side is `reference.py`.

#[path = "../support/mod.rs"]
mod support;

mod dequant;
mod parity;
mod real;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A venv's python under `$HACRL_CACHE`, which must import `modules`.
fn python(venv: &str, modules: &str, setup: &str) -> PathBuf {
    let python = trainer::cache_dir().join(venv).join("bin/python");
    let ok = python.is_file()
        && Command::new(&python)
            .args(["-c", &format!("import {modules}")])
            .status()
            .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{} cannot import {modules}: run {setup} (or scripts/setup)",
        python.display()
    );
    python
}

/// Python with numpy and gguf (the dequantisation reference).
fn gguf_python() -> PathBuf {
    python("torch-venv", "gguf", "scripts/setup.d/30-torch.sh")
}

/// Python with torch, transformers and gguf (the model and tokenizer reference).
fn transformers_python() -> PathBuf {
    python(
        "vllm-venv",
        "gguf, torch, transformers.models.gemma3",
        "scripts/setup.d/50-vllm.sh and 51-gemma3-reference.sh",
    )
}

/// Runs `reference.py` on `job` (written to `dir/job.json`).
fn run_reference(python: &Path, dir: &Path, job: &Value) {
    let job_path = dir.join("job.json");
    std::fs::write(&job_path, job.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gemma3/reference.py");
    let out = Command::new(python)
        .arg(script)
        .arg(&job_path)
        .env("OMP_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "reference.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Largest absolute difference of two tensors (as f64).
fn max_abs_diff(a: &tch::Tensor, b: &tch::Tensor) -> f64 {
    assert_eq!(a.size(), b.size());
    f64::try_from(
        (a.to_kind(tch::Kind::Double) - b.to_kind(tch::Kind::Double))
            .abs()
            .max(),
    )
    .unwrap()
}
