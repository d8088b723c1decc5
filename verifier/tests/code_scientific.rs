//! Python with the scientific stack through the API: `/v1/capabilities` lists the runtime with
//! its packages, SandboxFusion's `/run_code` and `/v1/verify/code` (stdio and assert styles)
//! send programs that import numpy, pandas or scikit-learn to it, and plain Python stays on the
//! fast runtime.

mod support;

use serde_json::{Value, json};
use support::TestService;

/// The scientific runtime's entry in `/v1/capabilities`, when it runs here. CI installs it, so
/// there a missing one fails; elsewhere the test says why it checks nothing.
async fn installed(s: &TestService) -> Option<Value> {
    let (status, v) = s.get("/v1/capabilities").await;
    assert_eq!(status, 200, "{v}");
    let python = v["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == "python")
        .unwrap_or_else(|| panic!("python missing from {v}"));
    let entry = python["runtimes"]
        .as_array()
        .unwrap_or_else(|| panic!("python lists no runtimes: {python}"))
        .iter()
        .find(|r| r["runtime"] == "python_scientific")
        .unwrap_or_else(|| panic!("no python_scientific in {python}"))
        .clone();
    if entry["supported"] == true {
        return Some(entry);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "scientific Python unavailable in CI: {entry}"
    );
    assert!(entry["reason"].is_string(), "{entry}");
    eprintln!("scientific Python unavailable here: {entry}");
    None
}

async fn post(s: &TestService, path: &str, body: Value) -> Value {
    let (status, v) = s.post(path, &body).await;
    assert_eq!(status, 200, "{v}");
    v
}

#[tokio::test]
async fn scientific_python_is_listed_chosen_and_judged() {
    let s = TestService::start().await;
    let Some(entry) = installed(&s).await else {
        return;
    };
    let version = entry["version"].as_str().unwrap();
    assert!(version.starts_with("CPython 3.15"), "{version}");
    assert!(
        version.contains("numpy") && version.contains("scikit-learn"),
        "{version}"
    );
    let packages = entry["packages"].as_array().unwrap();
    for name in [
        "numpy",
        "pandas",
        "scipy",
        "scikit-learn",
        "statsmodels",
        "matplotlib",
    ] {
        assert!(
            packages
                .iter()
                .any(|p| p["name"] == name && p["version"].is_string()),
            "{name} missing from {entry}"
        );
    }

    // `/run_code`, as verl sends it: one accepted program and one rejected.
    let accepted = "import sys, numpy as np\n\
                    a = np.array(sys.stdin.read().split(), dtype=float)\n\
                    print(int(a.sum()), round(float(a.std()), 3))";
    let v = post(
        &s,
        "/run_code",
        json!({"code": accepted, "language": "python", "stdin": "1 2 3 4\n", "run_timeout": 120}),
    )
    .await;
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["run_result"]["stdout"], "10 1.118\n", "{v}");
    assert_eq!(v["runtime"], "python_scientific", "{v}");
    let rejected = "import pandas as pd\nprint(pd.Series([1, 2]).no_such_method())";
    let v = post(
        &s,
        "/run_code",
        json!({"code": rejected, "language": "python", "run_timeout": 120}),
    )
    .await;
    assert_eq!(v["status"], "Failed", "{v}");
    assert_eq!(v["run_result"]["return_code"], 1, "{v}");
    assert!(
        v["run_result"]["stderr"]
            .as_str()
            .unwrap()
            .contains("AttributeError"),
        "{v}"
    );
    let v = post(
        &s,
        "/run_code",
        json!({"code": "print(6 * 7)", "language": "python"}),
    )
    .await;
    assert_eq!(
        (&v["run_result"]["stdout"], &v["runtime"]),
        (&json!("42\n"), &json!("python_fast")),
        "{v}"
    );

    // `/v1/verify/code`, stdio style and the assert style BigCodeBench-like tasks use.
    let stdio = json!({"language": "python", "style": "stdio", "cases": [
        {"stdin": "3\n1 2 6\n", "stdout": "3.0\n"}, {"stdin": "2\n5 6\n", "stdout": "5.5\n"}]});
    let right = "```python\nimport numpy as np\ninput()\nprint(np.mean(list(map(int, input().split()))))\n```";
    let v = post(
        &s,
        "/v1/verify/code",
        json!({"reference": stdio, "prompt": "", "response": right}),
    )
    .await;
    assert_eq!(v["reward"].as_f64(), Some(1.0), "{v}");
    let wrong = right.replace("np.mean", "np.median");
    let v = post(
        &s,
        "/v1/verify/code",
        json!({"reference": stdio, "prompt": "", "response": wrong}),
    )
    .await;
    assert_eq!(v["reward"].as_f64(), Some(0.0), "{v}");

    // The assert style compares plain values only: a program could patch pandas' or numpy's
    // `__eq__`, so a task returns `to_dict()` or `tolist()`, and a returned Series is refused.
    let assert_style = json!({"language": "python", "style": "assert", "entry_point": "task_func",
        "test": "def check(candidate):\n    assert candidate([[1, 'a'], [3, 'a'], [5, 'b']]) == {'a': 2.0, 'b': 5.0}\n"});
    let right = "```python\nimport pandas as pd\n\ndef task_func(rows):\n    df = pd.DataFrame(rows, columns=['v', 'k'])\n    return df.groupby('k')['v'].mean().to_dict()\n```";
    for (response, reward) in [
        (right.to_string(), 1.0),
        (right.replace(".mean()", ".sum()"), 0.0),
        (right.replace(".to_dict()", ""), 0.0),
    ] {
        let v = post(
            &s,
            "/v1/verify/code",
            json!({"reference": assert_style, "prompt": "", "response": response}),
        )
        .await;
        assert_eq!(v["reward"].as_f64(), Some(reward), "{response}: {v}");
        assert_eq!(v["runtime"], "python_scientific", "{v}");
    }
    let v = post(
        &s,
        "/v1/verify/code",
        json!({"reference": assert_style, "prompt": "", "response": right.replace(".to_dict()", "")}),
    )
    .await;
    assert!(
        v["cases"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a plain value")),
        "{v}"
    );
}
