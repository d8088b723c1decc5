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

/// Kills `child`, the process training `agent`, once its first checkpoint is in `output` and
/// while it is still running; returns the step it had checkpointed.
fn kill_after_first_checkpoint(mut child: Child, output: &Path, agent: &str) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(120);
    while checkpointed(output, agent).is_none() {
        assert!(Instant::now() < deadline, "{agent} wrote no checkpoint");
        assert!(child.try_wait().unwrap().is_none(), "{agent} exited early");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "{agent} finished before it could be killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    checkpointed(output, agent).unwrap()
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
    let pb = spawn_agent(dir.path(), &split, b, "first");
    let output = dir.path().join("out-split");
    let killed_after = kill_after_first_checkpoint(pb, &output, b);
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

#[test]
fn an_asynchronous_agent_trains_on_while_its_partner_is_killed_and_the_partner_rejoins() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let [(a, _), (b, _)] = &agents;
    // A barrier would fail 1 s after the partner stopped: the asynchronous loop has none.
    let extra = "max_staleness = 1\nbarrier_timeout_s = 1";
    let config = support::write_run_config(dir.path(), &url, "async", 6, extra, "", &agents);
    let output = dir.path().join("out-async");

    let pa = spawn_agent(dir.path(), &config, a, "first");
    let pb = spawn_agent(dir.path(), &config, b, "first");
    let killed_after = kill_after_first_checkpoint(pb, &output, b);
    assert!(killed_after < 6, "b was killed mid-run");

    // a trains every step with its partner dead.
    finish(pa, dir.path(), a, "first");
    assert_eq!(checkpointed(&output, a), Some(6));
    let last_step = |agent: &str| -> i64 {
        rt.block_on(
            sqlx::query_scalar(
                "select coalesce(max(r.step), 0) from rollouts r join agents w on w.id = r.agent_id
                 where r.run = 'async' and w.name = $1",
            )
            .bind(agent)
            .fetch_one(&db),
        )
        .unwrap()
    };
    let b_stopped_at = last_step(b);
    assert!(
        b_stopped_at < 6,
        "b submitted step {b_stopped_at} before it was killed"
    );

    // b rejoins from its checkpoint and the pool, and finishes.
    let pb = spawn_agent(dir.path(), &config, b, "restarted");
    finish(pb, dir.path(), b, "restarted");
    let restarted = std::fs::read_to_string(dir.path().join(format!("{b}-restarted.log"))).unwrap();
    assert!(restarted.contains("resumed from checkpoint"), "{restarted}");
    assert_eq!(checkpointed(&output, b), Some(6));

    let per_step: Vec<(String, i64, i64, Option<i64>, f64)> = rt
        .block_on(
            sqlx::query_as(
                "select agent, step, cross_used, staleness_max, wait_seconds
                 from agent_staleness where run = 'async' order by 1, 2",
            )
            .fetch_all(&db),
        )
        .unwrap();
    assert_eq!(per_step.len(), 12, "2 agents × 6 steps: {per_step:?}");
    // Nobody waited, and no rollout older than η = 1 update taught anyone.
    assert!(per_step.iter().all(|r| r.4 == 0.0), "{per_step:?}");
    assert!(
        per_step.iter().all(|r| r.3.unwrap_or(0) <= 1),
        "{per_step:?}"
    );
    // a's updates past b's last pooled step (and one more, η) had no partner rollouts; b,
    // rejoined, learned from a's pooled ones.
    for (agent, step, cross, _, _) in &per_step {
        if agent == a && *step > b_stopped_at + 1 {
            assert_eq!(*cross, 0, "{agent}@{step}");
        }
        if agent == b && *step > b_stopped_at {
            assert!(*cross > 0, "{agent}@{step} learned nothing from a");
        }
    }
}
