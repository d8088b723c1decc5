//! `/run_code` parity with SandboxFusion as verl's client reads it, through the real service:
//! the output limit as a failed run, files written by the program and fetched back, C++ sleeps
//! and clocks under the time limit, and back-pressure (503 + `Retry-After`, queue metrics).

mod support;

use serde_json::{Value, json};
use support::TestService;

async fn run_code(s: &TestService, body: Value) -> Value {
    let (status, v) = s.post("/run_code", &body).await;
    assert_eq!(status, 200, "{v}");
    v
}

/// Whether the service compiles C/C++ here (the toolchain and its confinement are installed).
async fn compiles(s: &TestService) -> bool {
    let (status, v) = s
        .post(
            "/run_code",
            &json!({"code": "int main(){}", "language": "cpp"}),
        )
        .await;
    let ok = status == 200 && v["status"] == "Success";
    if !ok {
        eprintln!("no confined C/C++ toolchain here ({status} {v}): C/C++ parity checks skipped");
    }
    ok
}

#[tokio::test]
async fn run_code_at_the_output_limit_is_a_failed_run_for_sandbox_fusion_clients() {
    let s = TestService::start().await;
    let mut programs = vec![("python", "while True:\n    print('y' * 1000)")];
    if compiles(&s).await {
        // C ignores failed writes and would exit 0 if the sandbox let it.
        programs.push((
            "c",
            "#include <stdio.h>\nint main(void){ for (;;) puts(\"yyyy\"); }",
        ));
    }
    for (language, code) in programs {
        let v = run_code(&s, json!({"code": code, "language": language})).await;
        assert_eq!(v["status"], "Failed", "{language}: {v}");
        assert_eq!(v["sandbox_status"], "output_limit", "{language}: {v}");
        // verl's client counts `Error` as a runtime error; `Finished` with 0 read as unknown.
        assert_eq!(v["run_result"]["status"], "Error", "{language}: {v}");
        assert_eq!(
            v["run_result"]["return_code"],
            Value::Null,
            "{language}: {v}"
        );
    }
}

#[tokio::test]
async fn run_code_programs_write_files_and_fetch_files_returns_them() {
    let s = TestService::start().await;
    let python = "import os\nos.makedirs('sub')\nopen('out.txt', 'w').write(open('in.txt').read().upper())\nopen('sub/x.bin', 'wb').write(bytes([0, 255]))";
    let mut programs = vec![("python", python)];
    if compiles(&s).await {
        programs.push(("cpp", "#include <bits/stdc++.h>\nusing namespace std;\nint main(){ ifstream in(\"in.txt\"); string w; in >> w; for (auto &c : w) c = toupper(c); ofstream(\"out.txt\") << w; FILE *f = fopen(\"sub/x.bin\", \"wb\"); if (!f) return 1; fputc(0, f); fputc(255, f); fclose(f); }"));
    }
    for (language, code) in programs {
        let files = if language == "python" {
            json!({"in.txt": "aGVsbG8="})
        } else {
            json!({"in.txt": "aGVsbG8=", "sub/keep": ""})
        };
        let v = run_code(
            &s,
            json!({"code": code, "language": language, "files": files,
                   "fetch_files": ["out.txt", "./sub/x.bin", "missing.txt"]}),
        )
        .await;
        assert_eq!(v["status"], "Success", "{language}: {v}");
        // Base64 as SandboxFusion returns them, keyed as requested; missing files left out.
        assert_eq!(
            v["files"],
            json!({"out.txt": "SEVMTE8=", "./sub/x.bin": "AP8="}),
            "{language}: {v}"
        );
    }
    // Every run starts in a fresh, empty folder.
    let v = run_code(
        &s,
        json!({"code": "import os\nprint(os.listdir('.'))", "language": "python"}),
    )
    .await;
    assert_eq!(v["run_result"]["stdout"], "[]\n", "{v}");

    // Writing past the folder's bound ends the run at the output limit.
    let v = run_code(
        &s,
        json!({"code": "open('big', 'wb').write(b'x' * (64 << 20))", "language": "python", "fetch_files": ["big"]}),
    )
    .await;
    assert_eq!(
        (v["sandbox_status"].as_str(), &v["files"]),
        (Some("output_limit"), &json!({})),
        "{v}"
    );

    for (body, field) in [
        (
            json!({"code": "1", "language": "python", "fetch_files": ["ok", "../x"]}),
            "fetch_files[1]",
        ),
        (
            json!({"code": "1", "language": "python", "files": {"/etc/x": ""}}),
            "files./etc/x",
        ),
    ] {
        let (status, err) = s.post("/run_code", &body).await;
        assert_eq!(
            (status, err["error"]["field"].as_str()),
            (422, Some(field)),
            "{err}"
        );
    }
}

#[tokio::test]
async fn run_code_cpp_sleeps_measures_time_and_still_times_out() {
    let s = TestService::start().await;
    if !compiles(&s).await {
        return;
    }
    let code = "#include <bits/stdc++.h>\nusing namespace std;\nint main(){ auto t0 = chrono::steady_clock::now(); this_thread::sleep_for(chrono::milliseconds(50)); auto ms = chrono::duration_cast<chrono::milliseconds>(chrono::steady_clock::now() - t0).count(); cout << (ms >= 50 ? \"slept\" : \"early\") << endl; }";
    let v = run_code(&s, json!({"code": code, "language": "cpp"})).await;
    assert_eq!(
        (v["status"].as_str(), v["run_result"]["stdout"].as_str()),
        (Some("Success"), Some("slept\n")),
        "{v}"
    );
    let code = "#include <thread>\n#include <chrono>\nint main(){ std::this_thread::sleep_for(std::chrono::hours(1)); }";
    let v = run_code(
        &s,
        json!({"code": code, "language": "cpp", "run_timeout": 1}),
    )
    .await;
    assert_eq!(
        (v["status"].as_str(), v["run_result"]["status"].as_str()),
        (Some("Failed"), Some("TimeLimitExceeded")),
        "{v}"
    );
}

/// A service whose sandbox runs one program at a time (no database traffic on `/run_code`).
async fn one_slot_service() -> String {
    let config = verifier::code::JudgeConfig {
        concurrency: Some(1),
        ..Default::default()
    };
    let judge = verifier::code::Judge::new(&config).expect("sandbox starts");
    let db = verifier::pool::connect_lazy(
        &support::database_url(),
        1,
        std::time::Duration::from_secs(2),
    )
    .expect("lazy pool");
    let state = verifier::app::AppState::new(db, judge, verifier::app::Limits::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { verifier::app::serve(listener, state).await.unwrap() });
    url
}

#[tokio::test]
async fn run_code_answers_503_with_retry_after_when_the_queue_outlasts_its_budget() {
    let url = one_slot_service().await;
    let http = reqwest::Client::new();
    // The only slot is held for 20 s by a program that never ends.
    let blocker = {
        let (http, url) = (http.clone(), url.clone());
        tokio::spawn(async move {
            http.post(format!("{url}/run_code"))
                .json(&json!({"code": "while True: pass", "language": "python", "run_timeout": 20}))
                .send()
                .await
        })
    };
    // Probes with a 0.4 s budget: the first ones may run before the blocker takes the slot;
    // once it holds it, a probe is refused instead of waiting 20 s.
    let probe = json!({"code": "print(1)", "language": "python", "run_timeout": 0.2, "compile_timeout": 0.2});
    let refused = loop {
        assert!(
            !blocker.is_finished(),
            "no probe was refused while the slot was held"
        );
        let r = http
            .post(format!("{url}/run_code"))
            .json(&probe)
            .send()
            .await
            .unwrap();
        if r.status() == 503 {
            break r;
        }
        assert_eq!(r.status(), 200);
    };
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After in whole seconds");
    assert!(retry_after >= 1);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "sandbox_busy", "{body}");
    blocker.abort();

    let metrics = support::metrics_text(&url).await;
    for series in [
        "verifier_sandbox_queue_depth ",
        "verifier_sandbox_queue_wait_seconds_bucket{le=\"0.1\"}",
        "verifier_sandbox_queue_wait_seconds_count",
        "verifier_sandbox_runs_total{runtime=\"none\",status=\"busy\"}",
    ] {
        assert!(
            metrics.contains(series),
            "{series} missing from:\n{metrics}"
        );
    }
}
