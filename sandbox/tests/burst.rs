//! Admission under a burst: runs side by side up to a memory budget, SandboxFusion's wall-clock
//! semantics, and load answered as busy rather than as a verdict.

use std::sync::Arc;
use std::time::Duration;

use sandbox::{Config, Limits, Program, RunError, Sandbox, Status};

fn limited(src: &str, wall: Duration, memory: u64) -> Program {
    Program::python(src).with_limits(Limits {
        wall_time: wall,
        memory_bytes: memory,
        ..Limits::default()
    })
}

/// A sandbox of `config`'s admission settings, sharing the test's precompiled runtimes.
fn sandbox(configure: impl FnOnce(&mut Config)) -> Arc<Sandbox> {
    let mut config = Config {
        full_python: false,
        ..Config::default()
    };
    configure(&mut config);
    Arc::new(Sandbox::new(config).expect("sandbox starts"))
}

/// Held by the tests that time programs against a burst on the machine's cores, so that they do
/// not share those cores with each other.
static CORES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `n` endless loops started side by side, each with a `wall` limit.
fn endless_loops(
    sandbox: &Arc<Sandbox>,
    n: usize,
    wall: Duration,
) -> Vec<tokio::task::JoinHandle<Result<sandbox::Outcome, RunError>>> {
    (0..n)
        .map(|_| {
            let s = sandbox.clone();
            tokio::spawn(async move { s.run(limited("while True: pass", wall, 64 << 20)).await })
        })
        .collect()
}

#[tokio::test]
async fn a_burst_of_endless_loops_times_out_side_by_side_and_a_quick_program_is_answered() {
    let _cores = CORES.lock().await;
    // More loops than cores by far: with one run per core they would queue for 12 rounds.
    let sandbox = sandbox(|c| c.concurrency = 2);
    let loops = endless_loops(&sandbox, 24, Duration::from_secs(3));
    let quick = sandbox
        .run(limited("print(6 * 7)", Duration::from_secs(3), 64 << 20))
        .await
        .expect("admitted beside the loops");
    assert_eq!((quick.status, quick.stdout.as_str()), (Status::Ok, "42\n"));
    assert!(
        loops.iter().any(|l| !l.is_finished()),
        "the quick program was answered only after the loops"
    );
    for l in loops {
        let out = l.await.unwrap().expect("never refused");
        assert_eq!(out.status, Status::Timeout, "{out:?}");
        assert_eq!(out.message.as_deref(), Some("wall-time limit exceeded"));
    }
}

#[tokio::test]
async fn a_growth_the_budget_cannot_cover_is_busy_not_a_memory_verdict() {
    let sandbox = sandbox(|c| c.memory_budget_bytes = 160 << 20);
    // Holds about 100 MiB of the 160 MiB budget for a few seconds.
    let holder = {
        let s = sandbox.clone();
        tokio::spawn(async move {
            let src = "import time\nx = bytearray(100 << 20)\ntime.sleep(4)\nprint('held')";
            s.run(limited(src, Duration::from_secs(8), 150 << 20)).await
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Within its own limit, but not within what the budget has left.
    let grower = "x = bytearray(100 << 20)\nprint('grown')";
    let refused = sandbox
        .run(limited(grower, Duration::from_secs(8), 150 << 20))
        .await;
    assert!(matches!(refused, Err(RunError::Busy { .. })), "{refused:?}");
    let held = holder.await.unwrap().unwrap();
    assert_eq!((held.status, held.stdout.as_str()), (Status::Ok, "held\n"));
    // Once the budget is free again the same program gets its verdict.
    let out = sandbox
        .run(limited(grower, Duration::from_secs(8), 150 << 20))
        .await
        .unwrap();
    assert_eq!((out.status, out.stdout.as_str()), (Status::Ok, "grown\n"));
    // Its own limit still ends it as a memory verdict.
    let out = sandbox
        .run(limited(grower, Duration::from_secs(8), 64 << 20))
        .await
        .unwrap();
    assert_eq!(out.status, Status::MemoryLimit, "{out:?}");
}

#[tokio::test]
async fn a_memory_limit_beyond_the_whole_budget_is_refused_up_front() {
    let sandbox = sandbox(|c| c.memory_budget_bytes = 64 << 20);
    let refused = sandbox
        .run(limited("print(1)", Duration::from_secs(1), 128 << 20))
        .await;
    assert!(
        matches!(refused, Err(RunError::InvalidProgram(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_run_not_admitted_by_its_deadline_is_busy() {
    let sandbox = sandbox(|c| c.max_runs = 1);
    let blocker = {
        let s = sandbox.clone();
        tokio::spawn(async move {
            s.run(limited(
                "while True: pass",
                Duration::from_secs(4),
                64 << 20,
            ))
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let refused = sandbox
        .run_within(
            limited("print(1)", Duration::from_secs(1), 64 << 20),
            Some(Duration::from_millis(300)),
        )
        .await;
    assert!(matches!(refused, Err(RunError::Busy { .. })), "{refused:?}");
    let out = blocker.await.unwrap().unwrap();
    assert_eq!(out.status, Status::Timeout);
}

#[tokio::test]
async fn a_memory_bomb_reaches_its_limit_beside_a_burst_of_endless_loops() {
    let _cores = CORES.lock().await;
    // 80 loops on 2 threads: taking its turn like them, the bomb fills 256 MiB only after its
    // wall clock (4 s was too short, 8 s is); growing, it keeps its thread up to 4 slices per
    // turn and reaches its limit in about 1.1-2.2 s on an idle machine, 4.3 s while a container
    // build took both cores (it ran out of 4 s there, 0.5 MiB short). The loops outlast the bomb,
    // so it never has the cores to itself.
    let sandbox = sandbox(|c| {
        c.concurrency = 2;
        c.slicing = sandbox::Slicing::GrowingFirst;
    });
    let loops = endless_loops(&sandbox, 80, Duration::from_secs(12));
    // All loops running before the bomb starts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let bomb = "chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 20))";
    let out = sandbox
        .run(limited(bomb, Duration::from_secs(8), 256 << 20))
        .await
        .expect("admitted beside the loops");
    assert_eq!(out.status, Status::MemoryLimit, "{out:?}");
    for l in loops {
        let out = l.await.unwrap().expect("never refused");
        assert_eq!(out.status, Status::Timeout, "{out:?}");
    }
}
