//! `trainer roundtrip` on the byte-level tokenizer (trainer/assets/byte-tokenizer) with a tiny
//! model: its samples must come back id for id once decoded and re-encoded, so the cross ratio
//! of a sample into its own author is exactly 1.

mod support;

use std::path::Path;

use tch::{Device, Kind};
use trainer::roundtrip::{Cause, PromptSource, prompts, round_trip, summary, warm_up};
use trainer::{Policy, SamplingParams};

fn byte_policy() -> Policy {
    support::init();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/byte-tokenizer");
    let cfg = support::tiny_config("llama", 259, 0.02);
    let mut policy = Policy::from_config(cfg, &dir, Device::Cpu, Kind::Float, 7).unwrap();
    // A few steps on the worked solutions make ASCII the likely bytes (a random model writes
    // about as many bytes ≥ 0x80, mostly invalid UTF-8, as ASCII ones).
    warm_up(&mut policy, 30, 16, 1e-2, 0).unwrap();
    policy
}

#[test]
fn byte_tokenizer_round_trips_every_sample_exactly() {
    let policy = byte_policy();
    let messages = prompts(PromptSource::Arith, Path::new("unused"), 32).unwrap();
    // Stop at the first byte ≥ 0x80 (it is left out of the response, as a stop token is): the
    // responses are ASCII, so valid UTF-8, and nothing may change on the way back.
    let mut stops = policy.stop_token_ids().to_vec();
    stops.extend(128..256);
    let params = SamplingParams {
        max_new_tokens: 24,
        temperature: 1.0,
        seed: Some(3),
        stop_token_ids: Some(stops),
        ..SamplingParams::default()
    };
    let records = round_trip(&policy, &messages, &params, 16).unwrap();
    let scored: Vec<_> = records.iter().filter(|r| r.scored()).collect();
    assert!(
        scored.len() >= 24,
        "{} of 32 responses non-empty",
        scored.len()
    );
    let tokens: usize = scored.iter().map(|r| r.sampled_ids.len()).sum();
    assert!(
        tokens >= 4 * scored.len(),
        "responses too short to test much: {tokens} tokens in {}",
        scored.len()
    );
    for r in &scored {
        assert_eq!(r.cause, Cause::Exact, "{r:?}");
        assert_eq!(r.sampled_ids, r.reencoded_ids);
        assert_eq!(r.bytes, r.sampled_ids.len(), "one byte per token");
        assert!(r.logprob_sampled.is_some_and(f64::is_finite));
        assert_eq!(r.logprob_sampled, r.logprob_reencoded);
        assert_eq!(r.ratio_per_token, Some(1.0));
        assert_eq!(r.ratio_per_byte, Some(1.0));
        // The sampler's own log-probs (KV cache) agree with the scorer's.
        let gap = r.sampler_mean_logprob.unwrap()
            - r.logprob_sampled.unwrap() / r.sampled_ids.len() as f64;
        assert!(gap.abs() < 1e-4, "sampler vs scorer {gap}");
    }
    let s = summary(&records);
    assert_eq!(s["exact_id_share"], 1.0);
    assert_eq!(s["ratio_per_token"]["within_1pct"], 1.0);
    assert_eq!(s["ratio_per_byte"]["median"], 1.0);
}

#[test]
fn byte_tokenizer_loses_only_what_decoding_drops() {
    // Unrestricted sampling: a response that does not come back is one whose bytes are not
    // valid UTF-8 (decoded to U+FFFD) or that holds a special token — never the encoder.
    let policy = byte_policy();
    let messages = prompts(PromptSource::Arith, Path::new("unused"), 32).unwrap();
    let params = SamplingParams {
        max_new_tokens: 24,
        temperature: 1.0,
        seed: Some(4),
        ..SamplingParams::default()
    };
    let records = round_trip(&policy, &messages, &params, 16).unwrap();
    for r in &records {
        assert!(
            matches!(
                r.cause,
                Cause::Exact | Cause::Empty | Cause::LossyDecode | Cause::SpecialDropped
            ),
            "{r:?}"
        );
        if r.cause == Cause::LossyDecode {
            assert!(r.text.contains('\u{FFFD}'));
            assert!(
                r.sampled_ids
                    .iter()
                    .any(|&b| b == 0 || (128..256).contains(&b))
            );
        }
    }
    assert!(records.iter().any(|r| r.cause == Cause::Exact));
}
