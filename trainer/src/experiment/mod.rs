//! `trainer experiment`: the paper's comparison, reproducible with one command, top-down:
//! [`config`] declares arms, seeds, the tuning sweep and the primary endpoint; [`arith`]
//! generates the tasks (train, validation, test); [`warmup`] gives every agent its starting
//! point; [`crate::gate`] checks the agents overlap enough before any RL; [`tuning`] picks each arm's
//! learning rate and clip on the validation split; [`runs`] trains each arm × seed through the
//! production loop; [`report`] renders what came out with [`stats`] and [`diagnostics`].
//! Every step stores its result ([`cache`]), so an interrupted experiment resumes.

pub mod arith;
pub mod cache;
pub mod config;
pub mod diagnostics;
pub mod report;
pub mod runs;
pub mod skills;
pub mod stats;
pub mod tuning;
pub mod warmup;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};

use crate::gate::{GateReport, GateSpec, overlap_gate};
use crate::policy::{Policy, TextPair};
use crate::progress::Progress;
use crate::rng::SplitMix64;
use crate::train::register_agent;
pub use config::{Arm, ExperimentConfig, Split};
pub use report::{ArmResult, Report, SeedResult};
use runs::Runs;
use tuning::{Setting, Tuning, TuningPoint, TuningSpec};

/// Runs the whole experiment (resuming a partial one) and writes the report into `output_dir`.
pub fn run_experiment(cfg: &ExperimentConfig) -> Result<Report> {
    let started = Instant::now();
    // The warm-ups and the gate run before any `train::run` sets this.
    if cfg.run.threads > 0 {
        tch::set_num_threads(cfg.run.threads);
    }
    let client = cfg.verifier.client()?;
    let splits = arith::generate(&cfg.tasks);
    for (split, problems) in [
        (Split::Train, &splits.train),
        (Split::Test, &splits.test),
        (Split::Validation, &splits.validation),
    ] {
        let dataset = cfg.dataset(split);
        let tasks: Vec<_> = problems
            .iter()
            .enumerate()
            .map(|(i, p)| p.task(&dataset, i))
            .collect();
        for chunk in tasks.chunks(1000) {
            client.import_tasks(chunk)?;
        }
        tracing::info!(dataset, tasks = tasks.len(), "tasks imported");
    }
    let mut test = client.tasks(&cfg.dataset(Split::Test))?;
    if cfg.experiment.eval_size > 0 {
        test.truncate(cfg.experiment.eval_size);
    }
    let validation = if splits.validation.is_empty() {
        Vec::new()
    } else {
        client.tasks(&cfg.dataset(Split::Validation))?
    };
    // Each agent's worked solutions: every training problem, or those of its one skill.
    let examples = |skill: Option<arith::Skill>| -> Vec<TextPair> {
        splits
            .train
            .iter()
            .filter(|p| skill.is_none_or(|s| p.style == s))
            .map(|p| TextPair {
                prompt: p.prompt.clone(),
                response: p.solution.clone(),
                ends_turn: true,
            })
            .collect()
    };

    let (mut warm_dirs, mut agent_ids) = (Vec::new(), Vec::new());
    let (mut warm_test, mut warm_validation) = (Vec::new(), Vec::new());
    for a in &cfg.agents {
        let ledger = cfg.experiment.ledger.as_deref();
        let dir = warmup::warm_up(a, &examples(a.warmup_skill), &cfg.run, ledger)?;
        let policy = Policy::load(&dir, a.device)?;
        let id = register_agent(&client, &a.name, &policy)?;
        let max = cfg.run.max_new_tokens;
        let run = warmup::eval_run(&cfg.run.name, &dir, Split::Test)?;
        let acc = warmup::accuracy(&client, &policy, id, &test, &run, max)?;
        tracing::info!(agent = a.name, accuracy = acc, "warm-up held-out accuracy");
        warm_test.push(acc);
        if !validation.is_empty() {
            let run = warmup::eval_run(&cfg.run.name, &dir, Split::Validation)?;
            warm_validation.push(warmup::accuracy(
                &client,
                &policy,
                id,
                &validation,
                &run,
                max,
            )?);
        }
        warm_dirs.push(dir);
        agent_ids.push(id);
    }

    let gate = match &cfg.experiment.gate {
        Some(spec) => Some(run_gate(cfg, spec, &warm_dirs, &splits)?),
        None => None,
    };
    let warm_weights = (warm_dirs.iter())
        .map(|d| warmup::fingerprint(d))
        .collect::<Result<Vec<_>>>()?;
    let task_skills = skills::task_skills(&[test.as_slice(), validation.as_slice()].concat());
    let ctx = Runs {
        cfg,
        client: &client,
        warm_dirs: &warm_dirs,
        agent_ids: &agent_ids,
        warm_weights: &warm_weights,
        skills: &task_skills,
    };
    let tuning = match (&cfg.experiment.tuning, &cfg.experiment.tuning_from) {
        (Some(spec), Some(path)) => Some(
            Tuning::adopt(Report::read(path)?.tuning, spec, &warm_validation, &|a| {
                cfg.distills(a)
            })
            .with_context(|| format!("the sweep of {}", path.display()))?,
        ),
        (Some(spec), None) => Some(sweep(&ctx, spec, &warm_validation)?),
        (None, Some(_)) => bail!("--tuning-from: this experiment declares no tuning sweep"),
        (None, None) => None,
    };
    // With `--report-only` a sweep may not have reached an arm yet: that arm is left out.
    let settings: Vec<Option<Setting>> = cfg
        .experiment
        .arms
        .iter()
        .map(|arm| match setting_of(arm, tuning.as_ref()) {
            Ok(s) => Ok(Some(s)),
            Err(e) if cfg.experiment.report_only => {
                tracing::warn!(arm = arm.name, "left out of the report: {e:#}");
                Ok(None)
            }
            Err(e) => Err(e),
        })
        .collect::<Result<_>>()?;

    // Seed-major: an interrupted experiment has every arm for the seeds it finished, which is
    // what the paired comparison needs.
    let jobs: Vec<(u64, usize)> = cfg
        .experiment
        .seeds
        .iter()
        .flat_map(|&s| (0..cfg.experiment.arms.len()).map(move |a| (s, a)))
        .filter(|&(_, a)| settings[a].is_some())
        .filter(|&(_, a)| !is_sweep_only(cfg, a))
        .filter(|_| !cfg.experiment.tuning_only)
        .collect();
    let setting = |a: usize| settings[a].unwrap_or_default();
    // Which runs finished before, read once: they are read back, not run, and the ETA counts
    // only the runs this invocation trains.
    let was_done: Vec<bool> = jobs
        .iter()
        .map(|&(seed, a)| ctx.finished(&cfg.experiment.arms[a], seed, &setting(a), Split::Test))
        .collect::<Result<_>>()?;
    let finished = was_done.iter().filter(|&&d| d).count();
    let progress = Progress::new(&cfg.run.name, "run", finished, jobs.len());
    let mut by_arm: Vec<Vec<SeedResult>> = vec![Vec::new(); cfg.experiment.arms.len()];
    for (i, (&(seed, a), &was_finished)) in jobs.iter().zip(&was_done).enumerate() {
        let arm = &cfg.experiment.arms[a];
        tracing::info!(
            "run {}/{}: arm {}, seed {seed} ({})",
            i + 1,
            jobs.len(),
            arm.name,
            progress.timing()
        );
        if cfg.experiment.report_only && !was_finished {
            continue;
        }
        by_arm[a].push(ctx.run(arm, seed, &setting(a), Split::Test, &warm_test)?);
        if !was_finished {
            progress.inc();
        }
    }
    let arms = cfg
        .experiment
        .arms
        .iter()
        .zip(by_arm)
        .zip(&settings)
        .filter_map(|((arm, seeds), setting)| Some((arm, seeds, (*setting)?)))
        .filter(|(_, seeds, _)| !seeds.is_empty())
        .map(|(arm, seeds, setting)| {
            Ok(ArmResult {
                arm: arm.name.clone(),
                algorithm: cfg
                    .arm_config(arm, 0, &[], &setting, Split::Test)?
                    .algorithm,
                lr: setting.lr,
                tuned_as: tuning
                    .as_ref()
                    .filter(|t| t.chosen.contains_key(arm.tuning_name()))
                    .map(|_| arm.tuning_name().to_string()),
                rollouts_per_run: cfg.rollouts_per_run(arm)?,
                seeds,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let report = Report {
        name: cfg.run.name.clone(),
        agents: cfg.agents.iter().map(|a| a.name.clone()).collect(),
        warmup_accuracy: warm_test,
        eval_tasks: test.len(),
        arms,
        gate,
        tuning,
        primary: cfg.experiment.primary.clone(),
    };
    report.write(&cfg.run.output_dir)?;
    tracing::info!(
        secs = started.elapsed().as_secs_f64(),
        dir = %cfg.run.output_dir.display(),
        "experiment done: results.md, results.json, curves.png"
    );
    Ok(report)
}

/// Whether arm `a` is only there for its sweep (`ExperimentSection::select_arms`).
fn is_sweep_only(cfg: &ExperimentConfig, a: usize) -> bool {
    (cfg.experiment.sweep_only).contains(&cfg.experiment.arms[a].name)
}

/// The setting an arm runs at: the sweep's choice for the arm it is tuned as, when the
/// experiment has a sweep that tuned it; an error when it should have and did not. Otherwise
/// the arm's declared `setting`, else the defaults.
fn setting_of(arm: &Arm, tuning: Option<&Tuning>) -> Result<Setting> {
    let declared = arm.setting.unwrap_or_default();
    let Some(t) = tuning else {
        return Ok(declared);
    };
    let name = arm.tuning_name();
    if !t.spec.arms.iter().any(|a| a == name) {
        ensure!(
            arm.tuned_as.is_none(),
            "arm `{}` is tuned as `{name}`, which the sweep does not tune",
            arm.name
        );
        return Ok(declared);
    }
    ensure!(
        arm.setting.is_none(),
        "arm `{}` declares a setting and is also tuned by the sweep",
        arm.name
    );
    t.chosen
        .get(name)
        .copied()
        .with_context(|| format!("the sweep chose no setting for `{name}`: it has not run"))
}

/// The tuning sweep over the arms this invocation needs (those it runs, and those they are
/// tuned as), on the validation split.
fn sweep(ctx: &Runs, spec: &TuningSpec, warm: &[f64]) -> Result<Tuning> {
    let x = &ctx.cfg.experiment;
    let needed: Vec<&Arm> = x
        .arms
        .iter()
        .filter(|a| {
            spec.arms.iter().any(|t| t == &a.name)
                && x.arms.iter().any(|b| b.tuning_name() == a.name)
        })
        .collect();
    let mut points = Vec::new();
    let mut complete = true;
    for arm in &needed {
        for setting in &spec.grid(ctx.cfg.distills(&arm.name)) {
            let (mut runs, mut curves, mut wall) = (Vec::new(), Vec::new(), 0.0);
            for &seed in &spec.seeds {
                if x.report_only && !ctx.finished(arm, seed, setting, Split::Validation)? {
                    complete = false;
                    continue;
                }
                tracing::info!(
                    arm = arm.name,
                    setting = setting.label(),
                    seed,
                    "tuning run"
                );
                let r = ctx.run(arm, seed, setting, Split::Validation, warm)?;
                runs.push(r.run);
                curves.push(r.curves);
                wall += r.wall_seconds;
            }
            if runs.is_empty() {
                continue;
            }
            points.push(TuningPoint {
                arm: arm.name.clone(),
                setting: *setting,
                runs,
                score: spec.rule.score(&curves),
                curves,
                wall_seconds: wall,
            });
        }
    }
    let mut t = Tuning::choose(spec.clone(), warm.to_vec(), points);
    t.complete = complete;
    for (arm, s) in &t.chosen {
        tracing::info!(arm, setting = s.label(), complete, "tuned setting");
    }
    Ok(t)
}

/// Seeds the draw of the gate's prompts. Fixed, not an experiment seed: invocations that run
/// different `--seeds` of one experiment must check the same gate (their reports merge only
/// then). It equals what the first seed, 0, gave before, so stored gates stay valid.
const GATE_PROMPTS: u64 = 0x6A7E;

/// The overlap gate on the warmed-up agents, over training prompts drawn with [`GATE_PROMPTS`];
/// an error when it fails (change the warm-up, not the algorithm) unless `--ignore-gate`, which
/// the stored gate then records.
fn run_gate(
    cfg: &ExperimentConfig,
    spec: &GateSpec,
    warm_dirs: &[PathBuf],
    splits: &arith::Splits,
) -> Result<GateReport> {
    let path = cfg.run.output_dir.join("gate.json");
    let warmups = warm_dirs
        .iter()
        .map(|d| cache::settings_of(&warmup::marker(d)))
        .collect::<Result<Vec<_>>>()?;
    let key = (spec, &warmups, GATE_PROMPTS);
    // The first arm's algorithm settings: the window and unit the gate measures, and the rule
    // it is announced under.
    let hc = cfg
        .arm_config(
            &cfg.experiment.arms[0],
            0,
            &[],
            &Setting::default(),
            Split::Test,
        )?
        .algorithm;
    let mut report = cache::cached(&path, &key, || {
        let policies = cfg
            .agents
            .iter()
            .zip(warm_dirs)
            .map(|(a, d)| Ok((a.name.clone(), Policy::load(d, a.device)?)))
            .collect::<Result<Vec<_>>>()?;
        let agents: Vec<(String, &Policy)> = policies.iter().map(|(n, p)| (n.clone(), p)).collect();
        let mut rng = SplitMix64(GATE_PROMPTS);
        let prompts: Vec<String> = (0..spec.prompts)
            .map(|_| splits.train[rng.below(splits.train.len())].prompt.clone())
            .collect();
        let mut g = overlap_gate(
            &agents,
            &prompts,
            spec,
            cfg.run.max_new_tokens,
            hc.cross_lower_bound(0),
            hc.cross_ratio,
        )?;
        g.warmups = warmups.clone();
        Ok(g)
    })?;
    for p in &report.pairs {
        tracing::info!(
            "gate {} -> {} ({:?}): {:.3} inside [{:.3}, 1], {:.3} below, {:.3} above; median s {:.3}",
            p.author,
            p.scorer,
            p.unit,
            p.inside,
            report.window.0,
            p.below,
            p.above,
            p.quantiles[2]
        );
    }
    crate::gate::announce(&report, hc.cross_rule);
    let ignored = !report.passed && cfg.experiment.ignore_gate;
    if report.ignored != ignored {
        // What the file says must be what happened: a run made with --ignore-gate says so.
        report.ignored = ignored;
        cache::store(&path, &key, &report)?;
    }
    if ignored {
        tracing::warn!("the overlap gate failed; running the arms anyway (--ignore-gate)");
    }
    ensure!(
        report.passed || ignored,
        "the overlap gate failed (see {}): fewer than {:.0}% of some agent's warm-up responses have a cross ratio inside the initial window; change the warm-up",
        path.display(),
        spec.min_inside * 100.0
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::config::ExperimentSection;
    use super::*;

    #[test]
    fn an_arm_without_a_sweep_runs_at_its_declared_setting() {
        let arms: ExperimentSection = toml::from_str(
            "seeds = [0]\narms = [{ name = \"gspo2x\", algorithm = \"gspo2x\", \
             setting = { lr = 5e-5, eps_scale = 10.0 } }, \
             { name = \"gspo\", algorithm = \"gspo\" }]",
        )
        .unwrap();
        let declared = setting_of(&arms.arms[0], None).unwrap();
        assert_eq!(declared.lr, Some(5e-5));
        assert_eq!(declared.eps_scale, 10.0);
        assert_eq!(declared.label(), "lr5e-5-eps10");
        assert_eq!(setting_of(&arms.arms[1], None).unwrap(), Setting::default());
        assert!(arms.arms[0].settings.get("setting").is_none());
    }
}
