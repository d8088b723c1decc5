//! Proof on all 164 HumanEval problems through the public API: canonical solutions pass and
//! `return None` stubs fail.

mod support;

use std::io::Read;

use serde_json::{Value, json};
use support::TestService;

fn humaneval() -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/HumanEval.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn request(problem: &Value, response: &str) -> Value {
    json!({
        "reference": {
            "language": "python",
            "style": "assert",
            "test": problem["test"],
            "entry_point": problem["entry_point"],
        },
        "prompt": problem["prompt"],
        "response": response,
    })
}

/// Judges every problem with `response_of`, a few at a time; returns (task id, verdict) pairs.
async fn judge_all(s: &TestService, response_of: fn(&Value) -> String) -> Vec<(String, Value)> {
    let problems = humaneval();
    assert_eq!(problems.len(), 164);
    let mut verdicts = Vec::new();
    for chunk in problems.chunks(8) {
        let calls = chunk.iter().map(|p| async {
            let (status, body) = s
                .post("/v1/verify/code", &request(p, &response_of(p)))
                .await;
            assert_eq!(status, 200, "{body}");
            (p["task_id"].as_str().unwrap().to_string(), body)
        });
        verdicts.extend(futures::future::join_all(calls).await);
    }
    verdicts
}

/// Every verdict is a pass; the message names `what` and the failures.
fn assert_all_passed(verdicts: &[(String, Value)], what: &str) {
    let failed: Vec<_> = verdicts
        .iter()
        .filter(|(_, v)| v["correct"] != true)
        .collect();
    assert!(
        failed.is_empty(),
        "{} {what} failed: {failed:#?}",
        failed.len()
    );
}

#[tokio::test]
async fn canonical_solutions_pass_and_none_stubs_fail_on_all_164() {
    let s = TestService::start().await;

    // Canonical solutions as body completions, the way HumanEval is scored.
    let verdicts = judge_all(&s, |p| {
        p["canonical_solution"].as_str().unwrap().to_string()
    })
    .await;
    assert_all_passed(&verdicts, "canonical solutions");
    for (_, v) in &verdicts {
        assert_eq!(
            (v["reward"].as_f64(), v["status"].as_str()),
            (Some(1.0), Some("passed")),
            "{v}"
        );
    }

    // The same solutions as a full fenced program (prompt stub + body) also pass.
    let verdicts = judge_all(&s, |p| {
        format!(
            "Here you go:\n```python\n{}{}\n```\n",
            p["prompt"].as_str().unwrap(),
            p["canonical_solution"].as_str().unwrap()
        )
    })
    .await;
    assert_all_passed(&verdicts, "fenced solutions");
    assert!(
        verdicts
            .iter()
            .all(|(_, v)| v["extraction"] == "fenced_block")
    );

    // `return None` stubs fail every problem, with the judge working (not an internal error).
    let verdicts = judge_all(&s, |_| "    return None\n".to_string()).await;
    for (id, v) in &verdicts {
        assert_eq!(v["correct"], false, "{id}: {v}");
        assert_eq!(v["reward"].as_f64(), Some(0.0), "{id}: {v}");
        assert_eq!(v["status"], "failed", "{id}: {v}");
        assert_ne!(v["cases"][0]["status"], "internal_error", "{id}: {v}");
    }
}
