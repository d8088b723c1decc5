//! The `trainer` binary end to end on the real SmolLM2 checkpoint.

mod support;

use std::process::Command;

fn trainer() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_trainer"));
    c.env("OMP_NUM_THREADS", "1").env("RUST_LOG", "warn");
    c
}

#[test]
fn help_lists_subcommands() {
    let out = trainer().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for cmd in ["generate", "logprob", "import-gguf"] {
        assert!(text.contains(cmd), "{text}");
    }
    let out = trainer().args(["generate", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("--max-new-tokens") && text.contains("--temperature"),
        "{text}"
    );
}

#[test]
fn generate_and_logprob_on_smollm2() {
    let dir = support::smollm2_dir();
    let out = trainer()
        .args(["generate", "--json", "--max-new-tokens", "16", "--model"])
        .arg(&dir)
        // Different prompt lengths exercise left padding in the batch.
        .args([
            "--prompt",
            "What is the capital of France?",
            "--prompt",
            "Hi",
            "--prompt",
            "What is the capital of Germany?",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0]["text"].as_str().unwrap().contains("Paris"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2]["text"].as_str().unwrap().contains("Berlin"),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[0]["token_ids"].as_array().unwrap().len(),
        lines[0]["logprobs"].as_array().unwrap().len()
    );

    let score = |response: &str| -> f64 {
        let out = trainer()
            .args(["logprob", "--json", "--model"])
            .arg(&dir)
            .args([
                "--prompt",
                "What is the capital of France?",
                "--response",
                response,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["tokens"].as_u64().unwrap() as usize,
            v["token_logprobs"].as_array().unwrap().len()
        );
        v["mean_logprob"].as_f64().unwrap()
    };
    let right = score("The capital of France is Paris.");
    let wrong = score("The capital of France is Berlin.");
    assert!(right > wrong, "Paris {right} should beat Berlin {wrong}");
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let out = trainer()
        .args(["generate", "--model", "/nonexistent", "--prompt", "hi"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent"));
    let out = trainer()
        .args([
            "generate", "--model", "/tmp", "--prompt", "hi", "--device", "tpu",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown device"));
}
