//! Lua, SQL, JavaScript, Ruby and TypeScript through the API: SandboxFusion's `/run_code` under its
//! language names, `/v1/verify/code` in the stdio style, and `/v1/capabilities`.

mod support;

use serde_json::{Value, json};
use support::TestService;

/// Whether the service runs `language` (as `/v1/capabilities` names it). CI installs the
/// interpreters, so there a missing one fails; elsewhere the test says why it checks nothing.
async fn installed(s: &TestService, language: &str) -> bool {
    let (status, v) = s.get("/v1/capabilities").await;
    assert_eq!(status, 200, "{v}");
    let entry = v["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == language)
        .unwrap_or_else(|| panic!("{language} missing from {v}"))
        .clone();
    if entry["supported"] == true {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{language} unsupported in CI: {entry}"
    );
    eprintln!("{language} unsupported here: {entry}");
    false
}

async fn run_code(s: &TestService, body: Value) -> Value {
    let (status, v) = s.post("/run_code", &body).await;
    assert_eq!(status, 200, "{v}");
    v
}

/// One accepted and one rejected program per SandboxFusion language name, as verl sends them.
#[tokio::test]
async fn run_code_runs_lua_sql_nodejs_ruby_and_typescript() {
    let s = TestService::start().await;
    let programs = [
        (
            "lua",
            "lua",
            "local n = io.read('n')\nprint(n * 2)",
            "local n = io.read('n')\nprint(n .. nil)",
        ),
        (
            "sql",
            "sql",
            "CREATE TABLE t(x);\nINSERT INTO t VALUES (21);\nSELECT x * 2 FROM t;",
            "SELECT x * 2 FROM t;",
        ),
        (
            "nodejs",
            "javascript",
            "const n = Number(require('fs').readFileSync(0, 'utf8'));\nconsole.log(n * 2);",
            "const n = Number(require('fs').readFileSync(0, 'utf8'));\nconsole.log(n.y.z);",
        ),
        (
            "ruby",
            "ruby",
            "n = gets.to_i\nputs n * 2",
            "n = gets.to_i\nputs n.fetch(2)",
        ),
        (
            "typescript",
            "typescript",
            "import { readFileSync } from 'fs';\nconst n: number = Number(readFileSync(0, 'utf8'));\nconsole.log(n * 2);",
            "interface P { y?: { z: number } }\nconst n = {} as P;\nconsole.log(n.y!.z);",
        ),
    ];
    for (name, capability, accepted, rejected) in programs {
        if !installed(&s, capability).await {
            continue;
        }
        let v = run_code(
            &s,
            json!({"code": accepted, "language": name, "stdin": "21\n"}),
        )
        .await;
        assert_eq!(v["status"], "Success", "{name}: {v}");
        assert_eq!(v["run_result"]["stdout"], "42\n", "{name}: {v}");
        assert_eq!(v["compile_result"], Value::Null, "{name}: interpreted");
        let v = run_code(
            &s,
            json!({"code": rejected, "language": name, "stdin": "21\n"}),
        )
        .await;
        assert_eq!(v["status"], "Failed", "{name}: {v}");
        assert_eq!(v["run_result"]["return_code"], 1, "{name}: {v}");
        assert_ne!(v["run_result"]["stderr"], "", "{name}: the error is shown");
        let v = run_code(
            &s,
            json!({"code": if name == "sql" {
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;"
            } else if name == "lua" { "while true do end" } else if name == "ruby" { "loop {}" } else { "while (true) {}" },
            "language": name, "run_timeout": 1}),
        )
        .await;
        assert_eq!(
            v["run_result"]["status"], "TimeLimitExceeded",
            "{name}: {v}"
        );
    }
}

#[tokio::test]
async fn unsupported_language_names_list_the_new_ones() {
    let s = TestService::start().await;
    let (status, err) = s
        .post("/run_code", &json!({"code": "1", "language": "cobol"}))
        .await;
    assert_eq!(status, 422, "{err}");
    assert_eq!(err["error"]["field"], "language");
    let message = err["error"]["message"].as_str().unwrap();
    for name in ["lua", "sql", "nodejs", "ruby", "typescript", "go", "rust"] {
        assert!(message.contains(name), "{message}");
    }
}

/// `/v1/verify/code`, stdio style: the fenced block in the response is judged per case.
#[tokio::test]
async fn verify_code_judges_each_language_by_its_fence() {
    let s = TestService::start().await;
    let cases = [
        (
            "lua",
            "lua",
            "for line in io.lines() do local a, b = line:match('(%d+) (%d+)') print(a + b) end",
            "for line in io.lines() do local a, b = line:match('(%d+) (%d+)') print(a - b) end",
        ),
        (
            "javascript",
            "js",
            "require('fs').readFileSync(0, 'utf8').trim().split('\\n').forEach((l) => { const [a, b] = l.split(' ').map(Number); console.log(a + b); });",
            "require('fs').readFileSync(0, 'utf8').trim().split('\\n').forEach((l) => { const [a, b] = l.split(' '); console.log(a + b); });",
        ),
        (
            "ruby",
            "ruby",
            "$stdin.each_line { |l| puts l.split.sum(&:to_i) }",
            "$stdin.each_line { |l| puts l.split.join }",
        ),
        (
            "ruby",
            "rb",
            "$stdin.each_line { |l| a, b = l.split.map(&:to_i); puts a + b }",
            "$stdin.each_line { |l| a, b = l.split.map(&:to_i); puts a * b }",
        ),
        (
            "typescript",
            "ts",
            "import * as fs from 'fs';\nfor (const l of fs.readFileSync(0, 'utf8').trim().split('\\n')) { const [a, b] = l.split(' ').map(Number) as [number, number]; console.log(a + b); }",
            "import * as fs from 'fs';\nfor (const l of fs.readFileSync(0, 'utf8').trim().split('\\n')) { const [a, b] = l.split(' ') as [string, string]; console.log(a + b); }",
        ),
    ];
    for (language, fence, right, wrong) in cases {
        if !installed(&s, language).await {
            continue;
        }
        let reference = json!({"language": language, "style": "stdio", "cases": [
            {"stdin": "1 2\n", "stdout": "3\n"}, {"stdin": "10 20\n30 40\n", "stdout": "30\n70\n"}]});
        let v = judge(
            &s,
            &reference,
            &format!("Here:\n```{fence}\n{right}\n```\n"),
        )
        .await;
        assert_eq!(
            (v["reward"].as_f64(), v["status"].as_str()),
            (Some(1.0), Some("passed")),
            "{language}: {v}"
        );
        assert_eq!(v["extraction"], "fenced_block", "{language}: {v}");
        let v = judge(&s, &reference, &format!("```{fence}\n{wrong}\n```")).await;
        assert_eq!(
            (v["reward"].as_f64(), v["status"].as_str()),
            (Some(0.0), Some("failed")),
            "{language}: {v}"
        );
    }
    if installed(&s, "sql").await {
        let reference = json!({"language": "sql", "style": "stdio", "cases": [{"stdin": "", "stdout": "2|b\n"}]});
        let table = "CREATE TABLE t(id, name); INSERT INTO t VALUES (1, 'a'), (2, 'b');";
        let right =
            format!("```sql\n{table}\nSELECT id, name FROM t ORDER BY id DESC LIMIT 1;\n```");
        let v = judge(&s, &reference, &right).await;
        assert_eq!(v["reward"].as_f64(), Some(1.0), "{v}");
        let wrong = format!("```sql\n{table}\nSELECT id, name FROM t LIMIT 1;\n```");
        let v = judge(&s, &reference, &wrong).await;
        assert_eq!(v["reward"].as_f64(), Some(0.0), "{v}");
    }
}

/// The call-style checks JavaScript and TypeScript share, for `uniqueSorted`: each of `rights`
/// passes, `wrong` is a wrong answer, `crash` a runtime error with a TypeError; in `fence` blocks.
async fn unique_sorted_judged(
    s: &TestService,
    language: &str,
    fence: &str,
    rights: &[&str],
    wrong: &str,
    crash: &str,
) -> Value {
    let reference = json!({"language": language, "style": "call", "entry_point": "uniqueSorted", "cases": [
        {"args": [[3, 1, 3, 2]], "expected": [1, 2, 3]}, {"args": [[]], "expected": []}]});
    for right in rights {
        let v = judge(s, &reference, &format!("```{fence}\n{right}\n```")).await;
        assert_eq!(v["reward"].as_f64(), Some(1.0), "{right}: {v}");
    }
    let v = judge(s, &reference, &format!("```{fence}\n{wrong}\n```")).await;
    assert_eq!(
        (v["reward"].as_f64(), v["cases"][0]["status"].as_str()),
        (Some(0.0), Some("wrong_answer")),
        "{v}"
    );
    let v = judge(s, &reference, &format!("```{fence}\n{crash}\n```")).await;
    assert_eq!(v["cases"][0]["status"], "runtime_error", "{v}");
    assert!(
        v["cases"][0]["error"]
            .as_str()
            .unwrap()
            .contains("TypeError"),
        "{v}"
    );
    reference
}

/// `/v1/verify/code`, call style, JavaScript: the function the response declares or exports
/// is called per case inside the sandbox and its JSON result compared on the host.
#[tokio::test]
async fn verify_code_calls_javascript_functions() {
    let s = TestService::start().await;
    if !installed(&s, "javascript").await {
        return;
    }
    let reference = unique_sorted_judged(
        &s,
        "javascript",
        "js",
        &[
            "function uniqueSorted(xs) { return [...new Set(xs)].sort((a, b) => a - b); }",
            "const uniqueSorted = (xs) => new Set(xs);",
            "module.exports = { uniqueSorted: (xs) => Array.from(new Set(xs)).sort() };",
        ],
        "const uniqueSorted = (xs) => xs;",
        "function uniqueSorted(xs) { return xs.uniq(); }",
    )
    .await;
    let v = judge(&s, &reference, "```js\nfunction other() {}\n```").await;
    assert_eq!(
        v["reward"].as_f64(),
        Some(0.0),
        "a missing function is no pass: {v}"
    );
    if installed(&s, "lua").await {
        let lua = json!({"language": "lua", "style": "call", "entry_point": "f", "cases": [{"args": [], "expected": 1}]});
        let v = judge(&s, &lua, "```lua\nfunction f() return 1 end\n```").await;
        assert_eq!(v["status"], "invalid_reference", "{v}");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("Python, JavaScript, TypeScript and Ruby only"),
            "{v}"
        );
    }
}

/// `/v1/verify/code`, call style, Ruby: a top-level method or a lambda in a top-level local.
#[tokio::test]
async fn verify_code_calls_ruby_methods() {
    let s = TestService::start().await;
    if !installed(&s, "ruby").await {
        return;
    }
    let reference = json!({"language": "ruby", "style": "call", "entry_point": "unique_sorted", "cases": [
        {"args": [[3, 1, 3, 2]], "expected": [1, 2, 3]}, {"args": [[]], "expected": []},
        {"args": [["#{x}", "#{x}"]], "expected": ["#{x}"]}]});
    for right in [
        "def unique_sorted(xs) = xs.uniq.sort",
        "unique_sorted = ->(xs) { Set.new(xs) }",
        "def unique_sorted(xs)\n  xs.tally.keys.sort\nend\nputs 'loaded'",
    ] {
        let v = judge(&s, &reference, &format!("```ruby\n{right}\n```")).await;
        assert_eq!(v["reward"].as_f64(), Some(1.0), "{right}: {v}");
    }
    let v = judge(&s, &reference, "```rb\ndef unique_sorted(xs) = xs\n```").await;
    assert_eq!(
        (v["reward"].as_f64(), v["cases"][0]["status"].as_str()),
        (Some(0.0), Some("wrong_answer")),
        "{v}"
    );
    let v = judge(
        &s,
        &reference,
        "```ruby\ndef unique_sorted(xs) = xs.uniqq\n```",
    )
    .await;
    assert_eq!(v["cases"][0]["status"], "runtime_error", "{v}");
    assert!(
        v["cases"][0]["error"]
            .as_str()
            .unwrap()
            .contains("NoMethodError"),
        "{v}"
    );
    let v = judge(&s, &reference, "```ruby\ndef other = 1\n```").await;
    assert_eq!(
        v["reward"].as_f64(),
        Some(0.0),
        "a missing method is no pass: {v}"
    );
}

/// `/v1/verify/code`, call style, TypeScript: as JavaScript, once the types are stripped; types
/// are not checked.
#[tokio::test]
async fn verify_code_calls_typescript_functions() {
    let s = TestService::start().await;
    if !installed(&s, "typescript").await {
        return;
    }
    let reference = unique_sorted_judged(
        &s,
        "typescript",
        "ts",
        &[
            "function uniqueSorted(xs: number[]): number[] { return [...new Set(xs)].sort((a, b) => a - b); }",
            "export const uniqueSorted = <T,>(xs: T[]): Set<T> => new Set<T>(xs);",
            "enum Order { Up = 1 }\nclass Sorter { constructor(private order: Order) {} run(xs: number[]) { return [...new Set(xs)].sort((a, b) => (a - b) * this.order); } }\nexport function uniqueSorted(xs: number[]) { return new Sorter(Order.Up).run(xs); }",
            // A type error: tsc would refuse it, the stripper does not.
            "function uniqueSorted(xs: string): number { return [...new Set(xs)].sort() as any; }",
        ],
        "const uniqueSorted = (xs: number[]) => xs;",
        "function uniqueSorted(xs: number[]) { return (xs as any).uniq(); }",
    )
    .await;
    let v = judge(
        &s,
        &reference,
        "```typescript\nfunction uniqueSorted(xs: number[]): { return xs; }\n```",
    )
    .await;
    assert_eq!(v["reward"].as_f64(), Some(0.0), "a syntax error: {v}");
}

#[tokio::test]
async fn capabilities_give_each_interpreter_its_version() {
    let s = TestService::start().await;
    let (_, v) = s.get("/v1/capabilities").await;
    for (language, product, setup) in [
        ("lua", "Lua 5.4", "22-interpreters.sh"),
        ("sql", "SQLite 3.", "22-interpreters.sh"),
        ("javascript", "QuickJS-ng", "22-interpreters.sh"),
        ("ruby", "Ruby 3.4", "23-ruby.sh"),
        // ts.wasm comes from 22-interpreters.sh, its stripper from 24-typescript.sh.
        ("typescript", "sucrase 3.35.1", "scripts/setup.d/2"),
    ] {
        let entry = v["languages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["language"] == language)
            .unwrap();
        if entry["supported"] == true {
            assert!(
                entry["version"].as_str().unwrap().starts_with(product),
                "{entry}"
            );
            assert!(
                entry["confinement"].is_null(),
                "no host program runs: {entry}"
            );
        } else {
            assert!(entry["reason"].as_str().unwrap().contains(setup), "{entry}");
        }
    }
}

async fn judge(s: &TestService, reference: &Value, response: &str) -> Value {
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference, "prompt": "", "response": response}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v
}
