//! Turning rows of public benchmark files (GSM8K, MATH/Minerva, AIME/AMC, HumanEval) or our own
//! task shape into tasks, so that datasets import without custom code.

use serde_json::{Map, Value, json};

use crate::task::{NewTask, TaskKind};

/// Why a row is not a task.
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    /// The row is an array, a string, ….
    #[error("each line must be a JSON object")]
    NotAnObject,
    /// A row in our own task shape that does not read as one.
    #[error(transparent)]
    Task(#[from] serde_json::Error),
    /// None of the known shapes.
    #[error(
        "unrecognised row shape (keys {0:?}); expected GSM8K (question, answer with ####), \
         MATH (problem, solution/answer), HumanEval (prompt, test, entry_point) or a task \
         (kind, prompt, reference)"
    )]
    UnknownShape(Vec<String>),
    /// A field the shape needs is missing.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// A field the shape needs is not a string.
    #[error("field `{0}` must be a string, got {1}")]
    NotAString(&'static str, Value),
    /// A MATH-shaped row with neither answer nor solution.
    #[error("a MATH-shaped row needs `answer` or `solution`")]
    NoAnswer,
}

/// Converts one JSON row (line `line`, 0-based) of `dataset` into a task, recognising the shape.
pub fn task_from_row(dataset: &str, line: usize, row: Value) -> Result<NewTask, RowError> {
    let Value::Object(mut obj) = row else {
        return Err(RowError::NotAnObject);
    };
    if obj.contains_key("kind") && obj.contains_key("reference") {
        obj.entry("dataset").or_insert_with(|| json!(dataset));
        return Ok(serde_json::from_value(Value::Object(obj))?);
    }
    let external_id = take_id(&mut obj).unwrap_or_else(|| line.to_string());
    let shape = if obj.contains_key("entry_point") && obj.contains_key("test") {
        humaneval(&mut obj)
    } else if let Some(answer) = obj
        .get("answer")
        .and_then(Value::as_str)
        .filter(|a| a.contains("####"))
    {
        gsm8k(answer.to_string(), &mut obj)
    } else if obj.contains_key("problem") || obj.contains_key("question") {
        competition_math(&mut obj)
    } else {
        return Err(RowError::UnknownShape(obj.keys().cloned().collect()));
    }?;
    let (kind, prompt, reference) = shape;
    Ok(NewTask {
        dataset: dataset.to_string(),
        external_id,
        kind,
        prompt,
        reference,
        metadata: Some(Value::Object(obj)),
    })
}

type Shape = Result<(TaskKind, String, Value), RowError>;

fn take_id(obj: &mut Map<String, Value>) -> Option<String> {
    ["task_id", "unique_id", "problem_id", "id", "idx"]
        .into_iter()
        .find_map(|key| match obj.remove(key)? {
            Value::String(s) => Some(s),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
}

fn take_string(obj: &mut Map<String, Value>, key: &'static str) -> Result<String, RowError> {
    match obj.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(RowError::NotAString(key, other)),
        None => Err(RowError::Missing(key)),
    }
}

fn humaneval(obj: &mut Map<String, Value>) -> Shape {
    let prompt = take_string(obj, "prompt")?;
    let reference = json!({
        "language": "python",
        "style": "assert",
        "test": take_string(obj, "test")?,
        "entry_point": take_string(obj, "entry_point")?,
        "canonical_solution": obj.remove("canonical_solution"),
    });
    Ok((TaskKind::Code, prompt, reference))
}

fn gsm8k(answer: String, obj: &mut Map<String, Value>) -> Shape {
    obj.remove("answer");
    let prompt = take_string(obj, "question")?;
    let gold = answer
        .rsplit("####")
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    Ok((
        TaskKind::Math,
        prompt,
        json!({ "answer": gold, "solution": answer }),
    ))
}

fn competition_math(obj: &mut Map<String, Value>) -> Shape {
    let prompt = match take_string(obj, "problem") {
        Ok(p) => {
            // Some files repeat the problem as `question`; keep one copy.
            if obj.get("question").and_then(Value::as_str) == Some(p.as_str()) {
                obj.remove("question");
            }
            p
        }
        Err(_) => take_string(obj, "question")?,
    };
    let solution = match obj.remove("solution") {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    // An explicit answer wins; otherwise the checker extracts it from the solution's \boxed{}.
    let answer = match obj.remove("answer") {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => solution.clone().ok_or(RowError::NoAnswer)?,
    };
    let mut reference = json!({ "answer": answer });
    if let Some(solution) = solution {
        reference["solution"] = json!(solution);
    }
    Ok((TaskKind::Math, prompt, reference))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gsm8k_row_becomes_math_task_with_hidden_number() {
        let row = json!({"question": "Q?", "answer": "work\n#### 1,234", "idx": 7});
        let t = task_from_row("gsm8k", 0, row).unwrap();
        assert_eq!(t.kind, TaskKind::Math);
        assert_eq!(t.external_id, "7");
        assert_eq!(t.prompt, "Q?");
        assert_eq!(t.reference["answer"], "1,234");
        assert_eq!(t.metadata, Some(json!({})));
    }

    #[test]
    fn humaneval_row_becomes_assert_code_task() {
        let row = json!({"task_id": "HumanEval/0", "prompt": "def f():\n", "canonical_solution": "  return 1\n",
                         "test": "def check(c): assert c() == 1", "entry_point": "f"});
        let t = task_from_row("humaneval", 3, row).unwrap();
        assert_eq!(t.kind, TaskKind::Code);
        assert_eq!(t.external_id, "HumanEval/0");
        assert_eq!(t.reference["style"], "assert");
        assert_eq!(t.reference["entry_point"], "f");
    }

    #[test]
    fn math_rows_take_answer_or_fall_back_to_solution() {
        let amc = json!({"id": 0, "problem": "P", "question": "P", "answer": 27.0, "url": "u"});
        let t = task_from_row("amc23", 0, amc).unwrap();
        assert_eq!(t.reference["answer"], "27.0");
        assert_eq!(t.metadata, Some(json!({"url": "u"})));
        let minerva = json!({"problem": "P", "solution": "so \\boxed{3}", "type": "x"});
        let t = task_from_row("minerva", 5, minerva).unwrap();
        assert_eq!(t.external_id, "5");
        assert_eq!(t.reference["answer"], "so \\boxed{3}");
    }

    #[test]
    fn native_rows_and_unknown_shapes() {
        let native = json!({"external_id": "a", "kind": "math", "prompt": "1+1?", "reference": {"answer": "2"}});
        assert_eq!(task_from_row("mine", 0, native).unwrap().dataset, "mine");
        let err = task_from_row("x", 0, json!({"foo": 1}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unrecognised row shape"), "{err}");
        assert!(task_from_row("x", 0, json!([1])).is_err());
    }
}
