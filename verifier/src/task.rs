//! Tasks: prompts with hidden references, of two kinds (math answers and code tests).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::code::CodeReference;

/// What kind of verification a task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// A final answer checked by the math checker.
    Math,
    /// A program run against tests in the sandbox.
    Code,
}

impl TaskKind {
    /// The name stored in the `tasks.kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Math => "math",
            Self::Code => "code",
        }
    }

    /// Parses the `tasks.kind` column.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "math" => Some(Self::Math),
            "code" => Some(Self::Code),
            _ => None,
        }
    }
}

/// The hidden reference of a math task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MathReference {
    /// The gold answer, or a solution text whose final answer the checker extracts.
    #[serde(deserialize_with = "string_or_number")]
    #[schema(value_type = AnswerShape)]
    pub answer: String,
    /// A worked solution, kept for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
}

/// A gold answer as requests may give it: text, or a number (read as its text).
#[derive(ToSchema)]
#[serde(untagged)]
pub enum AnswerShape {
    /// The answer as text.
    Text(String),
    /// The answer as a number.
    Number(f64),
}

/// A task's hidden reference, typed by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// See [`MathReference`].
    Math(MathReference),
    /// See [`CodeReference`].
    Code(CodeReference),
}

impl Reference {
    /// Reads a reference of the given kind from its JSON form; the error says what is wrong.
    pub fn from_json(kind: TaskKind, value: &Value) -> serde_json::Result<Self> {
        match kind {
            TaskKind::Math => {
                // A bare string or number is accepted as the answer itself.
                let value = match value {
                    Value::String(_) | Value::Number(_) => serde_json::json!({ "answer": value }),
                    other => other.clone(),
                };
                serde_json::from_value(value).map(Self::Math)
            }
            TaskKind::Code => serde_json::from_value(value.clone()).map(Self::Code),
        }
    }

    /// The canonical JSON form stored in `tasks.reference`.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Math(m) => serde_json::to_value(m),
            Self::Code(c) => serde_json::to_value(c),
        }
        .expect("references serialize to JSON")
    }
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "expected a string or a number, got {other}"
        ))),
    }
}

/// A task to create.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    /// Dataset the task belongs to, e.g. `gsm8k` (not empty).
    #[schema(min_length = 1, pattern = r"^[^\u0000]*$")]
    pub dataset: String,
    /// The task's id within its dataset; unique together with `dataset` (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub external_id: String,
    /// How responses are verified.
    pub kind: TaskKind,
    /// What agents see (no NUL).
    #[schema(pattern = r"^[^\u0000]*$")]
    pub prompt: String,
    /// Hidden reference: `{"answer": …}` for math, a code test spec for code.
    #[schema(value_type = Object)]
    pub reference: Value,
    /// Free-form metadata (difficulty, source, …), visible to agents.
    #[serde(default)]
    #[schema(schema_with = wire::json::optional_object_schema)]
    pub metadata: Option<Value>,
}
