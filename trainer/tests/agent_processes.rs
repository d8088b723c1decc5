//! One agent per process (`trainer run --agent NAME`), synchronised through the pool only: two
//! `trainer` processes against the real verifier and Postgres, one killed after a checkpoint and
//! restarted, fill the pool as a single process training both agents does.

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use trainer::config::RunConfig;

/// `trainer run --config <config> --agent <agent>`, its output in `<dir>/<agent>-<tag>.log`.
fn spawn_agent(dir: &Path, config: &Path, agent: &str, tag: &str) -> Child {
    let log = std::fs::File::create(dir.join(format!("{agent}-{tag}.log"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["run", "--agent", agent, "--config"])
        .arg(config)
        .env("OMP_NUM_THREADS", "1")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// Waits for `child` to exit successfully; on failure, panics with its log.
fn finish(mut child: Child, dir: &Path, agent: &str, tag: &str) {
    let status = child.wait().unwrap();
    let log = std::fs::read_to_string(dir.join(format!("{agent}-{tag}.log"))).unwrap();
    assert!(status.success(), "{agent} ({tag}) failed:\n{log}");
}

/// The last checkpointed step of a process training `agent`, from its `state.json`.
fn checkpointed(output: &Path, agent: &str) -> Option<u64> {
    let text = std::fs::read_to_string(output.join(agent).join("state.json")).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["step"].as_u64()
}

#[test]
fn agents_in_separate_processes_fill_the_pool_as_one_process_does() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let [(a, _), (b, _)] = &agents;
    let config = |name: &str, run_extra: &str| {
        support::write_run_config(dir.path(), &url, name, 3, run_extra, "", &agents)
    };

    // The reference: both agents in this process.
    trainer::train::run(&RunConfig::load(&config("single", "")).unwrap()).unwrap();

    // One process per agent; b is killed once its step-1 checkpoint is written, then restarted.
    let split = config("split", "");
    let pa = spawn_agent(dir.path(), &split, a, "first");
    let mut pb = spawn_agent(dir.path(), &split, b, "first");
    let output = dir.path().join("out-split");
    let deadline = Instant::now() + Duration::from_secs(120);
    while checkpointed(&output, b).is_none() {
        assert!(Instant::now() < deadline, "b wrote no checkpoint");
        assert!(pb.try_wait().unwrap().is_none(), "b exited early");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        pb.try_wait().unwrap().is_none(),
        "b finished before it could be killed"
    );
    pb.kill().unwrap();
    pb.wait().unwrap();
    let killed_after = checkpointed(&output, b).unwrap();
    assert!(killed_after < 3, "b was killed mid-run");
    let pb = spawn_agent(dir.path(), &split, b, "restarted");
    finish(pa, dir.path(), a, "first");
    finish(pb, dir.path(), b, "restarted");
    let restarted = std::fs::read_to_string(dir.path().join(format!("{b}-restarted.log"))).unwrap();
    assert!(restarted.contains("resumed from checkpoint"), "{restarted}");

    let rows = |sql: &'static str, run: &str| {
        rt.block_on(
            sqlx::query_as::<_, (String, i64, String)>(sql)
                .bind(run.to_string())
                .fetch_all(&db),
        )
        .unwrap()
    };
    // Per agent and step: how many rollouts, and on which tasks (by external id).
    let per_step = "select a.name, r.step, count(*)::text || ':' || string_agg(distinct t.external_id, ',' order by t.external_id)
         from rollouts r join agents a on a.id = r.agent_id join tasks t on t.id = r.task_id
         where r.run = $1 group by 1, 2 order by 1, 2";
    let single = rows(per_step, "single");
    assert_eq!(single.len(), 6, "2 agents × 3 steps: {single:?}");
    // 2 prompts × 3 responses: a restarted step regenerated nothing it had submitted.
    assert!(single.iter().all(|r| r.2.starts_with("6:")), "{single:?}");
    assert_eq!(rows(per_step, "split"), single);
    // Generation is seeded by (seed, step, agent) and a checkpoint restores weights and AdamW
    // state exactly, so even the responses are the same.
    let responses = "select a.name, r.step, t.external_id || ':' || r.response
         from rollouts r join agents a on a.id = r.agent_id join tasks t on t.id = r.task_id
         where r.run = $1 order by 1, 2, 3";
    assert_eq!(rows(responses, "split"), rows(responses, "single"));
    // Every agent's metrics for every step.
    let metrics =
        "select a.name, m.step, '' from train_metrics m join agents a on a.id = m.agent_id
         where m.run = $1 order by 1, 2";
    let single_metrics = rows(metrics, "single");
    assert_eq!(single_metrics.len(), 6);
    assert_eq!(rows(metrics, "split"), single_metrics);
    // Each process kept its own metrics file and state next to its checkpoints.
    for agent in [a, b] {
        let lines = std::fs::read_to_string(output.join(agent).join("metrics.jsonl")).unwrap();
        assert!(lines.lines().count() >= 3, "{agent}: {lines}");
        assert_eq!(checkpointed(&output, agent), Some(3));
    }

    // An agent whose partner never comes fails at the barrier, naming it.
    let alone = config("alone", "barrier_timeout_s = 1");
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["run", "--agent", a, "--config"])
        .arg(&alone)
        .env("OMP_NUM_THREADS", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no rollouts from tiny-qwen3-bytes after 1s"),
        "{stderr}"
    );
}
