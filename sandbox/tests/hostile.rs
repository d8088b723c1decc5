//! Hostile programs are contained with the right status, on both Python runtimes.

mod support;

use std::time::Duration;

use sandbox::{Limits, Outcome, Program, PythonRuntime, Status};
use support::SANDBOX;

fn tight() -> Limits {
    Limits {
        wall_time: Duration::from_millis(1500),
        memory_bytes: 128 << 20,
        stdout_bytes: 64 << 10,
        stderr_bytes: 64 << 10,
        ..Limits::default()
    }
}

async fn run_on(rt: PythonRuntime, src: &str) -> Outcome {
    SANDBOX
        .run(
            Program::python(src)
                .with_limits(tight())
                .with_python_runtime(rt),
        )
        .await
        .expect("program accepted")
}

const RUNTIMES: [PythonRuntime; 2] = [PythonRuntime::Fast, PythonRuntime::Full];

#[tokio::test]
async fn infinite_loop_times_out() {
    for rt in RUNTIMES {
        let out = run_on(rt, "print('start', flush=True)\nwhile True:\n    pass").await;
        assert_eq!(out.status, Status::Timeout, "{rt:?}: {out:?}");
        assert_eq!(
            out.stdout, "start\n",
            "{rt:?}: output before the trap survives"
        );
        assert!(
            out.wall_time < Duration::from_secs(5),
            "{rt:?}: {:?}",
            out.wall_time
        );
    }
}

#[tokio::test]
async fn sleeping_forever_times_out() {
    for rt in RUNTIMES {
        let out = run_on(rt, "import time\ntime.sleep(1e9)").await;
        assert_eq!(out.status, Status::Timeout, "{rt:?}: {out:?}");
        assert!(
            out.wall_time < Duration::from_secs(5),
            "{rt:?}: {:?}",
            out.wall_time
        );
    }
}

#[tokio::test]
async fn fuel_limit_stops_a_busy_program() {
    let limits = Limits {
        fuel: Some(50_000_000),
        ..tight()
    };
    let out = SANDBOX
        .run(Program::python("while True:\n    pass").with_limits(limits))
        .await
        .unwrap();
    assert_eq!(out.status, Status::Timeout, "{out:?}");
    assert_eq!(out.message.as_deref(), Some("fuel limit exceeded"));
}

#[tokio::test]
async fn memory_bomb_hits_the_memory_limit() {
    for rt in RUNTIMES {
        let out = run_on(rt, "x = []\nwhile True:\n    x.append(bytearray(1 << 20))").await;
        assert_eq!(out.status, Status::MemoryLimit, "{rt:?}: {out:?}");
        assert!(
            out.peak_memory_bytes <= 128 << 20,
            "{rt:?}: {}",
            out.peak_memory_bytes
        );
        let out = run_on(rt, "s = 'x' * (1 << 30)").await;
        assert_eq!(out.status, Status::MemoryLimit, "{rt:?}: {out:?}");
    }
}

#[tokio::test]
async fn huge_output_hits_the_output_limit() {
    for rt in RUNTIMES {
        let out = run_on(rt, "while True:\n    print('spam' * 100)").await;
        assert_eq!(out.status, Status::OutputLimit, "{rt:?}: {out:?}");
        assert!(out.stdout_truncated);
        assert!(out.stdout.len() <= 64 << 10);
        let out = run_on(
            rt,
            "import sys\nwhile True:\n    sys.stderr.write('err' * 1000)",
        )
        .await;
        assert_eq!(out.status, Status::OutputLimit, "{rt:?}: {out:?}");
        assert!(out.stderr_truncated);
    }
}

#[tokio::test]
async fn deep_recursion_is_a_runtime_error() {
    for rt in RUNTIMES {
        let out = run_on(rt, "def f(n):\n    return f(n + 1) + 1\nf(0)").await;
        assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {out:?}");
        assert!(
            out.stderr.contains("RecursionError"),
            "{rt:?}: {}",
            out.stderr
        );
        // With the recursion limit lifted, the wasm stack or the memory runs out (or, when the
        // interpreter keeps going after MemoryError, the time): contained either way.
        let out = run_on(
            rt,
            "import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1) + 1\nf(0)",
        )
        .await;
        assert!(
            matches!(
                out.status,
                Status::RuntimeError | Status::MemoryLimit | Status::Timeout
            ),
            "{rt:?}: {out:?}"
        );
    }
}

#[tokio::test]
async fn host_filesystem_is_invisible_and_unwritable() {
    for rt in RUNTIMES {
        let out = run_on(rt, "print(open('/etc/passwd').read())").await;
        assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {out:?}");
        assert!(!out.stdout.contains("root:"), "{rt:?}");
        let out = run_on(rt, "open('/tmp/pwned', 'w').write('x')").await;
        assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {out:?}");
        // A relative path lands in the run's own scratch folder (SandboxFusion programs write
        // files there), never in the host's working directory.
        let out = run_on(rt, "open('pwned.txt', 'w').write('x')").await;
        assert_eq!(out.status, Status::Ok, "{rt:?}: {out:?}");
        assert!(!std::path::Path::new("pwned.txt").exists());
        let out = run_on(rt, "import os\nprint(sorted(os.environ.items()))\nprint(os.listdir('/') if hasattr(os, 'listdir') else [])").await;
        assert!(
            !out.stdout.contains("HOME") && !out.stdout.contains("PATH"),
            "{rt:?}: {out:?}"
        );
    }
    assert!(!std::path::Path::new("/tmp/pwned").exists());
}

#[tokio::test]
async fn sockets_processes_and_ctypes_are_unavailable() {
    let attempts = [
        "import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 5432))",
        "import socket\nsocket.create_connection(('example.com', 80), timeout=1)",
        "import subprocess\nsubprocess.run(['ls'])",
        "import os\nos.system('ls')",
        "import os\nos.fork()",
        "import ctypes\nctypes.CDLL(None)",
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
        "import threading\nt = threading.Thread(target=print)\nt.start()\nt.join()",
    ];
    for rt in RUNTIMES {
        for src in attempts {
            let out = run_on(rt, src).await;
            assert_eq!(out.status, Status::RuntimeError, "{rt:?}: {src}: {out:?}");
            assert!(
                !out.stderr.is_empty(),
                "{rt:?}: {src}: the failure is explained"
            );
        }
    }
}

#[tokio::test]
async fn hostile_runs_do_not_disturb_a_concurrent_run() {
    let bomb = tokio::spawn(run_on(PythonRuntime::Auto, "while True:\n    pass"));
    let sleeper = tokio::spawn(run_on(PythonRuntime::Auto, "import time\ntime.sleep(1e9)"));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let ok = run_on(PythonRuntime::Auto, "print(2 + 2)").await;
    assert_eq!(
        (ok.status, ok.stdout.as_str()),
        (Status::Ok, "4\n"),
        "{ok:?}"
    );
    assert_eq!(bomb.await.unwrap().status, Status::Timeout);
    assert_eq!(sleeper.await.unwrap().status, Status::Timeout);
}
