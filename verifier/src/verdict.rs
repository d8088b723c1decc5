//! Verdicts as the pool stores them ([`Verdict`]: everything the judge saw, gold answers and
//! expected outputs included) and as the rollout APIs show them ([`PublicVerdict`]: a separate
//! type with no reference-side field, so an answer cannot reach a client by a field's name).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::code::{CaseStatus, CodeStatus, CodeVerdict, Extraction};
use crate::math::{self, Outcome, Rule, Source};

/// The full judgement of one response, as stored in `rollouts.verdict`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// The math checker's.
    Math(math::Verdict),
    /// The code judge's.
    Code(CodeVerdict),
}

impl Verdict {
    /// The JSON stored in the pool: NUL characters (a program's output may hold them; jsonb
    /// cannot) shown as U+FFFD, so that every verdict can be stored.
    pub fn stored(&self) -> Value {
        storable(serde_json::to_value(self).expect("verdicts serialize"))
    }
}

fn storable(v: Value) -> Value {
    match v {
        Value::String(s) if s.contains('\0') => Value::String(s.replace('\0', "\u{FFFD}")),
        Value::Array(items) => Value::Array(items.into_iter().map(storable).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k.replace('\0', "\u{FFFD}"), storable(v)))
                .collect(),
        ),
        other => other,
    }
}

/// A stored verdict as clients may see it: the response side only.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PublicVerdict {
    /// See [`PublicMathVerdict`].
    Math(PublicMathVerdict),
    /// See [`PublicCodeVerdict`].
    Code(PublicCodeVerdict),
}

/// [`math::Verdict`] without the reference's answer, source and normal form.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublicMathVerdict {
    /// Whether the response's answer is equivalent to the reference's.
    pub correct: bool,
    /// Correct, incorrect, or undecided; verdicts stored before it existed get it from their
    /// rule.
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// 1.0 when correct, else 0.0.
    pub reward: f64,
    /// The answer extracted from the response.
    pub response_answer: Option<String>,
    /// Where in the response the answer was found.
    pub response_source: Option<Source>,
    /// The response answer as parsed (normalised notation).
    pub response_normalized: Option<String>,
    /// The rule that decided.
    pub rule: Rule,
    /// Why a side could not be parsed, when that happened.
    pub note: Option<String>,
}

/// [`CodeVerdict`] whose cases carry no expected output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublicCodeVerdict {
    /// Whether the program passed (reward == 1).
    pub correct: bool,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Overall outcome.
    pub status: CodeStatus,
    /// Human-readable detail.
    pub message: String,
    /// Language judged.
    pub language: String,
    /// How the program was taken from the response.
    pub extraction: Extraction,
    /// Runtime(s) that ran it.
    pub runtime: Option<String>,
    /// Cases passed.
    pub passed: usize,
    /// Cases in the test.
    pub total: usize,
    /// Every case's result.
    pub cases: Vec<PublicCase>,
    /// Total sandbox time, in seconds.
    pub elapsed_seconds: f64,
}

/// One case of a [`PublicCodeVerdict`]: what the program did, not what was expected (nor what a
/// checker said of it, which often quotes the expected answer).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublicCase {
    /// Case number (0-based).
    pub index: usize,
    /// How the case went.
    pub status: CaseStatus,
    /// What the program produced (truncated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// The end of stderr, or the exception raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PublicVerdict {
    /// The public view of a stored verdict, as JSON. A stored verdict of no known shape (none
    /// this service writes) shows only its kind: what cannot be read cannot be vetted.
    pub fn of_stored(stored: &Value) -> Value {
        match serde_json::from_value::<PublicVerdict>(stored.clone()) {
            Ok(mut public) => {
                if let PublicVerdict::Math(m) = &mut public {
                    m.outcome.get_or_insert(Outcome::of(m.correct, m.rule));
                }
                serde_json::to_value(public).expect("verdicts serialize")
            }
            Err(e) => {
                tracing::warn!(error = %e, "stored verdict of unknown shape; showing its kind only");
                serde_json::json!({ "kind": stored.get("kind") })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_public_view_keeps_the_response_side_and_drops_the_reference_side() {
        let math = json!({"kind": "math", "correct": true, "reward": 1.0,
            "reference_answer": "18", "response_answer": "18", "reference_source": "boxed",
            "response_source": "boxed", "reference_normalized": "18", "response_normalized": "18",
            "rule": "exact", "note": null});
        assert_eq!(
            PublicVerdict::of_stored(&math),
            json!({"kind": "math", "correct": true, "outcome": "correct", "reward": 1.0,
                "response_answer": "18", "response_source": "boxed", "response_normalized": "18",
                "rule": "exact", "note": null})
        );
        let code = json!({"kind": "code", "correct": false, "reward": 0.0, "status": "failed",
            "message": "0/1 cases passed", "language": "python", "extraction": "fenced_block",
            "runtime": "python_fast", "passed": 0, "total": 1, "elapsed_seconds": 0.5,
            "cases": [{"index": 0, "status": "wrong_answer", "got": "4", "expected": "3",
                "checker_message": "wrong answer expected 3, found 4"}]});
        assert_eq!(
            PublicVerdict::of_stored(&code),
            json!({"kind": "code", "correct": false, "reward": 0.0, "status": "failed",
                "message": "0/1 cases passed", "language": "python", "extraction": "fenced_block",
                "runtime": "python_fast", "passed": 0, "total": 1, "elapsed_seconds": 0.5,
                "cases": [{"index": 0, "status": "wrong_answer", "got": "4"}]})
        );
    }

    #[test]
    fn verdicts_stored_before_the_outcome_field_get_it_from_their_rule() {
        let old = |correct: bool, rule: &str| {
            PublicVerdict::of_stored(&json!({"kind": "math", "correct": correct,
                "reward": 0.0, "response_answer": "x", "response_source": "boxed",
                "response_normalized": "x", "rule": rule, "note": null}))["outcome"]
                .clone()
        };
        assert_eq!(old(false, "undecided"), json!("undecided"));
        assert_eq!(old(false, "limit"), json!("undecided"));
        assert_eq!(old(false, "exact"), json!("incorrect"));
        assert_eq!(old(true, "numeric"), json!("correct"));
        let stored = crate::math::verify("$x^2$", r"\boxed{x^2}", &Default::default());
        let public = PublicVerdict::of_stored(&Verdict::Math(stored).stored());
        assert_eq!(
            public["outcome"],
            json!("correct"),
            "a stored outcome is kept"
        );
    }

    #[test]
    fn a_verdict_of_unknown_shape_shows_only_its_kind() {
        let odd = json!({"kind": "code", "reference_program": "secret"});
        assert_eq!(PublicVerdict::of_stored(&odd), json!({"kind": "code"}));
    }

    #[test]
    fn stored_verdicts_hold_no_nul_whatever_a_program_printed() {
        assert_eq!(
            storable(json!({"stdout": "a\u{0}b", "cases": [{"got": "\u{0}"}], "k\u{0}": 1})),
            json!({"stdout": "a\u{FFFD}b", "cases": [{"got": "\u{FFFD}"}], "k\u{FFFD}": 1})
        );
    }
}
