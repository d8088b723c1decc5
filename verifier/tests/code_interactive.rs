//! Interactive problems through the real service: the data set of our own
//! (`data/interactive`), each problem's right, wrong, slow and chatty solutions judged by
//! `/v1/verify/code` against its interactor in the sandbox; hostile interactors; a deadlock;
//! the reward route, `import-tasks` and the pool.

mod support;

use serde_json::{Value, json};
use support::TestService;
use support::dataset::{self, Problem, response};
use support::statuses;
use verifier::code::CodeReference;

const PROBLEMS: &str = include_str!("../../data/interactive/problems.jsonl");
const SOLUTIONS: &str = include_str!("../../data/interactive/solutions.jsonl");
const PROBLEMS_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/interactive/problems.jsonl"
);
const KINDS: [&str; 4] = ["right", "wrong", "slow", "chatty"];

fn problems() -> Vec<Problem> {
    dataset::problems(PROBLEMS, SOLUTIONS)
}

fn problem(id: &str) -> Problem {
    problems().into_iter().find(|p| p.id == id).unwrap()
}

/// The verdict of `/v1/verify/code` (always a 200: a judge error is a verdict too).
async fn verify(s: &TestService, reference: &Value, response: &str) -> Value {
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference, "response": response}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v
}

/// What is wrong with how one solution of a problem is judged (None when nothing).
fn misjudged(kind: &str, v: &Value) -> Option<String> {
    let cases = statuses(v);
    let failed = v["status"] == "failed" && v["reward"] == 0.0;
    let ok = match kind {
        "right" => v["status"] == "passed" && v["reward"] == 1.0,
        "wrong" | "chatty" => failed && cases.contains(&"wrong_answer"),
        "slow" => failed && cases.contains(&"timeout"),
        _ => unreachable!(),
    };
    // Only the program's own outcomes: the interactor never fails on its own data.
    let own = cases
        .iter()
        .all(|c| ["passed", "wrong_answer", "timeout"].contains(c));
    (!ok || !own).then(|| format!("{kind}: {v}"))
}

#[test]
fn the_set_is_as_its_readme_says() {
    let all = problems();
    assert!(all.len() >= 5, "{} problems", all.len());
    for p in &all {
        let reference = &p.task["reference"];
        assert!(
            reference["cases"].as_array().unwrap().len() >= 3,
            "{}",
            p.id
        );
        assert_eq!(reference["interactor"]["language"], "python", "{}", p.id);
        for kind in KINDS {
            assert_eq!(
                p.solutions[kind]["language"], reference["language"],
                "{} {kind}: in the task's language",
                p.id
            );
        }
        serde_json::from_value::<CodeReference>(reference.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
    }
}

#[tokio::test]
async fn every_solution_of_every_problem_is_judged_through_verify_code() {
    let s = TestService::start().await;
    let mut failures = Vec::new();
    // One judgement at a time: each runs its cases side by side already, and the right
    // solutions must not time out because the slow ones hold the cores.
    for p in problems() {
        for kind in KINDS {
            let v = verify(&s, &p.task["reference"], &response(&p.solutions[kind])).await;
            failures.extend(misjudged(kind, &v).map(|m| format!("{}: {m}", p.id)));
        }
    }
    assert!(failures.is_empty(), "misjudged:\n{}", failures.join("\n"));
}

/// A C version of the guessing game's interactor: compiled interactors get the files as
/// arguments and talk through stdio as Python ones do.
const C_INTERACTOR: &str = r#"#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc != 4 || strcmp(argv[1], "input.txt") || strcmp(argv[2], "output.txt")
        || strcmp(argv[3], "answer.txt")) return 3;
    FILE *in = fopen(argv[1], "r");
    long n, x, y;
    if (!in || fscanf(in, "%ld %ld", &n, &x) != 2) return 3;
    printf("%ld\n", n);
    fflush(stdout);
    char op[4];
    for (int q = 0; q <= 32 && scanf("%3s %ld", op, &y) == 2; q++) {
        if (op[0] == '!') {
            fprintf(stderr, y == x ? "found\n" : "answered %ld\n", y);
            return y == x ? 0 : 1;
        }
        printf("%s\n", x < y ? "<" : x > y ? ">" : "=");
        fflush(stdout);
    }
    fprintf(stderr, "no answer\n");
    return 1;
}
"#;

/// The same in C++ on our testlib.h: `registerInteraction`, `ouf` reading the program's output
/// as it comes, `tout`.
const TESTLIB_INTERACTOR: &str = r#"#include "testlib.h"

int main(int argc, char *argv[]) {
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    long long x = inf.readLong();
    std::printf("%lld\n", n);
    std::fflush(stdout);
    for (int queries = 0;; queries++) {
        std::string op = ouf.readToken();
        long long y = ouf.readLong(1, n, "y");
        if (op == "!") {
            if (y != x) quitf(_wa, "answered %lld, the number was %lld", y, x);
            tout << queries << std::endl;
            quitf(_ok, "found %lld in %d queries", x, queries);
        }
        if (op != "?") quitf(_wa, "expected ? or !, found %s", op.c_str());
        if (queries == 32) quitf(_wa, "more than 32 queries");
        std::printf("%s\n", x < y ? "<" : x > y ? ">" : "=");
        std::fflush(stdout);
    }
}
"#;

#[tokio::test]
async fn c_and_testlib_interactors_judge_as_the_python_one_does() {
    let s = TestService::start().await;
    let p = problem("guess-number");
    for (language, source) in [("c", C_INTERACTOR), ("cpp", TESTLIB_INTERACTOR)] {
        let mut reference = p.task["reference"].clone();
        reference["interactor"] = json!({"language": language, "source": source});
        let right = verify(&s, &reference, &response(&p.solutions["right"])).await;
        if right["status"] == "unsupported_language" {
            eprintln!("no {language} toolchain: skipped ({right})");
            continue;
        }
        assert_eq!(right["status"], "passed", "{language}: {right}");
        for kind in ["wrong", "chatty"] {
            let v = verify(&s, &reference, &response(&p.solutions[kind])).await;
            assert!(misjudged(kind, &v).is_none(), "{language} {kind}: {v}");
        }
    }
}

/// What a hostile interactor could print if it saw the host's files or environment.
const SECRETS: [&str; 4] = ["root:", "/bin/bash", "DATABASE_URL", "PATH="];

#[tokio::test]
async fn hostile_interactors_leak_nothing_and_are_interactor_failures() {
    let s = TestService::start().await;
    let p = problem("guess-number");
    let right = response(&p.solutions["right"]);
    // It prints what it finds to its stderr: the verdict's checker_message.
    let reader = r#"import os, sys
found = []
for path in ["/etc/passwd", "../../../../etc/passwd", "/proc/self/environ", "/root/.bashrc"]:
    try:
        if os.path.isdir(path):
            found.append(f"{path}: {os.listdir(path)}")
        else:
            with open(path) as f:
                found.append(f"{path}: {f.read(300)}")
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
found += [f"{k}={v}" for k, v in os.environ.items()]
print(found, file=sys.stderr)
sys.exit(2)
"#;
    let hostile = [
        (
            "reads host files",
            json!({"language": "python", "source": reader}),
        ),
        (
            "loops",
            json!({"language": "python", "source": "while True:\n    pass\n"}),
        ),
        (
            "loops while the program waits, on a longer clock than the program's",
            json!({"language": "python", "source": "while True:\n    pass\n", "time_limit_ms": 2500}),
        ),
        (
            "exhausts its memory",
            json!({"language": "python", "memory_mb": 64,
                   "source": "x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n"}),
        ),
        (
            "floods its stderr",
            json!({"language": "python",
                   "source": "import sys\nwhile True:\n    sys.stderr.write('x' * 4096)\n"}),
        ),
        (
            "feeds the program garbage, then fails",
            json!({"language": "python", "source": "import sys\nprint('garbage', flush=True)\nsys.stdin.readline()\nsys.exit(2)\n"}),
        ),
        (
            "raises",
            json!({"language": "python", "source": "raise ValueError('interactor bug')"}),
        ),
        (
            "does not compile",
            json!({"language": "cpp", "source": "int main( {"}),
        ),
    ];
    let mut reference = p.task["reference"].clone();
    reference["time_limit_ms"] = json!(1000);
    for (name, interactor) in hostile {
        let mut r = reference.clone();
        r["interactor"] = interactor;
        let v = verify(&s, &r, &right).await;
        if name == "does not compile" && v["status"] == "unsupported_language" {
            continue;
        }
        assert_eq!(
            (v["status"].as_str(), v["reward"].as_f64()),
            (Some("checker_error"), Some(0.0)),
            "{name}: {v}"
        );
        assert!(
            statuses(&v).iter().all(|c| *c == "checker_error"),
            "{name}: {v}"
        );
        let shown = v.to_string();
        for secret in SECRETS {
            assert!(!shown.contains(secret), "{name} found {secret}: {v}");
        }
    }
}

#[tokio::test]
async fn a_deadlock_is_the_programs_timeout_and_says_who_was_waiting() {
    let s = TestService::start().await;
    let p = problem("guess-number");
    let mut reference = p.task["reference"].clone();
    reference["time_limit_ms"] = json!(800);
    // Reads n, then waits for a reply to a query it never asked.
    let stuck = "```python\nn = int(input())\nreply = input()\n```";
    let v = verify(&s, &reference, stuck).await;
    assert_eq!(v["status"], "failed", "{v}");
    for case in v["cases"].as_array().unwrap() {
        assert_eq!(case["status"], "timeout", "{v}");
        let waiting = case["waiting"].as_str().unwrap_or_default();
        assert!(["program", "interactor"].contains(&waiting), "{v}");
        if waiting == "program" {
            assert!(case["error"].as_str().unwrap().contains("flush"), "{v}");
        }
    }
}

#[tokio::test]
async fn an_interactor_is_for_stdio_tests_without_a_checker() {
    let s = TestService::start().await;
    let interactor = json!({"language": "python", "source": "print(1)"});
    let both = json!({"language": "python", "style": "stdio",
        "cases": [{"stdin": "1\n", "stdout": "1\n"}], "interactor": interactor,
        "checker": {"language": "python", "source": "pass"}});
    let call = json!({"language": "python", "style": "call", "entry_point": "f",
        "cases": [{"args": [1], "expected": 1}], "interactor": interactor});
    let unknown = json!({"language": "python", "style": "stdio",
        "cases": [{"stdin": "1\n", "stdout": "1\n"}],
        "interactor": {"language": "cobol", "source": ""}});
    for (reference, says) in [
        (both, "not both"),
        (call, "stdio"),
        (unknown, "interactor.language"),
    ] {
        let v = verify(&s, &reference, "```python\nprint(1)\n```").await;
        assert_eq!(v["status"], "invalid_reference", "{v}");
        assert!(v["message"].as_str().unwrap().contains(says), "{v}");
    }
}

#[tokio::test]
async fn interactors_travel_through_the_api_the_reward_route_and_imported_tasks() {
    let s = TestService::start().await;
    // The OpenAPI document states the fields.
    let (_, doc) = s.get("/openapi.json").await;
    let schemas = &doc["components"]["schemas"];
    let reference = schemas["CodeReference"].to_string();
    assert!(
        reference.contains("\"interactor\"") && reference.contains("#/components/schemas/Checker"),
        "{reference}"
    );
    assert!(
        schemas["CaseVerdict"]["properties"]
            .get("waiting")
            .is_some(),
        "{}",
        schemas["CaseVerdict"]
    );

    // /v1/reward: the label carries the interactor.
    let p = problem("guess-number");
    let reference = &p.task["reference"];
    let prompt = p.task["prompt"].as_str().unwrap();
    let (right, wrong) = (
        response(&p.solutions["right"]),
        response(&p.solutions["wrong"]),
    );
    let (status, r) = s
        .post(
            "/v1/reward",
            &json!({"query": [format!("{prompt}{right}"), format!("{prompt}{wrong}")],
                    "prompts": [prompt, prompt], "labels": [reference, reference]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["rewards"], json!([1.0, 0.0]), "{r}");

    // `verifier import-tasks` reads the set's task file.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
        .args(["import-tasks", PROBLEMS_PATH, "--dataset", "interactive"])
        .env("DATABASE_URL", &s.db_url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (task, stored): (uuid::Uuid, Value) =
        sqlx::query_as("select id, reference from tasks where external_id = 'guess-number'")
            .fetch_one(&s.db)
            .await
            .unwrap();
    assert_eq!(stored["interactor"]["language"], "python", "{stored}");

    // The pool's task is judged by it; the rollout APIs hide what the interactor said, the
    // stored verdict keeps it.
    let agent = s.agent("interactive").await;
    let rollout = |response: &str| {
        json!({"id": uuid::Uuid::now_v7(), "task_id": task, "agent_id": agent, "run": "ia",
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
    assert!(!body.to_string().contains("checker_message"), "{body}");
    let kept: Value = sqlx::query_scalar("select verdict from rollouts where response = $1")
        .bind(&wrong)
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert!(kept.to_string().contains("more than 32 queries"), "{kept}");
}

/// The interactor's replies to a right solution, as one stdin: what a plain stdio run of the
/// same program reads without waiting for anyone.
fn transcript(id: &str, case: &str) -> String {
    let data: Vec<&str> = case.split_whitespace().collect();
    let mut replies = vec![data[0].to_string()];
    match id {
        "guess-number" => {
            let (n, x): (u64, u64) = (data[0].parse().unwrap(), data[1].parse().unwrap());
            let (mut lo, mut hi) = (1, n);
            loop {
                let mid = (lo + hi) / 2;
                replies.push(match mid.cmp(&x) {
                    std::cmp::Ordering::Equal => break replies.push("=".into()),
                    std::cmp::Ordering::Greater => "<".into(),
                    std::cmp::Ordering::Less => ">".into(),
                });
                if mid > x {
                    hi = mid - 1;
                } else {
                    lo = mid + 1;
                }
            }
        }
        "hidden-bits" => {
            let s = data[1].as_bytes();
            let zeros = s.iter().filter(|&&b| b == b'0').count();
            replies.push(zeros.to_string());
            replies.extend(
                s.iter()
                    .map(|&b| if b == b'1' { zeros + 1 } else { zeros - 1 })
                    .map(|agree| agree.to_string()),
            );
        }
        _ => unreachable!(),
    }
    replies.join("\n") + "\n"
}

/// What an interactive run costs against a plain stdio run of the same program, in the
/// sandbox, one run at a time, the arms interleaved: the program alone on the interactor's
/// replies as its stdin, the interactor alone on the program's queries as its stdin, and the
/// two talking through the pipes. Run with
/// `cargo test --workspace --locked --test code_interactive -- --ignored --nocapture interaction_cost`.
#[tokio::test]
#[ignore = "a measurement, for docs/benchmarks/languages.md"]
async fn interaction_cost() {
    use sandbox::{Language, Program, ProgramFile, Status};
    use std::time::{Duration, Instant};
    use verifier::code::{Judge, JudgeConfig};
    const ROUNDS: usize = 30;
    let judge = Judge::new(&JudgeConfig::default()).expect("sandbox starts");
    let sandbox = judge.sandbox();
    let bits: String = (0..200)
        .map(|i| if (i * i) % 7 < 3 { '1' } else { '0' })
        .collect();
    let arms = [
        ("guess-number", "1000000000 999999999".to_string()),
        ("hidden-bits", format!("200 {bits}")),
    ];
    println!(
        "| problem (program) | round trips | program alone | interactor alone | interactive | \
         ratio to the program | ratio to both alone |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (id, case) in arms {
        let p = problem(id);
        let language = p.task["reference"]["language"].as_str().unwrap();
        let replies = transcript(id, &case);
        let program = Program {
            language: Language::parse(language).unwrap(),
            source: p.solutions["right"]["source"].as_str().unwrap().into(),
            stdin: replies.clone().into_bytes(),
            ..Program::default()
        };
        let queries = sandbox.run(program.clone()).await.unwrap().stdout;
        // The interactor as the judge runs it, less the wrapper that maps its exit status.
        let interactor = Program {
            files: vec![ProgramFile {
                path: "input.txt".into(),
                contents: format!("{case}\n").into_bytes(),
            }],
            stdin: queries.into_bytes(),
            ..Program::python(format!(
                "import sys\nsys.argv = ['interactor', 'input.txt']\n{}",
                p.task["reference"]["interactor"]["source"]
                    .as_str()
                    .unwrap()
            ))
        };
        let mut took: [Vec<Duration>; 3] = Default::default();
        // The first round warms the caches (the build, the runtimes' pages) and is not counted.
        for round in 0..=ROUNDS {
            let timed = |started: Instant, k: usize, took: &mut [Vec<Duration>; 3]| {
                if round > 0 {
                    took[k].push(started.elapsed());
                }
            };
            let started = Instant::now();
            let alone = sandbox.run(program.clone()).await.unwrap();
            timed(started, 0, &mut took);
            let started = Instant::now();
            let judged = sandbox.run(interactor.clone()).await.unwrap();
            timed(started, 1, &mut took);
            let started = Instant::now();
            let both = sandbox
                .run_interactive(interactor.clone(), program.clone(), None)
                .await
                .unwrap();
            timed(started, 2, &mut took);
            let accepted = both
                .interactor
                .is_some_and(|i| i.outcome.status == Status::Ok);
            assert!(
                alone.status == Status::Ok && judged.status == Status::Ok && accepted,
                "{id}: {alone:?} {judged:?}"
            );
        }
        let [program_ms, interactor_ms, both_ms] = took.map(|mut t| {
            t.sort();
            t[t.len() / 2].as_secs_f64() * 1e3
        });
        println!(
            "| {id} ({language}) | {} | {program_ms:.2} ms | {interactor_ms:.2} ms | \
             {both_ms:.2} ms | **{:.1}×** | {:.2}× |",
            replies.lines().count() - 1,
            both_ms / program_ms,
            both_ms / (program_ms + interactor_ms)
        );
    }
}
