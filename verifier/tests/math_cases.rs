//! Hand-written (reference, response, expected) cases covering extraction, numbers, LaTeX,
//! symbolic equivalence, relations, structures, multiple answers, text answers, tricky
//! negatives and hostile inputs. Data: `tests/data/math_cases.jsonl`.

use serde::Deserialize;
use verifier::math::{Options, verify};

#[derive(Deserialize)]
struct Case {
    category: String,
    reference: String,
    response: String,
    expected: bool,
    why: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/math_cases.jsonl");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("valid case line"))
        .collect()
}

#[test]
fn every_case_grades_as_expected() {
    let cases = cases();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let options = Options::default();
    let mut failures = Vec::new();
    for c in &cases {
        let v = verify(&c.reference, &c.response, &options);
        assert_eq!(v.reward, if v.correct { 1.0 } else { 0.0 });
        if v.correct != c.expected {
            failures.push(format!(
                "[{}] {:?} vs {:?}: expected {}, got {} by {:?} (ref {:?} -> {:?}, resp {:?} -> {:?}) {}",
                c.category,
                c.reference,
                c.response,
                c.expected,
                v.correct,
                v.rule,
                v.reference_answer,
                v.reference_normalized,
                v.response_answer,
                v.response_normalized,
                c.why
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn cases_span_every_category_with_negatives() {
    let cases = cases();
    for cat in [
        "extraction",
        "numbers",
        "latex",
        "symbolic",
        "relations",
        "structures",
        "multiple",
        "text",
        "tricky",
        "responses",
        "safety",
    ] {
        let of_cat: Vec<&Case> = cases.iter().filter(|c| c.category == cat).collect();
        assert!(
            of_cat.len() >= 10,
            "category {cat} has {} cases",
            of_cat.len()
        );
        assert!(
            of_cat.iter().any(|c| !c.expected),
            "category {cat} has no negative case"
        );
    }
}

#[test]
fn verdicts_are_deterministic_and_symmetric_in_the_easy_direction() {
    let options = Options::default();
    for c in cases() {
        let a = verify(&c.reference, &c.response, &options);
        let b = verify(&c.reference, &c.response, &options);
        assert_eq!(a.correct, b.correct);
        assert_eq!(a.rule, b.rule);
        assert_eq!(a.response_normalized, b.response_normalized);
    }
}
