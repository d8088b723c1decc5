//! Compile latency of C++ programs: confined (namespaces, Landlock) vs. the unconfined clang
//! call the sandbox made before confinement, side by side, interleaved program by program.
//!
//! `cargo bench -p sandbox --bench compile_bench`. `BENCH_PROGRAMS` (default 50) programs of
//! HumanEval size (~40 lines, iostream/vector/algorithm), each compiled once per arm.

use std::time::{Duration, Instant};

use sandbox::{Config, ConfinementChoice, Language, Mechanism, Program, Sandbox, Status};

/// A ~40-line judge-style C++ program; `i` varies constants so no two sources are equal.
fn program(i: usize) -> String {
    format!(
        r#"#include <iostream>
#include <vector>
#include <algorithm>
#include <string>
#include <map>
using namespace std;
// variant {i}
static long long gcd_(long long a, long long b) {{ return b ? gcd_(b, a % b) : a; }}
struct Edge {{ int to; long long w; }};
int main() {{
    int n = {n};
    vector<long long> v(n);
    for (int k = 0; k < n; ++k) v[k] = (k * {m}LL + 7) % 1000;
    sort(v.begin(), v.end());
    map<long long, int> freq;
    for (auto x : v) freq[x]++;
    vector<vector<Edge>> g(n);
    for (int k = 1; k < n; ++k) g[k - 1].push_back({{k, v[k]}});
    long long best = 0, acc = 0;
    for (int k = 0; k < n; ++k) {{
        acc = max(0LL, acc + v[k] - 500);
        best = max(best, acc);
    }}
    string s;
    for (auto &e : freq) s += to_string(e.first % 10);
    reverse(s.begin(), s.end());
    long long g0 = 0;
    for (auto x : v) g0 = gcd_(g0, x);
    cout << best << ' ' << freq.size() << ' ' << g0 << ' ' << s.size() << '\n';
    return 0;
}}
"#,
        n = 100 + i,
        m = 31 + 2 * i
    )
}

fn sandbox(choice: ConfinementChoice) -> Option<Sandbox> {
    let sb = Sandbox::new(Config {
        confinement: choice,
        fast_python: false,
        full_python: false,
        concurrency: 1,
        ..Config::default()
    })
    .expect("sandbox starts");
    match sb.compiler_confinement(Language::Cpp) {
        Some(_) => Some(sb),
        None => {
            eprintln!(
                "{choice:?}: unavailable here ({})",
                sb.unsupported_reason(Language::Cpp).unwrap_or_default()
            );
            None
        }
    }
}

/// Compile time as the sandbox reports it (the compile step only, not the run).
async fn confined(sb: &Sandbox, source: String) -> Duration {
    let out = sb
        .run(Program {
            language: Language::Cpp,
            source,
            ..Program::default()
        })
        .await
        .expect("runs");
    assert_eq!(out.status, Status::Ok, "{out:?}");
    out.compile.expect("compiled").wall_time
}

/// The command the sandbox ran before confinement: `sh -c 'ulimit -v …; exec clang …'`.
fn unconfined(source: &str) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.cpp"), source).unwrap();
    let started = Instant::now();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .args([
            "clang-19",
            "--driver-mode=g++",
            "-std=c++17",
            "-fno-exceptions",
            "--target=wasm32-wasi",
            "--sysroot=/usr",
            "-O2",
            "-s",
            "-o",
            "main.wasm",
            "main.cpp",
            "-lm",
        ])
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .status()
        .expect("clang runs");
    assert!(status.success());
    started.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("BENCH_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let arms: Vec<(Mechanism, Sandbox)> = [
        (ConfinementChoice::Namespaces, Mechanism::Namespaces),
        (ConfinementChoice::Landlock, Mechanism::Landlock),
    ]
    .into_iter()
    .filter_map(|(c, m)| sandbox(c).map(|sb| (m, sb)))
    .collect();
    let mut base = Vec::with_capacity(n);
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(n); arms.len()];
    for i in 0..n {
        let source = program(i);
        base.push(unconfined(&source));
        for (k, (_, sb)) in arms.iter().enumerate() {
            times[k].push(confined(sb, source.clone()).await);
        }
    }
    let base = median(base);
    println!("| arm | median compile | ratio to unconfined |");
    println!("|---|---|---|");
    println!(
        "| unconfined clang (before) | {:.1} ms | 1.00 |",
        base.as_secs_f64() * 1e3
    );
    for ((m, _), t) in arms.iter().zip(times) {
        let t = median(t);
        println!(
            "| {} | {:.1} ms | {:.2} |",
            m.as_str(),
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / base.as_secs_f64()
        );
    }
    println!("({n} programs, C++17 -O2, interleaved)");
    if let Some((_, sb)) = arms.first() {
        cases(sb).await;
    }
}

/// verl's pattern: one program judged on 10 cases, one run per case. Whole runs (compile and
/// execution) of one source 10 times (compiled once, then reused) vs 10 distinct sources.
async fn cases(sb: &Sandbox) {
    let tag = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let run_all = |sources: Vec<String>| async move {
        let started = Instant::now();
        for source in sources {
            confined(sb, source).await;
        }
        started.elapsed()
    };
    let same = run_all(vec![format!("// {tag}\n{}", program(10_000)); 10]).await;
    let distinct = run_all(
        (0..10)
            .map(|i| format!("// {tag}\n{}", program(20_000 + i)))
            .collect(),
    )
    .await;
    println!(
        "one program on 10 cases: {:.2} s compiled once vs {:.2} s compiled per case ({:.1}x)",
        same.as_secs_f64(),
        distinct.as_secs_f64(),
        distinct.as_secs_f64() / same.as_secs_f64()
    );
}
