//! Whole public datasets graded against themselves: every GSM8K test answer against its own
//! `#### N`, every Minerva solution against itself and against its bare boxed answer.

use std::path::PathBuf;

use verifier::math::{Options, Rule, verify};

fn data(name: &str) -> Vec<serde_json::Value> {
    let dir = std::env::var("HACRL_DATA").map_or_else(
        |_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data"),
        PathBuf::from,
    );
    let text = std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("reading {name} from {}: {e}", dir.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

#[test]
fn gsm8k_answers_grade_correct_against_their_own_final_number() {
    let rows = data("gsm8k_test.jsonl");
    assert_eq!(rows.len(), 1319);
    let options = Options::default();
    let mut failures = Vec::new();
    for row in &rows {
        let answer = row["answer"].as_str().expect("answer field");
        let number = answer.rsplit("####").next().expect("#### marker").trim();
        let full = verify(answer, answer, &options);
        let bare = verify(number, answer, &options);
        let boxed = verify(
            answer,
            &format!("So the total is $\\boxed{{{number}}}$."),
            &options,
        );
        let wrong = verify(answer, &format!("The answer is {number}1."), &options);
        if !full.correct || !bare.correct || !boxed.correct || wrong.correct {
            failures.push((
                number.to_string(),
                full.rule,
                bare.rule,
                boxed.rule,
                wrong.rule,
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures: {:?}",
        failures.len(),
        &failures[..failures.len().min(20)]
    );
}

#[test]
fn minerva_solutions_grade_correct_against_themselves() {
    let rows = data("minerva_math.jsonl");
    assert_eq!(rows.len(), 272);
    let options = Options::default();
    let mut failures = Vec::new();
    let mut by_rule = std::collections::BTreeMap::new();
    for row in &rows {
        let solution = row["solution"].as_str().expect("solution field");
        let v = verify(solution, solution, &options);
        let boxed = v.reference_answer.clone().unwrap_or_default();
        // The same answer restyled as a model might write it: \dfrac, no spaces.
        let restyled = boxed.replace("\\frac", "\\dfrac").replace(' ', "");
        let r = verify(
            solution,
            &format!(
                "Final Answer: The final answer is $\\boxed{{{restyled}}}$. I hope it is correct."
            ),
            &options,
        );
        if !r.correct {
            failures.push((row["idx"].clone(), Some(restyled), r.rule));
        }
        *by_rule.entry(format!("{:?}", v.rule)).or_insert(0) += 1;
        if !v.correct {
            failures.push((row["idx"].clone(), v.reference_answer.clone(), v.rule));
        }
        assert_ne!(v.rule, Rule::NoAnswer, "no answer in {}", row["idx"]);
    }
    eprintln!("rules: {by_rule:?}");
    assert!(
        failures.is_empty(),
        "{} failures: {:?}",
        failures.len(),
        failures
    );
}
