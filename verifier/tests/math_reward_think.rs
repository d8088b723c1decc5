//! `/v1/reward` grades a reasoning model's response on what follows its closing `</think>`
//! (issue 16): an answer inside the thinking earns nothing, and a response without the tag is
//! graded whole as before.

mod support;

use serde_json::json;
use support::TestService;

#[tokio::test]
async fn reward_ignores_the_thinking_once_it_is_closed() {
    let svc = TestService::start().await;
    let query = [
        // The right answer only inside the thinking: no reward.
        "<think>It is \\boxed{5}.</think> I am not sure.",
        // The right answer after the thinking, a wrong guess inside it: rewarded.
        "<think>Maybe \\boxed{4}?</think> The answer is \\boxed{5}.",
        // No tags at all: graded whole, as before.
        "The answer is \\boxed{5}.",
        // An unclosed thinking block is not stripped by the default (nothing was closed).
        "<think>so the answer is \\boxed{5}",
    ];
    let (status, body) = svc
        .post(
            "/v1/reward",
            &json!({"query": query, "prompts": ["", "", "", ""], "labels": ["5", "5", "5", "5"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rewards"], json!([0.0, 1.0, 1.0, 1.0]), "{body}");
}
