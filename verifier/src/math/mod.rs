//! Math answer checking: extract the final answer from a reference and a response, parse both
//! (LaTeX or plain text), and decide whether they are equivalent — and say why.
//!
//! Pure and deterministic: no I/O, no global state, no timeouts. Work is bounded by
//! construction (input length, nesting depth, number sizes, an evaluation budget), so any
//! input is graded in bounded time and never panics. Safe to call from many threads at once.

pub mod equivalence;
pub mod evaluate;
pub mod expr;
pub mod extract;
pub mod number;
pub mod parse;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use extract::Source;

/// Only the last this many bytes of a text are searched for an answer.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// How `50%` relates to plain numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PercentPolicy {
    /// `50%` equals both `0.5` and `50` (Math-Verify's behaviour).
    #[default]
    Both,
    /// `50%` equals `0.5` only.
    Fraction,
    /// The percent sign is ignored: `50%` equals `50` only.
    Number,
}

/// How ratios written with colons (`3:4`) compare.
///
/// Off (`text`) by default, for two reasons: a colon between digits is also a clock time
/// (`3:30` and `1:10` are proportional but different times), and a problem that asks for a ratio
/// in lowest terms marks `6:8` wrong. Graders whose answers are ratios turn on `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RatioPolicy {
    /// A ratio equals only the same ratio as written (`3:4` is not `6:8`).
    #[default]
    Text,
    /// Ratios with the same number of non-zero parts are equal when proportional (`3:4` is
    /// `6:8`), and a two-part ratio equals its quotient (`3:4` is `\frac34`). A ratio with a
    /// zero part (`12:00`) still compares as written.
    Value,
}

/// Knobs of the equivalence check; the defaults suit GSM8K/MATH-style grading.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Relative tolerance when a side is written as a decimal (`0.333333` vs `1/3`).
    pub rel_tol: f64,
    /// Absolute tolerance added to the relative one (0 by default, so that `3.9e-10` and
    /// `3.9e-11` differ; Math-Verify's fixed rounding to 6 decimals would call them equal).
    pub abs_tol: f64,
    /// A decimal also matches when it agrees to this many decimal places (half a unit in the
    /// last place), as Math-Verify's rounding does: `0.033333` for `1/30`. Applies only to
    /// values of magnitude at least 0.001, so tiny values still compare relatively; 0 disables.
    #[schema(format = Int64, maximum = 4_294_967_295_u64)]
    #[serde(deserialize_with = "wire::integer::exact")]
    pub decimal_places: u32,
    /// How percentages compare with plain numbers.
    pub percent: PercentPolicy,
    /// Points at which expressions with variables are evaluated (clamped to 3..=32).
    #[schema(format = Int64, maximum = 4_294_967_295_u64)]
    #[serde(deserialize_with = "wire::integer::exact")]
    pub symbolic_points: u32,
    /// For reasoning models: text inside `<think>…</think>` is not searched for the answer
    /// (only what follows the last `</think>`; an unclosed `<think>` leaves nothing). Off by
    /// default here; `/v1/reward` turns it on for a response that contains `</think>`.
    pub ignore_think: bool,
    /// How colon ratios compare (as written by default).
    pub ratios: RatioPolicy,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            rel_tol: 1e-7,
            abs_tol: 0.0,
            decimal_places: 6,
            percent: PercentPolicy::Both,
            symbolic_points: 8,
            ignore_think: false,
            ratios: RatioPolicy::Text,
        }
    }
}

/// The rule that decided a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Exact rational arithmetic (or identical expressions).
    Exact,
    /// Numeric comparison within tolerance (decimals, irrational constants).
    Numeric,
    /// Evaluation of expressions with variables at deterministic random points.
    Symbolic,
    /// Equations compared as proportional `lhs - rhs`.
    Equation,
    /// Inequalities compared as positively proportional `lhs - rhs` with the same direction.
    Inequality,
    /// Sets and lists of answers, order-free.
    Set,
    /// Tuples and points, in order.
    Tuple,
    /// Intervals (ends and their openness) and unions of intervals.
    Interval,
    /// Matrices and vectors, element by element.
    Matrix,
    /// Text answers after normalisation.
    Text,
    /// Normalised strings (when a side cannot be parsed as mathematics).
    String,
    /// Different kinds of answer (a set against a number, …).
    Structure,
    /// No answer could be found on one side.
    NoAnswer,
    /// The comparison hit its work bound and was judged incorrect.
    Limit,
    /// The checker cannot decide (operations on incompatible shapes, no point where both sides
    /// are defined, …): judged incorrect rather than guessed.
    Undecided,
}

impl Rule {
    /// Whether the checker reached a decision: `undecided` and `limit` verdicts are incorrect
    /// by default, but say nothing about the answer.
    pub fn decides(self) -> bool {
        !matches!(self, Rule::Undecided | Rule::Limit)
    }
}

/// What a verdict concluded. `undecided` answers score 0 like incorrect ones; a caller that has
/// a model-based judge can send them there instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Equivalent to the reference.
    Correct,
    /// Not equivalent (or no answer).
    Incorrect,
    /// The checker could not decide (its rule is `undecided` or `limit`).
    Undecided,
}

impl Outcome {
    /// The outcome of a verdict that is `correct` by `rule`.
    pub fn of(correct: bool, rule: Rule) -> Self {
        match (correct, rule.decides()) {
            (true, _) => Self::Correct,
            (false, true) => Self::Incorrect,
            (false, false) => Self::Undecided,
        }
    }

    /// The name in the API and in Prometheus's `outcome` label.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Correct => "correct",
            Self::Incorrect => "incorrect",
            Self::Undecided => "undecided",
        }
    }
}

/// What the checker decided and why.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Verdict {
    /// Whether the response's answer is equivalent to the reference's.
    pub correct: bool,
    /// Correct, incorrect, or undecided (scored as incorrect).
    pub outcome: Outcome,
    /// 1.0 when correct, else 0.0.
    pub reward: f64,
    /// The answer extracted from the reference.
    pub reference_answer: Option<String>,
    /// The answer extracted from the response.
    pub response_answer: Option<String>,
    /// Where in the reference the answer was found.
    pub reference_source: Option<Source>,
    /// Where in the response the answer was found.
    pub response_source: Option<Source>,
    /// The reference answer as parsed (normalised notation).
    pub reference_normalized: Option<String>,
    /// The response answer as parsed (normalised notation).
    pub response_normalized: Option<String>,
    /// The rule that decided.
    pub rule: Rule,
    /// Why a side could not be parsed, when that happened.
    pub note: Option<String>,
}

/// One side after extraction and parsing.
struct Side {
    extraction: Option<extract::Extraction>,
    parsed: Option<Result<expr::Expr, parse::ParseError>>,
    /// The answer read with a decimal comma (`1000,99`), when it can be read so.
    decimal_comma: Option<expr::Expr>,
}

/// The tail of `text` within [`MAX_TEXT_BYTES`], cut at a character boundary.
fn tail(text: &str) -> &str {
    if text.len() <= MAX_TEXT_BYTES {
        return text;
    }
    let mut start = text.len() - MAX_TEXT_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

fn analyse(text: &str) -> Side {
    let extraction = extract::extract(tail(text));
    let parsed = extraction.as_ref().map(|ex| {
        if ex.answers.len() == 1 {
            return parse::parse_answer(&ex.answers[0]);
        }
        // Several boxed answers form one set.
        let mut items = Vec::new();
        for a in &ex.answers {
            match parse::parse_answer(a)? {
                expr::Expr::List(v) | expr::Expr::Set(v) => items.extend(v),
                e => items.push(e),
            }
        }
        Ok(expr::Expr::Set(items))
    });
    let decimal_comma = extraction
        .as_ref()
        .filter(|ex| ex.answers.len() == 1)
        .and_then(|ex| parse::decimal_comma_reading(&ex.answers[0]))
        .and_then(|a| parse::parse_answer(&a).ok());
    // `3{,}5` cannot be read as two answers at all: the decimal reading is the only one.
    let parsed = match (parsed, &decimal_comma) {
        (Some(Err(_)), Some(d)) => Some(Ok(d.clone())),
        (parsed, _) => parsed,
    };
    Side {
        extraction,
        parsed,
        decimal_comma,
    }
}

/// The reading of `side` to compare with `other`: its decimal-comma reading (`1000,99`) when
/// `other` is one number written with a decimal point, so that `1,5` stays the list 1, 5
/// against a list or an integer and is 1.5 only where that is the unambiguous intent.
fn reading<'a>(
    side: &'a expr::Expr,
    alt: Option<&'a expr::Expr>,
    other: &expr::Expr,
) -> &'a expr::Expr {
    match alt {
        Some(a) if other.is_scalar() && other.has_decimal() => a,
        _ => side,
    }
}

/// Normalised raw text for the string fallback: no spaces, no spacing commands.
fn normalise_raw(s: &str) -> String {
    let mut t = s.to_string();
    for pat in [
        "\\left",
        "\\right",
        "\\!",
        "\\,",
        "\\;",
        "\\:",
        "\\displaystyle",
        "$",
    ] {
        t = t.replace(pat, "");
    }
    t = t.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac");
    t.retain(|c| !c.is_whitespace());
    t.trim_end_matches('.').to_string()
}

/// The part of a reasoning model's response that holds its answer: what follows the last
/// `</think>`; nothing when a `<think>` is never closed; the whole text when there are no tags.
pub fn strip_think(text: &str) -> &str {
    if let Some(i) = text.rfind("</think>") {
        return &text[i + "</think>".len()..];
    }
    match text.find("<think>") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// `/v1/reward`'s default for reasoning models: a response that closes a `<think>` block is
/// graded on what follows it ([`strip_think`]); any other response is graded whole.
pub fn after_thinking(response: &str) -> &str {
    if response.contains("</think>") {
        strip_think(response)
    } else {
        response
    }
}

/// Grades `response` against `reference` (both go through the same extraction).
pub fn verify(reference: &str, response: &str, options: &Options) -> Verdict {
    let gold = analyse(reference);
    let response = if options.ignore_think {
        strip_think(response)
    } else {
        response
    };
    let pred = analyse(response);
    let mut verdict = Verdict {
        correct: false,
        outcome: Outcome::Incorrect,
        reward: 0.0,
        reference_answer: gold.extraction.as_ref().map(extract::Extraction::joined),
        response_answer: pred.extraction.as_ref().map(extract::Extraction::joined),
        reference_source: gold.extraction.as_ref().map(|e| e.source),
        response_source: pred.extraction.as_ref().map(|e| e.source),
        reference_normalized: None,
        response_normalized: None,
        rule: Rule::NoAnswer,
        note: None,
    };
    let (Some(g), Some(p)) = (&gold.parsed, &pred.parsed) else {
        verdict.note = Some(
            match (&gold.extraction, &pred.extraction) {
                (None, _) => "no answer found in the reference",
                _ => "no answer found in the response",
            }
            .to_string(),
        );
        return verdict;
    };
    if let Ok(e) = g {
        verdict.reference_normalized = Some(e.to_string());
    }
    if let Ok(e) = p {
        verdict.response_normalized = Some(e.to_string());
    }
    let decision = match (g, p) {
        (Ok(g), Ok(p)) => {
            let g2 = reading(g, gold.decimal_comma.as_ref(), p);
            let p2 = reading(p, pred.decimal_comma.as_ref(), g);
            equivalence::equivalent(g2, p2, options)
        }
        (g, p) => {
            let side = |r: &Result<expr::Expr, parse::ParseError>, name: &str| {
                r.as_ref().err().map(|e| format!("{name}: {e}"))
            };
            let notes: Vec<String> = [side(g, "reference"), side(p, "response")]
                .into_iter()
                .flatten()
                .collect();
            verdict.note = Some(notes.join("; "));
            let a = normalise_raw(verdict.reference_answer.as_deref().unwrap_or(""));
            let b = normalise_raw(verdict.response_answer.as_deref().unwrap_or(""));
            equivalence::Decision {
                equal: !a.is_empty() && a == b,
                rule: Rule::String,
            }
        }
    };
    verdict.correct = decision.equal;
    verdict.reward = if decision.equal { 1.0 } else { 0.0 };
    verdict.rule = decision.rule;
    verdict.outcome = Outcome::of(decision.equal, decision.rule);
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(reference: &str, response: &str) -> bool {
        verify(reference, response, &Options::default()).correct
    }

    #[test]
    fn core_cases() {
        assert!(check("18", "The answer is $\\boxed{18}$."));
        assert!(check("#### 1,234", "so 1234"));
        assert!(check("\\frac{1}{2}", "0.5"));
        assert!(!check("\\frac{1}{3}", "0.33"));
        assert!(!check("1-\\frac{1}{e}", "1+\\frac{1}{e}"));
        assert!(check("(x+1)^2", "x^2+2x+1"));
        assert!(check("\\tan^2(y)+1", "\\sec^2(y)"));
        assert!(check("x \\le 1", "-x \\ge -1"));
        assert!(check("\\{1,2\\}", "x=2, x=1"));
        assert!(check("x = 5", "5"));
        assert!(check("50\\%", "0.5"));
        assert!(check("\\text{Yes}", "yes"));
    }

    #[test]
    fn verdict_explains() {
        let v = verify(
            "\\boxed{\\frac12}",
            "I get \\boxed{0.5}",
            &Options::default(),
        );
        assert!(v.correct);
        assert_eq!(v.reference_answer.as_deref(), Some("\\frac12"));
        assert_eq!(v.response_answer.as_deref(), Some("0.5"));
        assert_eq!(v.rule, Rule::Numeric);
        assert_eq!(v.reference_source, Some(Source::Boxed));
        assert!(v.reference_normalized.is_some());
        let none = verify("5", "", &Options::default());
        assert_eq!(none.rule, Rule::NoAnswer);
        assert!(!none.correct);
    }

    #[test]
    fn options_deserialise_with_defaults() {
        let o: Options = serde_json::from_str(r#"{"percent":"fraction"}"#).unwrap();
        assert_eq!(o.percent, PercentPolicy::Fraction);
        assert_eq!(o.symbolic_points, 8);
        assert!(!verify("50\\%", "50", &o).correct);
        assert!(serde_json::from_str::<Options>(r#"{"bogus":1}"#).is_err());
    }
}
