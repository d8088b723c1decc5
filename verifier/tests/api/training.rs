//! `/v1/metrics`: per-agent training metrics.

use super::*;

#[tokio::test]
async fn training_metrics_round_trip() {
    let s = TestService::start().await;
    let a = s.agent("a").await;
    let m = json!({"run": "r1", "agent_id": a, "step": 3, "loss": -0.69, "clip_fraction": 0.25, "extra": {"omega_b": 2.0}});
    let (status, stored) = s.post("/v1/metrics", &m).await;
    assert_eq!(status, 200, "{stored}");
    let mut m2 = m.clone();
    m2["loss"] = json!(-0.5);
    assert_eq!(s.post("/v1/metrics", &m2).await.0, 200);
    let (_, list) = s.get("/v1/metrics?run=r1").await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(
        (
            list[0]["loss"].as_f64(),
            list[0]["extra"]["omega_b"].as_f64()
        ),
        (Some(-0.5), Some(2.0))
    );
    let (status, err) = s
        .post(
            "/v1/metrics",
            &json!({"run": "r1", "agent_id": uuid(), "step": 0}),
        )
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (404, Some("agent_id"))
    );
}
