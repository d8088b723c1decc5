//! `/run_code` parity with SandboxFusion as verl's client reads it, through the real service:
//! the output limit as a failed run, files written by the program and fetched back, C++ sleeps
//! and clocks under the time limit, and a burst of endless loops answered as time limits
//! (admission metrics).

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

/// A burst of endless loops, several per core, each with its own connection as verl's client
/// sends them: all answered as time limits (SandboxFusion's wall-clock semantics, runs side by
/// side), none refused, and a quick program sent behind them is answered while they run.
#[tokio::test]
async fn run_code_answers_a_burst_of_endless_loops_as_time_limits_and_a_quick_program_at_once() {
    let s = TestService::start().await;
    let url = s.url.clone();
    let http = reqwest::Client::new();
    let loops: Vec<_> = (0..24)
        .map(|_| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move {
                let r = http
                    .post(format!("{url}/run_code"))
                    .json(&json!({"code": "while True: pass", "language": "python", "run_timeout": 3}))
                    .send()
                    .await
                    .unwrap();
                (r.status().as_u16(), r.json::<Value>().await.unwrap())
            })
        })
        .collect();
    let quick = run_code(&s, json!({"code": "print(6 * 7)", "language": "python"})).await;
    assert_eq!(
        (
            quick["status"].as_str(),
            quick["run_result"]["stdout"].as_str()
        ),
        (Some("Success"), Some("42\n")),
        "{quick}"
    );
    assert!(
        loops.iter().any(|l| !l.is_finished()),
        "the quick program was answered only after the loops"
    );
    for l in loops {
        let (status, v) = l.await.unwrap();
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            (v["status"].as_str(), v["run_result"]["status"].as_str()),
            (Some("Failed"), Some("TimeLimitExceeded")),
            "{v}"
        );
    }
    let metrics = support::metrics_text(&url).await;
    for series in [
        "verifier_sandbox_queue_depth ",
        "verifier_sandbox_running ",
        "verifier_sandbox_queue_wait_seconds_bucket{le=\"0.1\"}",
    ] {
        assert!(
            metrics.contains(series),
            "{series} missing from:\n{metrics}"
        );
    }
}
