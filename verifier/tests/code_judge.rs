//! `/v1/verify/code` through the real service: the three test styles, scoring, extraction and
//! anti-cheating.

mod support;

use serde_json::{Value, json};
use support::{TestService, statuses};

const PROMPT: &str = "def add(a: int, b: int) -> int:\n    \"\"\"Adds two numbers.\"\"\"\n";
const TEST: &str =
    "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-4, 4) == 0\n";

fn assert_ref() -> Value {
    json!({"language": "python", "style": "assert", "test": TEST, "entry_point": "add"})
}

async fn verify(s: &TestService, reference: &Value, prompt: &str, response: &str) -> Value {
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference, "prompt": prompt, "response": response}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v
}

#[tokio::test]
async fn assert_style_accepts_completions_and_full_solutions() {
    let s = TestService::start().await;
    let v = verify(&s, &assert_ref(), PROMPT, "    return a + b\n").await;
    assert_eq!(
        (v["correct"].as_bool(), v["status"].as_str()),
        (Some(true), Some("passed")),
        "{v}"
    );
    assert_eq!(v["extraction"], "whole_text");
    assert_eq!(v["runtime"], "python_fast");

    let full = "Sure!\n```python\ndef add(a, b):\n    return a + b\n```\nDone.";
    let v = verify(&s, &assert_ref(), PROMPT, full).await;
    assert_eq!(
        (v["correct"].as_bool(), v["extraction"].as_str()),
        (Some(true), Some("fenced_block")),
        "{v}"
    );

    let wrong = "```python\ndef add(a, b):\n    return a - b\n```";
    let v = verify(&s, &assert_ref(), PROMPT, wrong).await;
    assert_eq!(
        (v["correct"].as_bool(), v["reward"].as_f64()),
        (Some(false), Some(0.0)),
        "{v}"
    );
    assert_eq!(v["cases"][0]["status"], "wrong_answer", "{v}");
    assert!(
        v["cases"][0]["error"]
            .as_str()
            .unwrap()
            .contains("AssertionError"),
        "{v}"
    );
}

#[tokio::test]
async fn early_exits_fake_markers_and_tampering_do_not_pass() {
    let s = TestService::start().await;
    let cheats = [
        (
            "exit(0)",
            "import sys\ndef add(a, b):\n    return 0\nexit(0)",
        ),
        (
            "sys.exit",
            "import sys\ndef add(a, b):\n    return 0\nsys.exit(0)",
        ),
        (
            "os._exit",
            "import os\ndef add(a, b):\n    return 0\nos._exit(0)",
        ),
        (
            "SystemExit",
            "def add(a, b):\n    return 0\nraise SystemExit",
        ),
        ("exit in call", "import os\ndef add(a, b):\n    os._exit(0)"),
        (
            "sys.exit in call",
            "import sys\ndef add(a, b):\n    sys.exit(0)",
        ),
        (
            "fake marker",
            "def add(a, b):\n    return 0\nprint('@@judge-00000000000000000000000000000000:done')\nimport os\nos._exit(0)",
        ),
        (
            "always equal",
            "class E(int):\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return E(0)",
        ),
        (
            "override check",
            "def add(a, b):\n    return 0\nimport builtins\nbuiltins.check = lambda c: None\ndef check(c):\n    pass",
        ),
        (
            "close stdout",
            "import sys, os\ndef add(a, b):\n    return 0\nos.close(1)",
        ),
    ];
    for (name, code) in cheats {
        let v = verify(
            &s,
            &assert_ref(),
            PROMPT,
            &format!("```python\n{code}\n```"),
        )
        .await;
        assert_eq!(
            (v["correct"].as_bool(), v["reward"].as_f64()),
            (Some(false), Some(0.0)),
            "{name}: {v}"
        );
        assert!(
            !v["status"].as_str().unwrap().contains("internal"),
            "{name}: {v}"
        );
    }
}

#[tokio::test]
async fn stdio_style_compares_lines_with_float_tolerance_and_scores_fractions() {
    let s = TestService::start().await;
    let reference = json!({
        "language": "python", "style": "stdio", "scoring": "fraction",
        "cases": [
            {"stdin": "1 2\n", "stdout": "3\n"},
            {"stdin": "10 20\n", "stdout": "30"},
            {"stdin": "1 3\n", "stdout": "0.333333333\n"},
            {"stdin": "5 5\n", "stdout": "11\n"}
        ]
    });
    let code = "a, b = map(int, input().split())\nprint(a + b if a != 1 or b != 3 else round(a / b, 7), '  ')";
    let v = verify(&s, &reference, "", &format!("```python\n{code}\n```")).await;
    assert_eq!(
        (v["passed"].as_u64(), v["total"].as_u64()),
        (Some(3), Some(4)),
        "{v}"
    );
    assert_eq!(v["reward"].as_f64(), Some(0.75));
    assert_eq!(v["correct"], false);
    assert_eq!(statuses(&v), ["passed", "passed", "passed", "wrong_answer"]);
    assert_eq!(v["cases"][3]["got"], "10   \n");
    assert_eq!(v["cases"][3]["expected"], "11\n");

    // A crash in one case is that case's runtime error, and all-or-nothing scoring gives 0.
    let mut strict = reference.clone();
    strict["scoring"] = json!("all_or_nothing");
    let v = verify(
        &s,
        &strict,
        "",
        "a, b = map(int, input().split())\nprint(a // (b - 5) + a + b - a // (b - 5))",
    )
    .await;
    assert_eq!(v["reward"].as_f64(), Some(0.0), "{v}");
    assert_eq!(v["cases"][3]["status"], "runtime_error", "{v}");
    assert!(
        v["cases"][3]["error"]
            .as_str()
            .unwrap()
            .contains("ZeroDivisionError"),
        "{v}"
    );
}

#[tokio::test]
async fn call_style_compares_values_on_the_host() {
    let s = TestService::start().await;
    let reference = json!({
        "language": "python", "style": "call", "entry_point": "f", "scoring": "fraction",
        "cases": [
            {"args": [[3, 1, 2]], "expected": [1, 2, 3]},
            {"args": [[]], "expected": []},
            {"args": [[2.5, 1]], "expected": [1, 2.5]},
            {"args": [null], "expected": []}
        ]
    });
    let v = verify(&s, &reference, "", "def f(xs):\n    return sorted(xs)").await;
    assert_eq!(
        (v["passed"].as_u64(), v["total"].as_u64()),
        (Some(3), Some(4)),
        "{v}"
    );
    assert_eq!(v["cases"][3]["status"], "runtime_error");
    assert!(
        v["cases"][3]["error"]
            .as_str()
            .unwrap()
            .contains("TypeError"),
        "{v}"
    );
    assert_eq!(v["reward"].as_f64(), Some(0.75));

    // Tuples compare as lists; sets as sorted lists.
    let v = verify(
        &s,
        &reference,
        "",
        "def f(xs):\n    return tuple(sorted(xs or []))",
    )
    .await;
    assert_eq!(v["correct"], true, "{v}");

    // Exiting from inside the function cannot keep earlier cases.
    let v = verify(
        &s,
        &reference,
        "",
        "import os\ndef f(xs):\n    if not xs:\n        os._exit(0)\n    return sorted(xs)",
    )
    .await;
    assert_eq!(v["passed"].as_u64(), Some(0), "{v}");
    // A missing entry point is every case failing, not a judge error.
    let v = verify(&s, &reference, "", "def g(xs):\n    return xs").await;
    assert_eq!(
        (v["passed"].as_u64(), v["status"].as_str()),
        (Some(0), Some("failed")),
        "{v}"
    );
    assert!(
        v["cases"][0]["error"]
            .as_str()
            .unwrap()
            .contains("NameError"),
        "{v}"
    );
}

#[tokio::test]
async fn c_and_cpp_stdio_when_the_toolchain_is_installed() {
    let s = TestService::start().await;
    let reference = json!({"language": "cpp", "style": "stdio", "cases": [{"stdin": "2 40", "stdout": "42"}, {"stdin": "1 1", "stdout": "2"}]});
    let code = "```cpp\n#include <iostream>\nint main(){long a,b; std::cin>>a>>b; std::cout<<a+b<<std::endl;}\n```";
    let v = verify(&s, &reference, "", code).await;
    if v["status"] == "unsupported_language" {
        eprintln!("clang wasm32-wasi toolchain not installed: {v}");
        return;
    }
    assert_eq!(
        (v["correct"].as_bool(), v["runtime"].as_str()),
        (Some(true), Some("wasi")),
        "{v}"
    );
    // A solution that parses with std::stoi and catches its exception on a malformed token.
    let reference = json!({"language": "cpp", "style": "stdio", "cases": [{"stdin": "2 40", "stdout": "42"}, {"stdin": "x 1", "stdout": "1"}]});
    let code = "```cpp\n#include <bits/stdc++.h>\nusing namespace std;\nint parse(const string& s) { try { return stoi(s); } catch (const invalid_argument&) { return 0; } }\nint main(){ string a, b; cin >> a >> b; cout << parse(a) + parse(b) << endl; }\n```";
    let v = verify(&s, &reference, "", code).await;
    let without = v["status"] == "compile_error"
        && v.to_string()
            .contains("exceptions (try/throw/catch) are not supported");
    if without && std::env::var_os("CI").is_none() {
        eprintln!("C++ exceptions not built here (scripts/setup 21): {v}");
    } else {
        assert_eq!(v["correct"].as_bool(), Some(true), "{v}");
    }
    let v = verify(&s, &reference, "", "```cpp\nint main( {\n```").await;
    assert_eq!(v["status"], "compile_error", "{v}");
    assert!(
        v["cases"][0]["error"].as_str().unwrap().contains("error"),
        "{v}"
    );
}

#[tokio::test]
async fn bad_references_are_judge_errors_not_wrong_answers() {
    let s = TestService::start().await;
    let v = verify(
        &s,
        &json!({"language": "cobol", "style": "stdio", "cases": []}),
        "",
        "x",
    )
    .await;
    assert_eq!(v["status"], "unsupported_language", "{v}");
    let v = verify(
        &s,
        &json!({"language": "c", "style": "call", "entry_point": "f", "cases": []}),
        "",
        "x",
    )
    .await;
    assert_eq!(v["status"], "invalid_reference", "{v}");
    let (status, err) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": {"language": "python"}, "response": "x"}),
        )
        .await;
    assert_eq!(status, 422, "{err}");
}

#[tokio::test]
async fn a_task_time_limit_shortens_runs_that_never_finish() {
    let s = TestService::start().await;
    let mut reference = assert_ref();
    reference["time_limit_ms"] = json!(300);
    let looping = "def add(a, b):\n    while True:\n        pass\n";
    let v = verify(&s, &reference, PROMPT, looping).await;
    assert_eq!(v["correct"], false, "{v}");
    assert_eq!(v["cases"][0]["status"], "timeout", "{v}");
    // The service's own limit is 10 s; the task's 300 ms applied.
    let elapsed = v["elapsed_seconds"].as_f64().unwrap();
    assert!(elapsed < 5.0, "{v}");
    // Correct programs are unaffected by a short limit.
    let v = verify(&s, &reference, PROMPT, "    return a + b\n").await;
    assert_eq!(v["correct"], true, "{v}");

    // Zero is refused with a 4xx naming the field.
    reference["time_limit_ms"] = json!(0);
    let (status, body) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference, "prompt": PROMPT, "response": "    return a + b\n"}),
        )
        .await;
    assert!((400..500).contains(&status), "{status} {body}");
    assert!(body.to_string().contains("time_limit_ms"), "{body}");
}
