//! The SandboxFusion-compatible `/run_code` and the hostile-code suite through the API, with the
//! service answering other requests meanwhile.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::TestService;

async fn run_code(s: &TestService, body: Value) -> Value {
    let (status, v) = s.post("/run_code", &body).await;
    assert_eq!(status, 200, "{v}");
    v
}

#[tokio::test]
async fn run_code_speaks_sandbox_fusion() {
    let s = TestService::start().await;
    let v = run_code(
        &s,
        json!({"code": "print(input()[::-1])", "language": "python", "stdin": "abc\n"}),
    )
    .await;
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["message"], "");
    assert_eq!(v["compile_result"], Value::Null);
    assert_eq!(v["run_result"]["status"], "Finished");
    assert_eq!(v["run_result"]["return_code"], 0);
    assert_eq!(v["run_result"]["stdout"], "cba\n");
    assert_eq!(v["run_result"]["stderr"], "");
    assert!(v["run_result"]["execution_time"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["files"], json!({}));

    let v = run_code(&s, json!({"code": "import sys\nprint('x', file=sys.stderr)\nsys.exit(2)", "language": "python"})).await;
    assert_eq!(
        (
            v["status"].as_str(),
            v["run_result"]["return_code"].as_i64()
        ),
        (Some("Failed"), Some(2)),
        "{v}"
    );
    assert_eq!(v["run_result"]["stderr"], "x\n");

    let v = run_code(
        &s,
        json!({"code": "while True: pass", "language": "python", "run_timeout": 1}),
    )
    .await;
    assert_eq!(
        (v["status"].as_str(), v["run_result"]["status"].as_str()),
        (Some("Failed"), Some("TimeLimitExceeded")),
        "{v}"
    );

    let v = run_code(
        &s,
        json!({"code": "x = bytearray(200 << 20)", "language": "python", "memory_limit_MB": 64}),
    )
    .await;
    assert_eq!(
        (v["status"].as_str(), v["sandbox_status"].as_str()),
        (Some("Failed"), Some("memory_limit")),
        "{v}"
    );

    // Files arrive base64-encoded in the working directory and can be fetched back.
    let v = run_code(&s, json!({"code": "print(open('in/data.txt').read())", "language": "python",
                                "files": {"in/data.txt": "aGVsbG8="}, "fetch_files": ["in/data.txt"]})).await;
    assert_eq!(v["run_result"]["stdout"], "hello\n", "{v}");
    assert_eq!(v["files"]["in/data.txt"], "aGVsbG8=");

    let (status, err) = s
        .post("/run_code", &json!({"code": "1", "language": "brainfuck"}))
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("language")),
        "{err}"
    );
    let (status, err) = s
        .post(
            "/run_code",
            &json!({"code": "1", "language": "python", "files": {"a": "!!"}}),
        )
        .await;
    assert_eq!(status, 422, "{err}");
    let (status, err) = s
        .post(
            "/run_code",
            &json!({"code": "1", "language": "python", "run_timeout": -1}),
        )
        .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (422, Some("run_timeout")),
        "{err}"
    );
}

#[tokio::test]
async fn run_code_compiles_cpp_when_the_toolchain_is_installed() {
    let s = TestService::start().await;
    let code = "#include <cstdio>\nint main(){int a,b; if(scanf(\"%d %d\",&a,&b)!=2) return 1; printf(\"%d\\n\", a*b); return 0;}";
    let v = run_code(&s, json!({"code": code, "language": "cpp", "stdin": "6 7"})).await;
    if v["status"] == "SandboxError" || v["error"].is_object() {
        eprintln!("no C++ toolchain: {v}");
        return;
    }
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["compile_result"]["status"], "Finished");
    assert_eq!(v["compile_result"]["return_code"], 0);
    assert_eq!(v["run_result"]["stdout"], "42\n");
    // Issue 56: a program that throws and catches prints the right answer.
    let code = "#include <bits/stdc++.h>\nint main(){ long a, b; std::cin >> a >> b; try { if (b == 7) throw std::runtime_error(\"seven\"); } catch (const std::exception& e) { std::cout << e.what() << ' '; } std::cout << a * b << std::endl; }";
    let v = run_code(&s, json!({"code": code, "language": "cpp", "stdin": "6 7"})).await;
    if v["status"] != "Success" && std::env::var_os("CI").is_none() {
        eprintln!("C++ exceptions not built here (scripts/setup 21): {v}");
    } else {
        assert_eq!(v["run_result"]["stdout"], "seven 42\n", "{v}");
    }
    let v = run_code(&s, json!({"code": "int main( {", "language": "cpp"})).await;
    assert_eq!(
        (v["status"].as_str(), v["run_result"].is_null()),
        (Some("Failed"), true),
        "{v}"
    );
    assert_ne!(v["compile_result"]["return_code"], 0);
}

#[tokio::test]
async fn hostile_programs_are_contained_while_the_service_keeps_answering() {
    let s = TestService::start().await;
    let hostile: &[(&str, &str, &str)] = &[
        ("infinite loop", "while True:\n    pass", "timeout"),
        ("sleep", "import time\ntime.sleep(1e9)", "timeout"),
        (
            "memory bomb",
            "x = []\nwhile True:\n    x.append(bytearray(1 << 20))",
            "memory_limit",
        ),
        (
            "huge output",
            "while True:\n    print('y' * 1000)",
            "output_limit",
        ),
        (
            "stderr spam",
            "import sys\nwhile True:\n    sys.stderr.write('e' * 1000)",
            "output_limit",
        ),
        (
            "deep recursion",
            "def f(n):\n    return f(n + 1)\nf(0)",
            "runtime_error",
        ),
        (
            "read /etc/passwd",
            "print(open('/etc/passwd').read())",
            "runtime_error",
        ),
        (
            "write a file",
            "open('/tmp/hacrl-pwned', 'w').write('x')",
            "runtime_error",
        ),
        (
            "socket",
            "import socket\nsocket.create_connection(('127.0.0.1', 5432))",
            "runtime_error",
        ),
        (
            "ctypes",
            "import ctypes\nctypes.CDLL(None)",
            "runtime_error",
        ),
        (
            "subprocess",
            "import subprocess\nsubprocess.run(['id'])",
            "runtime_error",
        ),
        ("fork", "import os\nos.fork()", "runtime_error"),
    ];
    let runs = hostile.iter().map(|(name, code, _)| {
        // A fuel budget, not the 2 s clock, ends them: seven Python runtimes starting side by side
        // on a loaded 2-core machine took over 2 s of wall time before failing as they should
        // (seen while other builds ran), and the verdict must not depend on load.
        let body = json!({"code": code, "language": "python", "run_timeout": 2,
                          "fuel_limit": 5_000_000_000u64, "memory_limit_MB": 128});
        let s = &s;
        async move { (*name, run_code(s, body).await) }
    });
    let all = futures::future::join_all(runs);
    // Meanwhile the service answers other requests promptly.
    let probe = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut worst = Duration::ZERO;
        for _ in 0..10 {
            let t = Instant::now();
            let (status, _) = s.get("/healthz").await;
            assert_eq!(status, 200);
            let (status, v) = s
                .post(
                    "/v1/verify/math",
                    &json!({"reference": "4", "response": "\\boxed{4}"}),
                )
                .await;
            assert_eq!((status, v["correct"].as_bool()), (200, Some(true)));
            worst = worst.max(t.elapsed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        worst
    };
    let (results, worst) = tokio::join!(all, probe);
    for ((name, v), (_, _, expected)) in results.iter().zip(hostile) {
        assert_eq!(v["sandbox_status"].as_str(), Some(*expected), "{name}: {v}");
        assert_ne!(v["status"], "Success", "{name}: {v}");
        assert!(
            !v["run_result"]["stdout"]
                .as_str()
                .unwrap_or("")
                .contains("root:"),
            "{name}"
        );
    }
    assert!(!std::path::Path::new("/tmp/hacrl-pwned").exists());
    eprintln!("slowest health+math round trip during the hostile runs: {worst:?}");
    assert!(
        worst < Duration::from_secs(5),
        "service stalled for {worst:?} while sandboxing"
    );

    // And a sandboxed program submitted after the storm runs normally.
    let v = run_code(
        &s,
        json!({"code": "print(sum(range(10)))", "language": "python"}),
    )
    .await;
    assert_eq!(v["run_result"]["stdout"], "45\n", "{v}");
}

/// A run the sandbox cannot admit in time is answered 504 with `Retry-After` — the status verl's
/// SandboxFusion client retries — not left to hang until the client's own timeout.
#[tokio::test]
async fn a_run_that_cannot_be_admitted_in_time_gets_504_with_retry_after() {
    let s = TestService::start_with_sandbox(verifier::code::JudgeConfig {
        max_runs: Some(1),
        ..verifier::code::JudgeConfig::default()
    })
    .await;
    // One loop takes the only run slot for 15 s.
    let hog = {
        let (url, http) = (s.url.clone(), s.http.clone());
        tokio::spawn(async move {
            let body = json!({"code": "while True:\n    pass\n", "language": "python",
                              "run_timeout": 15});
            http.post(format!("{url}/run_code"))
                .json(&body)
                .send()
                .await
                .unwrap();
        })
    };
    let mut answer = None;
    for _ in 0..50 {
        let r = s
            .http
            .post(format!("{}/run_code", s.url))
            .json(&json!({"code": "print(1)", "language": "python"}))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let retry = r
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string());
        let body: Value = r.json().await.unwrap();
        // Until the loop holds the slot, print(1) may still get it.
        if status != 200 {
            answer = Some((status, retry, body));
            break;
        }
    }
    hog.abort();
    let (status, retry, body) = answer.expect("print(1) always got the slot the loop holds");
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "sandbox_busy", "{body}");
    let wait: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!(wait >= 1, "Retry-After {wait}");
    // The service itself stays responsive meanwhile.
    assert_eq!(s.get("/healthz").await.0, 200);
}

#[tokio::test]
async fn a_seed_fixes_what_a_program_draws_and_a_bad_one_is_refused() {
    let s = TestService::start().await;
    let code = "import random, time\nprint(random.random(), int(time.time()))";
    let stdout = |v: &Value| {
        v["run_result"]["stdout"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let mut seen = Vec::new();
    for seed in [json!(null), json!(0), json!(7), json!(7)] {
        let v = run_code(
            &s,
            json!({"code": code, "language": "python", "seed": seed}),
        )
        .await;
        assert_eq!(v["status"], "Success", "{v}");
        seen.push(stdout(&v));
    }
    assert_eq!(seen[0], seen[1], "no seed is seed 0");
    assert_eq!(seen[2], seen[3], "one seed, one draw");
    assert_ne!(seen[1], seen[2], "another seed, other numbers");
    assert!(seen[0].trim_end().ends_with(" 1767225600"), "{}", seen[0]);
    let (status, v) = s
        .post(
            "/run_code",
            &json!({"code": code, "language": "python", "seed": -1}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["field"].as_str()),
        (422, Some("seed")),
        "{v}"
    );
}
