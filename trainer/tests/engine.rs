//! Generation on a real serving engine: vLLM serves SmolLM2-135M for one agent of a HACPO run
//! while a tiny agent generates with tch; the trainer syncs the agent's weights to the engine
//! after every step. The real verifier scores and pools the rollouts.

mod support;
mod vllm;

use vllm::Agent;

#[test]
fn an_agent_generates_on_vllm_and_its_weights_follow_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let smol = support::smollm2_dir();
    let [_, (tiny, tiny_model)] = support::tiny_agents(dir.path());
    // Enough responses that some are right (SmolLM2 adds small numbers correctly, not always):
    // a step whose groups all score alike has no advantage to learn from.
    vllm::train_with_an_agent_on_vllm(
        dir.path(),
        &vllm::Case {
            served: Agent {
                name: "smollm2",
                model: &smol,
                lr: 1e-3,
            },
            partner: Agent {
                name: tiny,
                model: &tiny_model,
                lr: 1e-3,
            },
            steps: 3,
            prompts: 4,
            group: 4,
            max_new_tokens: 16,
        },
    );
}
