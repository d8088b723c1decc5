//! `/v1/agents`: registration, idempotent by name.

use super::*;

#[tokio::test]
async fn agents_register_idempotently_by_name() {
    let s = TestService::start().await;
    let new = json!({"name": "qwen3-1.7b", "family": "qwen3", "size_params": 1_700_000_000i64, "tokenizer": "qwen3"});
    let (status, first) = s.post("/v1/agents", &new).await;
    assert_eq!(status, 201, "{first}");
    let (status, again) = s.post("/v1/agents", &new).await;
    assert_eq!((status, &again["id"]), (200, &first["id"]));
    let (status, err) = s
        .post(
            "/v1/agents",
            &json!({"name": "qwen3-1.7b", "family": "llama"}),
        )
        .await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (409, Some("conflict"))
    );
    let (status, err) = s.post("/v1/agents", &json!({"name": ""})).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("name"))
    );
    let (status, err) = s
        .post("/v1/agents", &json!({"name": "x", "size_params": "big"}))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("size_params"))
    );
    s.agent("llama-3.2-1b").await;
    let (_, list) = s.get("/v1/agents").await;
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["llama-3.2-1b", "qwen3-1.7b"]);
    let (status, by_name) = s.get("/v1/agents/qwen3-1.7b").await;
    assert_eq!((status, &by_name["id"]), (200, &first["id"]));
    let (status, err) = s.get(&format!("/v1/agents/{}", uuid())).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
}
