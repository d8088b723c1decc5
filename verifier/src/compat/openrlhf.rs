//! OpenRLHF's remote reward protocol (`--reward.remote_url`, `--remote_rm_url` before 0.10.2):
//! its request read into one
//! [`Query`] per query — the response cut out of it and what its label asks to grade against —
//! and the graded scores written back as its answer, without HTTP. The handler takes the
//! request, reads its queries, grades and answers.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::code::{CodeReference, Scoring, StdioCase, Tests};
use crate::math::Outcome;
use crate::refusal::check_size;
use crate::refusal::{Fault, Refusal};
use crate::scoring::{Score, ScoreStatus};
use crate::task::{Reference, TaskKind};
use crate::verdict::Verdict;

/// OpenRLHF remote reward request (`--reward.remote_url`), exactly as its single-turn agent
/// executor posts it: one query per request, decoded with its special tokens kept.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RewardRequest {
    /// Prompt + response texts.
    pub query: Vec<String>,
    /// The prompts, used to cut the response out of `query`.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// One label per query, the dataset's raw value (OpenRLHF sends whatever its `--label_key`
    /// column holds): a math answer (string or number; a list means any of them), a code
    /// reference object (as a code task's hidden reference), `{"answer": …}`, a pool task id
    /// (a UUID string or `{"task_id": …}`: graded against that task's hidden reference), verl's
    /// and SandboxFusion's code ground truth `{"inputs": [stdin…], "outputs": [stdout…]}` (a
    /// Python program judged on those stdin/stdout cases), a JSON text of any of these, or null
    /// (nothing to grade: reward 0).
    #[schema(value_type = Vec<serde_json::Value>)]
    pub labels: Vec<Value>,
}

/// OpenRLHF remote reward response.
#[derive(Debug, Serialize, ToSchema)]
pub struct RewardResponse {
    /// Reward per query.
    pub rewards: Vec<f64>,
    /// Same as `rewards` (OpenRLHF reads either).
    pub scores: Vec<f64>,
    /// Per-query numbers OpenRLHF averages into its logs: `correct` (1.0/0.0), `code` (1.0 for
    /// a code-graded query), `judge_error` (1.0 when the sandbox failed: the reward means
    /// nothing) and `undecided` (1.0 when the math checker could not decide: a model-based judge
    /// may).
    #[schema(value_type = Object)]
    pub extra_logs: Value,
}

/// What one label asks to grade against.
#[derive(Debug)]
pub enum Label {
    /// A reference, and the prompt code judging completes (HumanEval-style tasks).
    Reference(Reference, Option<String>),
    /// Acceptable math answers: the best reward counts.
    AnyOf(Vec<String>),
    /// A pool task, loaded in one query for the whole batch.
    Task(Uuid),
    /// Null: nothing to grade.
    Ungraded,
}

/// Reads label `i`; the error names `labels[i]`.
fn label(i: usize, value: &Value) -> Result<Label, Refusal> {
    let field = format!("labels[{i}]");
    let bad = |why: String| Refusal::invalid(&field, why);
    match value {
        Value::Null => Ok(Label::Ungraded),
        Value::Number(n) => Ok(Label::AnyOf(vec![n.to_string()])),
        Value::Bool(b) => Ok(Label::AnyOf(vec![b.to_string()])),
        Value::String(s) => {
            if let Ok(id) = Uuid::parse_str(s.trim()) {
                return Ok(Label::Task(id));
            }
            // Datasets often store structured labels as JSON text in a string column.
            let t = s.trim_start();
            if t.starts_with('{')
                && let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(t)
            {
                return label(i, &inner);
            }
            Ok(Label::AnyOf(vec![s.clone()]))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(Refusal::invalid(
                    format!("{field}[{k}]"),
                    format!("a list of answers holds strings or numbers, not {other}"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .and_then(|answers| {
                if answers.is_empty() {
                    Err(bad("an empty list of answers".into()))
                } else {
                    Ok(Label::AnyOf(answers))
                }
            }),
        Value::Object(m) => {
            if let Some(id) = m.get("task_id") {
                return id
                    .as_str()
                    .and_then(|s| Uuid::parse_str(s).ok())
                    .map(Label::Task)
                    .ok_or_else(|| bad(format!("task_id must be a UUID string, got {id}")));
            }
            if m.contains_key("inputs") && m.contains_key("outputs") {
                return stdio_cases(m)
                    .map(|r| Label::Reference(Reference::Code(r), None))
                    .map_err(bad);
            }
            let kind = if m.contains_key("language") || m.contains_key("style") {
                TaskKind::Code
            } else if m.contains_key("answer") {
                TaskKind::Math
            } else {
                return Err(bad(
                    "an object label is a code reference ({\"language\", \"style\", …}), \
                     {\"answer\": …} or {\"task_id\": …}"
                        .into(),
                ));
            };
            let mut reference = value.clone();
            // A code label may carry the prompt its tests complete; it is not part of the
            // reference schema.
            let prompt = reference
                .as_object_mut()
                .and_then(|m| m.remove("prompt"))
                .and_then(|p| p.as_str().map(str::to_string));
            Reference::from_json(kind, &reference)
                .map(|r| Label::Reference(r, prompt))
                .map_err(|e| bad(e.to_string()))
        }
    }
}

/// verl's and SandboxFusion's code ground truth, `{"inputs": [...], "outputs": [...]}` (what
/// verl's `sandbox_fusion` scorer reads): one stdin/stdout case per pair, Python unless the
/// object names a `language`, all cases to pass. Call-based ground truth (`fn_name`, APPS) has
/// no stdin to feed and is refused.
fn stdio_cases(m: &serde_json::Map<String, Value>) -> Result<CodeReference, String> {
    if m.contains_key("fn_name") {
        return Err(
            "call-based ground truth (fn_name) is not supported: give a code reference with \
             style \"call\" instead"
                .into(),
        );
    }
    let list = |key: &str| -> Result<Vec<String>, String> {
        match &m[key] {
            Value::Array(items) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(format!("{key} holds strings, not {other}")),
                })
                .collect(),
            other => Err(format!("{key} must be a list of strings, got {other}")),
        }
    };
    let (inputs, outputs) = (list("inputs")?, list("outputs")?);
    if inputs.len() != outputs.len() || inputs.is_empty() {
        return Err(format!(
            "{} inputs for {} outputs: give one output per input, at least one",
            inputs.len(),
            outputs.len()
        ));
    }
    let language = match m.get("language") {
        None => "python".to_string(),
        Some(Value::String(l)) => l.clone(),
        Some(other) => return Err(format!("language must be a string, got {other}")),
    };
    Ok(CodeReference {
        language,
        tests: Tests::Stdio {
            cases: inputs
                .into_iter()
                .zip(outputs)
                .map(|(stdin, stdout)| StdioCase { stdin, stdout })
                .collect(),
            float_tolerance: None,
        },
        scoring: Scoring::AllOrNothing,
        canonical_solution: None,
        time_limit_ms: None,
        fuel_limit: None,
        seed: None,
        checker: None,
        interactor: None,
    })
}

/// Chat-template tokens that end a turn or pad it: ChatML (`<|im_end|>`, `<|endoftext|>`),
/// Llama 3 (`<|eot_id|>`, `<|end_of_text|>`), DeepSeek (`<｜end▁of▁sentence｜>`), Phi
/// (`<|end|>`) and any other `<|…|>` token, plus Gemma's and SentencePiece's named ones.
/// OpenRLHF decodes its queries with special tokens kept, so a response ends in one or more of
/// them (`#### 18<|im_end|>`), which must not reach the graders.
fn trailing_special_token(s: &str) -> Option<usize> {
    const NAMED: [&str; 4] = ["<end_of_turn>", "<eos>", "<pad>", "</s>"];
    if let Some(t) = NAMED.iter().find(|t| s.ends_with(*t)) {
        return Some(s.len() - t.len());
    }
    for (open, close) in [("<|", "|>"), ("<｜", "｜>")] {
        if let Some(body) = s.strip_suffix(close)
            && let Some(start) = body.rfind(open)
            && !body[start + open.len()..].contains(char::is_whitespace)
        {
            return Some(start);
        }
    }
    None
}

/// `response` without the special tokens (and whitespace) it ends with.
pub fn strip_special_tokens(response: &str) -> &str {
    let mut s = response.trim_end();
    while let Some(cut) = trailing_special_token(s) {
        s = s[..cut].trim_end();
    }
    s
}

/// One query to grade.
#[derive(Debug)]
pub struct Query<'a> {
    /// What to grade against.
    pub label: Label,
    /// The query's prompt, when the request sent prompts.
    pub prompt: Option<&'a str>,
    /// The response: what follows the prompt (the whole query when it does not start with it),
    /// without the special tokens it ends with, after a closing `</think>` when there is one.
    pub response: &'a str,
}

/// Reads `req`: as many labels (and prompts, when given) as queries, each query at most
/// `max_query_bytes` long, each label one [`label`] reads. A refusal names the field.
pub fn read(req: &RewardRequest, max_query_bytes: usize) -> Result<Vec<Query<'_>>, Refusal> {
    let n = req.query.len();
    if req.labels.len() != n {
        return Err(Refusal::invalid(
            "labels",
            format!("{} labels for {n} queries", req.labels.len()),
        ));
    }
    if !req.prompts.is_empty() && req.prompts.len() != n {
        return Err(Refusal::invalid(
            "prompts",
            format!("{} prompts for {n} queries", req.prompts.len()),
        ));
    }
    for (i, q) in req.query.iter().enumerate() {
        check_size(&format!("query[{i}]"), q, max_query_bytes)?;
    }
    req.labels
        .iter()
        .zip(&req.query)
        .enumerate()
        .map(|(i, (l, query))| {
            let prompt = req.prompts.get(i).map(String::as_str);
            let response = prompt.and_then(|p| query.strip_prefix(p)).unwrap_or(query);
            Ok(Query {
                label: label(i, l)?,
                prompt,
                // Reasoning models: after a closing `</think>`, only what follows holds the answer.
                response: crate::math::after_thinking(strip_special_tokens(response)),
            })
        })
        .collect()
}

/// The pool tasks the labels name, each once.
pub fn task_ids(queries: &[Query<'_>]) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = queries
        .iter()
        .filter_map(|q| match q.label {
            Label::Task(id) => Some(id),
            _ => None,
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Refuses the request when a label names a task not among `known`, as rollouts are (404).
pub fn check_tasks<T>(queries: &[Query<'_>], known: &HashMap<Uuid, T>) -> Result<(), Refusal> {
    match queries.iter().enumerate().find_map(|(i, q)| match q.label {
        Label::Task(id) if !known.contains_key(&id) => Some((i, id)),
        _ => None,
    }) {
        Some((i, id)) => Err(Refusal::new(
            Fault::NotFound,
            format!("labels[{i}]"),
            format!("no task with id {id}"),
        )),
        None => Ok(()),
    }
}

/// OpenRLHF's answer for the grades, one per query (`None`: ungraded, reward 0).
pub fn answer(graded: &[Option<Score>]) -> RewardResponse {
    let flags = |f: &dyn Fn(&Score) -> bool| -> Vec<f64> {
        graded
            .iter()
            .map(|g| if g.as_ref().is_some_and(f) { 1.0 } else { 0.0 })
            .collect()
    };
    let rewards: Vec<f64> = graded
        .iter()
        .map(|g| g.as_ref().map_or(0.0, |g| g.reward))
        .collect();
    RewardResponse {
        scores: rewards.clone(),
        rewards,
        extra_logs: serde_json::json!({
            "correct": flags(&|g| g.correct),
            "code": flags(&|g| matches!(g.verdict, Verdict::Code(_))),
            "judge_error": flags(&|g| g.status == ScoreStatus::JudgeError),
            "undecided": flags(&|g| matches!(&g.verdict, Verdict::Math(v) if v.outcome == Outcome::Undecided)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(body: Value) -> RewardRequest {
        serde_json::from_value(body).unwrap()
    }

    #[test]
    fn labels_of_every_shape_are_read() {
        let id = "67e55044-10b1-426f-9247-bb680e5fe0c8";
        let labels = [
            json!(null),
            json!(42),
            json!("x = 3"),
            json!(["1/2", 0.5]),
            json!(id),
            json!({"task_id": id}),
            json!({"answer": "7"}),
            json!(r#"{"answer": "7"}"#),
            json!({"language": "python", "style": "assert", "test": "assert f() == 1",
                   "entry_point": "f", "prompt": "def f():\n"}),
        ];
        let read: Vec<Label> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| label(i, l).unwrap())
            .collect();
        assert!(matches!(read[0], Label::Ungraded));
        assert!(matches!(&read[1], Label::AnyOf(a) if a == &["42"]));
        assert!(matches!(&read[2], Label::AnyOf(a) if a == &["x = 3"]));
        assert!(matches!(&read[3], Label::AnyOf(a) if a == &["1/2", "0.5"]));
        assert!(matches!(read[4], Label::Task(_)) && matches!(read[5], Label::Task(_)));
        assert!(matches!(
            read[6],
            Label::Reference(Reference::Math(_), None)
        ));
        assert!(matches!(
            read[7],
            Label::Reference(Reference::Math(_), None)
        ));
        assert!(
            matches!(&read[8], Label::Reference(Reference::Code(_), Some(p)) if p == "def f():\n")
        );
    }

    #[test]
    fn bad_labels_and_lengths_name_the_field() {
        let field = |l: Value| label(3, &l).unwrap_err().field.unwrap();
        assert_eq!(field(json!([])), "labels[3]");
        assert_eq!(field(json!([1, {}])), "labels[3][1]");
        assert_eq!(field(json!({"task_id": 5})), "labels[3]");
        assert_eq!(field(json!({"foo": 1})), "labels[3]");
        let req = request(json!({"query": ["a", "b"], "labels": [null]}));
        assert_eq!(
            read(&req, 100).unwrap_err().field.as_deref(),
            Some("labels")
        );
        let req = request(json!({"query": ["a"], "prompts": [], "labels": [null]}));
        assert!(read(&req, 100).is_ok());
        let req = request(json!({"query": ["a"], "prompts": ["a", "b"], "labels": [null]}));
        assert_eq!(
            read(&req, 100).unwrap_err().field.as_deref(),
            Some("prompts")
        );
        let req = request(json!({"query": ["abc"], "labels": [null]}));
        assert_eq!(
            read(&req, 2).unwrap_err().field.as_deref(),
            Some("query[0]")
        );
    }

    #[test]
    fn responses_are_cut_after_the_prompt_and_the_thinking() {
        let req = request(json!({
            "query": ["Q: 1+1? <think>3?</think> 2", "other"],
            "prompts": ["Q: 1+1?", "Q: 2+2?"],
            "labels": ["2", "4"],
        }));
        let q = read(&req, 100).unwrap();
        assert_eq!(q[0].response.trim(), "2");
        assert_eq!(q[1].response, "other");
        assert_eq!(q[1].prompt, Some("Q: 2+2?"));
    }

    #[test]
    fn trailing_chat_template_tokens_are_stripped() {
        for (query, response) in [
            ("#### 18<|im_end|>", "#### 18"),
            ("#### 18<|im_end|>\n<|endoftext|><|endoftext|>", "#### 18"),
            ("The answer is 18.<|eot_id|>", "The answer is 18."),
            ("18<|end_of_text|>", "18"),
            ("18<end_of_turn>\n<eos>", "18"),
            ("18</s>", "18"),
            ("18<｜end▁of▁sentence｜>", "18"),
            ("a < b and c |> d", "a < b and c |> d"),
            ("x <| not a token |>", "x <| not a token |>"),
        ] {
            assert_eq!(strip_special_tokens(query), response, "{query:?}");
        }
        let req = request(json!({
            "query": ["<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n#### 18<|im_end|>"],
            "prompts": ["<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"],
            "labels": ["18"],
        }));
        assert_eq!(read(&req, 1000).unwrap()[0].response, "#### 18");
    }

    #[test]
    fn verl_code_ground_truth_is_a_stdio_reference() {
        let gt = json!({"inputs": ["1 2\n", 3], "outputs": ["3\n", "3"]});
        let Label::Reference(Reference::Code(r), None) = label(0, &gt).unwrap() else {
            panic!("not a code reference");
        };
        assert_eq!(r.language, "python");
        let Tests::Stdio { cases, .. } = r.tests else {
            panic!("not stdio");
        };
        assert_eq!(
            (cases[1].stdin.as_str(), cases[1].stdout.as_str()),
            ("3", "3")
        );
        // verl stores it as JSON text in its parquet column.
        assert!(matches!(
            label(0, &json!(gt.to_string())).unwrap(),
            Label::Reference(Reference::Code(_), None)
        ));
        for bad in [
            json!({"inputs": ["1"], "outputs": []}),
            json!({"inputs": [], "outputs": []}),
            json!({"inputs": "1", "outputs": ["1"]}),
            json!({"inputs": [[1]], "outputs": [[1]], "fn_name": "f"}),
        ] {
            let e = label(2, &bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("labels[2]"), "{bad}");
        }
    }

    #[test]
    fn unknown_tasks_are_refused_naming_the_label() {
        let id = Uuid::now_v7();
        let req = request(json!({"query": ["a", "b"], "labels": [null, id.to_string()]}));
        let q = read(&req, 100).unwrap();
        assert_eq!(task_ids(&q), [id]);
        let err = check_tasks::<()>(&q, &HashMap::new()).unwrap_err();
        assert_eq!(
            (err.fault, err.field.as_deref()),
            (Fault::NotFound, Some("labels[1]"))
        );
        assert!(check_tasks(&q, &HashMap::from([(id, ())])).is_ok());
    }

    #[test]
    fn the_answer_holds_rewards_and_flags_per_query() {
        let a = answer(&[None]);
        assert_eq!(a.rewards, [0.0]);
        assert_eq!(a.scores, [0.0]);
        assert_eq!(
            a.extra_logs,
            json!({"correct": [0.0], "code": [0.0], "judge_error": [0.0], "undecided": [0.0]})
        );
    }
}
