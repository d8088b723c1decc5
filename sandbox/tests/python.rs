//! Python runs on both runtimes: output, stdin, exit codes, fallback, files, determinism.

mod support;

use std::time::Duration;

use sandbox::{Language, Limits, Program, ProgramFile, PythonRuntime, RunError, Runtime, Status};
use support::SANDBOX;

async fn run(program: Program) -> sandbox::Outcome {
    SANDBOX.run(program).await.expect("program accepted")
}

#[tokio::test]
async fn hello_world_runs_on_the_fast_path() {
    let out = run(Program::python("print('hello', 6 * 7)")).await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.stdout, "hello 42\n");
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.runtime, Some(Runtime::PythonFast));
    assert!(!out.fell_back);
    assert!(out.peak_memory_bytes > 0);
    assert!(out.fuel_used.is_some_and(|f| f > 0));
}

#[tokio::test]
async fn stdin_is_read_on_both_runtimes() {
    let src = "import sys\nnums = [int(x) for x in sys.stdin.read().split()]\nprint(sum(nums))\nprint(input.__name__)";
    for rt in [PythonRuntime::Fast, PythonRuntime::Full] {
        let out = run(Program::python(src)
            .with_stdin("1 2 3\n4\n")
            .with_python_runtime(rt))
        .await;
        assert_eq!(out.status, Status::Ok, "{rt:?}: {out:?}");
        assert_eq!(out.stdout, "10\ninput\n", "{rt:?}");
    }
    let src = "a = input()\nb = input()\nprint(int(a) * int(b))";
    for rt in [PythonRuntime::Fast, PythonRuntime::Full] {
        let out = run(Program::python(src)
            .with_stdin("6\n7\n")
            .with_python_runtime(rt))
        .await;
        assert_eq!(out.stdout, "42\n", "{rt:?}: {out:?}");
    }
}

#[tokio::test]
async fn exceptions_and_exit_codes() {
    for rt in [PythonRuntime::Fast, PythonRuntime::Full] {
        let out =
            run(Program::python("print('before')\nraise ValueError('boom')")
                .with_python_runtime(rt))
            .await;
        assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {out:?}");
        assert_eq!(out.stdout, "before\n");
        assert!(
            out.stderr.contains("ValueError: boom"),
            "{rt:?}: {}",
            out.stderr
        );
        assert_eq!(out.exit_code, Some(1));

        let out = run(Program::python("import sys\nsys.exit(3)").with_python_runtime(rt)).await;
        assert_eq!(
            (out.status, out.exit_code),
            (Status::RuntimeError, Some(3)),
            "{rt:?}: {out:?}"
        );

        let out = run(
            Program::python("import os\nprint('x', flush=True)\nos._exit(0)")
                .with_python_runtime(rt),
        )
        .await;
        assert_eq!(
            (out.status, out.exit_code),
            (Status::Ok, Some(0)),
            "{rt:?}: {out:?}"
        );
        assert_eq!(out.stdout, "x\n");

        let out = run(Program::python("def f(:\n  pass").with_python_runtime(rt)).await;
        assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {out:?}");
        assert!(out.stderr.contains("SyntaxError"), "{rt:?}: {}", out.stderr);
    }
}

#[tokio::test]
async fn missing_module_falls_back_to_the_full_runtime() {
    let src = "import pickletools, zipfile\nprint(pickletools.__name__, zipfile.ZIP_STORED)";
    let out = run(Program::python(src)).await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.stdout, "pickletools 0\n");
    assert_eq!(out.runtime, Some(Runtime::PythonFull));
    assert!(out.fell_back);

    // Forced onto the fast path, the same program fails with the import error.
    let out = run(Program::python(src).with_python_runtime(PythonRuntime::Fast)).await;
    assert_eq!(
        (out.status, out.exit_code),
        (Status::RuntimeError, Some(1)),
        "{out:?}"
    );
    assert!(out.stderr.contains("ModuleNotFoundError"), "{}", out.stderr);

    // A module missing everywhere is an ordinary runtime error after the fallback.
    let out = run(Program::python("import no_such_module_xyz")).await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(
        out.stderr.contains("No module named 'no_such_module_xyz'"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn the_same_programs_give_the_same_output_on_both_runtimes() {
    // Cross-check of the two interpreters (the full one is a third-party repackaging).
    let programs = [
        "print(sum(i * i for i in range(1000)))",
        "import math\nprint(math.factorial(30), math.gcd(12, 18), round(math.pi, 6))",
        "from fractions import Fraction\nprint(Fraction(1, 3) + Fraction(1, 6))",
        "import itertools\nprint(list(itertools.permutations('abc', 2)))",
        "import collections\nprint(sorted(collections.Counter('mississippi').items()))",
        "import heapq\nh = [5, 1, 4, 2]\nheapq.heapify(h)\nprint([heapq.heappop(h) for _ in range(4)])",
        "import re\nprint(re.findall(r'\\d+', 'a1b22c333'))",
        "import json\nprint(json.dumps({'b': [1, 2.5, None], 'a': 'x'}, sort_keys=True))",
        "from decimal import Decimal\nprint(Decimal('0.1') + Decimal('0.2'))",
        "print(sorted({'pear', 'apple', 'fig'}), hash('abc') == hash('abc'))",
        "print(f'{2 ** 100:,}', 7 // -2, -7 % 3, 1e300 * 10)",
        "import statistics\nprint(statistics.median([3, 1, 4, 1, 5]))",
    ];
    for src in programs {
        let fast = run(Program::python(src).with_python_runtime(PythonRuntime::Fast)).await;
        let full = run(Program::python(src).with_python_runtime(PythonRuntime::Full)).await;
        assert_eq!(fast.status, Status::Ok, "{src}: {fast:?}");
        assert_eq!(full.status, Status::Ok, "{src}: {full:?}");
        assert_eq!(fast.stdout, full.stdout, "{src}");
    }
}

#[tokio::test]
async fn programs_read_and_write_their_own_working_folder() {
    let files = vec![
        ProgramFile {
            path: "data.txt".into(),
            contents: b"3 4\n".to_vec(),
        },
        ProgramFile {
            path: "sub/more.txt".into(),
            contents: b"five".to_vec(),
        },
    ];
    let src = "import os\na, b = map(int, open('data.txt').read().split())\nprint(a * b, open('sub/more.txt').read())\nopen('data.txt', 'w').write('x')\nos.makedirs('out/deep')\nopen('out/deep/r.bin', 'wb').write(bytes(range(256)))\nos.symlink('data.txt', 'link')\ntry:\n    os.symlink('/etc/passwd', 'out/host')\nexcept OSError:\n    pass\nprint(sorted(os.listdir('.')))";
    for rt in [PythonRuntime::Fast, PythonRuntime::Full] {
        let program = Program {
            files: files.clone(),
            fetch_files: [
                "data.txt",
                "out/deep/r.bin",
                "missing.txt",
                "link",
                "out",
                "out/host",
            ]
            .map(String::from)
            .to_vec(),
            ..Program::python(src).with_python_runtime(rt)
        };
        let out = run(program).await;
        // WASI refuses a symlink that leads out of the folder; one inside it is made, but the
        // host never follows it when fetching.
        assert_eq!(out.status, Status::Ok, "{rt:?}: {out:?}");
        assert_eq!(
            out.stdout, "12 five\n['data.txt', 'link', 'out', 'sub']\n",
            "{rt:?}"
        );
        let fetched: Vec<(&str, &[u8])> = out
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.contents.as_slice()))
            .collect();
        // Missing paths, folders and symlinks are left out; what was written comes back.
        assert_eq!(
            fetched,
            vec![
                ("data.txt", b"x".as_slice()),
                ("out/deep/r.bin", (0..=255u8).collect::<Vec<_>>().as_slice())
            ],
            "{rt:?}"
        );
    }
    // Each run starts from a fresh folder: nothing the previous runs wrote is there.
    let out = run(Program::python("import os\nprint(os.listdir('.'))")).await;
    assert_eq!(out.stdout, "[]\n", "{out:?}");

    for bad in [
        Program {
            files: vec![ProgramFile {
                path: "../escape".into(),
                contents: vec![],
            }],
            ..Program::python("print(1)")
        },
        Program {
            fetch_files: vec!["/etc/passwd".into()],
            ..Program::python("print(1)")
        },
    ] {
        assert!(matches!(
            SANDBOX.run(bad).await,
            Err(RunError::InvalidProgram(_))
        ));
    }
}

#[tokio::test]
async fn the_working_folder_is_bounded() {
    // A generous wall time: these runs must end by the folder limit, long before it.
    let limits = Limits {
        scratch_bytes: 1 << 20,
        wall_time: Duration::from_secs(60),
        ..Limits::default()
    };
    let programs = [
        // One file growing past the limit, in small writes.
        "f = open('big', 'wb')\nwhile True:\n    f.write(b'x' * 4096)",
        // Many small files.
        "i = 0\nwhile True:\n    open(f'f{i}', 'w').write('x')\n    i += 1",
        // One write larger than the limit, then a clean exit: caught after the run.
        "open('big', 'wb').write(b'x' * (3 << 20))",
    ];
    for src in programs {
        let out = run(Program::python(src).with_limits(limits.clone())).await;
        assert_eq!(out.status, Status::OutputLimit, "{src}: {out:?}");
        assert!(
            out.message
                .as_deref()
                .unwrap_or("")
                .contains("working folder"),
            "{out:?}"
        );
    }
}

#[tokio::test]
async fn runs_are_deterministic_and_isolated() {
    let src = "import random\nprint(hash('abc'), len(globals()), 0 <= random.random() < 1)";
    let mut fuel = None;
    let mut stdout = None;
    for _ in 0..3 {
        let out = run(Program::python(src).with_python_runtime(PythonRuntime::Full)).await;
        assert_eq!(out.status, Status::Ok, "{out:?}");
        assert_eq!(*stdout.get_or_insert(out.stdout.clone()), out.stdout);
        assert_eq!(*fuel.get_or_insert(out.fuel_used), out.fuel_used);
    }
    // What one run leaves in memory is not visible to later runs, including those that reuse its
    // pooled instance slot (more runs than the pool has slots, on both runtimes).
    for runtime in [PythonRuntime::Fast, PythonRuntime::Full] {
        let out = run(Program::python(
            "LEAK = 1\nimport math\nmath.LEAK = 2\nBIG = bytearray(b'L' * (8 << 20))",
        )
        .with_python_runtime(runtime))
        .await;
        assert_eq!(out.status, Status::Ok, "{out:?}");
        for _ in 0..6 {
            let out = run(Program::python(
                "import math, gc\nprint('LEAK' in globals(), hasattr(math, 'LEAK'), \
                 any(isinstance(o, bytearray) and len(o) >= 8 << 20 for o in gc.get_objects()))",
            )
            .with_python_runtime(runtime))
            .await;
            assert_eq!(out.stdout, "False False False\n", "{runtime:?}: {out:?}");
        }
    }
}

#[tokio::test]
async fn bad_programs_are_refused_with_clear_errors() {
    let nul = Program::python("print(1)\0");
    assert!(matches!(
        SANDBOX.run(nul).await,
        Err(RunError::InvalidProgram(_))
    ));
    let big_stdin = Program::python("pass").with_stdin(vec![b'x'; 17 << 20]);
    assert!(matches!(
        SANDBOX.run(big_stdin).await,
        Err(RunError::InvalidProgram(_))
    ));
    assert_eq!(Language::parse("Python3"), Some(Language::Python));
    assert_eq!(Language::parse("c++"), Some(Language::Cpp));
    assert_eq!(Language::parse("brainfuck"), None);
}

#[tokio::test]
async fn concurrent_runs_all_complete() {
    let runs = (0..24).map(|i| {
        let src = format!("print(sum(range({i} * 1000)))");
        async move { (i, SANDBOX.run(Program::python(src)).await.unwrap()) }
    });
    for (i, out) in futures_join(runs).await {
        assert_eq!(out.status, Status::Ok, "{out:?}");
        let n: u64 = i * 1000;
        assert_eq!(out.stdout.trim(), (n * n.saturating_sub(1) / 2).to_string());
    }
}

/// Runs futures concurrently on the current task (no extra dependency needed).
async fn futures_join<F>(futs: impl IntoIterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futs.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn a_large_instance_pool_starts_and_runs() {
    // The pool reserves address space per admitted run up front (~32 GiB each, none of it
    // committed): a big machine's setting must still start.
    let sandbox = sandbox::Sandbox::new(sandbox::Config {
        concurrency: 64,
        max_runs: 512,
        ..sandbox::Config::default()
    })
    .expect("a 512-run pool starts");
    for i in 0..3 {
        let out = sandbox
            .run(Program::python(format!("print({i} * 2)")))
            .await
            .unwrap();
        assert_eq!(out.status, Status::Ok, "{out:?}");
        assert_eq!(out.stdout, format!("{}\n", i * 2));
    }
}

#[tokio::test]
async fn a_caller_that_stops_waiting_leaves_the_queue_and_frees_its_slot() {
    let sandbox = std::sync::Arc::new(
        sandbox::Sandbox::new(sandbox::Config {
            max_runs: 1,
            full_python: false,
            ..sandbox::Config::default()
        })
        .unwrap(),
    );
    if !sandbox.supports(Language::Python) {
        return;
    }
    let forever = || {
        Program::python("while True: pass").with_limits(Limits {
            wall_time: Duration::from_secs(600),
            ..Limits::default()
        })
    };
    let blocker = tokio::spawn({
        let sandbox = sandbox.clone();
        async move { sandbox.run(forever()).await }
    });
    let waiter = tokio::spawn({
        let sandbox = sandbox.clone();
        async move { sandbox.run(forever()).await }
    });
    // One run waiting means the other holds the only run slot.
    while sandbox.queue_depth() != 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A bounded wait behind a 600 s run is refused, not queued.
    match sandbox
        .run_within(Program::python("print(1)"), Some(Duration::from_millis(50)))
        .await
    {
        Err(RunError::Busy { retry_after }) => assert!(!retry_after.is_zero()),
        other => panic!("expected busy, got {other:?}"),
    }
    waiter.abort();
    blocker.abort();
    // Both callers gone: the queue empties and the slot frees up long before the 600 s limit.
    let out = sandbox
        .run_within(Program::python("print(1)"), Some(Duration::from_secs(60)))
        .await
        .expect("the aborted runs released the slot");
    assert_eq!(out.stdout, "1\n");
    assert_eq!(sandbox.queue_depth(), 0);
}
