//! Deterministic runs (issue 51): a program that draws random numbers and reads the time of day
//! prints the same output and uses the same fuel on every run under one seed, in every
//! language, while other runs load the machine. The guest's random sources are seeded from the
//! run's seed and its wall clock is virtual (README, "Deterministic runs").

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sandbox::{Language, Limits, Program, PythonRuntime, Status};
use support::{SANDBOX, installed};

/// Runs of each program; each must match the first.
const RUNS: usize = 20;

/// Runs of one program at once after the first.
const OVERLAP: usize = 8;

/// Each language's program: random numbers from the runtime's own generator (seeded, where the
/// runtime seeds itself, from the OS or the time of day), from the OS directly where the language
/// has a call for it, and the time of day.
fn programs() -> Vec<(&'static str, Program)> {
    let python = "import random, os, time\n\
                  print(random.random(), random.randrange(10**9), os.urandom(8).hex(), \
                  time.time(), time.gmtime().tm_year, hash('abc'))";
    let c = "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n\
             #include <sys/random.h>\n\
             int main(void) { unsigned char b[8]; getentropy(b, sizeof b); \
             srand((unsigned)time(NULL)); \
             printf(\"%u %d %ld\\n\", b[0] | b[7] << 8, rand(), (long)time(NULL)); }";
    let cpp = "#include <chrono>\n#include <iostream>\n#include <random>\n\
               int main() { std::random_device rd; std::mt19937 g(rd()); \
               auto t = std::chrono::system_clock::now().time_since_epoch(); \
               std::cout << g() << ' ' << std::chrono::duration_cast<std::chrono::seconds>(t).count() << '\\n'; }";
    let go = "package main\n\nimport (\n\t\"fmt\"\n\t\"math/rand\"\n\t\"time\"\n)\n\n\
              func main() {\n\tm := map[int]int{}\n\tfor i := 0; i < 64; i++ {\n\t\tm[i] = i\n\t}\n\
              \torder := []int{}\n\tfor k := range m {\n\t\torder = append(order, k)\n\t}\n\
              \tfmt.Println(rand.Int63(), order[:8], time.Now().Unix())\n}\n";
    let rust = "use std::collections::HashMap;\nuse std::time::SystemTime;\n\
                fn main() {\n    let m: HashMap<u32, u32> = (0..64).map(|i| (i, i)).collect();\n\
                \x20   let order: Vec<u32> = m.keys().take(8).copied().collect();\n\
                \x20   let t = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap();\n\
                \x20   println!(\"{:?} {}\", order, t.as_secs());\n}\n";
    vec![
        (
            "python (fast)",
            Program::python(python).with_python_runtime(PythonRuntime::Fast),
        ),
        (
            "python (full)",
            Program::python(python).with_python_runtime(PythonRuntime::Full),
        ),
        ("c", program(Language::C, c)),
        ("cpp", program(Language::Cpp, cpp)),
        ("go", program(Language::Go, go)),
        ("rust", program(Language::Rust, rust)),
        (
            "javascript",
            program(
                Language::JavaScript,
                "console.log(Math.random(), Date.now(), new Date().getUTCFullYear())",
            ),
        ),
        (
            "lua",
            program(
                Language::Lua,
                "print(math.random(), math.random(1000), os.time())",
            ),
        ),
        (
            "ruby",
            program(
                Language::Ruby,
                "puts [rand, Random.new_seed % 1000, Time.now.to_i, {a: 1}.hash].join(' ')",
            ),
        ),
        (
            "sql",
            program(Language::Sql, "select random(), strftime('%s', 'now');"),
        ),
    ]
}

fn program(language: Language, source: &str) -> Program {
    Program {
        language,
        source: source.into(),
        limits: Some(Limits {
            wall_time: Duration::from_secs(60),
            compile_time: Duration::from_secs(120),
            ..Limits::default()
        }),
        ..Program::default()
    }
}

/// Endless loops beside the measured runs until `done`, so that the machine is loaded while
/// they run.
async fn load(done: Arc<AtomicBool>) {
    let spin = Program::python("while True: pass").with_limits(Limits {
        wall_time: Duration::from_secs(2),
        ..Limits::default()
    });
    while !done.load(Ordering::Relaxed) {
        let loops: Vec<_> = (0..4)
            .map(|_| {
                let spin = spin.clone();
                tokio::spawn(async move { SANDBOX.run(spin).await })
            })
            .collect();
        for handle in loops {
            assert_eq!(handle.await.unwrap().unwrap().status, Status::Timeout);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn random_numbers_and_the_time_of_day_repeat_under_one_seed_beside_load() {
    let done = Arc::new(AtomicBool::new(false));
    let measured = async {
        let mut checked = Vec::new();
        for (name, program) in programs() {
            if !installed(program.language) {
                continue;
            }
            let first = SANDBOX.run(program.clone()).await.unwrap();
            assert_eq!(first.status, Status::Ok, "{name}: {first:?}");
            assert!(first.fuel_used.is_some(), "{name}: fuel is metered");
            // The others overlap, OVERLAP at a time: their working folders are made and removed
            // side by side, so each run's folder is another inode than the first run's (which
            // full Python once saw through its import of the working folder, issue 51's flake).
            let mut run = 1;
            while run < RUNS {
                let batch: Vec<_> = (run..RUNS.min(run + OVERLAP))
                    .map(|_| {
                        let program = program.clone();
                        tokio::spawn(async move { SANDBOX.run(program).await })
                    })
                    .collect();
                for handle in batch {
                    let out = handle.await.unwrap().unwrap();
                    assert_eq!(out.status, Status::Ok, "{name} run {run}: {out:?}");
                    assert_eq!(out.stdout, first.stdout, "{name} run {run}: output");
                    assert_eq!(out.fuel_used, first.fuel_used, "{name} run {run}: fuel");
                    run += 1;
                }
            }
            checked.push((name, first.stdout.trim().to_string(), first.fuel_used));
        }
        done.store(true, Ordering::Relaxed);
        checked
    };
    let (checked, ()) = tokio::join!(measured, load(done.clone()));
    for (name, stdout, fuel) in &checked {
        eprintln!("{name}: {RUNS} runs, fuel {fuel:?}, {stdout}");
    }
    assert!(checked.len() >= 2, "at least both Python runtimes ran");
}

#[tokio::test]
async fn the_seed_changes_the_numbers_and_the_clock_starts_at_the_documented_epoch() {
    let src = "import random, time\nprint(random.random(), int(time.time()))";
    let mut outputs = Vec::new();
    for seed in [0, 0, 1] {
        let out = SANDBOX
            .run(Program::python(src).with_seed(seed))
            .await
            .unwrap();
        assert_eq!(out.status, Status::Ok, "{out:?}");
        outputs.push(out.stdout);
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_ne!(outputs[0], outputs[2], "another seed draws other numbers");
    let epoch = sandbox::WALL_CLOCK_EPOCH.as_secs().to_string();
    for out in &outputs {
        assert_eq!(out.split_whitespace().nth(1), Some(epoch.as_str()), "{out}");
    }
}
