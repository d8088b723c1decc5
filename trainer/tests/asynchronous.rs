//! Asynchronous HACPO (`run.max_staleness` = η) against the real verifier and Postgres: with
//! every agent in one process it trains exactly as the synchronous loop, and an agent whose
//! partner is late or absent never waits, using the partner's rollouts up to η updates late.

mod support;

use std::path::Path;
use std::sync::Mutex;

use serde_json::Value;
use trainer::config::RunConfig;

/// Per (agent, step): the `train_metrics` row without its wall-clock timings.
fn metrics(rt: &tokio::runtime::Runtime, db: &sqlx::PgPool, run: &str) -> Vec<(String, Value)> {
    let rows: Vec<(String, i64, Value)> = rt
        .block_on(
            sqlx::query_as(
                "select a.name, m.step, to_jsonb(m) - 'created_at' - 'run' - 'agent_id'
                 from train_metrics m join agents a on a.id = m.agent_id
                 where m.run = $1 order by 1, 2",
            )
            .bind(run)
            .fetch_all(db),
        )
        .unwrap();
    rows.into_iter()
        .map(|(agent, step, mut row)| {
            let extra = row["extra"].as_object_mut().unwrap();
            for timing in [
                "generate_seconds",
                "wait_seconds",
                "train_seconds",
                "sync_seconds",
                "eval_seconds",
                "elapsed_seconds",
            ] {
                assert!(extra.remove(timing).is_some(), "{timing} is recorded");
            }
            (format!("{agent}@{step}"), row)
        })
        .collect()
}

/// The rollouts of a run's updates as the `rollout_uses` view has them, by learner and step:
/// (learner, step, author, rollout step, staleness), with how many of the author's rollouts of
/// that step the learner trained on against how many it could (the non-empty ones: an empty
/// response is skipped).
type Uses = Vec<(String, i64, String, i64, i64)>;

fn uses(rt: &tokio::runtime::Runtime, db: &sqlx::PgPool, run: &str) -> Uses {
    let rows: Vec<(String, i64, String, i64, i64, i64, i64)> = rt
        .block_on(
            sqlx::query_as(
                "select u.learner, u.step, u.author, u.rollout_step, u.staleness, count(*),
                        (select count(*) from rollouts r join agents w on w.id = r.agent_id
                         where r.run = $1 and w.name = u.author and r.step = u.rollout_step
                           and r.response <> '')
                 from rollout_uses u where u.run = $1
                 group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4",
            )
            .bind(run)
            .fetch_all(db),
        )
        .unwrap();
    rows.into_iter()
        .map(
            |(learner, step, author, rollout_step, staleness, used, trainable)| {
                assert_eq!(
                    used, trainable,
                    "{learner}@{step} from {author}@{rollout_step}"
                );
                (learner, step, author, rollout_step, staleness)
            },
        )
        .collect()
}

/// Held by each test while it trains: the equivalence test compares numbers to the last bit, and
/// libtorch in another test's thread of this process is a source of last-bit differences it
/// must not see.
static TRAINING: Mutex<()> = Mutex::new(());

fn load(path: &Path) -> RunConfig {
    RunConfig::load(path).unwrap()
}

#[test]
fn with_every_agent_in_one_process_asynchronous_training_is_the_synchronous_loop() {
    let _alone = TRAINING.lock().unwrap_or_else(|e| e.into_inner());
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let run = |name: &str, extra: &str| {
        let config = support::write_run_config(dir.path(), &url, name, 3, extra, "", &agents);
        trainer::train::run(&load(&config)).unwrap();
    };
    run("sync", "");
    run("eta0", "max_staleness = 0");
    // Later steps' groups are read again, but what they hold was trained on already.
    run("eta2", "max_staleness = 2");

    let sync = metrics(&rt, &db, "sync");
    assert_eq!(sync.len(), 6, "2 agents × 3 steps");
    for name in ["eta0", "eta2"] {
        let other = metrics(&rt, &db, name);
        assert_eq!(other.len(), sync.len());
        for ((key, a), (_, b)) in sync.iter().zip(&other) {
            let (mut a, mut b) = (a.clone(), b.clone());
            // Rollout ids are fresh per run; the staleness of each use is compared below.
            let a_uses = a["extra"].as_object_mut().unwrap().remove("uses").unwrap();
            let b_uses = b["extra"].as_object_mut().unwrap().remove("uses").unwrap();
            assert_eq!(a, b, "{name}: {key}");
            let staleness = |u: &Value| -> Vec<u64> {
                let list = u.as_array().unwrap();
                list.iter()
                    .map(|x| x["staleness"].as_u64().unwrap())
                    .collect()
            };
            assert_eq!(staleness(&a_uses), staleness(&b_uses), "{name}: {key}");
        }
    }
    // Every update trained on both agents' responses of its own step, fresh.
    let eta2 = uses(&rt, &db, "eta2");
    assert_eq!(eta2.len(), 12, "2 learners × 3 steps × 2 authors: {eta2:?}");
    for (learner, step, _, rollout_step, staleness) in eta2 {
        assert_eq!((rollout_step, staleness), (step, 0), "{learner}@{step}");
    }
}

#[test]
fn an_agent_never_waits_and_learns_from_a_late_partner_up_to_eta_updates_late() {
    let _alone = TRAINING.lock().unwrap_or_else(|e| e.into_inner());
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let [(a, _), (b, _)] = &agents;
    // A barrier would fail after 1 s without the partner: the asynchronous loop has none.
    let config = |steps| {
        let extra = "max_staleness = 1\nbarrier_timeout_s = 1";
        support::write_run_config(dir.path(), &url, "late", steps, extra, "", &agents)
    };

    // a trains steps 1-2 alone; b then trains 1-4 beside a's pooled steps 1-2; a resumes for
    // steps 3-4, when b's step 2 is one update late and its step 3 on time.
    trainer::train::run_agent(&load(&config(2)), a).unwrap();
    trainer::train::run_agent(&load(&config(4)), b).unwrap();
    trainer::train::run_agent(&load(&config(4)), a).unwrap();

    let got = uses(&rt, &db, "late");
    let want: Uses = vec![
        // a alone: its own rollouts only.
        (a.to_string(), 1, a.to_string(), 1, 0),
        (a.to_string(), 2, a.to_string(), 2, 0),
        // Resumed: b's step 2 (not used before, 1 update late) and step 3 at update 3; b's
        // step 4 at update 4 (its step 3 was used).
        (a.to_string(), 3, a.to_string(), 3, 0),
        (a.to_string(), 3, b.to_string(), 2, 1),
        (a.to_string(), 3, b.to_string(), 3, 0),
        (a.to_string(), 4, a.to_string(), 4, 0),
        (a.to_string(), 4, b.to_string(), 4, 0),
        // b: a's steps 1-2 on time, then alone.
        (b.to_string(), 1, a.to_string(), 1, 0),
        (b.to_string(), 1, b.to_string(), 1, 0),
        (b.to_string(), 2, a.to_string(), 2, 0),
        (b.to_string(), 2, b.to_string(), 2, 0),
        (b.to_string(), 3, b.to_string(), 3, 0),
        (b.to_string(), 4, b.to_string(), 4, 0),
    ];
    assert_eq!(got, want);
    // Nobody waited, and the per-step view says so.
    let idle: Vec<(String, i64, f64)> = rt
        .block_on(
            sqlx::query_as(
                "select agent, step, wait_seconds from agent_staleness where run = 'late' \
                 order by 1, 2",
            )
            .fetch_all(&db),
        )
        .unwrap();
    assert_eq!(idle.len(), 8);
    assert!(idle.iter().all(|r| r.2 == 0.0), "{idle:?}");
}
