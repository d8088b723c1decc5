//! `/v1/tasks` and `verifier import-tasks`: uploads of task batches and benchmark files.

use super::*;

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
