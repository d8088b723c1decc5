//! Special judges: a task's checker decides stdio cases with more than one right output, in
//! testlib's convention, in the real sandbox (C++ checkers against our `testlib.h` with real
//! clang, Python checkers), and a checker that fails is a `checker_error`, never the program's.

mod support;

use serde_json::{Value, json};
use support::{TestService, statuses};
use verifier::code::{CodeReference, CodeVerdict, Judge, JudgeConfig};

use sandbox::{Language, Program, ProgramFile, RunError};

/// "Print two integers whose sum is N": any pair is right, so the expected output is just one of
/// many.
const CASES: [(&str, &str); 3] = [("10\n", "0 10\n"), ("-5\n", "0 -5\n"), ("7\n", "0 7\n")];

/// Right, but not the reference's pair: exact comparison rejects it.
const RIGHT: &str = "```python\nn = int(input())\nprint(1, n - 1)\n```";
/// Wrong: the sum is off by one.
const WRONG: &str = "```python\nn = int(input())\nprint(1, n)\n```";
/// Not two numbers at all.
const JUNK: &str = "```python\nprint('x y')\n```";
/// Fails before printing: the checker has nothing to judge.
const FAILS: &str = "```python\nimport sys\nsys.exit(2)\n```";

/// The C++ checker, on our testlib.h.
const TESTLIB_CHECKER: &str = r#"#include "testlib.h"

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long a = ouf.readLong(-1000000000LL, 1000000000LL, "a");
    long long b = ouf.readLong(-1000000000LL, 1000000000LL, "b");
    ans.readLong();
    ans.readLong();
    if (a + b != n) {
        quitf(_wa, "%lld + %lld = %lld, not %lld", a, b, a + b, n);
    }
    quitf(_ok, "%lld + %lld = %lld", a, b, n);
}
"#;

/// The same checker in Python.
const PYTHON_CHECKER: &str = r#"import sys
assert sys.argv == ["checker", "input.txt", "output.txt", "answer.txt"], sys.argv
n = int(open(sys.argv[1]).read())
out = open(sys.argv[2]).read().split()
ans = open(sys.argv[3]).read().split()
assert len(ans) == 2
if len(out) != 2 or not all(t.lstrip("-").isdigit() for t in out):
    print("expected two integers, found", out, file=sys.stderr)
    sys.exit(1)
a, b = map(int, out)
if a + b != n:
    print(f"{a} + {b} != {n}", file=sys.stderr)
    sys.exit(1)
print("ok", file=sys.stderr)
"#;

fn reference(checker: Option<Value>) -> Value {
    let cases: Vec<Value> = CASES
        .iter()
        .map(|(stdin, stdout)| json!({"stdin": stdin, "stdout": stdout}))
        .collect();
    let mut r = json!({"language": "python", "style": "stdio", "cases": cases});
    if let Some(c) = checker {
        r["checker"] = c;
    }
    r
}

fn checker(language: &str, source: &str) -> Value {
    json!({"language": language, "source": source})
}

fn judge() -> Judge {
    Judge::new(&JudgeConfig::default()).expect("sandbox starts")
}

async fn verdict(judge: &Judge, reference: &Value, response: &str) -> (CodeVerdict, Value) {
    let reference: CodeReference = serde_json::from_value(reference.clone()).unwrap();
    let v = judge.judge(&reference, "", response).await;
    let json = serde_json::to_value(&v).unwrap();
    (v, json)
}

/// Whether clang's wasm32-wasi toolchain is here; the C++ checks are skipped (saying so) when not.
fn clang(judge: &Judge) -> bool {
    let ok = judge.sandbox().supports(Language::Cpp);
    if !ok {
        eprintln!("clang wasm32-wasi toolchain not installed: C++ checker checks skipped");
    }
    ok
}

/// What the checker wrote of case `i` ("" when nothing).
fn said(v: &Value, i: usize) -> &str {
    v["cases"][i]["checker_message"].as_str().unwrap_or("")
}

/// What every checker judging the sum problem must do: accept another right pair, reject a wrong
/// one and junk with the checker's words kept, and stay out of cases the program did not finish.
async fn judges_the_sum_problem(judge: &Judge, checker: Value, says_wrong: &str) {
    let with = reference(Some(checker));
    let (_, exact) = verdict(judge, &reference(None), RIGHT).await;
    assert_eq!(
        (exact["status"].as_str(), exact["reward"].as_f64()),
        (Some("failed"), Some(0.0)),
        "exact comparison rejects the other right pair: {exact}"
    );

    let (v, right) = verdict(judge, &with, RIGHT).await;
    assert_eq!(
        (
            right["status"].as_str(),
            right["reward"].as_f64(),
            right["passed"].as_u64()
        ),
        (Some("passed"), Some(1.0), Some(3)),
        "{right}"
    );
    assert!(!v.internal_error());

    let (v, wrong) = verdict(judge, &with, WRONG).await;
    assert_eq!(
        (wrong["status"].as_str(), wrong["reward"].as_f64()),
        (Some("failed"), Some(0.0)),
        "{wrong}"
    );
    assert!(!v.internal_error(), "a rejection is the program's fault");
    assert_eq!(statuses(&wrong), ["wrong_answer"; 3], "{wrong}");
    let case = &wrong["cases"][0];
    assert_eq!(case["got"], "1 10\n", "{wrong}");
    assert_eq!(case["expected"], "0 10\n", "{wrong}");
    assert!(said(&wrong, 0).contains(says_wrong), "{wrong}");

    let (_, junk) = verdict(judge, &with, JUNK).await;
    assert_eq!(statuses(&junk), ["wrong_answer"; 3], "{junk}");

    let (_, failed) = verdict(judge, &with, FAILS).await;
    assert_eq!(statuses(&failed), ["runtime_error"; 3], "{failed}");
    assert!(
        failed["cases"][0].get("checker_message").is_none(),
        "the checker does not judge a run that failed: {failed}"
    );
}

#[tokio::test]
async fn a_testlib_checker_accepts_another_right_answer_and_rejects_wrong_ones() {
    let judge = judge();
    if !clang(&judge) {
        return;
    }
    judges_the_sum_problem(
        &judge,
        checker("cpp", TESTLIB_CHECKER),
        "wrong answer 1 + 10 = 11, not 10",
    )
    .await;
    let (_, junk) = verdict(
        &judge,
        &reference(Some(checker("cpp", TESTLIB_CHECKER))),
        JUNK,
    )
    .await;
    let unreadable = "wrong output format expected an integer, found \"x\"";
    assert!(said(&junk, 0).contains(unreadable), "{junk}");
    // `<testlib.h>` works as well as `"testlib.h"`; a pair followed by more is not accepted.
    let angled = TESTLIB_CHECKER.replace("\"testlib.h\"", "<testlib.h>");
    let extra = "```python\nn = int(input())\nprint(1, n - 1, 5)\n```";
    let (_, v) = verdict(&judge, &reference(Some(checker("c++", &angled))), extra).await;
    assert_eq!(statuses(&v), ["wrong_answer"; 3], "{v}");
    let extra_data = "extra information in the output file";
    assert!(said(&v, 0).contains(extra_data), "{v}");
}

#[tokio::test]
async fn a_python_checker_judges_the_same_problem_and_its_exceptions_are_its_own() {
    let judge = judge();
    judges_the_sum_problem(&judge, checker("python", PYTHON_CHECKER), "1 + 10 != 10").await;
    // With `from __future__` first, as Python requires.
    let future = format!("from __future__ import annotations\n{PYTHON_CHECKER}");
    let (_, v) = verdict(&judge, &reference(Some(checker("python", &future))), RIGHT).await;
    assert_eq!(v["status"], "passed", "{v}");
}

/// A checker that cannot decide makes the verdict a `checker_error`: reward 0, the judge's
/// failure, every case saying so, even for a right program.
fn assert_checker_error(name: &str, v: &CodeVerdict, json: &Value) {
    assert_eq!(
        (
            json["status"].as_str(),
            json["reward"].as_f64(),
            json["correct"].as_bool()
        ),
        (Some("checker_error"), Some(0.0), Some(false)),
        "{name}: {json}"
    );
    assert!(v.internal_error(), "{name}: a judge error");
    assert_eq!(statuses(json), ["checker_error"; 3], "{name}: {json}");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .starts_with("the checker failed on case"),
        "{name}: {json}"
    );
    assert!(
        json["cases"][0]["error"]
            .as_str()
            .unwrap()
            .starts_with("the checker failed"),
        "{name}: {json}"
    );
}

#[tokio::test]
async fn checkers_that_crash_loop_flood_or_fail_to_build_are_checker_errors() {
    let judge = judge();
    let mut hostile = vec![
        (
            "raises",
            json!({"language": "python", "source": "raise ValueError('boom')"}),
            "ValueError: boom",
        ),
        (
            "syntax error",
            json!({"language": "python", "source": "def (:\n"}),
            "SyntaxError",
        ),
        (
            "loops past its clock",
            json!({"language": "python", "source": "while True:\n    pass\n", "time_limit_ms": 300}),
            "",
        ),
        (
            "exits 2",
            json!({"language": "python", "source": "import sys\nsys.exit(2)"}),
            "",
        ),
    ];
    if clang(&judge) {
        hostile.extend([
            (
                "aborts",
                json!({"language": "cpp", "source": "#include <cstdlib>\nint main() { std::abort(); }"}),
                "",
            ),
            (
                "loops past its fuel",
                json!({"language": "cpp", "fuel_limit": 20_000_000,
                       "source": "int main() { volatile unsigned long x = 0; for (;;) x++; }"}),
                "",
            ),
            (
                "floods stdout",
                json!({"language": "cpp",
                       "source": "#include <cstdio>\nint main() { for (;;) std::fputs(\"flood \", stdout); }"}),
                "",
            ),
            (
                "exhausts its memory",
                json!({"language": "cpp", "memory_mb": 32,
                       "source": "#include <vector>\nint main() { std::vector<char *> v; for (;;) { char *p = new char[1 << 20]; p[0] = 1; v.push_back(p); } }"}),
                "",
            ),
            (
                "does not compile",
                json!({"language": "cpp", "source": "#include \"testlib.h\"\nint main( {"}),
                "error",
            ),
        ]);
    }
    for (name, checker, says) in hostile {
        let (v, json) = verdict(&judge, &reference(Some(checker)), RIGHT).await;
        assert_checker_error(name, &v, &json);
        assert!(said(&json, 0).contains(says), "{name}: {json}");
    }
    // Under fraction scoring too: the cases it did pass do not earn a reward.
    let mut r = reference(Some(json!({"language": "python",
        "source": "import sys\nif open('input.txt').read().strip() == '7':\n    raise RuntimeError('bug')\n"})));
    r["scoring"] = json!("fraction");
    let (v, json) = verdict(&judge, &r, RIGHT).await;
    assert_eq!(
        (
            json["status"].as_str(),
            json["reward"].as_f64(),
            json["passed"].as_u64()
        ),
        (Some("checker_error"), Some(0.0), Some(2)),
        "{json}"
    );
    assert!(v.internal_error());
    assert_eq!(statuses(&json), ["passed", "passed", "checker_error"]);
}

#[tokio::test]
async fn a_checker_is_for_stdio_tests_and_names_its_field_when_refused() {
    let judge = judge();
    let call = json!({"language": "python", "style": "call", "entry_point": "f",
        "cases": [{"args": [1], "expected": 1}], "checker": checker("python", PYTHON_CHECKER)});
    let (v, json) = verdict(&judge, &call, "def f(x):\n    return x\n").await;
    assert_eq!(json["status"], "invalid_reference", "{json}");
    assert!(
        json["message"].as_str().unwrap().starts_with("checker:"),
        "{json}"
    );
    assert!(v.internal_error());
    // Checkers in languages whose failures exit with status 1 ("rejected") are refused.
    let lua = reference(Some(checker("lua", "os.exit(0)")));
    let (_, json) = verdict(&judge, &lua, RIGHT).await;
    assert_eq!(json["status"], "invalid_reference", "{json}");
    let message = json["message"].as_str().unwrap();
    assert!(message.starts_with("checker.language:"), "{json}");
    // So is a language the sandbox does not know, at judging time as the reference's own.
    let cobol = reference(Some(checker("cobol", "")));
    let (_, json) = verdict(&judge, &cobol, RIGHT).await;
    assert_eq!(json["status"], "invalid_reference", "{json}");
    let message = json["message"].as_str().unwrap();
    assert!(
        message.starts_with("checker.language: unknown language \"cobol\""),
        "{json}"
    );

    // Malformed checker fields are refused where the reference is read, naming them.
    for (bad, field) in [
        (
            json!({"language": "cpp", "source": "", "time_limit_ms": 0}),
            "at least 1",
        ),
        (
            json!({"language": "cpp", "source": "", "flags": "-O0"}),
            "flags",
        ),
    ] {
        let err = serde_json::from_value::<CodeReference>(reference(Some(bad.clone())))
            .unwrap_err()
            .to_string();
        assert!(err.contains(field), "{bad}: {err}");
    }
}

#[tokio::test]
async fn arguments_reach_a_compiled_program_and_are_checked() {
    let judge = judge();
    if !clang(&judge) {
        return;
    }
    let source = "#include <cstdio>\nint main(int argc, char **argv) { for (int i = 0; i < argc; i++) std::printf(\"[%s]\", argv[i]); }";
    let program = |args: Vec<String>| Program {
        language: Language::Cpp,
        source: source.into(),
        args,
        ..Program::default()
    };
    let out = judge
        .sandbox()
        .run(program(vec![
            "input.txt".into(),
            "two words".into(),
            String::new(),
        ]))
        .await
        .unwrap();
    assert_eq!(out.stdout, "[main][input.txt][two words][]", "{out:?}");
    for (args, says) in [
        (vec!["a\0b".to_string()], "NUL"),
        (vec![String::new(); 257], "arguments"),
        (vec!["x".repeat(65 << 10)], "bytes"),
    ] {
        match judge.sandbox().run(program(args)).await {
            Err(RunError::InvalidProgram(m)) => assert!(m.contains(says), "{m}"),
            other => panic!("expected a refusal naming {says}, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_checker_compiles_once_across_judgements() {
    // A sandbox of its own, so that no other test's compiles are counted.
    let judge = Judge::new(&JudgeConfig {
        memory_mb: 320,
        ..JudgeConfig::default()
    })
    .expect("sandbox starts");
    if !clang(&judge) {
        return;
    }
    // A source no earlier run has cached on disk.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let source = format!("// {nonce}\n{TESTLIB_CHECKER}");
    let with = reference(Some(checker("cpp", &source)));
    let before = judge.sandbox().build_counts();
    let (_, first) = verdict(&judge, &with, RIGHT).await;
    let between = judge.sandbox().build_counts();
    let (_, second) = verdict(&judge, &with, WRONG).await;
    let after = judge.sandbox().build_counts();
    assert_eq!(
        (first["status"].as_str(), second["status"].as_str()),
        (Some("passed"), Some("failed"))
    );
    assert_eq!(
        between.compiles - before.compiles,
        1,
        "three cases, one compile"
    );
    assert_eq!(
        after.compiles, between.compiles,
        "the second judgement reuses the build"
    );
    // The checker's own run, as the judge makes it, says its build was reused.
    let files = ["10\n", "4 6\n", "0 10\n"]
        .into_iter()
        .zip(["input.txt", "output.txt", "answer.txt"])
        .map(|(text, path)| ProgramFile {
            path: path.into(),
            contents: text.into(),
        })
        .collect();
    let out = judge
        .sandbox()
        .run(Program {
            language: Language::Cpp,
            source,
            files,
            args: ["input.txt", "output.txt", "answer.txt"]
                .map(String::from)
                .to_vec(),
            ..Program::default()
        })
        .await
        .unwrap();
    assert_eq!(out.stderr, "ok 4 + 6 = 10\n", "{out:?}");
    assert!(out.compile.unwrap().cached);
}

/// A code task whose checker is Python (no toolchain needed), as a task file holds it.
fn task_line() -> Value {
    json!({"dataset": "special", "external_id": "sum-pair", "kind": "code",
           "prompt": "Print two integers whose sum is N.",
           "reference": reference(Some(checker("python", PYTHON_CHECKER)))})
}

#[tokio::test]
async fn checkers_travel_through_the_api_the_reward_route_and_imported_tasks() {
    let s = TestService::start().await;
    // The OpenAPI document states the field.
    let (_, doc) = s.get("/openapi.json").await;
    let schemas = &doc["components"]["schemas"];
    assert!(
        schemas["CodeReference"]
            .to_string()
            .contains("#/components/schemas/Checker"),
        "{}",
        schemas["CodeReference"]
    );
    for field in [
        "language",
        "source",
        "time_limit_ms",
        "fuel_limit",
        "memory_mb",
    ] {
        assert!(
            schemas["Checker"]["properties"].get(field).is_some(),
            "{field}: {}",
            schemas["Checker"]
        );
    }

    // /v1/verify/code: judged by the checker; a failing checker is a 200 with its verdict.
    let with = reference(Some(checker("python", PYTHON_CHECKER)));
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": with, "response": RIGHT}),
        )
        .await;
    assert_eq!((status, v["status"].as_str()), (200, Some("passed")), "{v}");
    let broken = reference(Some(checker("python", "raise SystemError('checker bug')")));
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": broken, "response": RIGHT}),
        )
        .await;
    assert_eq!(
        (status, v["status"].as_str()),
        (200, Some("checker_error")),
        "{v}"
    );

    // /v1/reward: the label carries the checker.
    let prompt = "Print two integers whose sum is N.\n";
    let (status, r) = s
        .post(
            "/v1/reward",
            &json!({"query": [format!("{prompt}{RIGHT}"), format!("{prompt}{RIGHT}")],
                    "prompts": [prompt, prompt], "labels": [with, broken]}),
        )
        .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["rewards"], json!([1.0, 0.0]), "{r}");
    assert_eq!(r["extra_logs"]["judge_error"], json!([0.0, 1.0]), "{r}");

    // `verifier import-tasks` reads the checker from a task file.
    let mut file = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{}\n", task_line()).as_bytes()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verifier"))
        .args([
            "import-tasks",
            file.path().to_str().unwrap(),
            "--dataset",
            "special",
        ])
        .env("DATABASE_URL", &s.db_url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (task, stored): (uuid::Uuid, Value) =
        sqlx::query_as("select id, reference from tasks where external_id = 'sum-pair'")
            .fetch_one(&s.db)
            .await
            .unwrap();
    assert_eq!(stored["checker"]["language"], "python", "{stored}");

    // The pool's task is judged by it; the rollout APIs show neither the expected output nor
    // the checker's words (which may quote it), the stored verdict keeps both.
    let agent = s.agent("special-judge").await;
    let rollout = |response: &str| {
        json!({"id": uuid::Uuid::now_v7(), "task_id": task, "agent_id": agent, "run": "sj",
               "step": 1, "response": response, "logprob_mean": -0.5})
    };
    let (status, body) = s
        .post(
            "/v1/rollouts",
            &json!({"rollouts": [rollout(RIGHT), rollout(WRONG)]}),
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
    let shown = body.to_string();
    assert!(
        !shown.contains("checker_message")
            && !shown.contains("!= 10")
            && !shown.contains("expected"),
        "{body}"
    );
    let kept: Value = sqlx::query_scalar("select verdict from rollouts where response = $1")
        .bind(WRONG)
        .fetch_one(&s.db)
        .await
        .unwrap();
    assert!(said(&kept, 0).contains("1 + 10 != 10"), "{kept}");
}

#[tokio::test]
async fn the_readme_example_task_is_judged_by_its_checker() {
    let judge = judge();
    if !clang(&judge) {
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let (_, after) = readme.split_once("<a id=\"special-judges\"></a>").unwrap();
    let block = after.split("```json\n").nth(1).unwrap();
    let task: Value = serde_json::from_str(block.split("```").next().unwrap()).unwrap();
    let other_pair = "```cpp\n#include <cstdio>\nint main() { long long n; std::scanf(\"%lld\", &n); std::printf(\"%lld 1\\n\", n - 1); }\n```";
    let (_, v) = verdict(&judge, &task["reference"], other_pair).await;
    assert_eq!(v["status"], "passed", "{v}");
    let off_by_one = other_pair.replace("n - 1", "n");
    let (_, v) = verdict(&judge, &task["reference"], &off_by_one).await;
    assert_eq!(statuses(&v), ["wrong_answer"; 2], "{v}");
}
