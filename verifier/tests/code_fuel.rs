//! `fuel_limit`: verdicts judged by a counted CPU budget (wasm fuel) come out the same alone and
//! beside a burst of infinite loops, where a wall-clock limit would depend on the load.

mod support;

use serde_json::{Value, json};
use support::TestService;
use verifier::code::JudgeConfig;

/// About a second of CPU in the sandbox's Python.
const PROGRAM: &str = "s = 0\nfor i in range(3_000_000):\n    s += i\nprint(s)\n";

fn reference(fuel: u64) -> Value {
    json!({"language": "python", "style": "stdio", "fuel_limit": fuel,
           "cases": [{"stdin": "", "stdout": "4499998500000"}]})
}

async fn verdict(s: &TestService, fuel: u64) -> (String, String) {
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference(fuel), "response": PROGRAM}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let case = &v["cases"][0];
    (
        case["status"].as_str().unwrap().to_string(),
        case["error"].as_str().unwrap_or("").to_string(),
    )
}

#[tokio::test]
async fn a_fuel_budget_gives_the_same_verdict_alone_and_beside_a_hundred_infinite_loops() {
    let s = TestService::start_with_sandbox(JudgeConfig {
        time_limit_ms: 2_000,
        ..JudgeConfig::default()
    })
    .await;
    // The smallest power-of-two budget that suffices, alone: `enough` passes, half of it runs out.
    let mut enough = 1u64 << 20;
    while verdict(&s, enough).await.0 != "passed" {
        enough *= 2;
        assert!(enough < 1 << 40, "the program never passed");
    }
    let short = enough / 2;
    let (status, error) = verdict(&s, short).await;
    assert_eq!(status, "timeout", "{error}");

    // The same two verdicts while 100 programs that never end hold the sandbox (each until its
    // 2 s wall-clock limit): the load slows the budgeted runs, it does not change their verdicts.
    let spin = json!({"code": "while True:\n    pass\n", "language": "python", "run_timeout": 2});
    let loops: Vec<_> = (0..100)
        .map(|_| {
            let (url, http, body) = (s.url.clone(), s.http.clone(), spin.clone());
            tokio::spawn(async move {
                let r = http
                    .post(format!("{url}/run_code"))
                    .json(&body)
                    .send()
                    .await;
                r.unwrap().json::<Value>().await.unwrap()
            })
        })
        .collect();
    let (under_load_enough, under_load_short) =
        tokio::join!(verdict(&s, enough), verdict(&s, short));
    for l in loops {
        let out = l.await.unwrap();
        assert_eq!(out["run_result"]["status"], "TimeLimitExceeded", "{out}");
    }
    assert_eq!(under_load_enough.0, "passed", "{}", under_load_enough.1);
    assert_eq!(under_load_short.0, "timeout", "{}", under_load_short.1);
}

#[tokio::test]
async fn a_fuel_limit_must_be_a_positive_integer() {
    let s = TestService::start().await;
    for bad in [json!(0), json!(-5), json!("lots"), json!(1u64 << 63)] {
        let mut r = reference(1);
        r["fuel_limit"] = bad.clone();
        let (status, err) = s
            .post(
                "/v1/verify/code",
                &json!({"reference": r, "response": PROGRAM}),
            )
            .await;
        assert_eq!(status, 422, "{bad}: {err}");
        assert!(
            err["error"]["field"]
                .as_str()
                .unwrap_or("")
                .contains("reference"),
            "{err}"
        );
    }
}

#[tokio::test]
async fn run_code_takes_a_fuel_budget_as_an_opt_in_field() {
    let s = TestService::start().await;
    let run = |fuel: Value| json!({"code": PROGRAM, "language": "python", "run_timeout": 10, "fuel_limit": fuel});
    let (status, v) = s.post("/run_code", &run(json!(1_000_000))).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["run_result"]["status"], "TimeLimitExceeded", "{v}");
    let (status, v) = s.post("/run_code", &run(json!(1u64 << 40))).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (&v["status"], &v["run_result"]["stdout"]),
        (&json!("Success"), &json!("4499998500000\n")),
        "{v}"
    );
    for bad in [json!(0), json!("lots"), json!(1.5), json!(1u64 << 63)] {
        let (status, err) = s.post("/run_code", &run(bad.clone())).await;
        assert_eq!(
            (status, err["error"]["field"].as_str()),
            (422, Some("fuel_limit")),
            "{bad}: {err}"
        );
    }
}
