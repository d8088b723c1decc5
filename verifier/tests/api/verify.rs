//! Stateless scoring: `/v1/verify/*`, `/v1/reward` and `verifier score`.

use super::*;

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
    assert_eq!(
        (&v["correct"], &v["outcome"]),
        (&json!(false), &json!("incorrect"))
    );
    // A sum of a 2×2 and a 2×1 matrix: the checker abstains, scored 0 but marked for a caller
    // that can send it to a model-based judge, and counted so its share shows.
    let matrix = r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}";
    let odd_sum = format!(r"$\boxed{{{matrix} + \begin{{pmatrix}} 1 \\ 2 \end{{pmatrix}}}}$");
    let (_, v) = s
        .post(
            "/v1/verify/math",
            &json!({"reference": matrix, "response": odd_sum}),
        )
        .await;
    assert_eq!(
        (&v["correct"], &v["outcome"], &v["rule"]),
        (&json!(false), &json!("undecided"), &json!("undecided")),
        "{v}"
    );
    let text = support::metrics_text(&s.url).await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("verifier_verifications_total{")
                && l.contains(r#"kind="math""#)
                && l.contains(r#"outcome="undecided""#)),
        "no undecided count:\n{text}"
    );
    let (status, r) = s
        .post(
            "/v1/reward",
            &json!({"query": [odd_sum, "\\boxed{7}"], "labels": [matrix, "7"]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["extra_logs"]["undecided"], json!([1.0, 0.0]));
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
