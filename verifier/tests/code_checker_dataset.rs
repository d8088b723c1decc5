//! The special-judge data set (`data/special-judge`): problems of our own with more than one right
//! output, each judged in the real sandbox by its own checker (C++ on our `testlib.h`, or
//! Python). For every problem: a right solution whose output differs from the reference answer
//! passes with the checker and fails without it (exact comparison), a wrong one is rejected by
//! the checker, and the reference answer itself passes. Also hostile checkers the checker tests
//! (`code_checker.rs`) do not cover, and the task file through `verifier import-tasks`.

mod support;

use futures::StreamExt;
use serde_json::{Value, json};
use support::TestService;
use support::dataset::{self, Problem, response};
use support::statuses;
use verifier::code::{CodeReference, Judge, JudgeConfig};

use sandbox::Language;

const PROBLEMS: &str = include_str!("../../data/special-judge/problems.jsonl");
const SOLUTIONS: &str = include_str!("../../data/special-judge/solutions.jsonl");
const PROBLEMS_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/special-judge/problems.jsonl"
);

fn problems() -> Vec<Problem> {
    dataset::problems(PROBLEMS, SOLUTIONS)
}

/// A Python program that prints each case's expected answer: the reference answer as a
/// submission, so that the checker judges it like any output.
fn answer_printer(reference: &Value) -> String {
    let answers: serde_json::Map<String, Value> = reference["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["stdin"].as_str().unwrap().to_string(),
                c["stdout"].clone(),
            )
        })
        .collect();
    let literal = serde_json::to_string(&answers).unwrap();
    format!(
        "```python\nimport json, sys\nsys.stdout.write(json.loads({})[sys.stdin.read()])\n```",
        serde_json::to_string(&literal).unwrap()
    )
}

async fn judged(judge: &Judge, reference: &Value, response: &str) -> Value {
    let reference: CodeReference = serde_json::from_value(reference.clone()).unwrap();
    serde_json::to_value(judge.judge(&reference, "", response).await).unwrap()
}

/// Whether the verdict passed every case with reward 1.
fn passed(v: &Value) -> bool {
    v["status"] == "passed" && v["reward"] == 1.0
}

/// What is wrong with how one problem is judged (empty when nothing).
async fn judge_problem(judge: &Judge, p: &Problem) -> Vec<String> {
    let with = &p.task["reference"];
    let mut without = with.clone();
    without.as_object_mut().unwrap().remove("checker");
    let right = response(&p.solutions["right"]);
    let wrong = response(&p.solutions["wrong"]);
    let mut answer_reference = with.clone();
    answer_reference["language"] = json!("python");

    let mut failures = Vec::new();
    let mut fail = |what: &str, v: &Value| failures.push(format!("{}: {what}: {v}", p.id));

    let v = judged(judge, with, &right).await;
    if !passed(&v) {
        fail("the right solution is not accepted with the checker", &v);
    }
    let v = judged(judge, &without, &right).await;
    if v["status"] != "failed" || v["reward"] != 0.0 || !statuses(&v).contains(&"wrong_answer") {
        fail(
            "exact comparison (no checker) does not reject the right solution",
            &v,
        );
    }
    let v = judged(judge, with, &wrong).await;
    let cases = statuses(&v);
    if v["status"] != "failed"
        || v["reward"] != 0.0
        || !cases.contains(&"wrong_answer")
        || cases.contains(&"checker_error")
    {
        fail(
            "the wrong solution is not rejected (wrong_answer, no checker_error)",
            &v,
        );
    }
    let v = judged(judge, &answer_reference, &answer_printer(with)).await;
    if !passed(&v) {
        fail("the reference answer is not accepted by the checker", &v);
    }
    failures
}

/// Whether a problem needs clang's wasm32-wasi toolchain (a C++ checker or C++ solutions).
fn needs_clang(p: &Problem) -> bool {
    let reference = &p.task["reference"];
    reference["language"] == "cpp" || reference["checker"]["language"] == "cpp"
}

#[test]
fn the_set_is_as_its_readme_says() {
    let all = problems();
    assert!(all.len() >= 30, "{} problems", all.len());
    let mut ids: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "duplicate ids");
    let python_checkers = all
        .iter()
        .filter(|p| p.task["reference"]["checker"]["language"] == "python")
        .count();
    assert!(python_checkers >= 5, "{python_checkers} Python checkers");
    for p in &all {
        let reference = &p.task["reference"];
        assert!(
            reference["cases"].as_array().unwrap().len() >= 3,
            "{}",
            p.id
        );
        assert_eq!(reference["style"], "stdio", "{}", p.id);
        for which in ["right", "wrong"] {
            assert_eq!(
                p.solutions[which]["language"], reference["language"],
                "{} {which}: in the task's language",
                p.id
            );
        }
        // Every line is a task the importer takes as it is.
        serde_json::from_value::<CodeReference>(reference.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
    }
}

#[tokio::test]
async fn every_problem_accepts_its_other_right_answer_only_with_its_checker() {
    let judge = Judge::new(&JudgeConfig::default()).expect("sandbox starts");
    let clang = judge.sandbox().supports(Language::Cpp);
    let all = problems();
    let (run, skipped): (Vec<&Problem>, Vec<&Problem>) =
        all.iter().partition(|p| clang || !needs_clang(p));
    if !skipped.is_empty() {
        eprintln!(
            "clang wasm32-wasi toolchain not installed: {} problems skipped",
            skipped.len()
        );
    }
    // A few problems at a time: each judgement runs its cases side by side already, and a
    // cold start compiles every C++ program and checker once.
    let failures: Vec<String> = futures::stream::iter(&run)
        .map(|p| judge_problem(&judge, p))
        .buffer_unordered(3)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} problems misjudged:\n{}",
        failures.len(),
        run.len(),
        failures.join("\n")
    );
}

/// The sum-pair problem of `code_checker.rs`, with `checker`.
fn sum_pair(checker: Value) -> Value {
    json!({"language": "python", "style": "stdio",
           "cases": [{"stdin": "10\n", "stdout": "0 10\n"}, {"stdin": "-5\n", "stdout": "0 -5\n"}],
           "checker": checker})
}

const RIGHT: &str = "```python\nn = int(input())\nprint(1, n - 1)\n```";

/// What a hostile checker could print if it saw the host's files or environment.
const SECRETS: [&str; 5] = ["root:", "/bin/bash", "DATABASE_URL", "PATH=", "HOME="];

#[tokio::test]
async fn hostile_checkers_see_no_host_files_and_their_failures_are_checker_errors() {
    let judge = Judge::new(&JudgeConfig::default()).expect("sandbox starts");
    // Each accepts (so that the test fails, showing what it found) if it can read a host file;
    // otherwise it ends with a checker failure. Cases code_checker.rs already covers (a Python
    // loop, C++ loops, floods, memory bombs, crashes) are not repeated.
    let python_reader = r#"import os, sys
found = []
for path in ["/etc/passwd", "../../../../../../etc/passwd", "/proc/self/environ",
             "/proc/1/cmdline", "/root/.bashrc", "../output.txt", "/tmp"]:
    try:
        if os.path.isdir(path):
            found.append(f"{path}: {os.listdir(path)}")
        else:
            with open(path) as f:
                found.append(f"{path}: {f.read(300)}")
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
found += [f"{k}={v}" for k, v in os.environ.items() if k in ("PATH", "HOME", "DATABASE_URL")]
if found:
    print(found, file=sys.stderr)
    sys.exit(0)
sys.exit(3)
"#;
    let mut hostile = vec![
        (
            "reads host files (Python)",
            json!({"language": "python", "source": python_reader}),
        ),
        (
            "exhausts its memory (Python)",
            json!({"language": "python", "memory_mb": 64,
                   "source": "blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))\n"}),
        ),
        (
            "writes megabytes to stdout, then accepts (Python)",
            json!({"language": "python",
                   "source": "import sys\nsys.stdout.write('x' * (8 << 20))\nsys.exit(0)\n"}),
        ),
    ];
    if judge.sandbox().supports(Language::Cpp) {
        let cpp_reader = r#"#include "testlib.h"
#include <cstdio>
#include <cstdlib>

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    const char *paths[] = {"/etc/passwd", "../../../../../../etc/passwd", "/proc/self/environ",
                           "/root/.bashrc", "/etc/hostname"};
    for (const char *path : paths) {
        if (FILE *f = std::fopen(path, "r")) {
            char buffer[300] = {0};
            std::fread(buffer, 1, sizeof buffer - 1, f);
            quitf(_ok, "read %s: %s", path, buffer);
        }
    }
    for (const char *name : {"PATH", "HOME", "DATABASE_URL"})
        if (const char *value = std::getenv(name)) quitf(_ok, "%s=%s", name, value);
    quitf(_fail, "no host file could be opened");
}
"#;
        hostile.extend([
            (
                "reads host files (C++)",
                json!({"language": "cpp", "source": cpp_reader}),
            ),
            (
                "writes megabytes to stdout, then accepts (C++)",
                json!({"language": "cpp",
                       "source": "#include <cstdio>\n#include <string>\nint main() { std::string s(8 << 20, 'x'); std::fwrite(s.data(), 1, s.size(), stdout); }"}),
            ),
        ]);
    } else {
        eprintln!("clang wasm32-wasi toolchain not installed: C++ hostile checkers skipped");
    }
    for (name, checker) in hostile {
        let v = judged(&judge, &sum_pair(checker), RIGHT).await;
        assert_eq!(
            (v["status"].as_str(), v["reward"].as_f64()),
            (Some("checker_error"), Some(0.0)),
            "{name}: {v}"
        );
        assert_eq!(statuses(&v), ["checker_error"; 2], "{name}: {v}");
        let shown = v.to_string();
        for secret in SECRETS {
            assert!(!shown.contains(secret), "{name} leaked {secret:?}: {v}");
        }
        assert!(
            shown.len() < 64 << 10,
            "{name}: the verdict holds {} bytes",
            shown.len()
        );
    }
}

#[tokio::test]
async fn the_task_file_imports_and_its_tasks_score_rollouts() {
    let s = TestService::start().await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
        .args(["import-tasks", PROBLEMS_PATH, "--dataset", "special-judge"])
        .env("DATABASE_URL", &s.db_url)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count = problems().len();
    assert!(
        said.contains(&format!("{count} tasks, {count} created")),
        "{said}"
    );
    let stored: i64 = sqlx::query_scalar(
        "select count(*) from tasks where dataset = 'special-judge' and reference ? 'checker'",
    )
    .fetch_one(&s.db)
    .await
    .unwrap();
    assert_eq!(stored, count as i64);

    // A problem whose solutions and checker are Python: it needs no toolchain.
    let p = problems()
        .into_iter()
        .find(|p| p.id == "topological-order")
        .unwrap();
    assert_eq!(p.task["reference"]["checker"]["language"], "python");
    let (task, prompt): (uuid::Uuid, String) = sqlx::query_as(
        "select id, prompt from tasks where dataset = 'special-judge' and external_id = $1",
    )
    .bind(&p.id)
    .fetch_one(&s.db)
    .await
    .unwrap();
    let right = response(&p.solutions["right"]);
    let wrong = response(&p.solutions["wrong"]);

    // The pool's rollouts: scored by the stored checker.
    let agent = s.agent("special-judge-set").await;
    let rollout = |response: &str| {
        json!({"id": uuid::Uuid::now_v7(), "task_id": task, "agent_id": agent, "run": "sj-set",
               "step": 1, "response": response, "logprob_mean": -0.5})
    };
    let (status, body) = s
        .post(
            "/v1/rollouts",
            &json!({"rollouts": [rollout(&right), rollout(&wrong)]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let rewards: Vec<f64> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reward"].as_f64().unwrap())
        .collect();
    assert_eq!(rewards, [1.0, 0.0], "{body}");

    // The reward route, with the file's reference as the label.
    let (status, r) = s
        .post(
            "/v1/reward",
            &json!({"query": [format!("{prompt}\n{right}")], "prompts": [format!("{prompt}\n")],
                    "labels": [p.task["reference"]]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["rewards"], json!([1.0]), "{r}");
}

/// The median of `xs`, in milliseconds.
fn median_ms(mut xs: Vec<std::time::Duration>) -> f64 {
    xs.sort();
    xs[xs.len() / 2].as_secs_f64() * 1e3
}

/// Not a check: the figure of docs/benchmarks/languages.md ("Special judges: a checker's cost").
/// A cached checker's cost per case against the program's own run, both warm, on the set's
/// `two-sum-any` (its right C++ solution, its C++ testlib checker, and the same check in
/// Python), 20 cases of 200 numbers:
/// `cargo test --workspace --locked --test code_checker_dataset -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement, not a check; run it by name with --ignored --nocapture"]
async fn checker_cost_per_case() {
    use sandbox::{Program, ProgramFile};
    use std::time::{Duration, Instant};
    const CASES: usize = 20;
    const ROUNDS: usize = 9;
    let judge = Judge::new(&JudgeConfig::default()).expect("sandbox starts");
    assert!(
        judge.sandbox().supports(Language::Cpp),
        "needs the C++ toolchain"
    );
    let p = problems()
        .into_iter()
        .find(|p| p.id == "two-sum-any")
        .unwrap();
    let program = p.solutions["right"]["source"].as_str().unwrap().to_string();
    let cpp_checker = p.task["reference"]["checker"].clone();
    let python_checker = json!({"language": "python", "source": r#"import sys
d = list(map(int, open(sys.argv[1]).read().split()))
n, x, a = d[0], d[1], d[2:]
out = open(sys.argv[2]).read().split()
exists = open(sys.argv[3]).read().split()[0] != "-1"
if out == ["-1"]:
    sys.exit(1 if exists else 0)
i, j = map(int, out)
if not (1 <= i < j <= n and a[i - 1] + a[j - 1] == x):
    sys.exit(1)
"#});
    // 20 inputs with a pair each (splitmix-style numbers, fixed).
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let inputs: Vec<String> = (0..CASES)
        .map(|_| {
            let a: Vec<i64> = (0..200).map(|_| (next() % 1_000_000) as i64).collect();
            let x = a[(next() % 100) as usize] + a[100 + (next() % 100) as usize];
            let a: Vec<String> = a.iter().map(i64::to_string).collect();
            format!("200 {x}\n{}\n", a.join(" "))
        })
        .collect();
    // The expected outputs are the program's own, so that every arm passes every case.
    let run = |stdin: &str| Program {
        language: Language::Cpp,
        source: program.clone(),
        stdin: stdin.as_bytes().to_vec(),
        ..Program::default()
    };
    let mut cases = Vec::new();
    for stdin in &inputs {
        let out = judge.sandbox().run(run(stdin)).await.unwrap();
        cases.push(json!({"stdin": stdin, "stdout": out.stdout}));
    }
    let reference = |checker: Option<&Value>| {
        let mut r = json!({"language": "cpp", "style": "stdio", "cases": cases});
        if let Some(c) = checker {
            r["checker"] = c.clone();
        }
        r
    };
    let arms = [
        ("no checker (exact comparison)", reference(None)),
        ("C++ testlib checker", reference(Some(&cpp_checker))),
        ("Python checker", reference(Some(&python_checker))),
    ];
    let answer = format!("```cpp\n{program}```");
    // Whole judgements of the 20 cases (run side by side as the judge does), arms interleaved;
    // the first round warms the caches and is not counted.
    let mut wall: Vec<Vec<Duration>> = vec![Vec::new(); arms.len()];
    for round in 0..=ROUNDS {
        for (k, (name, r)) in arms.iter().enumerate() {
            let started = Instant::now();
            let v = judged(&judge, r, &answer).await;
            let took = started.elapsed();
            assert!(passed(&v), "{name}: {v}");
            if round > 0 {
                wall[k].push(took);
            }
        }
    }
    // One run at a time: the program on a case, and each checker on that case's files.
    let checker_run = |checker: &Value, case: usize| {
        let language = Language::parse(checker["language"].as_str().unwrap()).unwrap();
        // The program's own output is the answer too.
        let output = cases[case]["stdout"].as_str().unwrap();
        let files = [inputs[case].as_str(), output, output]
            .into_iter()
            .zip(["input.txt", "output.txt", "answer.txt"])
            .map(|(text, path)| ProgramFile {
                path: path.into(),
                contents: text.as_bytes().to_vec(),
            })
            .collect();
        let source = checker["source"].as_str().unwrap().to_string();
        let (source, args) = if language == Language::Python {
            let argv =
                "import sys\nsys.argv = ['checker', 'input.txt', 'output.txt', 'answer.txt']\n";
            (format!("{argv}{source}"), Vec::new())
        } else {
            (
                source,
                vec!["input.txt".into(), "output.txt".into(), "answer.txt".into()],
            )
        };
        Program {
            language,
            source,
            files,
            args,
            ..Program::default()
        }
    };
    let mut single: Vec<Vec<Duration>> = vec![Vec::new(); 3];
    for round in 0..=ROUNDS {
        for (case, stdin) in inputs.iter().enumerate() {
            let programs = [
                run(stdin),
                checker_run(&cpp_checker, case),
                checker_run(&python_checker, case),
            ];
            for (k, program) in programs.into_iter().enumerate() {
                let started = Instant::now();
                let out = judge.sandbox().run(program).await.unwrap();
                let took = started.elapsed();
                assert_eq!(out.status, sandbox::Status::Ok, "{out:?}");
                if round > 0 {
                    single[k].push(took);
                }
            }
        }
    }
    let base = median_ms(wall[0].clone());
    println!("judgement of {CASES} cases, median of {ROUNDS} (cached builds, warm):");
    for (k, (name, _)) in arms.iter().enumerate() {
        let ms = median_ms(wall[k].clone());
        println!("  {name:32} {ms:8.1} ms  {:.2}x", ms / base);
    }
    let run_ms = median_ms(single[0].clone());
    println!("one run at a time, median of {} runs:", ROUNDS * CASES);
    for (k, name) in [
        "the program on one case",
        "the C++ checker on it",
        "the Python checker on it",
    ]
    .into_iter()
    .enumerate()
    {
        let ms = median_ms(single[k].clone());
        println!("  {name:32} {ms:8.2} ms  {:.2}x", ms / run_ms);
    }
}

/// SandboxFusion's `/run_code` has no checker field, and verl's client (`check_correctness`)
/// compares stdout itself, with `==` after stripping newlines: the only SandboxFusion shape a
/// special judge fits is a client running the checker as a program of its own, the three files
/// in `files` (our `testlib.h` falls back to `input.txt output.txt answer.txt` without
/// arguments) and the verdict in `return_code`.
#[tokio::test]
async fn a_checker_runs_through_run_code_as_a_sandbox_fusion_client_would_send_it() {
    use base64::Engine;
    let s = TestService::start().await;
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let mut cases = vec![("topological-order", "3 2\n3 2\n2 1\n", "3 2 1\n", "1 2 3\n")];
    let judge = Judge::new(&JudgeConfig::default()).expect("sandbox starts");
    if judge.sandbox().supports(Language::Cpp) {
        cases.push(("two-sum-any", "5 10\n1 9 5 5 3\n", "3 4\n", "4 4\n"));
    } else {
        eprintln!("clang wasm32-wasi toolchain not installed: the C++ checker skipped");
    }
    for (id, stdin, right, wrong) in cases {
        let p = problems().into_iter().find(|p| p.id == id).unwrap();
        let checker = &p.task["reference"]["checker"];
        let answer = p.task["reference"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["stdin"] == stdin)
            .unwrap()["stdout"]
            .as_str()
            .unwrap()
            .to_string();
        let language = checker["language"].as_str().unwrap();
        // A Python checker reads its files from sys.argv, which /run_code does not set.
        let code = match language {
            "python" => format!(
                "import sys\nsys.argv = ['checker', 'input.txt', 'output.txt', 'answer.txt']\n{}",
                checker["source"].as_str().unwrap()
            ),
            _ => checker["source"].as_str().unwrap().to_string(),
        };
        for (output, code_wanted) in [(right, 0), (wrong, 1)] {
            let (status, v) = s
                .post(
                    "/run_code",
                    &json!({"code": code, "language": language,
                            "files": {"input.txt": b64(stdin), "output.txt": b64(output),
                                      "answer.txt": b64(&answer)}}),
                )
                .await;
            assert_eq!(status, 200, "{id}: {v}");
            assert_eq!(
                v["run_result"]["return_code"], code_wanted,
                "{id}, output {output:?}: {v}"
            );
        }
    }
}
