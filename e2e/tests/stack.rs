//! The whole stack started through `scripts/up`: import, scoring, the pool seen through REST and
//! SQL, capability, a verifier crash and a graceful restart mid-batch, and a clean stop.

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use e2e::client::{self, parse_id};
use e2e::launcher::{Launch, Stack, alive, free_addr, send};
use e2e::load::{self, Fixture, LoadConfig};
use e2e::workload::{self, Examples, Program, code_response, math_response};
use serde_json::Value;
use uuid::Uuid;
use wire::NewRollout;
use wire::client::Client;

/// What the test expects of one submitted rollout.
struct Sent {
    agent: Uuid,
    step: i64,
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Math { correct: bool },
    Code(Program),
}

impl Sent {
    /// Whether this rollout counts as correct (every rollout counts towards accuracy).
    fn correct(&self) -> bool {
        match self.kind {
            Kind::Math { correct } => correct,
            Kind::Code(p) => p == Program::Canonical,
        }
    }
}

fn check_result(result: &Value, sent: &Sent) {
    let (status, correct, reward) = (
        result["status"].as_str().unwrap(),
        result["correct"].as_bool().unwrap(),
        result["reward"].as_f64().unwrap(),
    );
    match sent.kind {
        Kind::Math { correct: want } => {
            assert_eq!(status, "scored", "{result}");
            assert_eq!(correct, want, "{result}");
            assert_eq!(reward, if want { 1.0 } else { 0.0 }, "{result}");
            assert_eq!(result["verdict"]["kind"], "math", "{result}");
        }
        Kind::Code(program) => {
            // Whatever the judge does, a program that is not the reference never passes.
            if program != Program::Canonical {
                assert!(!correct && reward < 1.0, "{program:?} passed: {result}");
            }
            assert_eq!(status, "scored", "{program:?}: {result}");
            assert_eq!(
                correct,
                program == Program::Canonical,
                "{program:?}: {result}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stack_scores_two_agents_and_reports_capability_over_rest_and_sql() -> anyhow::Result<()> {
    let data = e2e::sample_data();
    let ex = Examples::load(&data)?;
    let mut stack = Stack::start(&data).await?;
    let db = stack.db().await?;

    // The launcher imported the example tasks.
    let imported: Vec<(String, i64)> =
        sqlx::query_as("select dataset, count(*) from tasks group by dataset order by dataset")
            .fetch_all(&db)
            .await?;
    assert_eq!(
        imported,
        vec![
            ("gsm8k".into(), ex.math.len() as i64),
            ("humaneval".into(), ex.code.len() as i64)
        ]
    );

    // The ready-to-paste lines it printed work as printed.
    // The banner follows the `ready` line; its last line is the Ctrl-C hint.
    stack
        .launch
        .wait_for("  Ctrl-C stops", 1, Duration::from_secs(10))?;
    let out = stack.launch.output();
    for (starts, expect) in [
        (format!("curl -s {}/readyz", stack.url), "ready"),
        (format!("psql '{}'", stack.db_url), "gsm8k"),
    ] {
        let line = out
            .iter()
            .map(|l| l.trim())
            .find(|l| l.starts_with(&starts))
            .unwrap_or_else(|| panic!("no line starting `{starts}` in:\n{}", out.join("\n")));
        let run = Command::new("bash").args(["-c", line]).output()?;
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.contains(expect),
            "`{line}` printed {stdout}"
        );
    }

    let api = Client::new(&stack.url, None, Duration::from_secs(30))?;
    let strong = client::agent(&api, "qwen3-1.7b", "qwen3").await?;
    let weak = client::agent(&api, "llama-3.2-1b", "llama").await?;
    let math_ids = client::task_ids(&api, "gsm8k").await?;
    let code_ids = client::task_ids(&api, "humaneval").await?;

    // Agents see prompts, never gold answers.
    let listed = api
        .get::<Value>("/v1/tasks?dataset=gsm8k&limit=100")
        .await?
        .to_string();
    assert!(
        !listed.contains("reference") && !listed.contains("####"),
        "{listed}"
    );

    // Two steps; per step each agent answers every math task (strong: 8/8 then 6/8 right,
    // weak: 4/8 then 2/8), strong submits the reference programs, weak hostile and wrong ones.
    let run = "e2e";
    let mut sent: HashMap<Uuid, Sent> = HashMap::new();
    let mut batches: Vec<Vec<NewRollout>> = Vec::new();
    for (step, strong_right, weak_right) in [(1i64, 8usize, 4usize), (2, 6, 2)] {
        let mut batch = Vec::new();
        for (agent, right) in [(strong, strong_right), (weak, weak_right)] {
            for (i, m) in ex.math.iter().enumerate() {
                let id = Uuid::new_v4();
                let correct = i < right;
                batch.push(workload::rollout(
                    id,
                    math_ids[&m.external_id],
                    agent,
                    run,
                    step,
                    &math_response(m, correct),
                ));
                sent.insert(
                    id,
                    Sent {
                        agent,
                        step,
                        kind: Kind::Math { correct },
                    },
                );
            }
        }
        let weak_programs = Program::HOSTILE.iter().copied().chain([Program::Wrong]);
        let programs = ex
            .code
            .iter()
            .map(|c| (strong, c, Program::Canonical))
            .chain(
                weak_programs
                    .enumerate()
                    .map(|(i, p)| (weak, &ex.code[i % ex.code.len()], p)),
            );
        for (agent, c, program) in programs {
            let id = Uuid::new_v4();
            batch.push(workload::rollout(
                id,
                code_ids[&c.external_id],
                agent,
                run,
                step,
                &code_response(c, program),
            ));
            sent.insert(
                id,
                Sent {
                    agent,
                    step,
                    kind: Kind::Code(program),
                },
            );
        }
        batches.push(batch);
    }
    for batch in &batches {
        let body = client::submit(&api, batch).await?;
        assert_eq!(body["created"], batch.len(), "{body}");
        for r in body["results"].as_array().unwrap() {
            check_result(r, &sent[&parse_id(&r["id"])?]);
            assert_eq!(r["duplicate"], false);
        }
    }

    // Resubmitting a batch (a trainer retrying) stores nothing new and returns the same results.
    let again = client::submit(&api, &batches[0]).await?;
    assert_eq!(
        (again["created"].as_u64(), again["duplicates"].as_u64()),
        (Some(0), Some(batches[0].len() as u64))
    );
    for r in again["results"].as_array().unwrap() {
        check_result(r, &sent[&parse_id(&r["id"])?]);
    }

    // The pool, as psql users see it: every rollout once, with the reward the API reported.
    let rows: Vec<(Uuid, Uuid, i64, String, bool)> =
        sqlx::query_as("select id, agent_id, step, status, correct from rollouts where run = $1")
            .bind(run)
            .fetch_all(&db)
            .await?;
    assert_eq!(rows.len(), sent.len());
    for (id, agent, step, status, correct) in &rows {
        let s = &sent[id];
        assert_eq!((s.agent, s.step), (*agent, *step));
        assert_eq!((status.as_str(), *correct), ("scored", s.correct()));
    }

    // Accuracy per agent and step (judge errors excluded), and capability over a window of 2.
    let mut expected: HashMap<(Uuid, i64), (usize, usize)> = HashMap::new();
    for s in sent.values() {
        let e = expected.entry((s.agent, s.step)).or_default();
        e.0 += 1;
        e.1 += s.correct() as usize;
    }
    let accuracy: Vec<(Uuid, i64, i64, f64, f64)> = sqlx::query_as(
        "select agent_id, step, rollouts, accuracy, capability from agent_capability(2) where run = $1 order by agent_id, step",
    )
    .bind(run)
    .fetch_all(&db)
    .await?;
    assert_eq!(accuracy.len(), 4, "{accuracy:?}");
    for (agent, step, n, acc, cap) in &accuracy {
        let (count, right) = expected[&(*agent, *step)];
        assert_eq!(*n, count as i64);
        assert!(
            (acc - right as f64 / count as f64).abs() < 1e-9,
            "{agent} step {step}: {acc}"
        );
        let mean: f64 = (1..=*step)
            .map(|s| expected[&(*agent, s)])
            .map(|(c, r)| r as f64 / c as f64)
            .sum::<f64>()
            / *step as f64;
        assert!(
            (cap - mean).abs() < 1e-9,
            "{agent} step {step}: capability {cap}, expected {mean}"
        );
    }
    for (name, id) in [("qwen3-1.7b", strong), ("llama-3.2-1b", weak)] {
        let cap: Value = api
            .get(&format!("/v1/agents/{name}/capability?run={run}&window=2"))
            .await?;
        let sql = accuracy.iter().find(|r| r.0 == id && r.1 == 2).unwrap().4;
        assert!(
            (cap["capability"].as_f64().unwrap() - sql).abs() < 1e-9,
            "{cap}"
        );
    }
    // Strong beats weak, as sent.
    assert!(accuracy.iter().filter(|r| r.0 == strong).all(|r| r.3 > 0.5));

    // The groups a policy update reads: every scored task of the step, both agents in each math group.
    let groups: Value = api
        .get(&format!("/v1/pool/groups?run={run}&step=1"))
        .await?;
    let groups = groups["groups"].as_array().unwrap();
    let scored_tasks: HashSet<&str> = groups
        .iter()
        .map(|g| g["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(scored_tasks.len(), ex.math.len() + ex.code.len());
    let math_task_ids: HashSet<String> = math_ids.values().map(|id| id.to_string()).collect();
    for g in groups
        .iter()
        .filter(|g| math_task_ids.contains(g["task_id"].as_str().unwrap()))
    {
        assert_eq!(g["rollouts"].as_array().unwrap().len(), 2, "{g}");
    }

    db.close().await;
    stack.stop()
}

/// Four trainer-like clients submit batches with client-chosen ids and retry until acknowledged,
/// while the verifier is killed (SIGKILL) and later stopped gracefully (SIGTERM) mid-batch; the
/// launcher restarts it each time. Afterwards every acknowledged rollout is in the pool exactly
/// once, with the reward it was acknowledged with, and nothing else is.
#[tokio::test(flavor = "multi_thread")]
async fn verifier_restarts_mid_batch_lose_and_duplicate_nothing() -> anyhow::Result<()> {
    let data = e2e::sample_data();
    let ex = Examples::load(&data)?;
    let mut stack = Stack::start(&data).await?;
    let api = Client::new(&stack.url, None, Duration::from_secs(10))?;
    let agents = [
        client::agent(&api, "a", "qwen3").await?,
        client::agent(&api, "b", "llama").await?,
    ];
    let math_ids = client::task_ids(&api, "gsm8k").await?;
    let code_ids = client::task_ids(&api, "humaneval").await?;
    let run = "restart";
    const CLIENTS: usize = 4;
    const BATCHES: usize = 30;
    const BATCH: usize = 32;

    let acked = Arc::new(tokio::sync::Mutex::new(Vec::<(Value, u32)>::new()));
    let mut clients = Vec::new();
    for c in 0..CLIENTS {
        let (api, ex, math_ids, code_ids, acked) = (
            api.clone(),
            ex.clone(),
            math_ids.clone(),
            code_ids.clone(),
            acked.clone(),
        );
        clients.push(tokio::spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            for b in 0..BATCHES {
                let batch: Vec<NewRollout> = (0..BATCH)
                    .map(|i| {
                        let n = c * 7 + b * 3 + i;
                        let agent = agents[n % 2];
                        if n % 4 == 0 {
                            let t = &ex.code[n % ex.code.len()];
                            let p = if n % 8 == 0 {
                                Program::Canonical
                            } else {
                                Program::Wrong
                            };
                            workload::rollout(
                                Uuid::new_v4(),
                                code_ids[&t.external_id],
                                agent,
                                run,
                                b as i64,
                                &code_response(t, p),
                            )
                        } else {
                            let m = &ex.math[n % ex.math.len()];
                            workload::rollout(
                                Uuid::new_v4(),
                                math_ids[&m.external_id],
                                agent,
                                run,
                                b as i64,
                                &math_response(m, n % 3 != 0),
                            )
                        }
                    })
                    .collect();
                let ack = client::submit_until_acked(&api, &batch, deadline).await?;
                acked.lock().await.push((ack.body, ack.attempts));
            }
            anyhow::Ok(())
        }));
    }

    let wait_acked = |n: usize| {
        let acked = acked.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs(30);
            while acked.lock().await.len() < n {
                anyhow::ensure!(
                    Instant::now() < deadline,
                    "fewer than {n} batches acknowledged in 30 s"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Ok(())
        }
    };
    // Crash it a quarter of the way in, then stop it gracefully half-way.
    wait_acked(CLIENTS * BATCHES / 4).await?;
    let first = stack.launch.verifier_pid()?;
    send(first, libc::SIGKILL);
    stack
        .launch
        .wait_for("up: ready ", 2, Duration::from_secs(30))?;
    wait_acked(CLIENTS * BATCHES / 2).await?;
    let second = stack.launch.verifier_pid()?;
    assert_ne!(first, second);
    send(second, libc::SIGTERM);
    stack
        .launch
        .wait_for("up: ready ", 3, Duration::from_secs(30))?;
    for c in clients {
        c.await??;
    }
    assert!(!alive(first) && !alive(second));
    assert_eq!(stack.launch.lines_starting("up: verifier exited").len(), 2);

    let acked = acked.lock().await;
    assert_eq!(acked.len(), CLIENTS * BATCHES);
    let retried = acked.iter().filter(|(_, attempts)| *attempts > 1).count();
    assert!(
        retried > 0,
        "no batch needed a retry: the restarts did not happen mid-load"
    );
    let mut want: HashMap<Uuid, f64> = HashMap::new();
    for (body, _) in acked.iter() {
        for r in body["results"].as_array().unwrap() {
            assert!(
                want.insert(parse_id(&r["id"])?, r["reward"].as_f64().unwrap())
                    .is_none()
            );
        }
    }
    let db = stack.db().await?;
    let rows: Vec<(Uuid, f64)> = sqlx::query_as("select id, reward from rollouts where run = $1")
        .bind(run)
        .fetch_all(&db)
        .await?;
    assert_eq!(
        rows.len(),
        CLIENTS * BATCHES * BATCH,
        "lost or extra rollouts"
    );
    for (id, reward) in rows {
        assert_eq!(
            want.get(&id),
            Some(&reward),
            "rollout {id} stored but not acknowledged as such"
        );
    }
    db.close().await;
    stack.stop()
}

/// A bounded run of the load test against the launched stack: zero errors, every reward right,
/// every rollout stored once.
#[tokio::test(flavor = "multi_thread")]
async fn load_smoke_run_is_clean() -> anyhow::Result<()> {
    let data = e2e::sample_data();
    let stack = Stack::start(&data).await?;
    let api = Client::new(&stack.url, None, Duration::from_secs(30))?;
    let fixture = Arc::new(Fixture::prepare(&api, &Examples::load(&data)?).await?);
    let cfg = LoadConfig {
        clients: 4,
        requests_per_client: 5,
        batch: 8,
        code_share: 0.25,
        max_duration: Duration::from_secs(20),
        run: "smoke".into(),
        progress: false,
    };
    let report = load::run(fixture, &cfg).await?;
    assert!(report.is_clean(), "{}", report.to_json());
    assert_eq!(report.requests, 20);
    assert_eq!(report.stored, 160);
    assert!(report.percentile(0.5) <= report.percentile(0.99));
    stack.stop()
}

/// Bad input to the launcher gets a clear error and leaves nothing running.
#[test]
fn launcher_rejects_bad_input_clearly() -> anyhow::Result<()> {
    let verifier = e2e::workspace_binary("verifier")?;
    let bin = verifier.to_string_lossy();
    let listen = free_addr()?;
    let cases: [(&[&str], &str); 4] = [
        (&["--listen", "8080"], "must be HOST:PORT"),
        (&["--bogus"], "unknown argument '--bogus'"),
        (
            &["--bin", "/nonexistent/verifier"],
            "no verifier binary at /nonexistent/verifier",
        ),
        (
            &[
                "--bin",
                &bin,
                "--listen",
                &listen,
                "--data",
                "/nonexistent/data",
            ],
            "no example data folder at /nonexistent/data",
        ),
    ];
    for (args, message) in cases {
        let mut launch = Launch::spawn(args, &[("DATABASE_URL", &e2e::launcher::database_url())])?;
        let status = launch.wait(Duration::from_secs(30))?;
        let out = launch.output().join("\n");
        assert!(!status.success(), "{args:?} succeeded:\n{out}");
        assert!(
            out.contains(message),
            "{args:?}: expected `{message}` in:\n{out}"
        );
        assert!(
            launch.lines_starting("up: verifier pid").is_empty(),
            "{out}"
        );
    }
    let mut launch = Launch::spawn(
        &["--bin", &bin, "--no-import"],
        &[("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none")],
    )?;
    assert!(!launch.wait(Duration::from_secs(30))?.success());
    assert!(
        launch
            .output()
            .join("\n")
            .contains("DATABASE_URL does not answer")
    );
    Ok(())
}

fn pg_answers(port: u16) -> bool {
    Command::new("pg_isready")
        .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// On a machine where no PostgreSQL answers (forced with --private-pg), the launcher starts the
/// private cluster in .local/pg and Ctrl-C stops it again; a cluster it found running is left
/// running.
#[test]
fn launcher_starts_and_stops_a_private_postgres() -> anyhow::Result<()> {
    let verifier = e2e::workspace_binary("verifier")?;
    // The checkout's private cluster may already run (scripts/test starts it where no system
    // PostgreSQL answers): then the launcher must use it and leave it running.
    let pid_file = e2e::repo_root().join(".local/pg/data/postmaster.pid");
    let running: Option<u16> = std::fs::read_to_string(&pid_file)
        .ok()
        .and_then(|t| t.lines().nth(3).and_then(|p| p.trim().parse().ok()))
        .filter(|&p| pg_answers(p));
    let server_binaries = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().any(|v| v.path().join("bin/initdb").is_file()))
        .unwrap_or(false);
    if running.is_none() && !server_binaries {
        // The launcher would apt-get install postgresql here: too slow for a test.
        eprintln!(
            "no PostgreSQL server binaries on this machine: private cluster start not tested"
        );
        return Ok(());
    }
    let port = match running {
        Some(p) => p,
        None => free_addr()?.rsplit(':').next().unwrap().parse()?,
    };
    let port_s = port.to_string();
    let listen = free_addr()?;
    let data = e2e::sample_data();
    let mut launch = Launch::spawn(
        &["--private-pg", "--listen", &listen],
        &[
            ("DATABASE_URL", ""),
            ("HACRL_PG_PORT", &port_s),
            ("HACRL_DB", "e2e_private"),
            ("HACRL_DATA", &data.to_string_lossy()),
            ("HACRL_VERIFIER_BIN", &verifier.to_string_lossy()),
        ],
    )?;
    launch.wait_for("up: ready ", 1, Duration::from_secs(120))?;
    let url = format!("postgres://postgres@127.0.0.1:{port}/e2e_private");
    assert!(
        launch
            .output()
            .iter()
            .any(|l| l == &format!("up: database {url}"))
    );
    assert_eq!(
        launch
            .lines_starting("up: started a private PostgreSQL")
            .len(),
        usize::from(running.is_none())
    );
    let tasks = Command::new("psql")
        .args(["-XtAq", &url, "-c", "select count(*) from tasks"])
        .output()?;
    assert_eq!(String::from_utf8_lossy(&tasks.stdout).trim(), "12");

    launch.signal(libc::SIGINT);
    assert!(
        launch.wait(Duration::from_secs(30))?.success(),
        "{}",
        launch.output().join("\n")
    );
    assert_eq!(
        pg_answers(port),
        running.is_some(),
        "{}",
        launch.output().join("\n")
    );
    Ok(())
}
