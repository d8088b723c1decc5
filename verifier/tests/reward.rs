//! `/v1/reward` as OpenRLHF's `--remote_rm_url` client uses it: `remote_rm_fn_ray` posts
//! `{"query": [...], "prompts": [...], "labels": [...]}` with Python's `requests.post(json=...)`
//! (`json.dumps` with its default `", "`/`": "` separators, `Content-Type: application/json`),
//! labels being the dataset's raw `--label_key` values, and averages every `extra_logs` list.

mod support;

use serde_json::{Value, json};
use support::TestService;

/// A HumanEval-style code reference, as a code task stores it.
fn code_label() -> Value {
    json!({"language": "python", "style": "assert", "entry_point": "inc",
           "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(-1) == 0\n"})
}

/// The body as Python's `json.dumps` writes it, so the test exercises the bytes OpenRLHF sends.
fn python_json(v: &Value) -> Vec<u8> {
    let compact = serde_json::to_string(v).unwrap();
    // Re-insert the separators outside strings: Python writes `, ` and `: `.
    let mut out = String::with_capacity(compact.len() * 2);
    let (mut in_string, mut escaped) = (false, false);
    for c in compact.chars() {
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' || c == ':' {
            out.push(' ');
        }
    }
    out.into_bytes()
}

#[tokio::test]
async fn openrlhf_remote_reward_grades_math_code_and_pool_tasks_with_raw_labels() {
    let s = TestService::start().await;
    // A pool task, graded through its id (its reference never travels).
    let (status, body) = s
        .post(
            "/v1/tasks",
            &json!({"tasks": [{"dataset": "rm", "external_id": "1", "kind": "math",
                                "prompt": "What is 6 * 7?", "reference": {"answer": "42"}}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let task_id = body["tasks"][0]["id"].as_str().unwrap().to_string();

    let template = |q: &str| format!("<|user|>\n{q}\n<|assistant|>\n");
    let cases: Vec<(String, &str, Value, f64)> = vec![
        // GSM8K-style label as a number (OpenRLHF sends the raw JSON value).
        (template("2 + 16?"), "so \\boxed{18}", json!(18), 1.0),
        (template("2 + 16?"), "so \\boxed{17}", json!(18.0), 0.0),
        // A string label with a solution text.
        (
            template("eggs?"),
            "so \\boxed{72}",
            json!("... #### 72"),
            1.0,
        ),
        // A code reference object, run in the sandbox.
        (
            template("Write inc(x)."),
            "```python\ndef inc(x):\n    return x + 1\n```",
            code_label(),
            1.0,
        ),
        (
            template("Write inc(x)."),
            "```python\ndef inc(x):\n    return x\n```",
            code_label(),
            0.0,
        ),
        // The same reference stored as JSON text in a string column.
        (
            template("Write inc(x)."),
            "```python\ndef inc(x):\n    return 1 + x\n```",
            json!(code_label().to_string()),
            1.0,
        ),
        // A task of the pool, by id and as {"task_id"}.
        (template("6 * 7?"), "\\boxed{42}", json!(task_id), 1.0),
        (
            template("6 * 7?"),
            "\\boxed{41}",
            json!({"task_id": task_id}),
            0.0,
        ),
        // Several acceptable answers; {"answer"} objects; no label at all.
        (template("root?"), "x = -2", json!(["2", "-2"]), 1.0),
        (
            template("half?"),
            "\\boxed{0.5}",
            json!({"answer": "1/2"}),
            1.0,
        ),
        (template("anything"), "\\boxed{1}", Value::Null, 0.0),
    ];
    let req = json!({
        "query": cases.iter().map(|(p, r, _, _)| format!("{p}{r}")).collect::<Vec<_>>(),
        "prompts": cases.iter().map(|(p, _, _, _)| p.clone()).collect::<Vec<_>>(),
        "labels": cases.iter().map(|(_, _, l, _)| l.clone()).collect::<Vec<_>>(),
    });
    let (status, r) = s
        .post_raw("/v1/reward", "application/json", python_json(&req))
        .await;
    assert_eq!(status, 200, "{r}");
    let expected: Vec<f64> = cases.iter().map(|c| c.3).collect();
    assert_eq!(r["rewards"], json!(expected), "{r}");
    assert_eq!(r["scores"], r["rewards"]);
    // OpenRLHF turns every extra_logs list into a float tensor and averages it.
    for key in ["correct", "code", "judge_error"] {
        let values = r["extra_logs"][key].as_array().unwrap();
        assert_eq!(values.len(), cases.len(), "{key}: {r}");
        assert!(values.iter().all(Value::is_f64), "{key} is not floats: {r}");
    }
    assert_eq!(r["extra_logs"]["correct"], json!(expected), "{r}");
    assert_eq!(
        r["extra_logs"]["code"],
        json!([0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    );
    assert_eq!(r["extra_logs"]["judge_error"], json!(vec![0.0; 11]));
}

#[tokio::test]
async fn bad_reward_labels_are_rejected_naming_the_label() {
    let s = TestService::start().await;
    for (labels, status, field) in [
        (json!([{"foo": 1}]), 422, "labels[0]"),
        (json!([[{"a": 1}]]), 422, "labels[0][0]"),
        (json!([[]]), 422, "labels[0]"),
        (json!([{"task_id": 7}]), 422, "labels[0]"),
        (
            json!([{"language": "python", "style": "assert"}]),
            422,
            "labels[0]",
        ),
        (
            json!(["00000000-0000-7000-8000-000000000000"]),
            404,
            "labels[0]",
        ),
        (json!([]), 422, "labels"),
    ] {
        let (got, err) = s
            .post("/v1/reward", &json!({"query": ["q"], "labels": labels}))
            .await;
        assert_eq!(
            (got, err["error"]["field"].as_str()),
            (status, Some(field)),
            "{labels}: {err}"
        );
    }
}
