//! The pool's SQL views, on rows written straight into a fresh schema migrated by the service's
//! own migrator: what `psql` users query.

use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

async fn migrated_db() -> PgPool {
    let schema = testkit::Schema::create("views").await.unwrap();
    let db = schema.connect(2).await.unwrap();
    verifier::pool::migrate(&db).await.unwrap();
    db
}

async fn agent(db: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar("insert into agents (name) values ($1) returning id")
        .bind(name)
        .fetch_one(db)
        .await
        .unwrap()
}

async fn task(db: &PgPool, n: usize) -> Uuid {
    sqlx::query_scalar(
        "insert into tasks (dataset, external_id, kind, prompt, reference) \
         values ('d', $1, 'math', 'p', '{\"answer\": \"1\"}') returning id",
    )
    .bind(n.to_string())
    .fetch_one(db)
    .await
    .unwrap()
}

async fn rollout(db: &PgPool, run: &str, step: i64, task: Uuid, agent: Uuid, correct: bool) {
    sqlx::query(
        "insert into rollouts (id, run, task_id, agent_id, step, response, reward, correct, \
         status, verdict) values ($1, $2, $3, $4, $5, 'r', $6, $7, 'scored', $8)",
    )
    .bind(Uuid::new_v4())
    .bind(run)
    .bind(task)
    .bind(agent)
    .bind(step)
    .bind(if correct { 1.0 } else { 0.0 })
    .bind(correct)
    .bind(json!({}))
    .execute(db)
    .await
    .unwrap();
}

#[tokio::test]
async fn complementary_prompts_pair_an_agent_that_failed_all_with_one_that_solved_any() {
    let db = migrated_db().await;
    let (a, b, c) = (
        agent(&db, "a").await,
        agent(&db, "b").await,
        agent(&db, "c").await,
    );
    let tasks = [task(&db, 0).await, task(&db, 1).await, task(&db, 2).await];
    // Task 0: a fails both samples, b solves one of two, c fails its one → (a←b), (c←b).
    for (who, ok) in [(a, false), (a, false), (b, true), (b, false), (c, false)] {
        rollout(&db, "r", 1, tasks[0], who, ok).await;
    }
    // Task 1: everyone fails; task 2: a solves one, b solves both → nothing complementary.
    for who in [a, b] {
        rollout(&db, "r", 1, tasks[1], who, false).await;
    }
    for (who, ok) in [(a, true), (a, false), (b, true), (b, true)] {
        rollout(&db, "r", 1, tasks[2], who, ok).await;
    }
    // The same task at another step or in another run is its own group.
    rollout(&db, "r", 2, tasks[0], a, false).await;
    rollout(&db, "other", 1, tasks[0], b, true).await;

    let rows: Vec<(String, i64, String, i64, String, i64, i64)> = sqlx::query_as(
        "select run, step, failed_agent, failed_samples, solving_agent, solving_correct, \
         solving_samples from complementary_prompts order by run, step, failed_agent",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(
        rows,
        [
            ("r".into(), 1, "a".into(), 2, "b".into(), 1, 2),
            ("r".into(), 1, "c".into(), 1, "b".into(), 1, 2),
        ]
    );
    let task_ids: Vec<Uuid> =
        sqlx::query_scalar("select distinct task_id from complementary_prompts")
            .fetch_all(&db)
            .await
            .unwrap();
    assert_eq!(task_ids, [tasks[0]]);
}

#[tokio::test]
async fn rollout_uses_and_agent_staleness_read_the_trainers_uses_and_skip_malformed_ones() {
    let db = migrated_db().await;
    let (a, b) = (agent(&db, "a").await, agent(&db, "b").await);
    let t = task(&db, 0).await;
    rollout(&db, "r", 1, t, a, true).await;
    rollout(&db, "r", 1, t, b, false).await;
    let id_of = |agent: Uuid| {
        let db = db.clone();
        async move {
            sqlx::query_scalar::<_, Uuid>("select id from rollouts where agent_id = $1")
                .bind(agent)
                .fetch_one(&db)
                .await
                .unwrap()
        }
    };
    let (own, cross) = (id_of(a).await, id_of(b).await);
    let metrics = |agent: Uuid, extra: serde_json::Value| {
        let db = db.clone();
        async move {
            sqlx::query(
                "insert into train_metrics (run, agent_id, step, extra) values ('r', $1, 2, $2)",
            )
            .bind(agent)
            .bind(extra)
            .execute(&db)
            .await
            .unwrap();
        }
    };
    // a's update 2 trained on its own rollout and on b's, one update late; the other entries
    // are what a careless client could write into `extra`, and must not break the views.
    metrics(
        a,
        json!({
            "wait_seconds": 1.5, "generate_seconds": 2.0, "train_seconds": 1.0, "sync_seconds": 0.0,
            "uses": [
                {"id": own, "staleness": 0}, {"id": cross, "staleness": 1},
                {"id": "nope", "staleness": 1}, {"id": cross, "staleness": -1},
                {"id": cross, "staleness": 1e300}, 7, "x"
            ]
        }),
    )
    .await;
    metrics(b, json!({"wait_seconds": "x", "uses": {"id": own}})).await;

    let uses: Vec<(String, String, i64, bool)> = sqlx::query_as(
        "select learner, author, staleness, cross_sample from rollout_uses where run = 'r' \
         order by author",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(
        uses,
        [
            ("a".to_string(), "a".to_string(), 0, false),
            ("a".to_string(), "b".to_string(), 1, true)
        ]
    );
    /// agent, rollouts used, cross ones, largest staleness, wait, idle fraction
    type Row = (String, i64, i64, Option<i64>, Option<f64>, Option<f64>);
    let rows: Vec<Row> = sqlx::query_as(
        "select agent, rollouts_used, cross_used, staleness_max, wait_seconds, idle_fraction \
         from agent_staleness where run = 'r' order by agent",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(
        rows,
        [
            ("a".to_string(), 2, 1, Some(1), Some(1.5), Some(0.5)),
            ("b".to_string(), 0, 0, None, None, None)
        ]
    );
}
