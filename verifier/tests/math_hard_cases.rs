//! The hard labelled math set, graded with zero false positives (a wrong answer rewarded is the
//! worst error a reward can make: the policy learns to produce it), and the agreement with the
//! labels reported per category. The older set (`math_cases.rs`) is held to exact agreement,
//! which already excludes false positives. The hard set (`tests/data/math_hard_cases.jsonl`, issue 16)
//! may still miss correct answers where the checker cannot decide; those count against the
//! agreement floor, never as a reward.

use std::collections::BTreeMap;

use serde::Deserialize;
use verifier::math::{Options, Rule, verify};

#[derive(Deserialize)]
struct Case {
    category: String,
    reference: String,
    response: String,
    expected: bool,
    why: String,
    #[serde(default)]
    options: Option<Options>,
}

fn load(text: &str) -> Vec<Case> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("valid case line"))
        .collect()
}

fn hard() -> Vec<Case> {
    load(include_str!("data/math_hard_cases.jsonl"))
}

/// The classes of issue 31 (`tests/data/math_parity_cases.jsonl`), with their holdout.
fn parity() -> Vec<Case> {
    load(include_str!("data/math_parity_cases.jsonl"))
}

/// A graded set: the wrong answers rewarded, the right answers missed, and per category the
/// number of verdicts that agree with the labels out of the cases.
struct Graded {
    false_positives: Vec<String>,
    misses: Vec<String>,
    per_category: BTreeMap<String, (usize, usize)>,
}

fn grade(cases: &[Case]) -> Graded {
    let mut false_positives = Vec::new();
    let mut misses = Vec::new();
    let mut per_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for c in cases {
        let options = c.options.clone().unwrap_or_default();
        let v = verify(&c.reference, &c.response, &options);
        let entry = per_category.entry(c.category.clone()).or_default();
        entry.1 += 1;
        let line = format!(
            "[{}] {:?} vs {:?}: expected {}, got {} by {:?} ({:?} -> {:?}) {}",
            c.category,
            c.reference,
            c.response,
            c.expected,
            v.correct,
            v.rule,
            v.response_answer,
            v.response_normalized,
            c.why
        );
        if v.correct == c.expected {
            entry.0 += 1;
        } else if v.correct {
            false_positives.push(line);
        } else {
            misses.push(line);
        }
    }
    Graded {
        false_positives,
        misses,
        per_category,
    }
}

fn report(name: &str, cases: &[Case], per_category: &BTreeMap<String, (usize, usize)>) {
    let agree: usize = per_category.values().map(|v| v.0).sum();
    eprintln!(
        "{name}: {agree} of {} agree with the labels ({:.1}%)",
        cases.len(),
        100.0 * agree as f64 / cases.len() as f64
    );
    for (cat, (ok, n)) in per_category {
        eprintln!("  {cat:16} {ok:4} / {n:4}");
    }
}

#[test]
fn hard_set_has_no_false_positive_and_reports_agreement() {
    let cases = hard();
    let Graded {
        false_positives,
        misses,
        per_category,
    } = grade(&cases);
    report("math_hard_cases", &cases, &per_category);
    for m in &misses {
        eprintln!("miss: {m}");
    }
    assert!(
        false_positives.is_empty(),
        "{} false positives:\n{}",
        false_positives.len(),
        false_positives.join("\n")
    );
    // A floor just under the measured agreement, so that a regression fails CI.
    let agree: usize = per_category.values().map(|v| v.0).sum();
    assert!(
        agree * 100 >= cases.len() * 95,
        "agreement fell to {agree} of {}",
        cases.len()
    );
}

#[test]
fn hard_set_is_large_labelled_and_balanced() {
    let cases = hard();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let mut per_category: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in &cases {
        assert!(
            !c.why.trim().is_empty(),
            "case without a reason: {:?}",
            c.response
        );
        let e = per_category.entry(&c.category).or_default();
        if c.expected {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    for cat in [
        "free_text",
        "relations",
        "labelled",
        "number_formats",
        "precision",
        "matrices",
        "false_positives",
        "think",
    ] {
        let (pos, neg) = per_category.get(cat).copied().unwrap_or_default();
        assert!(
            pos >= 3 && neg >= 3,
            "category {cat}: {pos} positive, {neg} negative"
        );
    }
}

#[test]
fn parity_set_has_no_false_positive_and_reports_agreement() {
    let cases = parity();
    let Graded {
        false_positives,
        misses,
        per_category,
    } = grade(&cases);
    report("math_parity_cases", &cases, &per_category);
    for m in &misses {
        eprintln!("miss: {m}");
    }
    assert!(
        false_positives.is_empty(),
        "{} false positives:\n{}",
        false_positives.len(),
        false_positives.join("\n")
    );
    let agree: usize = per_category.values().map(|v| v.0).sum();
    assert!(
        agree * 100 >= cases.len() * 95,
        "agreement fell to {agree} of {}",
        cases.len()
    );
    for (cat, _) in per_category {
        let (pos, neg) = cases
            .iter()
            .filter(|c| c.category == cat)
            .fold(
                (0, 0),
                |(p, n), c| if c.expected { (p + 1, n) } else { (p, n + 1) },
            );
        assert!(
            pos >= 3 && neg >= 3,
            "category {cat}: {pos} positive, {neg} negative"
        );
    }
}

/// A verdict that rewards nothing still names the rule that decided it.
#[test]
fn undecided_answers_name_their_rule() {
    let o = Options::default();
    let v = verify("12:00", "$1:00$", &o);
    assert!(!v.correct);
    assert_eq!(v.rule, Rule::Text);
    // Structures on the sides of a relation compare as themselves, not as `lhs - rhs`.
    let v = verify("D = [0, 1)", "$D = [0, 1.5)$", &o);
    assert!(!v.correct);
    assert_eq!(v.rule, Rule::Interval);
    let v = verify("D = (0, 1)", "$D = (0, 1.5)$", &o);
    assert!(!v.correct);
    assert_eq!(v.rule, Rule::Tuple);
    let v = verify(
        "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        "$\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix} + \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}$",
        &o,
    );
    assert!(!v.correct);
    assert_eq!(v.rule, Rule::Undecided);
    let v = verify("2", "AZYUK2A", &o);
    assert!(!v.correct);
    assert_eq!(v.rule, Rule::NoAnswer);
}

#[test]
fn think_option_only_reads_after_the_last_closing_tag() {
    let on = Options {
        ignore_think: true,
        ..Options::default()
    };
    let text = "<think>\\boxed{5}</think> so \\boxed{6}";
    assert!(verify("6", text, &on).correct);
    assert!(!verify("5", text, &on).correct);
    assert!(!verify("5", "<think>\\boxed{5}", &on).correct);
    assert!(verify("5", "<think>\\boxed{5}", &Options::default()).correct);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7072_6563),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// A fraction rounded to the places a response shows is accepted; one unit off in the last
    /// place is not. Values stay between 0.4 and 34 at 4 or 5 places, so every rounding shows
    /// at least four digits and a unit stays above the default relative tolerance (1e-7).
    #[test]
    fn fractions_match_their_roundings_only(
        p in 10i64..100,
        q in proptest::sample::select(vec![3i64, 7, 11, 13, 17, 19, 23]),
        places in 4usize..6,
    ) {
        proptest::prop_assume!(!p.unsigned_abs().is_multiple_of(q.unsigned_abs()));
        let value = p as f64 / q as f64;
        let rounded = format!("{value:.places$}");
        let o = Options::default();
        let fraction = format!("\\frac{{{p}}}{{{q}}}");
        let v = verify(&fraction, &rounded, &o);
        proptest::prop_assert!(v.correct, "{} vs {}", fraction, rounded);
        let unit = 10f64.powi(-(places as i32));
        for off in [value + unit, value - unit] {
            let wrong = format!("{:.places$}", (off / unit).round() * unit);
            let w = verify(&fraction, &wrong, &o);
            proptest::prop_assert!(!w.correct, "{} vs {}", fraction, wrong);
        }
    }
}
