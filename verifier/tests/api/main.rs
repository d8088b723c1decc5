//! The service over HTTP against the real Postgres, one module per resource: submissions,
//! idempotency, pagination, capability, SQL-visible rows, bad inputs, database outages.

#[path = "../support/mod.rs"]
mod support;

mod agents;
mod auth;
mod ops;
mod pool;
mod rollouts;
mod tasks;
mod training;
mod verify;

use std::collections::HashSet;
use std::io::Write;

use serde_json::{Value, json};
use support::{Proxy, TestService};
use verifier::state::RequestLimits;

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
