//! Procedurally generated multi-step arithmetic: bare expressions with operator precedence and
//! short word problems, each with an exact integer answer and a step-by-step worked solution
//! (the supervised warm-up's target). Generation is deterministic in the seed, so a split
//! re-imported into the verifier is byte-identical and the import stays idempotent.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::rng::SplitMix64;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArithSpec {
    /// Seed of the generator.
    pub seed: u64,
    /// Training problems.
    pub train: usize,
    /// Held-out problems (disjoint from the training ones).
    pub test: usize,
    /// Validation problems: drawn from the training distribution after `train`, never trained
    /// on, for tuning, so that the held-out split is touched only by the final evaluation.
    #[serde(default)]
    pub validation: usize,
    /// Fewest operations per problem.
    pub min_ops: usize,
    /// Most operations per problem.
    pub max_ops: usize,
    /// Operands are drawn from 1..=max_operand.
    pub max_operand: i64,
}

/// One problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// What the agent is asked.
    pub prompt: String,
    /// The exact answer.
    pub answer: i64,
    /// A worked solution ending in `\boxed{answer}`.
    pub solution: String,
    /// Operations in the problem.
    pub ops: usize,
    /// Which kind of problem it is.
    pub style: Skill,
}

/// The two kinds of problem, each a skill an agent may be warmed up on alone (complementary
/// specialists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Skill {
    /// A bare expression with operator precedence.
    Expression,
    /// A short word problem.
    Word,
}

impl Skill {
    /// The name in task metadata (`metadata.style`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Expression => "expression",
            Self::Word => "word",
        }
    }
}

impl Problem {
    /// The task as the verifier's `/v1/tasks` takes it.
    pub fn task(&self, dataset: &str, external_id: usize) -> Value {
        json!({
            "dataset": dataset,
            "external_id": external_id.to_string(),
            "kind": "math",
            "prompt": self.prompt,
            "reference": { "answer": self.answer.to_string() },
            "metadata": { "ops": self.ops, "style": self.style.as_str(), "generator": "arith" },
        })
    }
}

/// The two splits of a spec.
#[derive(Debug, Clone)]
pub struct Splits {
    /// Training problems.
    pub train: Vec<Problem>,
    /// Held-out problems; no prompt occurs in two splits.
    pub test: Vec<Problem>,
    /// Tuning problems from the training distribution, outside `train`.
    pub validation: Vec<Problem>,
}

impl Splits {
    /// Every problem of the three splits.
    pub fn all(&self) -> impl Iterator<Item = &Problem> {
        self.train.iter().chain(&self.test).chain(&self.validation)
    }
}

const ANSWER_FORMAT: &str = "Put the final answer in \\boxed{}.";

/// Generates the splits; test first, so growing `train` never changes the test split, and
/// validation last, so adding it changes neither.
pub fn generate(spec: &ArithSpec) -> Splits {
    assert!(spec.min_ops >= 1 && spec.min_ops <= spec.max_ops && spec.max_operand >= 2);
    let mut rng = SplitMix64(spec.seed);
    let mut seen = HashSet::new();
    let mut next = || loop {
        let p = problem(&mut rng, spec);
        if seen.insert(p.prompt.clone()) {
            return p;
        }
    };
    let test = (0..spec.test).map(|_| next()).collect();
    let train = (0..spec.train).map(|_| next()).collect();
    let validation = (0..spec.validation).map(|_| next()).collect();
    Splits {
        train,
        test,
        validation,
    }
}

fn problem(rng: &mut SplitMix64, spec: &ArithSpec) -> Problem {
    let ops = spec.min_ops + rng.below(spec.max_ops - spec.min_ops + 1);
    if rng.below(2) == 0 {
        expression(rng, ops, spec.max_operand)
    } else {
        word(rng, ops, spec.max_operand)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
}

impl Op {
    fn symbol(self) -> char {
        match self {
            Op::Add => '+',
            Op::Sub => '-',
            Op::Mul => '*',
        }
    }

    fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
        }
    }
}

/// `a op b op c …` with `*` binding tighter; the solution does products first, then sums left
/// to right, one step per operation.
fn expression(rng: &mut SplitMix64, ops: usize, max: i64) -> Problem {
    let mut terms: Vec<i64> = (0..=ops)
        .map(|_| 1 + rng.below(max as usize) as i64)
        .collect();
    let mut operators: Vec<Op> = (0..ops)
        .map(|_| [Op::Add, Op::Sub, Op::Mul][rng.below(3)])
        .collect();
    let mut text = terms[0].to_string();
    for (o, t) in operators.iter().zip(&terms[1..]) {
        text.push_str(&format!(" {} {t}", o.symbol()));
    }
    let mut steps = Vec::new();
    for pass in [Op::Mul, Op::Add] {
        let mut i = 0;
        while i < operators.len() {
            let o = operators[i];
            if (pass == Op::Mul) == (o == Op::Mul) {
                let v = o.apply(terms[i], terms[i + 1]);
                steps.push(format!("{}{}{}={v}", terms[i], o.symbol(), terms[i + 1]));
                terms[i] = v;
                terms.remove(i + 1);
                operators.remove(i);
            } else {
                i += 1;
            }
        }
    }
    let answer = terms[0];
    Problem {
        prompt: format!("Compute {text}. {ANSWER_FORMAT}"),
        answer,
        solution: format!("{}. \\boxed{{{answer}}}", steps.join(", ")),
        ops,
        style: Skill::Expression,
    }
}

const NAMES: [&str; 8] = ["Ann", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus", "Ivy"];
const THINGS: [&str; 6] = ["apples", "coins", "books", "shells", "cards", "stamps"];

/// A story applied left to right (no precedence), never going below zero.
fn word(rng: &mut SplitMix64, ops: usize, max: i64) -> Problem {
    let name = NAMES[rng.below(NAMES.len())];
    let thing = THINGS[rng.below(THINGS.len())];
    let mut value = 1 + rng.below(max as usize) as i64;
    let mut story = vec![format!("{name} has {value} {thing}.")];
    let mut steps = Vec::new();
    for _ in 0..ops {
        let (op, n, sentence) = match rng.below(3) {
            0 => {
                let n = 1 + rng.below(max as usize) as i64;
                (Op::Add, n, format!("{name} gets {n} more."))
            }
            1 if value > 1 => {
                let n = 1 + rng.below(value.min(max) as usize) as i64;
                (Op::Sub, n, format!("{name} gives away {n}."))
            }
            _ => {
                let n = 2 + rng.below(2) as i64;
                let verb = if n == 2 { "doubles" } else { "triples" };
                (Op::Mul, n, format!("Then {name} {verb} them."))
            }
        };
        let v = op.apply(value, n);
        steps.push(format!("{value}{}{n}={v}", op.symbol()));
        story.push(sentence);
        value = v;
    }
    Problem {
        prompt: format!(
            "{} How many {thing} does {name} have? {ANSWER_FORMAT}",
            story.join(" ")
        ),
        answer: value,
        solution: format!("{}. \\boxed{{{value}}}", steps.join(", ")),
        ops,
        style: Skill::Word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ArithSpec {
        ArithSpec {
            seed: 3,
            train: 400,
            test: 100,
            validation: 50,
            min_ops: 1,
            max_ops: 3,
            max_operand: 9,
        }
    }

    /// Re-derives the answer from the prompt with an independent evaluator.
    fn evaluate_prompt(p: &Problem) -> i64 {
        if p.style == Skill::Expression {
            let expr = p.prompt.trim_start_matches("Compute ");
            let expr = &expr[..expr.find('.').unwrap()];
            // Tokens alternate operand, operator: fold products first.
            let parts: Vec<&str> = expr.split(' ').collect();
            let mut terms = vec![parts[0].parse::<i64>().unwrap()];
            let mut signs = vec![1];
            for w in parts[1..].chunks(2) {
                let n: i64 = w[1].parse().unwrap();
                match w[0] {
                    "*" => *terms.last_mut().unwrap() *= n,
                    "+" => {
                        terms.push(n);
                        signs.push(1);
                    }
                    "-" => {
                        terms.push(n);
                        signs.push(-1);
                    }
                    other => panic!("operator {other}"),
                }
            }
            terms.iter().zip(&signs).map(|(t, s)| t * s).sum()
        } else {
            let mut value = 0;
            for sentence in p.prompt.split(". ") {
                let words: Vec<&str> = sentence.split(' ').collect();
                let num = words
                    .iter()
                    .find_map(|w| w.trim_end_matches('.').parse::<i64>().ok());
                if sentence.contains(" has ") && !sentence.contains("How many") {
                    value = num.unwrap();
                } else if sentence.contains("gets") {
                    value += num.unwrap();
                } else if sentence.contains("gives away") {
                    value -= num.unwrap();
                } else if sentence.contains("doubles") {
                    value *= 2;
                } else if sentence.contains("triples") {
                    value *= 3;
                }
            }
            value
        }
    }

    #[test]
    fn answers_match_an_independent_evaluation_and_solutions_end_in_the_boxed_answer() {
        let s = generate(&spec());
        for p in s.train.iter().chain(&s.test) {
            assert_eq!(evaluate_prompt(p), p.answer, "{}", p.prompt);
            assert!(
                p.solution.ends_with(&format!("\\boxed{{{}}}", p.answer)),
                "{}",
                p.solution
            );
            assert_eq!(p.solution.matches('=').count(), p.ops, "{}", p.solution);
            assert!((1..=3).contains(&p.ops));
            if p.style == Skill::Word {
                assert!(p.answer >= 0, "{}", p.prompt);
            }
        }
    }

    #[test]
    fn splits_are_deterministic_disjoint_and_stable_when_train_grows() {
        let a = generate(&spec());
        let b = generate(&spec());
        assert_eq!(a.test, b.test);
        assert_eq!(a.train, b.train);
        let test: HashSet<&str> = a.test.iter().map(|p| p.prompt.as_str()).collect();
        assert!(a.train.iter().all(|p| !test.contains(p.prompt.as_str())));
        let bigger = generate(&ArithSpec {
            train: 800,
            ..spec()
        });
        assert_eq!(bigger.test, a.test);
        assert_eq!(bigger.train[..400], a.train[..]);
        let styles: HashSet<Skill> = a.train.iter().map(|p| p.style).collect();
        assert_eq!(styles.len(), 2);
        let other = generate(&ArithSpec { seed: 4, ..spec() });
        assert_ne!(other.test, a.test);
    }

    #[test]
    fn validation_comes_from_the_training_distribution_outside_both_other_splits() {
        let a = generate(&spec());
        assert_eq!(a.validation.len(), 50);
        let seen: HashSet<&str> = a
            .train
            .iter()
            .chain(&a.test)
            .map(|p| p.prompt.as_str())
            .collect();
        assert!(
            a.validation
                .iter()
                .all(|p| !seen.contains(p.prompt.as_str()))
        );
        // Adding a validation split leaves the splits an earlier experiment used untouched.
        let without = generate(&ArithSpec {
            validation: 0,
            ..spec()
        });
        assert_eq!((without.train, without.test), (a.train, a.test));
        assert!(without.validation.is_empty());
    }

    #[test]
    fn precedence_is_respected_in_the_worked_solution() {
        let mut rng = SplitMix64(0);
        let found = (0..500)
            .map(|_| expression(&mut rng, 2, 9))
            .find(|p| p.prompt.contains(" + ") && p.prompt.contains(" * "))
            .expect("a mixed expression");
        let first_step = found.solution.split(", ").next().unwrap();
        assert!(
            first_step.contains('*'),
            "{}: {}",
            found.prompt,
            found.solution
        );
    }
}
