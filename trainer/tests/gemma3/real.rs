//! The real Gemma 3 270M from its Q4_K_M GGUF: the tokenizer rebuilt from the GGUF gives
//! transformers' ids on a mixed corpus, the chat template renders Gemma's turns, the imported
//! model's logits equal transformers' on the same weights, and a mismatched tokenizer is refused.

use serde_json::json;
use tch::{Device, Kind, Tensor};
use trainer::models::mask::{attention_mask, positions_from_valid};
use trainer::{Message, Policy};

/// Maths, code, non-ASCII, whitespace runs, special tokens and byte fallback.
const CORPUS: &[&str] = &[
    "What is 12345 + 678? Answer: 13023.",
    "Solve for x: 3x^2 - 2x + 1 = 0, so x = (2 ± √(4 − 12)) / 6.",
    "∫₀¹ x² dx = 1/3; ∑_{k=1}^{n} k = n(n+1)/2; e^{iπ} + 1 = 0",
    "Tom has 3 apples and buys 5 more. He gives away 2. How many does he have? 3 + 5 - 2 = 6",
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
    "fn main() {\n\tlet v: Vec<u32> = (0..10).map(|x| x * x).collect();\n\tprintln!(\"{v:?}\");\n}",
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; } // dot product",
    "<div class=\"x\">&nbsp;</div>  <script>alert('hi');</script>",
    "Héllo, wörld! Ça va? Ñandú, façade, naïve, Zürich.",
    "日本語のテキストと中文文本，한국어 텍스트도 있습니다。",
    "Привет, мир! Γειά σου κόσμε! مرحبا بالعالم שלום עולם",
    "Emoji: 🙂🚀👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵, symbols ✓ ✗ → ⇒ ∞",
    "  leading spaces, trailing spaces   ",
    "tabs\t\tand\nnewlines\n\n\nand\r\nCRLF and    four spaces     five",
    "                                                  fifty spaces",
    "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
    "Control \u{0001}\u{0007} and private use \u{E000}\u{10FFFF} and a lone combining \u{0301}",
    "<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n4<end_of_turn>\n",
    "<bos><eos><pad><unk><mask>[multimodal] <unused0> not<special>",
    "1,234,567.89 − 0.001 = 1234567.889; 10% of $250 is $25; 2024-12-02T17:25:00Z",
    "",
    " ",
    "▁already▁has▁metaspace",
];

#[test]
fn gemma3_270m_tokenizer_template_and_logits_match_transformers() {
    super::support::init();
    let gguf = trainer::gemma3_gguf_path();
    assert!(
        gguf.is_file(),
        "{} is missing: run scripts/setup.d/32-gemma3.sh",
        gguf.display()
    );
    let start = std::time::Instant::now();
    let model_dir =
        trainer::gguf::import_cached(&gguf, &trainer::gguf::default_cache_root()).unwrap();
    let policy = Policy::load(&model_dir, Device::Cpu).unwrap();
    eprintln!("import + load: {:.1} s", start.elapsed().as_secs_f64());

    let t = policy.chat_template().expect("Gemma's chat template");
    let chat = t.render(&[Message::user("What is 2+2?")], true).unwrap();
    assert_eq!(
        chat,
        "<bos><start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n"
    );
    let prompt = policy.encode_prompt("What is 2+2?").unwrap();
    assert_eq!(prompt[..3], [2, 105, 2364], "<bos> <start_of_turn> user");
    assert_eq!(
        policy.eos_token_id(),
        Some(106),
        "responses end with <end_of_turn>"
    );
    assert!(policy.stop_token_ids().contains(&1) && policy.stop_token_ids().contains(&106));

    let texts: Vec<String> = CORPUS.iter().map(|s| s.to_string()).chain([chat]).collect();
    let dir = tempfile::tempdir().unwrap();
    let (out, logits_out) = (
        dir.path().join("tok.json"),
        dir.path().join("logits.safetensors"),
    );
    let cache = trainer::cache_dir().join("gemma3/transformers-tokenizer");
    super::run_reference(
        &super::transformers_python(),
        dir.path(),
        &json!({"job": "tokenize", "gguf": gguf, "cache": cache, "texts": texts, "out": out,
                "model_dir": model_dir, "forward_ids": prompt, "logits_out": logits_out}),
    );
    let theirs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let tok = policy.tokenizer();
    assert_eq!(
        tok.vocab_size() as u64,
        theirs["vocab_size"].as_u64().unwrap()
    );
    let mut tokens = 0;
    for (i, text) in texts.iter().enumerate() {
        let ours = tok.encode(text, false).unwrap();
        let want: Vec<i64> = serde_json::from_value(theirs["ids"][i].clone()).unwrap();
        assert_eq!(ours, want, "text {i} {text:?}");
        assert_eq!(
            tok.decode(&ours, false).unwrap(),
            theirs["decoded"][i].as_str().unwrap(),
            "decoding text {i}"
        );
        tokens += ours.len();
    }
    eprintln!(
        "tokenizer: {} texts, {tokens} tokens, ids equal to transformers'",
        texts.len()
    );

    // One forward of the chat prompt.
    let ids = Tensor::from_slice(&prompt).unsqueeze(0);
    let valid = ids.ones_like().to_kind(Kind::Bool);
    let n = prompt.len() as i64;
    let logits = tch::no_grad(|| {
        policy.model().forward(
            &ids,
            &positions_from_valid(&valid),
            &attention_mask(&valid, 0, n),
            None,
        )
    });
    let reference = &Tensor::read_safetensors(&logits_out).unwrap()[0].1;
    let d = super::max_abs_diff(&logits.get(0), reference);
    let scale = f64::try_from(reference.abs().max()).unwrap();
    eprintln!(
        "Gemma 3 270M forward ({n} tokens): max |Δ| logits {d:.2e} (largest logit {scale:.1})"
    );
    assert!(d < 1e-3 * scale.max(1.0), "logits differ by {d}");
    let top = |t: &Tensor| i64::try_from(t.get(n - 1).argmax(-1, false)).unwrap();
    assert_eq!(top(&logits.get(0)), top(reference));
}

/// Gemma's weights with SmolLM2's tokenizer: refused, naming the mismatch.
#[test]
fn a_tokenizer_of_another_model_is_refused() {
    super::support::init();
    let gemma = trainer::gguf::import_cached(
        &trainer::gemma3_gguf_path(),
        &trainer::gguf::default_cache_root(),
    )
    .unwrap();
    let smol = super::support::smollm2_dir();
    let mixed = tempfile::tempdir().unwrap();
    for f in ["config.json", "model.safetensors"] {
        std::os::unix::fs::symlink(gemma.join(f), mixed.path().join(f)).unwrap();
    }
    for f in ["tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(smol.join(f), mixed.path().join(f)).unwrap();
    }
    let err = Policy::load(mixed.path(), Device::Cpu).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("tokenizer does not match the model"), "{msg}");
}
