//! What the compile-escape suites share (compile_escape.rs for C, C++ and Go,
//! compile_escape_rust.rs for Rust): the canary, the techniques' shape, and sending each
//! technique through `POST /run_code` and `POST /v1/verify/code` of a real service.

use std::os::unix::fs::PermissionsExt;

use sandbox::ConfinementChoice;
use serde_json::{Value, json};

use crate::support::TestService;

/// The canary: a world-readable folder outside any jail with a secret-bearing file.
struct Canary {
    _dir: tempfile::TempDir,
    secret: String,
    /// The canary file.
    path: String,
    /// A path next to it that does not exist (same length, for the existence comparison).
    absent: String,
}

impl Canary {
    fn new() -> Canary {
        let dir = tempfile::Builder::new()
            .prefix("escape-canary-")
            .tempdir()
            .unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let secret = format!("SECRET{}", uuid::Uuid::new_v4().simple());
        let path = dir.path().join("canary.h");
        // Valid C either way, so a successful include would compile and print it.
        std::fs::write(&path, format!("\"{secret}\"\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let path = path.display().to_string();
        let absent = path.replace("canary.h", "absent.h");
        Canary {
            _dir: dir,
            secret,
            path,
            absent,
        }
    }
}

/// One escape technique: a program reading `{P}` (a host path) some way.
pub struct Technique {
    pub name: &'static str,
    /// Source with `{P}` for the target path, `{PID}` for the service's process id.
    pub source: &'static str,
}

fn source_for(t: &Technique, path: &str) -> String {
    t.source
        .replace("{P}", path)
        .replace("{PID}", &std::process::id().to_string())
}

/// `/run_code` for one program; the whole response as text.
async fn run_code(s: &TestService, language: &str, code: &str) -> String {
    let (status, v) = s
        .post(
            "/run_code",
            &json!({"code": code, "language": language, "run_timeout": 5, "compile_timeout": 20}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v.to_string()
}

/// `/v1/verify/code` (stdio style) for one program; the whole response as text.
async fn verify(s: &TestService, language: &str, code: &str) -> String {
    let reference = json!({"language": language, "style": "stdio",
        "cases": [{"stdin": "", "stdout": "x"}]});
    judge(s, &reference, &format!("```{language}\n{code}\n```"))
        .await
        .to_string()
}

/// `/v1/verify/code` of `response` against `reference`; the verdict.
pub async fn judge(s: &TestService, reference: &Value, response: &str) -> Value {
    let (status, v) = s
        .post(
            "/v1/verify/code",
            &json!({"reference": reference, "prompt": "", "response": response}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v
}

/// The confinement this service reports for `language` (`None`: unsupported here).
pub async fn confinement_of(s: &TestService, language: &str) -> Option<String> {
    let r = s
        .http
        .get(format!("{}/v1/capabilities", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let langs = v["languages"].as_array().unwrap();
    let c = langs.iter().find(|l| l["language"] == language).unwrap();
    if c["supported"] == true {
        Some(c["confinement"].as_str().unwrap().to_string())
    } else {
        eprintln!("{language} unsupported here: {}", c["reason"]);
        None
    }
}

/// Sends `techniques` in each of `languages` through both endpoints of a service confined by
/// `choice`.
pub async fn techniques_leak_nothing(
    choice: ConfinementChoice,
    techniques: &[Technique],
    languages: &[&str],
) {
    let s = TestService::start_with_sandbox(verifier::code::JudgeConfig {
        confinement: choice,
        ..Default::default()
    })
    .await;
    let Some(mechanism) = confinement_of(&s, languages[0]).await else {
        // Refused up front is the fail-closed answer; nothing was compiled to leak. On a host
        // with the toolchain (CI installs it) the mechanism must have been established.
        assert!(
            !toolchain_installed(languages[0]),
            "{choice:?}: the toolchain is installed but the compiler could not be confined"
        );
        let (status, v) = s
            .post(
                "/run_code",
                &json!({"code": "int main(){}", "language": languages[0]}),
            )
            .await;
        assert_eq!(status, 422, "{v}");
        return;
    };
    let canary = Canary::new();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let passwd_line = passwd.lines().next().unwrap_or("root:x:0:0:").to_string();
    let mut checked = 0;
    for t in techniques {
        for &language in languages {
            let leak = source_for(t, &canary.path);
            for (endpoint, body) in [
                ("run_code", run_code(&s, language, &leak).await),
                ("verify", verify(&s, language, &leak).await),
            ] {
                let what = format!("{} ({language}, {endpoint}, {mechanism})", t.name);
                assert!(!body.contains(&canary.secret), "{what} leaked: {body}");
                assert!(
                    !body.contains(&passwd_line),
                    "{what} leaked /etc/passwd: {body}"
                );
                // Landlock cannot hide whether a path exists (`stat` is not mediated).
                if mechanism == "namespaces" {
                    assert!(
                        !body.contains("EXISTS"),
                        "{what} saw the canary exists: {body}"
                    );
                }
                checked += 1;
            }
            if mechanism == "namespaces" {
                // The canary and a path that does not exist must look the same from inside.
                let a = run_code(&s, language, &leak).await;
                let b = run_code(&s, language, &source_for(t, &canary.absent)).await;
                let normalise = |r: &str| {
                    let v: Value = serde_json::from_str(r).unwrap();
                    v["compile_result"]["stderr"]
                        .as_str()
                        .unwrap_or("")
                        .replace(&canary.path, "P")
                        .replace(&canary.absent, "P")
                };
                assert_eq!(
                    normalise(&a),
                    normalise(&b),
                    "{} ({language}, {mechanism}) reveals existence",
                    t.name
                );
            }
        }
    }
    assert_eq!(checked, techniques.len() * languages.len() * 2);
}

/// Whether the toolchain of `language` is installed here (scripts/setup.d/21-clang-wasi.sh for
/// C/C++, 25-go.sh for Go, 27-rust.sh for Rust).
fn toolchain_installed(language: &str) -> bool {
    let bwrap = std::path::Path::new("/usr/bin/bwrap").exists();
    let installed = |file: &str| bwrap && sandbox::Config::cache_root().join(file).is_file();
    match language {
        "go" => return installed("go/wasip1-1.27.3/bin/compile"),
        "rust" => return installed("rust/wasi-1.63.0/bin/rustc"),
        _ => {}
    }
    std::path::Path::new("/usr/lib/wasm32-wasi/libc.a").is_file()
        && std::path::Path::new("/usr/bin/clang-19").exists()
        && bwrap
}

/// A compiled language's stdio program, the same task in every language: read `n`, then `n`
/// numbers, print the smallest and the largest.
pub struct MinMax<'a> {
    /// The language's name and its alias, both sent to `/run_code`; the first is the reference's.
    pub names: [&'a str; 2],
    /// The fences the right and the wrong answer come in to `/v1/verify/code`.
    pub fences: [&'a str; 2],
    pub source: &'a str,
    /// The source with its output swapped, which the judge must refuse.
    pub wrong: String,
    /// A source that does not compile, and what its diagnostics must say.
    pub broken: (&'a str, &'a str),
}

/// Sends `p` through both endpoints of a service: `/run_code` under each name, a compile error,
/// and the judge accepting the program and refusing its wrong twin. Skipped where the language
/// is not installed.
pub async fn min_max_passes_both_endpoints(p: MinMax<'_>) {
    let s = TestService::start().await;
    if confinement_of(&s, p.names[0]).await.is_none() {
        return;
    }
    for language in p.names {
        let (status, v) = s
            .post(
                "/run_code",
                &json!({"code": p.source, "language": language, "stdin": "4\n3 9 -2 7\n"}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["status"], "Success", "{language}: {v}");
        assert_eq!(v["run_result"]["stdout"], "-2 9\n", "{language}: {v}");
    }
    let (broken, says) = p.broken;
    let (status, v) = s
        .post(
            "/run_code",
            &json!({"code": broken, "language": p.names[0]}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "Failed", "{v}");
    assert_eq!(v["compile_result"]["status"], "Finished", "{v}");
    assert!(
        v["compile_result"]["stderr"]
            .as_str()
            .unwrap()
            .contains(says),
        "{v}"
    );
    let reference = json!({"language": p.names[0], "style": "stdio",
        "cases": [{"stdin": "2\n5 1\n", "stdout": "1 5\n"}, {"stdin": "1\n7\n", "stdout": "7 7\n"}]});
    let [right_fence, wrong_fence] = p.fences;
    let v = judge(
        &s,
        &reference,
        &format!("```{right_fence}\n{}```", p.source),
    )
    .await;
    assert_eq!(v["correct"], true, "{v}");
    let v = judge(&s, &reference, &format!("```{wrong_fence}\n{}```", p.wrong)).await;
    assert_eq!(v["correct"], false, "{v}");
}
