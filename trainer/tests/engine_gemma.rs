//! Gemma 3 270M (the pre-trained GGUF, imported and served in f32) generates on vLLM for one
//! agent of a HACPO run while SmolLM2-135M generates with tch; the trainer syncs Gemma's weights
//! to the engine after every step.

mod support;
mod vllm;

use vllm::Agent;

#[test]
fn gemma3_generates_on_vllm_and_its_weights_follow_every_step() {
    support::init();
    let gguf = trainer::gemma3_gguf_path();
    assert!(
        gguf.is_file(),
        "{} is missing: run scripts/setup.d/32-gemma3.sh (or scripts/setup)",
        gguf.display()
    );
    let gemma = trainer::gguf::import_cached(&gguf, &trainer::gguf::default_cache_root()).unwrap();
    let smol = support::smollm2_dir();
    let dir = tempfile::tempdir().unwrap();
    // The partner is SmolLM2, not a tiny random model: the pre-trained Gemma rarely answers an
    // addition in chat, and only a group whose rewards differ moves its weights. SmolLM2's right
    // answers in the shared pool give Gemma's wrong ones a negative advantage.
    // Small sizes: Gemma's 262k-row output layer makes each step seconds of CPU.
    vllm::train_with_an_agent_on_vllm(
        dir.path(),
        &vllm::Case {
            served: Agent {
                name: "gemma3",
                model: &gemma,
                lr: 1e-5,
            },
            partner: Agent {
                name: "smollm2",
                model: &smol,
                lr: 1e-5,
            },
            steps: 3,
            prompts: 2,
            group: 2,
            max_new_tokens: 12,
        },
    );
}
