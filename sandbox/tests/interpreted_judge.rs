//! Judged correctly, per interpreted language and for Go: 30 solved problems each
//! (tests/data/interpreted), every problem with an accepted solution, a wrong one, a crashing
//! one and a slow one. Lua, JavaScript, TypeScript, Ruby and Go solve the same stdin/stdout
//! problems (cases.json, expected outputs from independent Python references in cases_gen.py);
//! SQL has its own, each a script with its expected output. Go's 120 sources are each compiled
//! once (Go's compiler, then Cranelift) and then run case by case from the build cache.

mod interpreted;
mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use interpreted::installed;
use sandbox::{Language, Limits, Outcome, Program, Status};
use support::SANDBOX;

/// The four solutions of one problem.
#[derive(Default)]
struct Solutions {
    accepted: String,
    wrong: String,
    crash: String,
    slow: String,
    /// SQL only: the tables every variant starts from.
    setup: String,
    /// SQL only: the accepted script's output.
    expect: String,
}

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/interpreted")
}

/// Reads `=== problem` / `--- part` sections.
fn problems(file: &str) -> BTreeMap<String, Solutions> {
    let text = std::fs::read_to_string(data().join(file)).unwrap();
    let mut all = BTreeMap::new();
    let mut current: Option<(String, Solutions)> = None;
    let mut part = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("=== ") {
            all.extend(current.take());
            current = Some((name.to_string(), Solutions::default()));
        } else if let Some(name) = line.strip_prefix("--- ") {
            part = name.to_string();
        } else {
            let (problem, s) = current.as_mut().expect("a problem header first");
            let slot = match part.as_str() {
                "accepted" => &mut s.accepted,
                "wrong" => &mut s.wrong,
                "crash" => &mut s.crash,
                "slow" => &mut s.slow,
                "setup" => &mut s.setup,
                "expect" => &mut s.expect,
                other => panic!("{file} {problem}: unknown part {other:?}"),
            };
            slot.push_str(line);
            slot.push('\n');
        }
    }
    all.extend(current);
    all
}

/// Stdin → expected stdout of each stdio problem.
fn cases() -> BTreeMap<String, Vec<(String, String)>> {
    let text = std::fs::read_to_string(data().join("cases.json")).unwrap();
    let raw: BTreeMap<String, Vec<BTreeMap<String, String>>> = serde_json::from_str(&text).unwrap();
    raw.into_iter()
        .map(|(name, cases)| {
            let cases = cases
                .into_iter()
                .map(|c| (c["stdin"].clone(), c["stdout"].clone()))
                .collect();
            (name, cases)
        })
        .collect()
}

fn tokens(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// What a variant's runs must show, case by case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    /// Every case ends ok with the expected output.
    Accepted,
    /// Every case ends ok, at least one with other output (a wrong answer, not a crash).
    Wrong,
    /// At least one case is a runtime error, none a timeout, not every case passes.
    Crash,
    /// At least one case runs out of time.
    Slow,
}

/// Runs in flight at once. All at once, the runs' wall clocks measured the queue: on 2 loaded
/// cores, ~290 TypeScript or Ruby runs (each ~0.1 s of start-up) outlasted the accepted
/// solutions' 20 s before most had run.
const IN_FLIGHT: usize = 8;

/// Runs every variant of every problem on every case, [`IN_FLIGHT`] at a time, and checks each
/// variant.
async fn judge(
    language: Language,
    problems: BTreeMap<String, Solutions>,
    cases: &BTreeMap<String, Vec<(String, String)>>,
) {
    assert!(
        problems.len() >= 30,
        "{language}: {} problems",
        problems.len()
    );
    let mut runs = tokio::task::JoinSet::new();
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    for (name, s) in &problems {
        let problem_cases = if language == Language::Sql {
            vec![(String::new(), s.expect.clone())]
        } else {
            cases
                .get(name)
                .unwrap_or_else(|| panic!("{name}: no cases"))
                .clone()
        };
        for (variant, source) in [
            (Variant::Accepted, &s.accepted),
            (Variant::Wrong, &s.wrong),
            (Variant::Crash, &s.crash),
            (Variant::Slow, &s.slow),
        ] {
            assert!(
                !source.trim().is_empty(),
                "{language} {name}: no {variant:?} solution"
            );
            for (stdin, expected) in &problem_cases {
                let program = Program {
                    language,
                    source: format!("{}{source}", s.setup),
                    stdin: stdin.clone().into_bytes(),
                    // Slow runs get a short wall clock; the rest a long one, as they share the
                    // cores with the slow ones.
                    limits: Some(Limits {
                        wall_time: Duration::from_millis(if variant == Variant::Slow {
                            1000
                        } else {
                            20_000
                        }),
                        memory_bytes: 256 << 20,
                        ..Limits::default()
                    }),
                    ..Program::default()
                };
                let (name, expected) = (name.clone(), expected.clone());
                let slots = slots.clone();
                runs.spawn(async move {
                    let _slot = slots.acquire_owned().await.unwrap();
                    let out = SANDBOX.run(program).await.unwrap();
                    (name, variant, expected, out)
                });
            }
        }
    }
    let mut outcomes: BTreeMap<(String, String), Vec<(String, Outcome)>> = BTreeMap::new();
    while let Some(done) = runs.join_next().await {
        let (name, variant, expected, out) = done.unwrap();
        outcomes
            .entry((name, format!("{variant:?}")))
            .or_default()
            .push((expected, out));
    }
    let mut failures = Vec::new();
    for ((name, variant), runs) in &outcomes {
        let passes = |(expected, out): &&(String, Outcome)| {
            out.status == Status::Ok && tokens(&out.stdout) == tokens(expected)
        };
        let statuses: Vec<Status> = runs.iter().map(|(_, o)| o.status).collect();
        let ok = match variant.as_str() {
            "Accepted" => runs.iter().all(|r| passes(&r)),
            "Wrong" => {
                statuses.iter().all(|s| *s == Status::Ok) && !runs.iter().all(|r| passes(&r))
            }
            "Crash" => {
                statuses.contains(&Status::RuntimeError)
                    && !statuses.contains(&Status::Timeout)
                    && !runs.iter().all(|r| passes(&r))
            }
            _ => statuses.contains(&Status::Timeout),
        };
        if !ok {
            let detail: Vec<String> = runs
                .iter()
                .map(|(expected, o)| {
                    format!(
                        "{} stdout {:?} (expected {:?}) stderr {:?} {:?}",
                        o.status,
                        o.stdout.chars().take(120).collect::<String>(),
                        expected.chars().take(120).collect::<String>(),
                        o.stderr.chars().take(200).collect::<String>(),
                        o.message
                            .as_deref()
                            .map(|m| m.chars().take(120).collect::<String>())
                    )
                })
                .collect();
            failures.push(format!(
                "{language} {name} {variant}: {}",
                detail.join(" | ")
            ));
        }
    }
    eprintln!(
        "{language}: {} problems, {} variants judged, {} wrong",
        problems.len(),
        outcomes.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn lua_problems_are_judged_correctly() {
    if installed(Language::Lua) {
        judge(Language::Lua, problems("lua.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn javascript_problems_are_judged_correctly() {
    if installed(Language::JavaScript) {
        judge(Language::JavaScript, problems("js.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn typescript_problems_are_judged_correctly() {
    if installed(Language::TypeScript) {
        judge(Language::TypeScript, problems("ts.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn ruby_problems_are_judged_correctly() {
    if installed(Language::Ruby) {
        judge(Language::Ruby, problems("ruby.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn go_problems_are_judged_correctly() {
    if installed(Language::Go) {
        judge(Language::Go, problems("go.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn sql_problems_are_judged_correctly() {
    if installed(Language::Sql) {
        judge(Language::Sql, problems("sql.txt"), &BTreeMap::new()).await;
    }
}
