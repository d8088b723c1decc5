//! Judged correctly, per interpreted language and for Go and Rust: 30 solved problems each
//! (tests/data/interpreted), every problem with an accepted solution, a wrong one, a crashing
//! one and a slow one. Lua, JavaScript, TypeScript, Ruby, Go and Rust solve the same stdin/stdout
//! problems (cases.json, expected outputs from independent Python references in cases_gen.py);
//! SQL has its own, each a script with its expected output.
//!
//! Each Go solution in go.txt is a whole program, but a Go build costs seconds (Go's compiler,
//! then Cranelift on ~2.6 MB of wasm: ~8 s each on 2 loaded cores, 16 min for 120 sources), so
//! the judge joins each variant's 30 programs into one (`go_bundle`: every program's `main` and
//! top-level names renamed per problem, a `main` that runs the one named in the file `problem`):
//! four builds, each program still judged on its own cases with its own stdin. Rust's are
//! joined the same way, each program a module (`rust_bundle`).

mod interpreted;
mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use sandbox::{Language, Limits, Outcome, Program, ProgramFile, Status};
use support::{SANDBOX, installed};

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

impl Solutions {
    /// The solution of `variant`.
    fn of(&self, variant: Variant) -> &str {
        match variant {
            Variant::Accepted => &self.accepted,
            Variant::Wrong => &self.wrong,
            Variant::Crash => &self.crash,
            Variant::Slow => &self.slow,
        }
    }
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
            let bundle = match language {
                Language::Go => Some(go_bundle(&problems, variant)),
                Language::Rust => Some(rust_bundle(&problems, variant)),
                _ => None,
            };
            let (source, files) = match bundle {
                Some(bundle) => (
                    bundle,
                    vec![ProgramFile {
                        path: "problem".into(),
                        contents: name.clone().into_bytes(),
                    }],
                ),
                None => (format!("{}{source}", s.setup), Vec::new()),
            };
            for (stdin, expected) in &problem_cases {
                let program = Program {
                    language,
                    source: source.clone(),
                    stdin: stdin.clone().into_bytes(),
                    files: files.clone(),
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

/// One Go program holding every problem's `variant` solution: each solution's imports joined,
/// its `main` and other top-level names suffixed with its problem's name, and a `main` that
/// runs the solution named in the file `problem`.
fn go_bundle(problems: &BTreeMap<String, Solutions>, variant: Variant) -> String {
    let mut imports = std::collections::BTreeSet::from(["\"os\"".to_string()]);
    let mut bodies = String::new();
    let mut cases = String::new();
    for (name, s) in problems {
        let source = s.of(variant);
        let mut body = String::new();
        let mut in_imports = false;
        for line in source.lines() {
            let t = line.trim();
            if t == "package main" {
            } else if t == "import (" {
                in_imports = true;
            } else if in_imports && t == ")" {
                in_imports = false;
            } else if in_imports {
                imports.insert(t.to_string());
            } else if let Some(single) = t.strip_prefix("import ") {
                imports.insert(single.to_string());
            } else {
                body.push_str(line);
                body.push('\n');
            }
        }
        // Top-level declarations start a line: `func f(`, `const c`, `var v`.
        let mut names: Vec<String> = Vec::new();
        for line in body.lines() {
            for keyword in ["func ", "const ", "var "] {
                if let Some(rest) = line.strip_prefix(keyword) {
                    let ident: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.push(ident);
                }
            }
        }
        for ident in names {
            body = rename(&body, &ident, &format!("{ident}_{name}"));
        }
        bodies.push_str(&body);
        cases.push_str(&format!("\tcase \"{name}\":\n\t\tmain_{name}()\n"));
    }
    let imports: String = imports.iter().map(|i| format!("\t{i}\n")).collect();
    format!(
        "package main\n\nimport (\n{imports})\n\n{bodies}\nfunc main() {{\n\tname, _ := os.ReadFile(\"problem\")\n\tswitch string(name) {{\n{cases}\tdefault:\n\t\tpanic(\"no problem \" + string(name))\n\t}}\n}}\n"
    )
}

/// One Rust program holding every problem's `variant` solution, each in a module `p<name>`
/// whose `main` is made public, and a `main` that runs the one named in the file `problem`.
fn rust_bundle(problems: &BTreeMap<String, Solutions>, variant: Variant) -> String {
    let mut modules = String::new();
    let mut arms = String::new();
    for (name, s) in problems {
        let body: String = (s.of(variant).lines())
            .map(|line| match line.strip_prefix("fn main()") {
                Some(rest) => format!("pub fn main(){rest}\n"),
                None => format!("{line}\n"),
            })
            .collect();
        modules.push_str(&format!("mod p{name} {{\n{body}}}\n\n"));
        arms.push_str(&format!("        \"{name}\" => p{name}::main(),\n"));
    }
    format!(
        "{modules}fn main() {{\n    let name = std::fs::read_to_string(\"problem\").unwrap();\n    match name.as_str() {{\n{arms}        other => panic!(\"no problem {{other}}\"),\n    }}\n}}\n"
    )
}

/// `text` with every whole-word `from` replaced by `to`.
fn rename(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
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
async fn rust_problems_are_judged_correctly() {
    if installed(Language::Rust) {
        judge(Language::Rust, problems("rust.txt"), &cases()).await;
    }
}

#[tokio::test]
async fn sql_problems_are_judged_correctly() {
    if installed(Language::Sql) {
        judge(Language::Sql, problems("sql.txt"), &BTreeMap::new()).await;
    }
}
