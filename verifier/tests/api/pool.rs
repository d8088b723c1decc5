//! `/v1/pool/groups` and capability: the values a policy update reads, by hand.

use super::*;

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
async fn the_step_page_marks_the_complementary_tasks_the_sql_view_lists() {
    let s = TestService::start().await;
    let tasks = math_tasks(&s, 2).await;
    let (a, b) = (s.agent("comp-a").await, s.agent("comp-b").await);
    // Task 0 (answer 0): a fails both samples, b solves one of two. Task 1: both solve it.
    let batch = json!({"rollouts": [
        rollout(&uuid(), &tasks[0], &a, 3, "\\boxed{5}"),
        rollout(&uuid(), &tasks[0], &a, 3, "\\boxed{6}"),
        rollout(&uuid(), &tasks[0], &b, 3, "\\boxed{0}"),
        rollout(&uuid(), &tasks[0], &b, 3, "\\boxed{9}"),
        rollout(&uuid(), &tasks[1], &a, 3, "\\boxed{1}"),
        rollout(&uuid(), &tasks[1], &b, 3, "\\boxed{1}"),
    ]});
    let (status, body) = s.post("/v1/rollouts", &batch).await;
    assert_eq!(status, 200, "{body}");
    let in_view: i64 = sqlx::query_scalar(
        "select count(distinct task_id) from complementary_prompts \
         where run = 'default' and step = 3",
    )
    .fetch_one(&s.db)
    .await
    .unwrap();
    assert_eq!(in_view, 1);
    let html = s
        .http
        .get(format!("{}/ui/runs/default/steps/3", s.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(&format!(r#"<span id="complementary">{in_view}</span>"#)),
        "{html}"
    );
    assert_eq!(
        html.matches(r#"<div class="complementary">complementary: comp-a failed all 2; comp-b solved 1 of 2</div>"#)
            .count(),
        1,
        "{html}"
    );
}
