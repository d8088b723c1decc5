//! `trainer run` end to end on CPU: the real verifier (in-process, real Postgres) scores and
//! pools the rollouts of two tiny agents of different architecture and tokenizer; the loop
//! writes metrics, evaluates, checkpoints, and resumes after an interruption.

mod support;

use tch::Device;
use trainer::Policy;
use trainer::config::RunConfig;

#[test]
fn two_heterogeneous_agents_train_through_the_pool_and_resume() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    support::import_addition_tasks(&url, "toy-eval", 3, 1);

    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let config = |steps| {
        let (run, data) = ("eval_every = 2", "eval = \"toy-eval\"\neval_size = 3");
        let path =
            support::write_run_config(dir.path(), &url, "loop-test", steps, run, data, &agents);
        RunConfig::load(&path).unwrap()
    };

    // One step, then "crash" (the process ends), then the same run asked for two steps resumes.
    trainer::train::run(&config(1)).unwrap();
    // Before its first step the run measured, per pair, what each cross rule would let carry
    // gradient, and said where its own (the paper's window) leaves sharing idle.
    let gate: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out-loop-test/gate.json")).unwrap())
            .unwrap();
    assert_eq!(gate["cross_rule"], "window");
    let pairs = gate["report"]["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 4, "2 directions × per token and per byte");
    let warnings = gate["warnings"].as_array().unwrap();
    for p in pairs.iter().filter(|p| p["unit"] == "per_token") {
        let c = &p["carrying"];
        let shares = ["window", "calibrated", "truncated"].map(|r| c[r].as_f64().unwrap());
        assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{c}");
        let idle = shares[0] < 0.05;
        let warned = warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.starts_with(&format!(
                "sharing {} -> {} will do nothing",
                p["author"].as_str().unwrap(),
                p["scorer"].as_str().unwrap()
            ))
        });
        assert_eq!(warned, idle, "{p}: {warnings:?}");
    }
    trainer::train::run(&config(2)).unwrap();
    // Another run pointed at the same folder is refused, not resumed from these checkpoints.
    let mut other = config(2);
    other.run.name = "another-run".into();
    let refused = trainer::train::run(&other).unwrap_err().to_string();
    assert!(
        refused.contains("holds the checkpoints of run `loop-test`, not `another-run`"),
        "{refused}"
    );

    let q = |sql: &'static str| {
        rt.block_on(sqlx::query_as::<_, (String, i64, i64)>(sql).fetch_all(&db))
            .unwrap()
    };
    // 2 prompts × 3 responses per agent per step, each step exactly once.
    let per_step = q(
        "select a.name, r.step, count(*) from rollouts r join agents a on a.id = r.agent_id
                      where r.run = 'loop-test' group by 1, 2 order by 1, 2",
    );
    assert_eq!(
        per_step,
        vec![
            ("tiny-llama".into(), 1, 6),
            ("tiny-llama".into(), 2, 6),
            ("tiny-qwen3-bytes".into(), 1, 6),
            ("tiny-qwen3-bytes".into(), 2, 6)
        ]
    );
    let evals = q(
        "select a.name, r.step, count(*) from rollouts r join agents a on a.id = r.agent_id
                   where r.run = 'loop-test/eval' group by 1, 2 order by 1, 2",
    );
    // Evaluated at the end of each invocation (step 1, then step 2 = eval_every).
    assert_eq!(
        evals,
        vec![
            ("tiny-llama".into(), 1, 3),
            ("tiny-llama".into(), 2, 3),
            ("tiny-qwen3-bytes".into(), 1, 3),
            ("tiny-qwen3-bytes".into(), 2, 3)
        ]
    );
    let logprobs_ok: bool = rt
        .block_on(sqlx::query_scalar("select bool_and(logprob_mean is not null and logprob_mean <= 0) from rollouts where run = 'loop-test'").fetch_one(&db))
        .unwrap();
    assert!(logprobs_ok);
    // The typed `ends_turn` is stored where learners read it, next to the sampled ids.
    let metadata_ok: bool = rt
        .block_on(sqlx::query_scalar("select bool_and(jsonb_typeof(metadata->'ends_turn') = 'boolean' and jsonb_typeof(metadata->'token_ids') = 'array' and metadata ? 'tokenizer') from rollouts where run = 'loop-test'").fetch_one(&db))
        .unwrap();
    assert!(metadata_ok);

    let metrics: Vec<(i64, f64, f64, serde_json::Value)> = rt
        .block_on(sqlx::query_as("select step, loss, clip_fraction, extra from train_metrics where run = 'loop-test' order by step, agent_id").fetch_all(&db))
        .unwrap();
    assert_eq!(metrics.len(), 4);
    for (step, loss, clip, extra) in &metrics {
        assert!(
            loss.is_finite() && (0.0..=1.0).contains(clip),
            "step {step}: {loss} {clip}"
        );
        // Each learner trains on all 12 responses of its step but the empty ones (a response
        // that is only the end-of-turn token has no tokens to train on).
        let (seqs, cross, skipped) = (
            extra["sequences"].as_u64().unwrap(),
            extra["cross_sequences"].as_u64().unwrap(),
            extra["skipped"].as_u64().unwrap(),
        );
        assert_eq!(seqs + skipped, 12, "{extra}");
        assert!(cross <= 6 && cross + skipped >= 6, "{extra}");
        for key in [
            "clip_own",
            "clip_cross",
            "cross_inside",
            "entropy",
            "response_tokens",
        ] {
            assert!(extra[key].is_number(), "{key} in {extra}");
        }
        let window: f64 = ["cross_below", "cross_inside", "cross_above"]
            .iter()
            .map(|k| extra[*k].as_f64().unwrap())
            .sum();
        assert!(cross == 0 || (window - 1.0).abs() < 1e-9, "{extra}");
    }
    assert!(
        metrics.iter().all(|m| m.3["eval_accuracy"].is_number()),
        "both steps ended an invocation, so both evaluated"
    );
    // The clock runs on across the crash: step 2 (the resumed process) ends after step 1 by at
    // least its own step's generation, update and evaluation, never restarting from 0.
    let secs = |m: &(i64, f64, f64, serde_json::Value), key: &str| m.3[key].as_f64().unwrap();
    for (one, two) in metrics[..2].iter().zip(&metrics[2..]) {
        let step_two = [
            "generate_seconds",
            "train_seconds",
            "sync_seconds",
            "eval_seconds",
        ]
        .iter()
        .map(|k| secs(two, k))
        .sum::<f64>();
        assert!(secs(one, "eval_seconds") > 0.0, "step 1 evaluated");
        assert!(
            secs(two, "elapsed_seconds") >= secs(one, "elapsed_seconds") + step_two,
            "{} then {}",
            one.3,
            two.3
        );
    }

    // Checkpoints of both steps exist, load as Hugging Face directories, and carry the AdamW
    // state: 2 updates per step (2 mini-batches), so the resumed run's step-2 checkpoint holds 4
    // (a resume that restarted the optimizer would hold 2).
    for (name, _) in agents {
        for step in [1, 2] {
            let ckpt =
                trainer::train::checkpoint_dir(&dir.path().join("out-loop-test"), name, step);
            let policy = Policy::load(&ckpt, Device::Cpu)
                .unwrap_or_else(|e| panic!("{}: {e:#}", ckpt.display()));
            let mut opt = trainer::optim::AdamW::new(policy.var_store(), 1e-3, 0.0);
            opt.load(&ckpt).unwrap();
            assert_eq!(opt.steps(), 2 * step as i64, "{}", ckpt.display());
        }
    }
}
