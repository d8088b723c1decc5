//! `/v1/rollouts`: scoring, storing once, paging, and the errors of bad submissions.

use super::*;

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
