//! What the experiment's table adds to per-arm means: paired differences between arms (same seed:
//! same warm-up, prompt order and sampling seeds) with 95% intervals, the cross/own diagnostics
//! read from each run's metrics, the overlap gate and the learning-rate sweep.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::gate::GateReport;
use super::report::{ArmResult, Report, Spread};
use crate::train::METRICS_FILE;

/// Two-sided 95% Student t quantiles for 1–30 degrees of freedom (then the normal's 1.96).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// `arm − baseline` final held-out accuracy of one agent, seed by seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// Per seed (seed, difference), seeds both arms ran.
    pub diffs: Vec<(u64, f64)>,
    /// Mean and sd of the differences.
    pub spread: Spread,
    /// 95% interval of the mean difference (t with n − 1 degrees of freedom).
    pub ci95: (f64, f64),
}

/// The paired difference of `agent`'s final accuracy between `arm` and `baseline`, over the
/// seeds both ran; `None` with fewer than two.
pub fn paired(arm: &ArmResult, baseline: &ArmResult, agent: usize) -> Option<Paired> {
    let last = |a: &ArmResult, seed: u64| {
        a.seeds
            .iter()
            .find(|s| s.seed == seed)
            .and_then(|s| s.curves[agent].last().map(|p| p.1))
    };
    let diffs: Vec<(u64, f64)> = arm
        .seeds
        .iter()
        .filter_map(|s| Some((s.seed, last(arm, s.seed)? - last(baseline, s.seed)?)))
        .collect();
    if diffs.len() < 2 {
        return None;
    }
    let spread = Spread::of(&diffs.iter().map(|d| d.1).collect::<Vec<_>>());
    let t = T975.get(diffs.len() - 2).copied().unwrap_or(1.96);
    let half = t * spread.sd / (diffs.len() as f64).sqrt();
    Some(Paired {
        diffs,
        spread,
        ci95: (spread.mean - half, spread.mean + half),
    })
}

/// Keys of a `train_metrics` row (columns and `extra`) averaged into a run's diagnostics.
pub const DIAGNOSTICS: [&str; 14] = [
    "accuracy",
    "clip_fraction",
    "clip_own",
    "clip_cross",
    "cross_below",
    "cross_inside",
    "cross_above",
    "cross_ratio_mean",
    "adv_abs_own",
    "adv_abs_cross",
    "response_tokens",
    "entropy",
    "kl",
    "omega",
];

/// Per agent (by name), the mean over a run's steps of each [`DIAGNOSTICS`] key, read from the
/// run's `metrics.jsonl` (a step logged twice counts once, the later line).
pub fn run_diagnostics(output_dir: &Path) -> Result<BTreeMap<String, BTreeMap<String, f64>>> {
    let path = output_dir.join(METRICS_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut rows: BTreeMap<(String, u64), serde_json::Value> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let agent = v["agent"].as_str().unwrap_or_default().to_string();
        let step = v["row"]["step"].as_u64().unwrap_or_default();
        rows.insert((agent, step), v["row"].clone());
    }
    let mut sums: BTreeMap<String, BTreeMap<String, (f64, usize)>> = BTreeMap::new();
    for ((agent, _), row) in rows {
        let extra = &row["extra"];
        for key in DIAGNOSTICS {
            let value = match key {
                // One partner in the experiments; with more, their mean.
                "omega" => {
                    let w: Vec<f64> = extra["omega_source_over_learner"]
                        .as_object()
                        .map(|o| o.values().filter_map(|v| v.as_f64()).collect())
                        .unwrap_or_default();
                    (!w.is_empty()).then(|| w.iter().sum::<f64>() / w.len() as f64)
                }
                _ => row[key].as_f64().or_else(|| extra[key].as_f64()),
            };
            // Cross keys mean nothing in a step without cross samples.
            let no_cross = extra["cross_sequences"].as_u64() == Some(0);
            if let Some(v) = value
                && !(no_cross && key.contains("cross"))
            {
                let e = sums
                    .entry(agent.clone())
                    .or_default()
                    .entry(key.to_string())
                    .or_default();
                e.0 += v;
                e.1 += 1;
            }
        }
    }
    Ok(sums
        .into_iter()
        .map(|(a, m)| {
            let means = m.into_iter().map(|(k, (s, n))| (k, s / n as f64)).collect();
            (a, means)
        })
        .collect())
}

/// One learning rate of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Learning rate (every agent).
    pub lr: f64,
    /// The pool's run.
    pub run: String,
    /// Per agent: final held-out accuracy minus the warm-up's.
    pub gains: Vec<f64>,
    /// Wall time of the run.
    pub wall_seconds: f64,
}

/// The learning-rate sweep: one GSPO run per rate, one seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrSweep {
    /// The gain every agent had to reach.
    pub min_gain: f64,
    /// Each rate tried, ascending.
    pub points: Vec<SweepPoint>,
    /// The rate every arm then uses.
    pub chosen: f64,
    /// Whether `chosen` met `min_gain` for every agent (else: the rate with the best worst-agent
    /// gain).
    pub met: bool,
}

impl LrSweep {
    /// The lowest rate at which every agent gains at least `min_gain`, else the one whose
    /// smallest gain is largest.
    pub fn choose(min_gain: f64, mut points: Vec<SweepPoint>) -> Self {
        points.sort_by(|a, b| a.lr.total_cmp(&b.lr));
        let worst = |p: &SweepPoint| p.gains.iter().copied().fold(f64::INFINITY, f64::min);
        let (chosen, met) = match points.iter().find(|p| worst(p) >= min_gain) {
            Some(p) => (p.lr, true),
            None => (
                points
                    .iter()
                    .max_by(|a, b| worst(a).total_cmp(&worst(b)))
                    .map_or(f64::NAN, |p| p.lr),
                false,
            ),
        };
        Self {
            min_gain,
            points,
            chosen,
            met,
        }
    }
}

impl Report {
    /// The markdown sections after the main table: paired differences, diagnostics, gate, sweep.
    pub fn comparisons(&self) -> String {
        let mut out = String::new();
        let arm = |name: &str| self.arms.iter().find(|a| a.arm == name);
        if let Some(hacpo) = arm("hacpo") {
            out += "\n\nPaired differences of final held-out accuracy (same seed: same warm-up, prompts and sampling seeds), mean ± sd [95% interval], and per seed.\n\n| comparison | agent | mean ± sd | 95% interval | per seed |\n|---|---|---|---|---|\n";
            for base in self.arms.iter().filter(|a| a.arm != "hacpo") {
                for (k, agent) in self.agents.iter().enumerate() {
                    if let Some(p) = paired(hacpo, base, k) {
                        let per: Vec<String> = p
                            .diffs
                            .iter()
                            .map(|(s, d)| format!("s{s} {d:+.3}"))
                            .collect();
                        out += &format!(
                            "| hacpo − {} | {agent} | {:+.3} ± {:.3} | [{:+.3}, {:+.3}] | {} |\n",
                            base.arm,
                            p.spread.mean,
                            p.spread.sd,
                            p.ci95.0,
                            p.ci95.1,
                            per.join(", ")
                        );
                    }
                }
            }
        }
        out += "\n\nDiagnostics from `train_metrics`, mean over steps and seeds: training accuracy, clip fractions (all, own, cross), where cross ratios s fall relative to the mini-batch's window [lower_m, 1], mean |A| own / cross, own response tokens, entropy (nats/token), KL, ω (source / learner).\n\n| arm | agent | acc | clip | clip own | clip cross | s < lower | s in window | s > 1 | mean s | |A| own | |A| cross | tokens | entropy | KL | ω |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for a in &self.arms {
            for agent in &self.agents {
                let cell = |key: &str| {
                    let v: Vec<f64> = a
                        .seeds
                        .iter()
                        .filter_map(|s| s.diagnostics.get(agent)?.get(key).copied())
                        .collect();
                    if v.is_empty() {
                        String::new()
                    } else {
                        format!("{:.3}", v.iter().sum::<f64>() / v.len() as f64)
                    }
                };
                let cells: Vec<String> = DIAGNOSTICS.iter().map(|k| cell(k)).collect();
                out += &format!("| {} | {agent} | {} |\n", a.arm, cells.join(" | "));
            }
        }
        if let Some(g) = &self.gate {
            out += &gate_table(g);
        }
        if let Some(s) = &self.lr_sweep {
            out += &format!(
                "\n\nLearning-rate sweep (GSPO, one seed): the lowest rate at which every agent gains ≥ {:+.2} is used by every arm{}.\n\n| lr | gains | wall s |\n|---|---|---|\n",
                s.min_gain,
                if s.met {
                    String::new()
                } else {
                    " — no rate met it; the one with the best worst-agent gain is used".into()
                }
            );
            for p in &s.points {
                let g: Vec<String> = p.gains.iter().map(|g| format!("{g:+.3}")).collect();
                let mark = if p.lr == s.chosen { " (chosen)" } else { "" };
                out += &format!(
                    "| {:e}{mark} | {} | {:.0} |\n",
                    p.lr,
                    g.join(" / "),
                    p.wall_seconds
                );
            }
        }
        out
    }
}

fn gate_table(g: &GateReport) -> String {
    let mut out = format!(
        "\n\nOverlap gate before RL ({} prompts × {}): s = exp(ℓ_scorer − ℓ_author) of warm-up responses; required ≥ {:.0}% in [{:.3}, 1] for every pair, in the run's unit ({:?}): **{}**.\n\n| author → scorer | unit | n | below | inside | above | s at 10/25/50/75/90% |\n|---|---|---|---|---|---|---|\n",
        g.spec.prompts,
        g.spec.group_size,
        g.spec.min_inside * 100.0,
        g.window.0,
        g.unit,
        match (g.passed, g.ignored) {
            (true, _) => "passed",
            (false, false) => "failed",
            (false, true) =>
                "failed — the arms below ran anyway (--ignore-gate), a deviation from the pre-registration",
        }
    );
    for p in &g.pairs {
        let q: Vec<String> = p.quantiles.iter().map(|x| format!("{x:.3}")).collect();
        out += &format!(
            "| {} → {} | {:?} | {} | {:.3} | {:.3} | {:.3} | {} |\n",
            p.author,
            p.scorer,
            p.unit,
            p.samples,
            p.below,
            p.inside,
            p.above,
            q.join(" / ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::SeedResult;
    use crate::hacpo::HacpoConfig;

    fn arm(name: &str, finals: &[(u64, f64)]) -> ArmResult {
        ArmResult {
            arm: name.into(),
            algorithm: HacpoConfig::default(),
            rollouts_per_run: 0,
            seeds: finals
                .iter()
                .map(|&(seed, f)| SeedResult {
                    seed,
                    run: String::new(),
                    wall_seconds: 0.0,
                    curves: vec![vec![(0, 0.3), (10, f)]],
                    diagnostics: BTreeMap::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn paired_differences_match_seeds_and_use_t_intervals() {
        let h = arm("hacpo", &[(0, 0.40), (1, 0.45), (2, 0.50), (3, 0.2)]);
        let g = arm("gspo", &[(2, 0.45), (1, 0.40), (0, 0.40)]);
        let p = paired(&h, &g, 0).unwrap();
        // Seed 3 has no partner; differences 0, .05, .05: mean .0333, sd .02887, t(2) = 4.303.
        assert_eq!(p.diffs.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!((p.spread.mean - 0.1 / 3.0).abs() < 1e-12);
        let half = 4.303 * p.spread.sd / 3f64.sqrt();
        assert!((p.ci95.1 - p.spread.mean - half).abs() < 1e-12);
        assert!((half - 0.0717).abs() < 1e-3, "{half}");
        assert!(paired(&h, &arm("x", &[(0, 0.1)]), 0).is_none());
    }

    #[test]
    fn the_sweep_picks_the_lowest_rate_that_lifts_every_agent() {
        let point = |lr, gains: &[f64]| SweepPoint {
            lr,
            run: String::new(),
            gains: gains.to_vec(),
            wall_seconds: 1.0,
        };
        let s = LrSweep::choose(
            0.05,
            vec![
                point(1e-3, &[0.1, 0.06]),
                point(2e-4, &[0.0, 0.01]),
                point(5e-4, &[0.07, 0.05]),
            ],
        );
        assert_eq!((s.chosen, s.met), (5e-4, true));
        let s = LrSweep::choose(
            0.05,
            vec![point(2e-4, &[0.0, 0.2]), point(5e-4, &[0.02, 0.03])],
        );
        assert_eq!((s.chosen, s.met), (5e-4, false));
    }

    #[test]
    fn diagnostics_average_steps_and_skip_cross_keys_without_cross_samples() {
        let dir = tempfile::tempdir().unwrap();
        let row = |step: u64, clip_own: f64, cross: u64| {
            serde_json::json!({"agent": "a", "row": {"step": step, "accuracy": 0.5, "kl": 0.0,
                "clip_fraction": 0.2, "extra": {"clip_own": clip_own, "clip_cross": 0.9,
                "cross_sequences": cross, "omega_source_over_learner": {"b": 2.0}}}})
            .to_string()
        };
        // Step 2 logged twice (a crash after its metrics): the later line counts.
        let text = [row(1, 0.1, 4), row(2, 0.9, 0), row(2, 0.3, 0)].join("\n");
        std::fs::write(dir.path().join(METRICS_FILE), text).unwrap();
        let d = run_diagnostics(dir.path()).unwrap();
        let a = &d["a"];
        assert!((a["clip_own"] - 0.2).abs() < 1e-12, "{a:?}");
        assert_eq!(a["clip_cross"], 0.9, "only step 1 had cross samples");
        assert_eq!(a["omega"], 2.0);
    }
}
