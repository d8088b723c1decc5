//! Our code data sets (`data/special-judge`, `data/interactive`) as the tests read them: each
//! problem's task line beside its solutions' line, and what the tests build from them.

use serde_json::Value;

/// One problem of a set: its task line and its solutions' line.
pub struct Problem {
    pub id: String,
    pub task: Value,
    pub solutions: Value,
}

/// The problems of a set from its two JSON-lines files, each with its solutions.
pub fn problems(problems: &str, solutions: &str) -> Vec<Problem> {
    let lines = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let solutions = lines(solutions);
    lines(problems)
        .into_iter()
        .map(|task| {
            let id = task["external_id"].as_str().unwrap().to_string();
            let solutions = solutions
                .iter()
                .find(|s| s["external_id"] == id)
                .unwrap_or_else(|| panic!("{id}: no solutions"))
                .clone();
            Problem {
                id,
                task,
                solutions,
            }
        })
        .collect()
}

/// A model response holding `program` (`{"language", "source"}`) in a fenced block.
pub fn response(program: &Value) -> String {
    format!(
        "Here it is:\n```{}\n{}```\n",
        program["language"].as_str().unwrap(),
        program["source"].as_str().unwrap()
    )
}
