//! Runs per second of the sandbox vs. a native `python3` subprocess per run (what process-based
//! sandboxes do), for a trivial program, a HumanEval test run and a compute loop, at concurrency
//! 1 and 2.
//!
//! `cargo bench -p sandbox --bench sandbox_bench`. Knobs (env): `BENCH_RUNS` (runs per cell,
//! default 200), `BENCH_ENGINES` (comma list of `fast,full,native`), `BENCH_FUEL=0` (no fuel
//! metering, to see its cost).

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sandbox::{Config, Program, PythonRuntime, Sandbox, Status};

/// The HumanEval file, by default in the repository's data folder.
fn humaneval_program() -> String {
    let path = std::env::var("HUMANEVAL_PATH")
        .unwrap_or_else(|_| format!("{}/../data/HumanEval.jsonl.gz", env!("CARGO_MANIFEST_DIR")));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("opening {path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("reading HumanEval");
    // Problem 0 (has_close_elements): prompt + canonical solution + test + check, like the judge.
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let s = |k: &str| first[k].as_str().unwrap().to_string();
    format!(
        "{}{}\n\n{}\n\ncheck({})\nprint('ok')\n",
        s("prompt"),
        s("canonical_solution"),
        s("test"),
        s("entry_point")
    )
}

/// One engine under test.
#[derive(Clone, Copy)]
enum Engine {
    Sandbox(PythonRuntime),
    Native,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Sandbox(PythonRuntime::Fast) => "sandbox fast (componentize-py 3.14)",
            Engine::Sandbox(PythonRuntime::Full) => "sandbox full (CPython 3.12 WASI)",
            Engine::Sandbox(PythonRuntime::Auto) => "sandbox auto",
            Engine::Sandbox(PythonRuntime::Scientific) => "sandbox scientific (CPython 3.15 WASI)",
            Engine::Native => "native `python3 -c` subprocess",
        }
    }
}

async fn run_once(sandbox: &Sandbox, engine: Engine, src: &str) -> Duration {
    let started = Instant::now();
    match engine {
        Engine::Sandbox(rt) => {
            let out = sandbox
                .run(Program::python(src).with_python_runtime(rt))
                .await
                .expect("accepted");
            assert_eq!(out.status, Status::Ok, "{out:?}");
        }
        Engine::Native => {
            let out = tokio::process::Command::new("python3")
                .arg("-c")
                .arg(src)
                .output()
                .await
                .expect("python3");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    started.elapsed()
}

/// Runs `total` programs with `concurrency` in flight; returns runs per second.
async fn throughput(
    sandbox: &Arc<Sandbox>,
    engine: Engine,
    src: &str,
    total: usize,
    concurrency: usize,
) -> f64 {
    let started = Instant::now();
    let per_task = total / concurrency;
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let sandbox = sandbox.clone();
            let src = src.to_string();
            tokio::spawn(async move {
                for _ in 0..per_task {
                    run_once(&sandbox, engine, &src).await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    (per_task * concurrency) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let started = Instant::now();
    let sandbox = Arc::new(
        Sandbox::new(Config {
            concurrency: 2,
            fuel: std::env::var("BENCH_FUEL").map_or(true, |v| v != "0"),
            ..Config::default()
        })
        .expect("sandbox"),
    );
    println!(
        "sandbox start-up (cached precompiled runtimes): {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let programs = [
        ("trivial `print(1)`", "print(1)".to_string()),
        ("HumanEval/0 test run", humaneval_program()),
        // Compute-bound (~20 ms on the fast path): shows how runs scale across cores once
        // per-run set-up no longer dominates.
        (
            "compute loop",
            "print(sum(i * i % 7 for i in range(200_000)))".to_string(),
        ),
    ];
    let wanted = std::env::var("BENCH_ENGINES").unwrap_or_else(|_| "fast,full,native".into());
    let engines: Vec<Engine> = wanted
        .split(',')
        .map(|name| match name.trim() {
            "fast" => Engine::Sandbox(PythonRuntime::Fast),
            "full" => Engine::Sandbox(PythonRuntime::Full),
            "native" => Engine::Native,
            other => panic!("BENCH_ENGINES: unknown engine {other:?} (fast, full, native)"),
        })
        .collect();

    println!(
        "\n| program | engine | cold first run (ms) | warm mean (ms) | runs/s c=1 | runs/s c=2 | ratio vs python3 c=1 | ratio c=2 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (label, src) in &programs {
        let mut native = (f64::NAN, f64::NAN);
        let mut rows = Vec::new();
        for &engine in &engines {
            let cold = run_once(&sandbox, engine, src).await;
            // Warm-up beyond the first run, then measure.
            for _ in 0..3 {
                run_once(&sandbox, engine, src).await;
            }
            let n = if matches!(engine, Engine::Native) {
                runs.min(100)
            } else {
                runs
            };
            let c1 = throughput(&sandbox, engine, src, n, 1).await;
            let c2 = throughput(&sandbox, engine, src, n, 2).await;
            if matches!(engine, Engine::Native) {
                native = (c1, c2);
            }
            rows.push((engine, cold, c1, c2));
        }
        // Without the native engine in BENCH_ENGINES there is nothing to compare with.
        let ratio = |x: f64, base: f64| {
            if base.is_nan() {
                "–".to_string()
            } else {
                format!("{:.1}×", x / base)
            }
        };
        for (engine, cold, c1, c2) in rows {
            println!(
                "| {label} | {} | {:.1} | {:.2} | {:.0} | {:.0} | {} | {} |",
                engine.name(),
                cold.as_secs_f64() * 1e3,
                1e3 / c1,
                c1,
                c2,
                ratio(c1, native.0),
                ratio(c2, native.1)
            );
        }
    }
}
