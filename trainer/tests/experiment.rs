//! `trainer experiment`, scaled down to a smoke test: the committed experiment file, with a few
//! tasks and steps, runs every arm through the real verifier and Postgres; the report agrees
//! with the pool, and repeating the command resumes without generating anything again.

mod support;

use std::path::Path;

use trainer::experiment::config::Origin;
use trainer::experiment::stats::Endpoint;
use trainer::experiment::{ExperimentConfig, Split, run_experiment};

/// The committed `experiments/<name>/experiment.toml`.
fn committed(name: &str) -> ExperimentConfig {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../experiments")
        .join(name)
        .join("experiment.toml");
    ExperimentConfig::load(&file).expect("the committed experiment file loads")
}

/// The primary comparison the experiments declare: HACPO − GSPO×2.
fn assert_primary_is_hacpo_against_gspo2x(cfg: &ExperimentConfig) {
    let primary = cfg.experiment.primary.as_ref().expect("a primary endpoint");
    assert_eq!(
        (primary.arm.as_str(), primary.baseline.as_str()),
        ("hacpo", "gspo2x")
    );
}

/// A smoke-test size of `cfg`: two steps of 2 prompts × 2 on 30 training problems, against the
/// test's verifier, under a unique run name (which keeps its datasets and runs apart from any
/// other in the database), with warm-ups of `warmup_steps` batches of 4.
fn shrink(cfg: &mut ExperimentConfig, url: &str, out: &Path, seeds: &[u64], warmup_steps: usize) {
    cfg.verifier.url = url.into();
    cfg.run.name = format!("smoke-{}", uuid::Uuid::new_v4().simple());
    cfg.run.output_dir = out.into();
    (cfg.run.steps, cfg.run.prompts_per_step, cfg.run.group_size) = (2, 2, 2);
    (cfg.run.max_new_tokens, cfg.run.eval_every, cfg.run.threads) = (8, 1, 1);
    // Pinning kernels is a process-wide setting of `trainer` itself, not of this test process.
    cfg.run.deterministic_kernels = false;
    (cfg.tasks.train, cfg.tasks.test) = (30, 6);
    cfg.experiment.seeds = seeds.to_vec();
    for a in &mut cfg.agents {
        let w = a.warmup.as_mut().unwrap();
        (w.steps, w.batch_size) = (warmup_steps, 4);
    }
}

fn scaled_down(url: &str, out: &Path) -> ExperimentConfig {
    let mut cfg = committed("arith-cpu");
    let main_arms = ["gspo", "gspo2x", "naive", "hacpo"];
    let names: Vec<&str> = cfg
        .experiment
        .arms
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names[..4], main_arms, "the paper's four arms come first");
    // The ablations are HACPO with one correction changed: the smoke test runs the main four.
    cfg.experiment
        .arms
        .retain(|a| main_arms.contains(&a.name.as_str()));
    assert!(
        cfg.experiment.seeds.len() >= 3,
        "the paper's comparison needs 3+ seeds"
    );
    shrink(&mut cfg, url, out, &[5], 3);
    cfg.validate().unwrap();
    cfg
}

/// Each per-skill point after the warm-up is the pool's mean reward of that agent's evaluation
/// on the tasks of that style; both styles of the evaluated tasks have their curves.
fn assert_skills_match_the_pool(
    rt: &tokio::runtime::Runtime,
    db: &sqlx::PgPool,
    agents: &[String],
    seed: &trainer::experiment::SeedResult,
) {
    let eval = format!("{}/eval", seed.run);
    let styles: Vec<String> = rt
        .block_on(
            sqlx::query_scalar(
                "select distinct t.metadata->>'style' from rollouts r join tasks t on t.id = r.task_id \
                 where r.run = $1 order by 1",
            )
            .bind(&eval)
            .fetch_all(db),
        )
        .unwrap();
    // The smoke test's 6 tasks (a fixed draw) hold both styles.
    assert_eq!(styles, ["expression", "word"]);
    assert_eq!(seed.skills.keys().cloned().collect::<Vec<_>>(), styles);
    for (style, curves) in &seed.skills {
        for (agent, curve) in agents.iter().zip(curves) {
            assert_eq!(curve[0].0, 0, "starts at the warm-up");
            for &(step, acc) in &curve[1..] {
                let pool: f64 = rt
                    .block_on(
                        sqlx::query_scalar(
                            "select avg(r.reward) from rollouts r join agents a on a.id = r.agent_id \
                             join tasks t on t.id = r.task_id where r.run = $1 and r.step = $2 \
                             and a.name = $3 and t.metadata->>'style' = $4",
                        )
                        .bind(&eval)
                        .bind(step as i64)
                        .bind(agent)
                        .bind(style)
                        .fetch_one(db),
                    )
                    .unwrap();
                assert!(
                    (pool - acc).abs() < 1e-12,
                    "{style} {agent} {step}: {pool} vs {acc}"
                );
            }
        }
    }
}

#[test]
fn every_arm_runs_through_the_pool_and_the_report_matches_it() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    let out = tempfile::tempdir().unwrap();
    let ledger = tempfile::tempdir().unwrap();
    let mut cfg = scaled_down(&url, out.path());
    cfg.experiment.ledger = Some(ledger.path().into());
    let report = run_experiment(&cfg).unwrap();

    assert_eq!(report.agents, ["llama-bpe-2l", "qwen3-bytes-3l"]);
    assert_eq!(report.eval_tasks, 6);
    assert_eq!(report.arms.len(), 4);
    for file in ["results.md", "results.json", "curves.png"] {
        assert!(out.path().join(file).is_file(), "{file} missing");
    }
    let table = std::fs::read_to_string(out.path().join("results.md")).unwrap();
    let count = |sql: &str, run: &str| -> i64 {
        rt.block_on(
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
                .bind(run)
                .fetch_one(&db),
        )
        .unwrap()
    };
    for arm in &report.arms {
        assert!(table.contains(&format!("| {} |", arm.arm)), "{table}");
        let g = if arm.arm == "gspo2x" { 4 } else { 2 };
        assert_eq!(arm.rollouts_per_run, 2 * 2 * g * 2, "{}", arm.arm);
        let seed = &arm.seeds[0];
        assert_eq!(seed.seed, 5);
        assert_eq!(
            count("select count(*) from rollouts where run = $1", &seed.run),
            arm.rollouts_per_run as i64,
            "{}: training rollouts in the pool",
            arm.arm
        );
        assert_eq!(
            count(
                "select count(*) from rollouts where run = $1",
                &format!("{}/eval", seed.run)
            ),
            2 * 6 * 2,
            "{}: 2 evaluations × 6 tasks × 2 agents",
            arm.arm
        );
        for (k, curve) in seed.curves.iter().enumerate() {
            let steps: Vec<usize> = curve.iter().map(|p| p.0).collect();
            assert_eq!(steps, [0, 1, 2], "{}", arm.arm);
            assert_eq!(curve[0].1, report.warmup_accuracy[k]);
            // Every point after the warm-up is the pool's mean reward of that evaluation.
            for &(step, acc) in &curve[1..] {
                let pool: f64 = rt
                    .block_on(
                        sqlx::query_scalar(
                            "select avg(r.reward) from rollouts r join agents a on a.id = r.agent_id \
                             where r.run = $1 and r.step = $2 and a.name = $3",
                        )
                        .bind(format!("{}/eval", seed.run))
                        .bind(step as i64)
                        .bind(&report.agents[k])
                        .fetch_one(&db),
                    )
                    .unwrap();
                assert!(
                    (pool - acc).abs() < 1e-12,
                    "{} step {step}: {pool} vs {acc}",
                    arm.arm
                );
            }
        }
        assert_skills_match_the_pool(&rt, &db, &report.agents, seed);
        // Each agent's clock: every step, seconds rising from its first step.
        assert_eq!(seed.clock.len(), 2, "{}", arm.arm);
        for clock in &seed.clock {
            let steps: Vec<usize> = clock.iter().map(|p| p.0).collect();
            assert_eq!(steps, [1, 2], "{}", arm.arm);
            assert!(0.0 < clock[0].1 && clock[0].1 < clock[1].1, "{clock:?}");
        }
    }
    assert!(
        table.contains("| arm | agent | wall s | steps / hour | idle |"),
        "{table}"
    );
    // Shared arms train on both agents' rollouts: cross sequences show up in the metrics.
    let cross: i64 = rt
        .block_on(
            sqlx::query_scalar(
                "select coalesce(sum((extra->>'cross_sequences')::bigint), 0)::bigint \
                 from train_metrics where run = $1",
            )
            .bind(&report.arms[3].seeds[0].run)
            .fetch_one(&db),
        )
        .unwrap();
    assert!(cross > 0, "hacpo learners saw no cross-agent rollouts");

    // Repeating the command resumes: nothing is generated, warmed up or evaluated again.
    let total = |db: &sqlx::PgPool| -> i64 {
        rt.block_on(sqlx::query_scalar("select count(*) from rollouts").fetch_one(db))
            .unwrap()
    };
    let before = total(&db);
    let again = run_experiment(&cfg).unwrap();
    assert_eq!(total(&db), before);
    assert_eq!(again.table(), report.table());

    // Another machine: a fresh pool and output folder, the ledger carried over with its runs
    // and the warm-ups' weights (recomputing them is bit-exact neither across CPUs nor here,
    // where other tests of this process may change libtorch's thread count). The warm-ups are
    // taken from the ledger and evaluated again; no arm trains again.
    let runs = std::fs::read_dir(ledger.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(runs, report.arms.len(), "one ledger entry per run");
    for a in &cfg.agents {
        let kept = ledger.path().join("warmups").join(&a.name);
        assert!(kept.join("model.safetensors").is_file() && kept.join("warmup.json").is_file());
    }
    let (url2, db2, rt2) = support::start_verifier();
    let out2 = tempfile::tempdir().unwrap();
    let mut elsewhere = cfg.clone();
    elsewhere.verifier.url = url2;
    elsewhere.run.output_dir = out2.path().into();
    let moved = run_experiment(&elsewhere).unwrap();
    assert_eq!(moved.table(), report.table());
    let warm_up_evaluations = (2 * 6) as i64;
    let rollouts: i64 = rt2
        .block_on(sqlx::query_scalar("select count(*) from rollouts").fetch_one(&db2))
        .unwrap();
    assert_eq!(
        rollouts, warm_up_evaluations,
        "only the warm-ups' evaluations"
    );
}

#[test]
fn the_gpu_recipe_is_a_valid_run_of_two_different_agents() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/gsm8k-gpu/run.toml");
    let cfg = trainer::config::RunConfig::load(&file).expect("the GPU recipe loads");
    assert_eq!(cfg.algorithm.algorithm, trainer::hacpo::Algorithm::Hacpo);
    assert_eq!(cfg.agents.len(), 2);
    assert!(cfg.agents.iter().all(|a| a.device.is_cuda()));
    assert_eq!(cfg.data.eval.as_deref(), Some("gsm8k-test"));
}

#[test]
fn the_tuned_experiment_sweeps_on_validation_gates_and_declares_its_primary() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    let out = tempfile::tempdir().unwrap();
    let mut cfg = committed("arith-tuned");
    // What issue 34 asks the file to declare before anything runs.
    assert!(cfg.experiment.seeds.len() >= 10, "10+ paired seeds");
    assert_primary_is_hacpo_against_gspo2x(&cfg);
    assert_eq!(
        cfg.experiment.primary.as_ref().unwrap().endpoint,
        Endpoint::LastThree
    );
    let tuning = cfg.experiment.tuning.clone().expect("a tuning sweep");
    for lr in [5e-5, 1e-4, 2e-4, 3e-4] {
        assert!(tuning.lr.contains(&lr), "lr {lr} in the grid");
    }
    assert!(tuning.eps_scale.contains(&1.0) && tuning.eps_scale.contains(&10.0));
    assert_eq!(tuning.arms, ["gspo", "gspo2x", "hacpo"]);
    assert!(
        tuning
            .seeds
            .iter()
            .all(|s| !cfg.experiment.seeds.contains(s))
    );
    assert!(cfg.tasks.validation > 0 && cfg.run.deterministic_kernels);
    let names: Vec<&str> = cfg
        .experiment
        .arms
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    for arm in ["hacpo-no-capbase", "hacpo-no-omega", "distill"] {
        assert!(names.contains(&arm), "{arm} missing from {names:?}");
    }
    assert_eq!(cfg.run.minibatches, 4);

    // Scaled down: a two-point sweep of gspo and hacpo, and the distillation control tuned as
    // gspo, at two seeds.
    cfg.experiment
        .arms
        .retain(|a| ["gspo", "hacpo", "distill"].contains(&a.name.as_str()));
    let mut tuning = tuning;
    (tuning.lr, tuning.eps_scale) = (vec![2e-3], vec![10.0, 1.0]);
    tuning.arms = vec!["gspo".into(), "hacpo".into()];
    cfg.experiment.tuning = Some(tuning);
    shrink(&mut cfg, &url, out.path(), &[5, 6], 3);
    cfg.tasks.validation = 5;
    // Barely trained agents cannot pass the real gate: first see it refuse to start the arms.
    cfg.experiment.gate = Some(trainer::gate::GateSpec {
        prompts: 4,
        group_size: 2,
        min_inside: 1.01,
    });
    let err = run_experiment(&cfg).unwrap_err().to_string();
    assert!(err.contains("overlap gate failed"), "{err}");
    let runs: i64 = rt
        .block_on(
            sqlx::query_scalar("select count(*) from rollouts where run like $1")
                .bind(format!("{}/%/s%", cfg.run.name))
                .fetch_one(&db),
        )
        .unwrap();
    assert_eq!(runs, 0, "no RL before the gate passes");

    // `--ignore-gate` runs the arms anyway, and both the report and gate.json say so.
    cfg.experiment.ignore_gate = true;
    let report = run_experiment(&cfg).unwrap();
    let g = report
        .gate
        .as_ref()
        .expect("the gate's numbers are in the report");
    assert!(!g.passed && g.ignored);
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gate.json")).unwrap()).unwrap();
    assert_eq!(stored["result"]["ignored"], true, "{stored}");
    assert_eq!(g.pairs.len(), 4, "two directions × two units");
    for p in &g.pairs {
        assert!(p.samples > 0 && p.samples <= 8, "{p:?}");
        assert!((p.below + p.inside + p.above - 1.0).abs() < 1e-9, "{p:?}");
    }

    // The sweep: two points per tuned arm, evaluated on validation tasks only.
    let t = report.tuning.as_ref().expect("the sweep is in the report");
    assert!(t.complete);
    assert_eq!(t.points.len(), 4);
    for arm in ["gspo", "hacpo"] {
        let chosen = t.chosen[arm];
        assert!(t.points.iter().any(|p| p.arm == arm && p.setting == chosen));
    }
    let (tune_evals, tune_test_evals): (i64, i64) = rt
        .block_on(
            sqlx::query_as(
                "select count(*), count(*) filter (where t.dataset not like '%-validation') \
                 from rollouts r join tasks t on t.id = r.task_id where r.run like $1",
            )
            .bind(format!("{}/tune/%/eval", cfg.run.name))
            .fetch_one(&db),
        )
        .unwrap();
    assert_eq!(
        tune_evals,
        4 * 2 * 5 * 2,
        "4 runs × 2 evaluations × 5 tasks × 2 agents"
    );
    assert_eq!(
        tune_test_evals, 0,
        "the sweep never touches the held-out split"
    );
    // Each arm ran at its chosen setting; the control at the one chosen for gspo.
    let arm = |name: &str| report.arms.iter().find(|a| a.arm == name).unwrap();
    assert_eq!(arm("distill").lr, t.chosen["gspo"].lr);
    let scale = t.chosen["gspo"].eps_scale;
    assert!((arm("distill").algorithm.gspo_eps_low - 3e-4 * scale).abs() < 1e-12);
    assert!(
        arm("distill").seeds[0]
            .run
            .contains(&t.chosen["gspo"].label())
    );
    let table = report.table();
    for section in [
        "Secondary comparisons",
        "| hacpo − gspo |",
        "| hacpo − distill |",
        "Overlap gate",
        "ran anyway (--ignore-gate)",
        "Tuning sweep on the validation split",
        "(chosen)",
        "KL own",
    ] {
        assert!(table.contains(section), "{section} missing from\n{table}");
    }
    assert!(
        table.contains("**Primary comparison** hacpo − gspo2x: not run yet"),
        "{table}"
    );
    let hacpo = &report.arms[1];
    for s in &hacpo.seeds {
        for agent in &report.agents {
            let d = &s.diagnostics[agent];
            for key in ["clip_own", "entropy", "kl_own", "displacement"] {
                assert!(d.contains_key(key), "{key}: {d:?}");
            }
            // Barely trained agents may all fail, leaving nothing to learn from: ≥ 0, not > 0
            // (the learner's unit test checks the number itself).
            assert!(d["displacement"] >= 0.0, "{d:?}");
        }
    }
    // One tokenizer: every rollout names the same one and carries the ids it was sampled as.
    let (tokenizers, without_ids): (i64, i64) = rt
        .block_on(
            sqlx::query_as(
                "select count(distinct metadata->>'tokenizer'), \
                 count(*) filter (where jsonb_typeof(metadata->'token_ids') <> 'array') \
                 from rollouts where run = $1",
            )
            .bind(&hacpo.seeds[0].run)
            .fetch_one(&db),
        )
        .unwrap();
    assert_eq!((tokenizers, without_ids), (1, 0));
}

#[test]
fn the_real_pair_starts_from_pretrained_models_and_its_gpu_size_is_the_same_experiment() {
    support::init();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/gemma-smollm2");
    let cpu = ExperimentConfig::load(&here.join("experiment.toml")).expect("experiment.toml");
    let gpu = ExperimentConfig::load(&here.join("gpu.toml")).expect("gpu.toml");
    let ggufs = [trainer::gemma3_gguf_path(), trainer::smollm2_gguf_path()];
    for cfg in [&cpu, &gpu] {
        let origins: Vec<Origin> = cfg.agents.iter().map(|a| a.origin().unwrap()).collect();
        assert_eq!(
            origins,
            ggufs.each_ref().map(|model| Origin::Pretrained { model })
        );
        assert_primary_is_hacpo_against_gspo2x(cfg);
        let tuning = cfg.experiment.tuning.as_ref().expect("a sweep");
        assert!(
            tuning.steps.is_some_and(|s| s < cfg.run.steps),
            "a short sweep"
        );
        assert!(cfg.tasks.validation > 0);
    }
    // Validation problems come after the others: a larger validation split leaves the training
    // and held-out problems as they are.
    let tasks = |c: &ExperimentConfig| trainer::experiment::arith::ArithSpec {
        validation: 0,
        ..c.tasks.clone()
    };
    assert_eq!(tasks(&cpu), tasks(&gpu), "the GPU size runs the same tasks");
    let arms = |c: &ExperimentConfig| -> Vec<String> {
        c.experiment.arms.iter().map(|a| a.name.clone()).collect()
    };
    assert_eq!(arms(&cpu), ["gspo", "gspo2x", "hacpo", "hacpo-byte"]);
    assert_eq!(arms(&cpu), arms(&gpu));
    assert!(cpu.agents.iter().all(|a| a.device == tch::Device::Cpu));
    assert!(gpu.agents.iter().all(|a| a.device.is_cuda()));
    assert!(gpu.run.steps > cpu.run.steps && gpu.experiment.seeds.len() > 1);
}

#[test]
fn pretrained_agents_start_from_their_weights_or_their_warm_up() {
    support::init();
    let (url, _db, _rt) = support::start_verifier();
    let out = tempfile::tempdir().unwrap();
    let models = support::tiny_agents(out.path());
    let mut cfg = scaled_down(&url, &out.path().join("experiment"));
    cfg.experiment.arms.retain(|a| a.name == "hacpo");
    cfg.run.steps = 1;
    for (a, (_, model)) in cfg.agents.iter_mut().zip(&models) {
        (a.model, a.config, a.tokenizer, a.init_seed) = (Some(model.clone()), None, None, None);
    }
    // The first starts as given; the second is fine-tuned first.
    cfg.agents[0].warmup = None;
    cfg.validate().unwrap();
    let report = run_experiment(&cfg).unwrap();
    assert_eq!(report.arms.len(), 1);
    assert_eq!(
        report.arms[0].seeds[0].curves[0].len(),
        2,
        "warm-up and step 1"
    );

    let prompt = [(vec![5_i64, 6, 7], vec![8_i64, 9])];
    let logp = |dir: &Path| {
        let p = trainer::Policy::load(dir, tch::Device::Cpu).unwrap();
        tch::no_grad(|| {
            p.score_ids(&prompt)
                .unwrap()
                .mean_logprob
                .double_value(&[0])
        })
    };
    let started = |k: usize| {
        out.path()
            .join("experiment/agents")
            .join(&cfg.agents[k].name)
    };
    assert_eq!(
        logp(&started(0)),
        logp(&models[0].1),
        "no warm-up: the weights as given"
    );
    assert_ne!(
        logp(&started(1)),
        logp(&models[1].1),
        "a warm-up moved the weights"
    );
}

#[test]
fn three_agents_of_three_architectures_run_at_their_declared_settings() {
    support::init();
    let (url, _db, _rt) = support::start_verifier();
    let out = tempfile::tempdir().unwrap();
    let mut cfg = committed("arith-three");
    // What issue 34 §6 asks the file to declare: three agents, 5+ paired seeds, the primary.
    assert_eq!(cfg.agents.len(), 3);
    assert!(cfg.experiment.seeds.len() >= 5);
    assert_primary_is_hacpo_against_gspo2x(&cfg);
    let families: Vec<String> = cfg
        .agents
        .iter()
        .map(|a| match a.origin().unwrap() {
            Origin::Scratch { config, .. } => {
                let json: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
                json["model_type"].as_str().unwrap().to_string()
            }
            Origin::Pretrained { .. } => panic!("trained from scratch"),
        })
        .collect();
    assert_eq!(families, ["llama", "qwen3", "gemma3_text"]);
    // arith-tuned's chosen settings, declared per arm instead of swept again.
    let declared: Vec<_> = cfg
        .experiment
        .arms
        .iter()
        .map(|a| a.setting.unwrap())
        .collect();
    assert_eq!((declared[0].lr, declared[0].eps_scale), (Some(5e-5), 10.0));
    assert_eq!((declared[1].lr, declared[1].eps_scale), (Some(1e-4), 1.0));

    // Scaled down: two steps at two seeds, barely warmed up.
    shrink(&mut cfg, &url, out.path(), &[0, 1], 2);
    cfg.tasks.validation = 5;
    cfg.experiment.gate = None;
    let report = run_experiment(&cfg).unwrap();
    assert_eq!(report.agents.len(), 3);
    for (arm, want) in report.arms.iter().zip(&declared) {
        assert_eq!(arm.lr, want.lr, "{}", arm.arm);
        assert!((arm.algorithm.gspo_eps_low - 3e-4 * want.eps_scale).abs() < 1e-12);
        assert_eq!(arm.seeds.len(), 2);
        for s in &arm.seeds {
            assert!(s.run.contains(&want.label()), "{}", s.run);
            assert_eq!(s.diagnostics.len(), 3, "every agent's diagnostics");
        }
    }
    let table = report.table();
    assert!(table.contains("Holm-adjusted over the 3 agents"), "{table}");
    for agent in &report.agents {
        assert!(
            table.contains(agent.as_str()),
            "{agent} missing from\n{table}"
        );
    }
}

#[test]
fn sharing_regimes_declares_specialists_and_tokenizers_against_distillation() {
    // What issue 53 asks its cells to declare before anything runs.
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/sharing-regimes");
    for (cell, bpe) in [("cell-a.toml", false), ("cell-b.toml", true)] {
        let cfg = ExperimentConfig::load(&here.join(cell)).expect(cell);
        let arms: Vec<&str> = cfg
            .experiment
            .arms
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(arms[..4], ["gspo2x", "distill", "naive", "hacpo"], "{cell}");
        // Cell A adds issue 54's rules, declared after its gate and before their runs.
        let added: &[&str] = if bpe {
            &[]
        } else {
            &["calibrated", "truncated"]
        };
        assert_eq!(arms[4..], *added, "{cell}");
        let primary = cfg
            .experiment
            .primary
            .as_ref()
            .expect("a primary comparison");
        assert_eq!(
            (primary.arm.as_str(), primary.baseline.as_str()),
            ("hacpo", "distill")
        );
        assert_eq!(primary.equivalence_margin, Some(0.01));
        assert!(cfg.experiment.seeds.len() >= 8, "{cell}: 8+ paired seeds");
        let tuning = cfg.experiment.tuning.as_ref().expect("a sweep");
        assert_eq!(tuning.seeds.len(), 2, "{cell}: two tuning seeds");
        assert!(!tuning.distill_coef.is_empty() && cfg.distills("distill"));
        assert!(
            cfg.tasks.validation > 0,
            "{cell}: tuned on a validation split"
        );
        // The authors' recipe is the trainer's default: the cells set none of it.
        let run = cfg
            .arm_config(
                &cfg.experiment.arms[3],
                0,
                &[],
                &Default::default(),
                Split::Test,
            )
            .unwrap();
        assert_eq!(run.algorithm, trainer::hacpo::HacpoConfig::default());
        let tokenizers: Vec<String> = cfg
            .agents
            .iter()
            .map(|a| a.tokenizer.as_ref().unwrap().display().to_string())
            .collect();
        assert_eq!(
            tokenizers[0] != tokenizers[1],
            bpe,
            "{cell}: {tokenizers:?}"
        );
        let skills: Vec<_> = cfg.agents.iter().map(|a| a.warmup_skill).collect();
        assert_eq!(
            skills.iter().all(Option::is_some),
            !bpe,
            "{cell}: {skills:?}"
        );
    }
}

#[test]
fn cross_tokenizer_adds_its_rules_to_cell_b_and_shares_its_runs() {
    // What issue 54 declares before anything runs: the toy cell is sharing-regimes' cell B with
    // the two new rules as arms, on cell B's warm-ups, runs and ledger.
    use trainer::hacpo::CrossRule;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let toy = ExperimentConfig::load(&dir.join("cross-tokenizer/toy.toml")).unwrap();
    let cell_b = ExperimentConfig::load(&dir.join("sharing-regimes/cell-b.toml")).unwrap();
    assert_eq!(toy.run.name, cell_b.run.name);
    // The same folders, however each file spells its way there.
    let lexical = |p: &Path| {
        let mut out = std::path::PathBuf::new();
        for c in p.components() {
            match c {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    };
    assert_eq!(
        lexical(&toy.run.output_dir),
        lexical(&cell_b.run.output_dir)
    );
    let ledger = |c: &ExperimentConfig| lexical(c.experiment.ledger.as_ref().expect("a ledger"));
    assert_eq!(ledger(&toy), ledger(&cell_b));
    assert!(toy.experiment.seeds.len() >= 8, "8+ paired seeds");
    let rule = |name: &str| {
        let arm = toy.experiment.arms.iter().find(|a| a.name == name).unwrap();
        let rc = toy
            .arm_config(arm, 0, &[], &Default::default(), Split::Test)
            .unwrap();
        rc.algorithm.cross_rule
    };
    assert_eq!(rule("hacpo"), CrossRule::Window);
    assert_eq!(rule("calibrated"), CrossRule::Calibrated);
    assert_eq!(rule("truncated"), CrossRule::Truncated);
    // The arms cell B already has are the same runs: same agents, tasks and settings.
    for name in ["gspo2x", "distill", "hacpo"] {
        let [a, b] = [&toy, &cell_b].map(|c| {
            let arm = c.experiment.arms.iter().find(|a| a.name == name).unwrap();
            let rc = c
                .arm_config(arm, 0, &[], &Default::default(), Split::Test)
                .unwrap();
            (rc.algorithm, rc.run.name, rc.run.steps)
        });
        assert_eq!(a, b, "{name}");
    }
    assert_eq!(toy.tasks, cell_b.tasks);
    let real = ExperimentConfig::load(&dir.join("cross-tokenizer/real.toml")).unwrap();
    assert!(real.experiment.seeds.len() >= 3 && real.experiment.eval_size >= 256);
    assert!(real.tasks.test >= 256);
}

#[test]
fn arms_of_agents_at_their_own_pace_train_concurrently_and_report_their_wait() {
    support::init();
    let (url, db, rt) = support::start_verifier();
    let out = tempfile::tempdir().unwrap();
    let mut cfg = committed("arith-cpu");
    let hacpo = cfg
        .experiment
        .arms
        .iter()
        .find(|a| a.name == "hacpo")
        .unwrap()
        .clone();
    let arm = |name: &str, eta: Option<u64>| {
        let mut a = hacpo.clone();
        (a.name, a.concurrent, a.max_staleness) = (name.into(), true, eta);
        a
    };
    cfg.experiment.arms = vec![arm("barrier", None), arm("eta1", Some(1))];
    shrink(&mut cfg, &url, out.path(), &[5], 3);
    cfg.validate().unwrap();
    let report = run_experiment(&cfg).unwrap();

    assert_eq!(report.arms.len(), 2);
    for a in &report.arms {
        let seed = &a.seeds[0];
        for agent in &report.agents {
            let d = &seed.diagnostics[agent];
            assert!(d.contains_key("wait_seconds"), "{}: {d:?}", a.arm);
            if a.arm == "eta1" {
                assert_eq!(d["wait_seconds"], 0.0, "an agent that never waits");
            }
        }
        // Each agent kept its own log, as an `--agent` process does.
        let staleness: Vec<i64> = rt
            .block_on(
                sqlx::query_scalar("select staleness from rollout_uses where run = $1")
                    .bind(&seed.run)
                    .fetch_all(&db),
            )
            .unwrap();
        assert!(!staleness.is_empty(), "{}: no uses recorded", a.arm);
        assert!(
            staleness.iter().all(|&s| s <= 1),
            "{}: {staleness:?}",
            a.arm
        );
    }
}

#[test]
fn the_async_pair_and_trio_run_their_agents_at_their_own_pace_under_each_declared_eta() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/async-agents");
    let declared: toml::Table =
        toml::from_str(&std::fs::read_to_string(dir.join("experiment.toml")).unwrap()).unwrap();
    let seeds: Vec<u64> = (declared["declaration"]["seeds"].as_array().unwrap().iter())
        .map(|s| s.as_integer().unwrap() as u64)
        .collect();
    let pair = ExperimentConfig::load(&dir.join("pair.toml")).unwrap();
    let trio = ExperimentConfig::load(&dir.join("trio.toml")).unwrap();
    for (cfg, agents) in [(&pair, 2), (&trio, 3)] {
        cfg.validate().unwrap();
        assert_eq!(cfg.agents.len(), agents);
        let arms: Vec<(&str, bool, Option<u64>)> = (cfg.experiment.arms.iter())
            .map(|a| (a.name.as_str(), a.concurrent, a.max_staleness))
            .collect();
        assert_eq!(
            arms,
            [
                ("barrier", true, None),
                ("eta0", true, Some(0)),
                ("eta1", true, Some(1)),
                ("eta2", true, Some(2)),
                ("eta4", true, Some(4)),
            ]
        );
        assert_eq!(cfg.experiment.seeds, seeds);
        assert_eq!(
            cfg.run.steps as i64,
            declared["declaration"]["steps"].as_integer().unwrap()
        );
    }
    // The trio is the pair plus one agent, everything else equal but its own names.
    let debug = |v: &dyn std::fmt::Debug| format!("{v:?}");
    assert_eq!(debug(&&trio.agents[..2]), debug(&&pair.agents[..]));
    assert_eq!(debug(&trio.experiment.arms), debug(&pair.experiment.arms));
    assert_ne!(trio.run.name, pair.run.name);
    assert_ne!(trio.experiment.ledger, pair.experiment.ledger);
}

/// Every sweep run a committed ledger holds is found by this build, so that a fresh machine
/// reads it back instead of training it again: the ledger's key is the run's settings, and a
/// setting added to the trainer must leave the keys of runs recorded before it unchanged (a
/// new `behaviour_weight_cap` once made cell A's whole ledger unreadable, silently).
#[test]
fn the_committed_ledgers_runs_are_found_by_this_build() {
    let experiments = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut total = 0;
    for cell in ["sharing-regimes/cell-a.toml", "cross-tokenizer/toy.toml"] {
        let mut cfg = ExperimentConfig::load(&experiments.join(cell)).unwrap();
        let out = tempfile::tempdir().unwrap();
        // No finished runs but the ledger's.
        cfg.run.output_dir = out.path().into();
        let ledger = cfg.experiment.ledger.clone().unwrap();
        let entries = match std::fs::read_dir(&ledger) {
            Ok(dir) => dir
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("tune_") && n.ends_with(".json"))
                .count(),
            Err(_) => continue,
        };
        let warm_dirs: Vec<std::path::PathBuf> = (cfg.agents.iter())
            .map(|a| ledger.join("warmups").join(&a.name))
            .collect();
        let warm_weights: Vec<String> = (warm_dirs.iter())
            .map(|d| trainer::experiment::warmup::fingerprint(d).unwrap())
            .collect();
        // Nothing listens on port 9: a run the ledger misses fails at once instead of training.
        let client = wire::client::blocking::Client::new(
            "http://127.0.0.1:9",
            None,
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        let skills = std::collections::HashMap::new();
        let runs = trainer::experiment::runs::Runs {
            cfg: &cfg,
            client: &client,
            warm_dirs: &warm_dirs,
            agent_ids: &[],
            warm_weights: &warm_weights,
            skills: &skills,
        };
        let spec = cfg.experiment.tuning.clone().unwrap();
        let mut found = 0;
        for arm in (cfg.experiment.arms.iter()).filter(|a| spec.arms.contains(&a.name)) {
            for setting in spec.grid(cfg.distills(&arm.name)) {
                for &seed in &spec.seeds {
                    if runs
                        .finished(arm, seed, &setting, Split::Validation)
                        .unwrap()
                    {
                        found += 1;
                    }
                }
            }
        }
        assert_eq!(found, entries, "{cell}: runs found of the ledger's entries");
        total += found;
    }
    assert!(
        total >= 20,
        "cell A's ledger held 20 sweep runs on 2026-12-07"
    );
}
