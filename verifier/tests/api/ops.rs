//! Operations: limits, unknown routes, health, metrics, and a database outage.

use super::*;

#[tokio::test]
async fn oversized_bodies_and_unknown_routes_get_json_errors() {
    let s = TestService::start_with(
        RequestLimits {
            max_body_bytes: 1024,
            max_batch: 2,
            ..RequestLimits::default()
        },
        None,
    )
    .await;
    let (status, err) = s
        .post(
            "/v1/verify/math",
            &json!({"reference": "1", "response": "x".repeat(4096)}),
        )
        .await;
    assert_eq!(status, 413, "{err}");
    assert_eq!(err["error"]["code"], "invalid_request");
    let tasks = math_tasks(&s, 1).await;
    let a = s.agent("a").await;
    let three: Vec<Value> = (0..3)
        .map(|_| rollout(&uuid(), &tasks[0], &a, 0, "0"))
        .collect();
    let (status, err) = s.post("/v1/rollouts", &json!({ "rollouts": three })).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("rollouts"))
    );
    let (status, err) = s.get("/v2/nothing").await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, err) = s.get("/v1/rollouts?limit=0").await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("limit"))
    );
    let (status, err) = s.get("/v1/rollouts?step=abc").await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("step"))
    );
}

#[tokio::test]
async fn operations_endpoints() {
    let s = TestService::start().await;
    assert_eq!(s.get("/healthz").await.0, 200);
    assert_eq!(s.get("/readyz").await, (200, json!({"status": "ready"})));
    let (status, doc) = s.get("/openapi.json").await;
    assert_eq!(status, 200);
    for path in [
        "/v1/rollouts",
        "/v1/pool/groups",
        "/v1/runs/{run}/steps/{step}",
        "/v1/agents/{agent}/capability",
        "/v1/reward",
        "/v1/verify/code",
    ] {
        assert!(doc["paths"].get(path).is_some(), "openapi lacks {path}");
    }
    // A task's reference is stated per kind: a `oneOf` that a schema-driven client can follow.
    let schemas = &doc["components"]["schemas"];
    let shapes: Vec<&str> = schemas["NewTaskShape"]["oneOf"]
        .as_array()
        .expect("NewTaskShape is a oneOf")
        .iter()
        .map(|v| v["$ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        shapes,
        [
            "#/components/schemas/NewMathTask",
            "#/components/schemas/NewCodeTask"
        ]
    );
    assert_eq!(
        schemas["NewCodeTask"]["properties"]["reference"]["$ref"],
        "#/components/schemas/CodeReference"
    );
    assert_eq!(schemas["CodeKind"]["enum"], json!(["code"]));
    assert_eq!(schemas["MathKind"]["enum"], json!(["math"]));
    let r = s
        .http
        .get(format!("{}/healthz", s.url))
        .header("x-request-id", "abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "abc-123");
    let r = s
        .http
        .get(format!("{}/healthz", s.url))
        .send()
        .await
        .unwrap();
    assert!(uuid::Uuid::parse_str(r.headers()["x-request-id"].to_str().unwrap()).is_ok());

    s.post(
        "/v1/verify/math",
        &json!({"reference": "1", "response": "1"}),
    )
    .await;
    let text = support::metrics_text(&s.url).await;
    for series in [
        "verifier_http_requests_total",
        "verifier_http_request_duration_seconds",
        "verifier_verifications_total",
        "verifier_pool_rollouts",
    ] {
        assert!(text.contains(series), "metrics lack {series}:\n{text}");
        // Every metric says what it is.
        assert!(
            text.contains(&format!("# HELP {series} ")),
            "{series} has no HELP line:\n{text}"
        );
    }
    // Latencies are histograms with buckets (aggregatable across replicas), not summaries.
    assert!(
        text.contains("# TYPE verifier_http_request_duration_seconds histogram")
            && text.contains("verifier_http_request_duration_seconds_bucket{"),
        "request latency is not a histogram:\n{text}"
    );
}

#[tokio::test]
async fn database_outage_answers_503_and_loses_nothing_acknowledged() {
    let proxy = Proxy::start().await;
    let s = TestService::start_with(RequestLimits::default(), Some(proxy.addr)).await;
    let tasks = math_tasks(&s, 2).await;
    let a = s.agent("a").await;
    let acked = json!({"rollouts": [rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{0}"), rollout(&uuid(), &tasks[1], &a, 0, "\\boxed{0}")]});
    assert_eq!(s.post("/v1/rollouts", &acked).await.0, 200);

    proxy.cut();
    let pending = json!({"rollouts": [rollout(&uuid(), &tasks[0], &a, 1, "\\boxed{0}")]});
    let (status, err) = s.post("/v1/rollouts", &pending).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (503, Some("database_unavailable")),
        "{err}"
    );
    assert_eq!(s.get("/readyz").await.0, 503);
    assert_eq!(s.get("/healthz").await.0, 200);
    let (status, _) = s.get("/v1/agents").await;
    assert_eq!(status, 503);

    proxy.restore();
    let mut status = 0;
    for _ in 0..50 {
        status = s.get("/readyz").await.0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        status, 200,
        "the service recovers when the database returns"
    );
    // The client retries the rejected batch; the acknowledged one is intact and not duplicated.
    let (status, body) = s.post("/v1/rollouts", &pending).await;
    assert_eq!((status, body["created"].as_u64()), (200, Some(1)));
    let (_, again) = s.post("/v1/rollouts", &acked).await;
    assert_eq!(again["duplicates"].as_u64(), Some(2));
    let ids: HashSet<String> = sqlx::query_scalar("select id::text from rollouts")
        .fetch_all(&s.db)
        .await
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(ids.len(), 3);
}

/// Issue 29: a NUL in a query parameter once reached Postgres as a 500; in any path segment or
/// query parameter it is a 422 naming the parameter.
#[tokio::test]
async fn a_nul_in_a_path_or_query_is_a_422_naming_it() {
    let s = TestService::start().await;
    for (path, field) in [
        ("/v1/pool/groups?run=%00&step=1", "run"),
        ("/v1/agents/a%00", "agent"),
        ("/v1/agents/a/capability?run=x%00", "run"),
        ("/v1/tasks?dataset=%00", "dataset"),
        ("/v1/rollouts?run=%00", "run"),
        ("/v1/runs/%00/steps/1", "run"),
        ("/ui/runs/%00", "run"),
    ] {
        let (status, body) = s.get(path).await;
        assert_eq!(status, 422, "{path}: {body}");
        assert_eq!(body["error"]["field"], field, "{path}");
    }
}
