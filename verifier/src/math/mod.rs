//! Math answer checking: extract the final answer from a response and decide whether it is
//! equivalent to the reference. Pure, deterministic, no I/O.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Knobs of the equivalence check; the defaults suit GSM8K/MATH-style grading.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Relative tolerance for numeric comparison.
    pub rel_tol: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self { rel_tol: 1e-6 }
    }
}

/// What the checker decided and why.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Verdict {
    /// Whether the response's answer is equivalent to the reference's.
    pub correct: bool,
    /// 1.0 when correct, else 0.0.
    pub reward: f64,
    /// The answer extracted from the reference.
    pub reference_answer: Option<String>,
    /// The answer extracted from the response.
    pub response_answer: Option<String>,
    /// The rule that decided (`numeric`, `string`, `no_answer`).
    pub rule: String,
}

/// Grades `response` against `reference` (both go through the same extraction).
pub fn verify(reference: &str, response: &str, options: &Options) -> Verdict {
    let reference_answer = extract(reference);
    let response_answer = extract(response);
    let (correct, rule) = match (&reference_answer, &response_answer) {
        (Some(r), Some(a)) => match (number(r), number(a)) {
            (Some(x), Some(y)) => (
                (x - y).abs() <= options.rel_tol * x.abs().max(1.0),
                "numeric",
            ),
            _ => (r == a, "string"),
        },
        _ => (false, "no_answer"),
    };
    Verdict {
        correct,
        reward: if correct { 1.0 } else { 0.0 },
        reference_answer,
        response_answer,
        rule: rule.to_string(),
    }
}

fn extract(text: &str) -> Option<String> {
    if let Some(start) = text.rfind("\\boxed{") {
        let body = &text[start + 7..];
        let mut depth = 1;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(body[..i].trim().to_string());
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(i) = text.rfind("####") {
        return Some(text[i + 4..].trim().to_string());
    }
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

fn number(s: &str) -> Option<f64> {
    s.replace([',', '$'], "").trim().parse().ok()
}
