//! The service over HTTP against the real Postgres: submissions, idempotency, pagination,
//! capability, SQL-visible rows, bad inputs, database outages.

mod support;

use std::collections::HashSet;
use std::io::Write;

use serde_json::{Value, json};
use support::{Proxy, TestService};
use verifier::api::Limits;

const GSM8K: &str = "../data/gsm8k_test.jsonl";
const HUMANEVAL: &str = "../data/HumanEval.jsonl.gz";

fn data(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Imports `n` math tasks with answers 0, 1, 2, … and returns their ids.
async fn math_tasks(s: &TestService, n: usize) -> Vec<String> {
    let tasks: Vec<Value> = (0..n)
        .map(|i| json!({"dataset": "toy", "external_id": i.to_string(), "kind": "math",
                        "prompt": format!("What is {i} + 0?"), "reference": {"answer": i.to_string()}}))
        .collect();
    let (status, body) = s.post("/v1/tasks", &json!({ "tasks": tasks })).await;
    assert_eq!(status, 200, "{body}");
    body["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

fn rollout(id: &str, task: &str, agent: &str, step: i64, response: &str) -> Value {
    json!({"id": id, "task_id": task, "agent_id": agent, "step": step, "response": response,
           "logprob_mean": -0.5, "logprob_sum": -10.0, "token_count": 20})
}

fn uuid() -> String {
    uuid::Uuid::now_v7().to_string()
}

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

#[tokio::test]
async fn benchmark_files_upload_as_json_lines_and_prompts_hide_answers() {
    let s = TestService::start().await;
    let gsm8k: String = std::fs::read_to_string(data(GSM8K))
        .unwrap()
        .lines()
        .take(50)
        .collect::<Vec<_>>()
        .join("\n");
    let (status, body) = s
        .post_raw(
            "/v1/tasks?dataset=gsm8k",
            "application/x-ndjson",
            gsm8k.clone().into_bytes(),
        )
        .await;
    assert_eq!(
        (status, body["created"].as_u64()),
        (200, Some(50)),
        "{body}"
    );
    // The same upload again changes nothing.
    let (_, body) = s
        .post_raw(
            "/v1/tasks?dataset=gsm8k",
            "application/x-ndjson",
            gsm8k.into_bytes(),
        )
        .await;
    assert_eq!(
        (body["created"].as_u64(), body["unchanged"].as_u64()),
        (Some(0), Some(50))
    );

    // HumanEval as shipped (gzip), sent gzip-encoded.
    let gz = std::fs::read(data(HUMANEVAL)).unwrap();
    let r = s
        .http
        .post(format!("{}/v1/tasks?dataset=humaneval", s.url))
        .header("content-type", "application/x-ndjson")
        .header("content-encoding", "gzip")
        .body(gz)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["created"].as_u64(), Some(164));

    // Listing: prompts only, paginated, never the gold answers.
    let (_, page) = s.get("/v1/tasks?dataset=gsm8k&limit=20").await;
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 20);
    assert_eq!(items[0]["external_id"], "0");
    assert!(items.iter().all(|t| t.get("reference").is_none()));
    assert!(
        !page.to_string().contains("####"),
        "a gold solution leaked: {page}"
    );
    let (_, code) = s.get("/v1/tasks?kind=code&limit=1000").await;
    assert_eq!(code["items"].as_array().unwrap().len(), 164);
    assert!(code.get("next").is_none());
    assert!(!code.to_string().contains("canonical_solution"));
    let stored: i64 = sqlx::query_scalar("select count(*) from tasks where reference ? 'solution'")
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert_eq!(stored, 50, "the hidden reference keeps the worked solution");
}

#[tokio::test]
async fn task_uploads_reject_bad_rows_naming_them() {
    let s = TestService::start().await;
    let bad_ref = json!({"tasks": [
        {"dataset": "d", "external_id": "1", "kind": "math", "prompt": "p", "reference": {"answer": "1"}},
        {"dataset": "d", "external_id": "2", "kind": "code", "prompt": "p", "reference": {"answer": "1"}}]});
    let (status, err) = s.post("/v1/tasks", &bad_ref).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("tasks[1].reference")),
        "{err}"
    );
    let (status, err) = s.post("/v1/tasks", &json!({"tasks": [{"dataset": "d", "external_id": "1", "kind": "math", "prompt": "p\u{0}", "reference": "1"}]})).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("tasks[0].prompt")),
        "{err}"
    );
    let (status, err) = s.post("/v1/tasks", &json!({"tasks": [{"dataset": "d", "external_id": "1", "kind": "poetry", "prompt": "p", "reference": "1"}]})).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("tasks[0].kind"))
    );
    // All or nothing: the valid first task was not stored.
    let (_, page) = s.get("/v1/tasks").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 0);

    let (status, _) = s.post("/v1/tasks", &json!({"tasks": [{"dataset": "d", "external_id": "1", "kind": "math", "prompt": "p", "reference": "1"}]})).await;
    assert_eq!(status, 200);
    let (status, err) = s.post("/v1/tasks", &json!({"tasks": [{"dataset": "d", "external_id": "1", "kind": "math", "prompt": "p", "reference": "2"}]})).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (409, Some("tasks[0]"))
    );

    let lines = b"{\"question\": \"q\", \"answer\": \"#### 1\"}\nnot json\n".to_vec();
    let (status, err) = s
        .post_raw("/v1/tasks?dataset=x", "application/x-ndjson", lines.clone())
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (400, Some("lines[1]"))
    );
    let (status, err) = s.post_raw("/v1/tasks", "application/x-ndjson", lines).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("dataset"))
    );
}

#[tokio::test]
async fn rollouts_are_scored_stored_once_and_hide_gold_answers() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 3).await;
    let (a, b) = (s.agent("a").await, s.agent("b").await);
    let batch: Vec<Value> = vec![
        rollout(&uuid(), &tasks[1], &a, 1, "1 + 0 = \\boxed{1}"),
        rollout(&uuid(), &tasks[1], &a, 1, "\\boxed{2}"),
        rollout(&uuid(), &tasks[1], &b, 1, "The answer is #### 1"),
        rollout(&uuid(), &tasks[2], &b, 1, "I think \\boxed{7}"),
    ];
    let body = json!({ "rollouts": batch });
    let (status, first) = s.post("/v1/rollouts", &body).await;
    assert_eq!(status, 200, "{first}");
    let rewards: Vec<f64> = first["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reward"].as_f64().unwrap())
        .collect();
    assert_eq!(rewards, [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(
        (first["created"].as_u64(), first["duplicates"].as_u64()),
        (Some(4), Some(0))
    );
    assert!(
        !first.to_string().contains("reference"),
        "verdicts must not reveal the gold answer: {first}"
    );

    // Resending the batch returns the stored results and stores nothing new.
    let (status, again) = s.post("/v1/rollouts", &body).await;
    assert_eq!(status, 200);
    assert_eq!(
        (again["created"].as_u64(), again["duplicates"].as_u64()),
        (Some(0), Some(4))
    );
    for (x, y) in first["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(again["results"].as_array().unwrap())
    {
        assert_eq!(
            (&x["id"], &x["reward"], &x["verdict"]),
            (&y["id"], &y["reward"], &y["verdict"])
        );
        assert_eq!(y["duplicate"], true);
    }
    let n: i64 = sqlx::query_scalar("select count(*) from rollouts")
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert_eq!(n, 4);

    // The same id with another response is a conflict, not an overwrite.
    let mut changed = batch[0].clone();
    changed["response"] = json!("\\boxed{5}");
    let (status, err) = s
        .post("/v1/rollouts", &json!({ "rollouts": [changed] }))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (409, Some("rollouts[0].id"))
    );

    // Concurrent identical submissions still store each rollout once.
    let twin = json!({ "rollouts": [rollout(&uuid(), &tasks[0], &a, 2, "\\boxed{0}")] });
    let (r1, r2) = tokio::join!(s.post("/v1/rollouts", &twin), s.post("/v1/rollouts", &twin));
    assert_eq!((r1.0, r2.0), (200, 200));
    assert_eq!(
        r1.1["created"].as_u64().unwrap() + r2.1["created"].as_u64().unwrap(),
        1
    );
    let n: i64 = sqlx::query_scalar("select count(*) from rollouts")
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert_eq!(n, 5);

    // The stored verdict keeps the full picture for SQL users.
    let verdict: Value = sqlx::query_scalar("select verdict from rollouts where id = $1::uuid")
        .bind(batch[0]["id"].as_str().unwrap())
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert_eq!(verdict["kind"], "math");
    assert_eq!(verdict["reference_answer"], "1");
}

#[tokio::test]
async fn bad_rollouts_get_errors_naming_the_field() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 1).await;
    let a = s.agent("a").await;
    let cases: Vec<(Value, u16, &str)> = vec![
        (json!({"rollouts": []}), 422, "rollouts"),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a}]}),
            422,
            "rollouts[0].response",
        ),
        (
            json!({"rollouts": [{"task_id": "nope", "agent_id": a, "response": "1"}]}),
            422,
            "rollouts[0].task_id",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "1", "step": -1}]}),
            422,
            "rollouts[0].step",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "1", "logprob_mean": 0.5}]}),
            422,
            "rollouts[0].logprob_mean",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "1", "temperature": 1}]}),
            422,
            "rollouts[0].temperature",
        ),
        // Postgres cannot store U+0000 in text or jsonb: a clear 422, not a 500.
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "4\u{0}2"}]}),
            422,
            "rollouts[0].response",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "1", "metadata": {"k": ["\u{0}"]}}]}),
            422,
            "rollouts[0].metadata",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": uuid(), "response": "1"}]}),
            404,
            "rollouts[0].agent_id",
        ),
        (
            json!({"rollouts": [{"task_id": tasks[0], "agent_id": a, "response": "1"}, {"task_id": uuid(), "agent_id": a, "response": "1"}]}),
            404,
            "rollouts[1].task_id",
        ),
    ];
    for (body, status, field) in cases {
        let (got, err) = s.post("/v1/rollouts", &body).await;
        assert_eq!(
            (got, err["error"]["field"].as_str()),
            (status, Some(field)),
            "{body} -> {err}"
        );
        assert!(
            err["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    let id = uuid();
    let (status, err) = s
        .post("/v1/rollouts", &json!({"rollouts": [rollout(&id, &tasks[0], &a, 0, "1"), rollout(&id, &tasks[0], &a, 0, "2")]}))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("rollouts[1].id"))
    );
    let (status, err) = s
        .post_raw(
            "/v1/rollouts",
            "application/json",
            b"{\"rollouts\": [".to_vec(),
        )
        .await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );
    let n: i64 = sqlx::query_scalar("select count(*) from rollouts")
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert_eq!(n, 0, "no rejected batch stored anything");
}

#[tokio::test]
async fn oversized_bodies_and_unknown_routes_get_json_errors() {
    let s = TestService::start_with(
        Limits {
            max_body_bytes: 1024,
            max_batch: 2,
            ..Limits::default()
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
async fn rollouts_page_with_a_stable_cursor_and_filters() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 5).await;
    let (a, b) = (s.agent("a").await, s.agent("b").await);
    let mut sent = Vec::new();
    for step in 0..3 {
        let batch: Vec<Value> = tasks
            .iter()
            .flat_map(|t| {
                [
                    rollout(&uuid(), t, &a, step, "\\boxed{1}"),
                    rollout(&uuid(), t, &b, step, "\\boxed{3}"),
                ]
            })
            .collect();
        sent.extend(batch.iter().map(|r| r["id"].as_str().unwrap().to_string()));
        assert_eq!(
            s.post("/v1/rollouts", &json!({ "rollouts": batch }))
                .await
                .0,
            200
        );
    }
    let (mut seen, mut after, mut pages) = (Vec::new(), 0i64, 0);
    loop {
        let (status, page) = s.get(&format!("/v1/rollouts?limit=7&after={after}")).await;
        assert_eq!(status, 200);
        pages += 1;
        seen.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string()),
        );
        match page["next"].as_i64() {
            Some(n) => after = n,
            None => break,
        }
    }
    assert_eq!(pages, 5); // 30 rollouts, 7 a page
    assert_eq!(seen, sent, "every rollout once, in submission order");
    let (_, filtered) = s
        .get(&format!("/v1/rollouts?agent_id={a}&step=2&limit=100"))
        .await;
    let items = filtered["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert!(
        items
            .iter()
            .all(|r| r["agent_id"] == a.as_str() && r["step"] == 2)
    );
    let (_, by_task) = s.get(&format!("/v1/rollouts?task_id={}", tasks[1])).await;
    assert_eq!(by_task["items"].as_array().unwrap().len(), 6);
    let (_, other_run) = s.get("/v1/rollouts?run=elsewhere").await;
    assert_eq!(other_run["items"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn capability_and_groups_match_hand_computed_values() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 2).await;
    let (a, b) = (s.agent("a").await, s.agent("b").await);
    // Agent a: step 0 accuracy 0.5, step 1 1.0, step 2 0.0. Agent b: 1.0 at step 0.
    let rows = vec![
        rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{0}"),
        rollout(&uuid(), &tasks[1], &a, 0, "\\boxed{0}"),
        rollout(&uuid(), &tasks[0], &a, 1, "\\boxed{0}"),
        rollout(&uuid(), &tasks[1], &a, 1, "\\boxed{1}"),
        rollout(&uuid(), &tasks[0], &a, 2, "\\boxed{9}"),
        rollout(&uuid(), &tasks[0], &b, 0, "\\boxed{0}"),
        rollout(&uuid(), &tasks[1], &b, 0, "\\boxed{1}"),
    ];
    assert_eq!(
        s.post("/v1/rollouts", &json!({ "rollouts": rows })).await.0,
        200
    );
    let (_, cap) = s.get(&format!("/v1/agents/{a}/capability?window=2")).await;
    let caps: Vec<f64> = cap["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["capability"].as_f64().unwrap())
        .collect();
    let accs: Vec<f64> = cap["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["accuracy"].as_f64().unwrap())
        .collect();
    assert_eq!(accs, [0.5, 1.0, 0.0]);
    assert_eq!(caps, [0.5, 0.75, 0.5]);
    assert_eq!(cap["capability"].as_f64(), Some(0.5));
    let (_, cap5) = s.get("/v1/agents/a/capability").await;
    assert_eq!(cap5["capability"].as_f64(), Some(0.5)); // (0.5 + 1 + 0) / 3
    let (status, err) = s.get("/v1/agents/a/capability?window=0").await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("window"))
    );

    // The same numbers through plain SQL.
    let sql: Vec<(String, i64, f64)> = sqlx::query_as(
        "select agent, step, capability from agent_capability(2) order by agent, step",
    )
    .fetch_all(&s.db)
    .await
    .unwrap();
    assert_eq!(
        sql,
        vec![
            ("a".into(), 0, 0.5),
            ("a".into(), 1, 0.75),
            ("a".into(), 2, 0.5),
            ("b".into(), 0, 1.0)
        ]
    );

    let (_, groups) = s.get("/v1/pool/groups?step=0").await;
    let groups = groups["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["task_id"], tasks[0].as_str());
    assert_eq!(groups[0]["prompt"], "What is 0 + 0?");
    let members = groups[1]["rollouts"].as_array().unwrap();
    let by_agent: Vec<(&str, f64, f64)> = members
        .iter()
        .map(|m| {
            (
                m["agent"].as_str().unwrap(),
                m["reward"].as_f64().unwrap(),
                m["logprob_mean"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by_agent, [("a", 0.0, -0.5), ("b", 1.0, -0.5)]);
    assert!(!groups[0].to_string().contains("reference"));
    let (status, err) = s.get("/v1/pool/groups").await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("step"))
    );

    // Who has submitted each step: the barrier of agents in separate processes.
    let (status, step0) = s.get("/v1/runs/default/steps/0").await;
    assert_eq!(status, 200, "{step0}");
    assert_eq!(
        step0,
        json!({"run": "default", "step": 0, "agents": [
            {"agent_id": a, "agent": "a", "rollouts": 2},
            {"agent_id": b, "agent": "b", "rollouts": 2}]})
    );
    let (_, step2) = s.get("/v1/runs/default/steps/2").await;
    assert_eq!(
        step2["agents"],
        json!([{"agent_id": a, "agent": "a", "rollouts": 1}])
    );
    let (_, nobody) = s.get("/v1/runs/elsewhere%2Feval/steps/0").await;
    assert_eq!(
        nobody,
        json!({"run": "elsewhere/eval", "step": 0, "agents": []})
    );
    for bad in ["x", "-1"] {
        let (status, err) = s.get(&format!("/v1/runs/default/steps/{bad}")).await;
        assert_eq!(
            (status, err["error"]["field"].as_str()),
            (422, Some("step")),
            "{err}"
        );
    }

    // "Which tasks did b solve that a never solved?"
    let solved_by_b_only: Vec<String> = sqlx::query_scalar(
        "select t.external_id from tasks t
         where exists (select 1 from rollouts r join agents g on g.id = r.agent_id where r.task_id = t.id and g.name = 'b' and r.correct)
           and not exists (select 1 from rollouts r join agents g on g.id = r.agent_id where r.task_id = t.id and g.name = 'a' and r.correct)",
    )
    .fetch_all(&s.db)
    .await
    .unwrap();
    assert!(
        solved_by_b_only.is_empty(),
        "a solved both tasks at some step: {solved_by_b_only:?}"
    );
}

#[tokio::test]
async fn ends_turn_is_typed_or_in_metadata_and_groups_read_it_back() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 1).await;
    let a = s.agent("a").await;
    let mut typed = rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{0}");
    typed["ends_turn"] = json!(false);
    let mut legacy = rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{1}");
    legacy["metadata"] = json!({"ends_turn": false, "temperature": 1.0});
    let unsaid = rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{2}");
    let (status, body) = s
        .post(
            "/v1/rollouts",
            &json!({ "rollouts": [typed, legacy, unsaid] }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // The typed field is stored where the metadata form always put it.
    let stored: Vec<Value> = sqlx::query_scalar("select metadata from rollouts order by response")
        .fetch_all(&s.db)
        .await
        .unwrap();
    assert_eq!(
        stored,
        [
            json!({"ends_turn": false}),
            json!({"ends_turn": false, "temperature": 1.0}),
            json!({})
        ]
    );
    let (_, groups) = s.get("/v1/pool/groups?step=0").await;
    let members: Vec<wire::GroupMember> =
        serde_json::from_value(groups["groups"][0]["rollouts"].clone()).unwrap();
    let ends: Vec<bool> = members.iter().map(wire::GroupMember::ends_turn).collect();
    assert_eq!(ends, [false, false, true]);

    let mut clash = rollout(&uuid(), &tasks[0], &a, 0, "\\boxed{3}");
    clash["ends_turn"] = json!(true);
    clash["metadata"] = json!({"ends_turn": false});
    let (status, err) = s
        .post("/v1/rollouts", &json!({ "rollouts": [clash] }))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("rollouts[0].ends_turn"))
    );
}

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

#[tokio::test]
async fn stateless_scoring_endpoints() {
    let s = TestService::start().await;
    let (status, v) = s
        .post(
            "/v1/verify/math",
            &json!({"reference": "#### 1,234", "response": "so the total is \\boxed{1234}"}),
        )
        .await;
    assert_eq!((status, v["correct"].as_bool()), (200, Some(true)), "{v}");
    let (_, v) = s
        .post(
            "/v1/verify/math",
            &json!({"reference": "18", "response": "\\boxed{17}"}),
        )
        .await;
    assert_eq!(v["correct"], false);
    let (status, err) = s.post("/v1/verify/math", &json!({"response": "1"})).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("reference"))
    );

    let req = json!({"query": ["Q1: 2+2? A: \\boxed{4}", "Q2: 3+3? A: \\boxed{5}"], "prompts": ["Q1: 2+2? A:", "Q2: 3+3? A:"], "labels": ["4", "6"]});
    let (status, r) = s.post("/v1/reward", &req).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["rewards"], json!([1.0, 0.0]));
    assert_eq!(r["scores"], r["rewards"]);
    assert_eq!(r["extra_logs"]["correct"], json!([1.0, 0.0]));
    let (status, err) = s
        .post("/v1/reward", &json!({"query": ["a"], "labels": []}))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("labels"))
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
    let s = TestService::start_with(Limits::default(), Some(proxy.addr)).await;
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

#[tokio::test]
async fn cli_score_grades_lines_and_flags_bad_ones() {
    let input = [
        json!({"kind": "math", "response": "\\boxed{42}", "reference": "42"}).to_string(),
        json!({"kind": "math", "response": "41", "reference": "#### 42"}).to_string(),
        "{not json".to_string(),
    ]
    .join("\n");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
        .arg("score")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an invalid line makes the exit code 2"
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["correct"].as_bool(), lines[0]["reward"].as_f64()),
        (Some(true), Some(1.0))
    );
    assert_eq!(lines[1]["correct"], false);
    assert_eq!(lines[2]["line"], 3);
    assert!(lines[2]["error"].as_str().is_some());
}

#[tokio::test]
async fn cli_imports_benchmark_files_into_the_pool() {
    let s = TestService::start().await;
    let run = |file: &str, dataset: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
            .args([
                "import-tasks",
                data(file).to_str().unwrap(),
                "--dataset",
                dataset,
            ])
            .env("DATABASE_URL", &s.db_url)
            .output()
            .unwrap()
    };
    for (file, dataset) in [
        (HUMANEVAL, "humaneval"),
        ("../data/minerva_math.jsonl", "minerva"),
        ("../data/aime24.jsonl", "aime24"),
    ] {
        let out = run(file, dataset);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let counts: Vec<(String, i64)> =
        sqlx::query_as("select dataset, count(*) from tasks group by dataset order by dataset")
            .fetch_all(&s.db)
            .await
            .unwrap();
    assert_eq!(
        counts,
        vec![
            ("aime24".into(), 30),
            ("humaneval".into(), 164),
            ("minerva".into(), 272)
        ]
    );
    let out = run(HUMANEVAL, "humaneval");
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 created, 164 unchanged"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
        .args(["import-tasks", "/nonexistent.jsonl", "--dataset", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}
