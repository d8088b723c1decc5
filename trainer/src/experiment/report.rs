//! An experiment's results: held-out accuracy curves per arm, seed and agent, rendered as a
//! markdown table (final accuracy, mean ± spread over seeds) and a PNG of learning curves.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use super::compare::LrSweep;
use super::gate::GateReport;
use crate::hacpo::HacpoConfig;

/// Everything an experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Experiment (and pool run prefix) name.
    pub name: String,
    /// Agent names, in curve order.
    pub agents: Vec<String>,
    /// Held-out accuracy of each agent after the warm-up (step 0 of every curve).
    pub warmup_accuracy: Vec<f64>,
    /// Held-out tasks per evaluation.
    pub eval_tasks: usize,
    /// One entry per arm, in config order.
    pub arms: Vec<ArmResult>,
    /// The overlap gate, when the experiment has one.
    #[serde(default)]
    pub gate: Option<GateReport>,
    /// The learning-rate sweep, when the experiment has one.
    #[serde(default)]
    pub lr_sweep: Option<LrSweep>,
}

/// One arm over all seeds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArmResult {
    /// Arm name.
    pub arm: String,
    /// Its algorithm settings.
    pub algorithm: HacpoConfig,
    /// Training rollouts one run generates (all agents).
    pub rollouts_per_run: usize,
    /// One entry per seed.
    pub seeds: Vec<SeedResult>,
}

/// One run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedResult {
    /// Seed.
    pub seed: u64,
    /// The pool's `run` (evaluations are under `<run>/eval`).
    pub run: String,
    /// Wall time of the run.
    pub wall_seconds: f64,
    /// Per agent: (step, held-out accuracy), starting at step 0.
    pub curves: Vec<Vec<(usize, f64)>>,
    /// Per agent name: the run's mean over steps of each `compare::DIAGNOSTICS` key.
    #[serde(default)]
    pub diagnostics: BTreeMap<String, BTreeMap<String, f64>>,
}

/// Mean, sample standard deviation, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (at least one).
    pub fn of(values: &[f64]) -> Self {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = if values.len() > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Self {
            mean,
            sd: var.sqrt(),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

impl ArmResult {
    /// Final held-out accuracy of `agent` over seeds.
    pub fn final_accuracy(&self, agent: usize) -> Spread {
        let finals: Vec<f64> = self
            .seeds
            .iter()
            .filter_map(|s| s.curves[agent].last().map(|p| p.1))
            .collect();
        Spread::of(&finals)
    }

    /// Per step, the spread of `agent`'s accuracy over seeds.
    pub fn curve(&self, agent: usize) -> Vec<(usize, Spread)> {
        let mut by_step: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for s in &self.seeds {
            for &(step, acc) in &s.curves[agent] {
                by_step.entry(step).or_default().push(acc);
            }
        }
        by_step
            .into_iter()
            .map(|(step, v)| (step, Spread::of(&v)))
            .collect()
    }
}

impl Report {
    /// Writes `results.json`, `results.md` and `curves.png` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("results.json"), serde_json::to_vec_pretty(self)?)?;
        std::fs::write(dir.join("results.md"), self.table())?;
        self.plot(&dir.join("curves.png"))
    }

    /// One report from several that ran parts of the same experiment (different arms or seeds,
    /// possibly on different machines). Their runs pair only if they started from the same
    /// warm-ups, so the agents, warm-up accuracies, evaluation set and gate must be equal; a run
    /// (arm, seed) present twice must have the same curves, or the parts did not reproduce.
    pub fn merge(parts: Vec<Report>) -> Result<Report> {
        let mut parts = parts.into_iter();
        let mut merged = parts.next().context("no reports to merge")?;
        for part in parts {
            let same = merged.name == part.name
                && merged.agents == part.agents
                && merged.warmup_accuracy == part.warmup_accuracy
                && merged.eval_tasks == part.eval_tasks
                && merged.gate.as_ref().map(|g| &g.pairs) == part.gate.as_ref().map(|g| &g.pairs);
            if !same {
                return Err(anyhow!(
                    "`{}` and `{}` differ in agents, warm-up accuracy ({:?} vs {:?}), evaluation set or gate: their runs do not pair",
                    merged.name,
                    part.name,
                    merged.warmup_accuracy,
                    part.warmup_accuracy
                ));
            }
            merged.lr_sweep = merged.lr_sweep.or(part.lr_sweep);
            for arm in part.arms {
                let Some(into) = merged.arms.iter_mut().find(|a| a.arm == arm.arm) else {
                    merged.arms.push(arm);
                    continue;
                };
                if into.algorithm != arm.algorithm || into.rollouts_per_run != arm.rollouts_per_run
                {
                    return Err(anyhow!(
                        "arm `{}` has different settings in two reports",
                        arm.arm
                    ));
                }
                for seed in arm.seeds {
                    match into.seeds.iter().find(|s| s.seed == seed.seed) {
                        Some(s) if s.curves == seed.curves => {}
                        Some(_) => {
                            return Err(anyhow!(
                                "arm `{}` seed {} has different curves in two reports: the runs did not reproduce",
                                arm.arm,
                                seed.seed
                            ));
                        }
                        None => into.seeds.push(seed),
                    }
                }
                into.seeds.sort_by_key(|s| s.seed);
            }
        }
        Ok(merged)
    }

    /// The markdown table: final held-out accuracy per agent and arm (mean ± sd over seeds,
    /// min–max), its change from the warm-up, seeds, rollouts and wall time per run.
    pub fn table(&self) -> String {
        let mut out = format!(
            "Held-out accuracy (greedy pass@1 on {} tasks) after the last step, mean ± sd over seeds [min–max]; Δ is the change from the warm-up.\n\n| arm |",
            self.eval_tasks
        );
        for a in &self.agents {
            out.push_str(&format!(" {a} | Δ |"));
        }
        out.push_str(" seeds | training rollouts / run | wall s / run |\n|---|");
        out.push_str(&"---|---|".repeat(self.agents.len()));
        out.push_str("---|---|---|\n| warm-up |");
        for w in &self.warmup_accuracy {
            out.push_str(&format!(" {w:.3} | |"));
        }
        out.push_str(" | | |\n");
        for arm in &self.arms {
            out.push_str(&format!("| {} |", arm.arm));
            for (k, w) in self.warmup_accuracy.iter().enumerate() {
                let s = arm.final_accuracy(k);
                out.push_str(&format!(
                    " {:.3} ± {:.3} [{:.3}–{:.3}] | {:+.3} |",
                    s.mean,
                    s.sd,
                    s.min,
                    s.max,
                    s.mean - w
                ));
            }
            let wall = Spread::of(&arm.seeds.iter().map(|s| s.wall_seconds).collect::<Vec<_>>());
            out.push_str(&format!(
                " {} | {} | {:.0} |\n",
                arm.seeds.len(),
                arm.rollouts_per_run,
                wall.mean
            ));
        }
        out + &self.comparisons()
    }

    /// Learning curves: one panel per agent, one line per arm (mean over seeds) with a band
    /// from the worst to the best seed.
    pub fn plot(&self, path: &Path) -> Result<()> {
        register_font();
        let panel = (560u32, 420u32);
        let root = BitMapBackend::new(path, (panel.0 * self.agents.len() as u32, panel.1))
            .into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        // The axes' extent: the last step and the best accuracy over every curve point.
        let (last_step, top) = self
            .arms
            .iter()
            .flat_map(|a| &a.seeds)
            .flat_map(|s| s.curves.iter().flatten())
            .fold((1, 0.0), |(step, acc), p| {
                (step.max(p.0), f64::max(acc, p.1))
            });
        // Head-room above the curves for the legend.
        let y_max = ((top * 1.6 + 0.1) * 10.0).ceil().min(10.0) / 10.0;
        for (k, area) in root.split_evenly((1, self.agents.len())).iter().enumerate() {
            let mut chart = ChartBuilder::on(area)
                .caption(&self.agents[k], ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(48)
                .build_cartesian_2d(0f64..last_step as f64, 0f64..y_max)
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_desc("training step")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_desc("held-out accuracy")
                .draw()
                .map_err(draw_error)?;
            for (i, arm) in self.arms.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let curve = arm.curve(k);
                let band: Vec<(f64, f64)> = curve
                    .iter()
                    .map(|(s, p)| (*s as f64, p.max))
                    .chain(curve.iter().rev().map(|(s, p)| (*s as f64, p.min)))
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.15).filled(),
                    )))
                    .map_err(draw_error)?;
                chart
                    .draw_series(LineSeries::new(
                        curve.iter().map(|(s, p)| (*s as f64, p.mean)),
                        color.stroke_width(2),
                    ))
                    .map_err(draw_error)?
                    .label(&arm.arm)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(draw_error)?;
        }
        root.present()
            .map_err(draw_error)
            .with_context(|| format!("writing {}", path.display()))
    }
}

fn draw_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("plotting: {e}")
}

/// The plot's font travels with the binary: machines without fonts still get labelled plots.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../../assets/fonts/DejaVuSans.ttf"),
        )
        .unwrap_or_else(|_| panic!("the bundled DejaVuSans.ttf is a valid font"));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(seed: u64, a: &[f64], b: &[f64]) -> SeedResult {
        SeedResult {
            seed,
            run: format!("x/s{seed}"),
            wall_seconds: 10.0,
            curves: vec![
                a.iter().enumerate().map(|(i, &v)| (i * 5, v)).collect(),
                b.iter().enumerate().map(|(i, &v)| (i * 5, v)).collect(),
            ],
            diagnostics: BTreeMap::new(),
        }
    }

    fn report() -> Report {
        let arm = |name: &str, seeds| ArmResult {
            arm: name.into(),
            algorithm: HacpoConfig::default(),
            rollouts_per_run: 64,
            seeds,
        };
        Report {
            name: "x".into(),
            agents: vec!["small".into(), "big".into()],
            warmup_accuracy: vec![0.1, 0.3],
            eval_tasks: 50,
            gate: None,
            lr_sweep: None,
            arms: vec![
                arm(
                    "gspo",
                    vec![
                        seed(0, &[0.1, 0.2], &[0.3, 0.3]),
                        seed(1, &[0.1, 0.4], &[0.3, 0.5]),
                    ],
                ),
                arm(
                    "hacpo",
                    vec![
                        seed(0, &[0.1, 0.5], &[0.3, 0.6]),
                        seed(1, &[0.1, 0.5], &[0.3, 0.4]),
                    ],
                ),
            ],
        }
    }

    #[test]
    fn spread_is_the_sample_statistics() {
        let s = Spread::of(&[0.2, 0.4, 0.6]);
        assert!((s.mean - 0.4).abs() < 1e-12);
        assert!((s.sd - 0.2).abs() < 1e-12);
        assert_eq!((s.min, s.max), (0.2, 0.6));
        assert_eq!(Spread::of(&[0.7]).sd, 0.0);
    }

    #[test]
    fn table_reports_final_accuracy_over_seeds_and_change_from_warmup() {
        let t = report().table();
        assert!(t.contains("| gspo | 0.300 ± 0.141 [0.200–0.400] | +0.200 | 0.400 ± 0.141 [0.300–0.500] | +0.100 | 2 | 64 | 10 |"), "{t}");
        assert!(
            t.contains("| hacpo | 0.500 ± 0.000 [0.500–0.500] | +0.400 | 0.500 ± 0.141"),
            "{t}"
        );
        assert!(t.contains("| warm-up | 0.100 | | 0.300 | |"), "{t}");
    }

    /// Two parts of one experiment: gspo and hacpo seeds 0–1 here, gspo×2 and hacpo seed 2 there.
    fn other_part() -> Report {
        let mut r = report();
        r.arms.remove(0);
        r.arms[0].seeds = vec![seed(2, &[0.1, 0.3], &[0.3, 0.2])];
        let mut gspo2x = r.arms[0].clone();
        gspo2x.arm = "gspo2x".into();
        gspo2x.seeds = vec![seed(0, &[0.1, 0.1], &[0.3, 0.2])];
        r.arms.push(gspo2x);
        r
    }

    #[test]
    fn merge_unions_arms_and_seeds_and_pairs_across_parts() {
        let m = Report::merge(vec![report(), other_part()]).unwrap();
        let names: Vec<_> = m.arms.iter().map(|a| a.arm.as_str()).collect();
        assert_eq!(names, ["gspo", "hacpo", "gspo2x"]);
        let seeds: Vec<_> = m.arms[1].seeds.iter().map(|s| s.seed).collect();
        assert_eq!(seeds, [0, 1, 2]);
        let t = m.table();
        assert!(
            t.contains("| hacpo | 0.433 ± 0.115 [0.300–0.500] | +0.333 |"),
            "{t}"
        );
        assert!(t.contains("| gspo2x | 0.100 ± 0.000 [0.100–0.100] | +0.000 | 0.200 ± 0.000 [0.200–0.200] | -0.100 | 1 | 64 | 10 |"), "{t}");
        // A part read twice adds nothing: a run present in both with equal curves counts once.
        let again = Report::merge(vec![m.clone(), other_part()]).unwrap();
        assert_eq!(again.arms[1].seeds.len(), 3);
    }

    #[test]
    fn merge_refuses_parts_that_do_not_pair() {
        let mut warm = other_part();
        warm.warmup_accuracy[1] = 0.31;
        let e = Report::merge(vec![report(), warm]).unwrap_err().to_string();
        assert!(e.contains("do not pair") && e.contains("0.31"), "{e}");

        let mut rerun = other_part();
        rerun.arms[0].seeds[0] = seed(1, &[0.1, 0.6], &[0.3, 0.4]);
        let e = Report::merge(vec![report(), rerun])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`hacpo` seed 1") && e.contains("did not reproduce"),
            "{e}"
        );

        let mut settings = other_part();
        settings.arms[0].algorithm.alpha = 0.0;
        let e = Report::merge(vec![report(), settings])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`hacpo` has different settings"), "{e}");
        assert!(Report::merge(Vec::new()).is_err());
    }

    #[test]
    fn curves_average_seeds_step_by_step() {
        let r = report();
        let c = r.arms[0].curve(0);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].0, 5);
        assert!((c[1].1.mean - 0.3).abs() < 1e-12);
        assert_eq!((c[1].1.min, c[1].1.max), (0.2, 0.4));
    }

    #[test]
    fn the_plot_is_a_png_of_one_panel_per_agent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("curves.png");
        report().plot(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // IHDR: width and height, big-endian, right after the 8-byte signature and chunk header.
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (2 * 560, 420));
        // Not a blank canvas: the encoded image holds lines, bands and text.
        assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
    }
}
