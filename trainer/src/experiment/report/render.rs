//! The report as markdown: the main table, the pre-declared primary comparison with Holm's
//! correction, secondary comparisons, diagnostics, the overlap gate and the tuning sweep.

use std::collections::BTreeSet;

use super::super::diagnostics::KEYS;
use super::super::stats::{Endpoint, Paired, Spread, holm};
use super::super::tuning::{Tuning, agent_last_three};
use super::{ArmResult, Report};
use crate::gate::GateReport;

impl Report {
    /// The whole markdown report.
    pub fn table(&self) -> String {
        let mut out = self.accuracy_table();
        out += &self.skills_table();
        out += &self.primary_section();
        out += &self.secondary_section();
        out += &self.equivalence_section();
        out += &self.diagnostics_table();
        out += &self.pace_table();
        if let Some(g) = &self.gate {
            out += &gate_table(g);
        }
        if let Some(t) = &self.tuning {
            out += &tuning_table(t, &self.agents);
        }
        out
    }

    /// Final held-out accuracy per agent and arm (mean ± sd over seeds, min–max), its change
    /// from the warm-up, seeds, rollouts and wall time per run.
    fn accuracy_table(&self) -> String {
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
        out
    }

    /// Held-out accuracy per skill of the tasks (where they have several), per arm and agent:
    /// the primary endpoint's mean over seeds, and its change from the warm-up.
    fn skills_table(&self) -> String {
        let names: BTreeSet<&String> = (self.arms.iter())
            .flat_map(|a| a.seeds.iter().flat_map(|s| s.skills.keys()))
            .collect();
        if names.is_empty() {
            return String::new();
        }
        let endpoint = self
            .primary
            .as_ref()
            .map_or(Endpoint::Final, |p| p.endpoint);
        let mut out = format!(
            "\n\nHeld-out accuracy by skill ({}), mean over seeds; Δ is the change from the warm-up.\n\n| arm | agent |",
            endpoint.label()
        );
        for skill in &names {
            out += &format!(" {skill} | Δ |");
        }
        out += &format!("\n|---|---|{}\n", "---|---|".repeat(names.len()));
        for arm in &self.arms {
            for (k, agent) in self.agents.iter().enumerate() {
                out += &format!("| {} | {agent} |", arm.arm);
                for skill in &names {
                    let curves: Vec<&Vec<(usize, f64)>> = (arm.seeds.iter())
                        .filter_map(|s| s.skills.get(*skill)?.get(k))
                        .collect();
                    let ends: Vec<f64> = curves.iter().filter_map(|c| endpoint.of(c)).collect();
                    let warm: Vec<f64> = (curves.iter())
                        .filter_map(|c| c.first().map(|p| p.1))
                        .collect();
                    out += &match (mean(&ends), mean(&warm)) {
                        (Some(e), Some(w)) => format!(" {e:.3} | {:+.3} |", e - w),
                        _ => " | |".to_string(),
                    };
                }
                out.push('\n');
            }
        }
        out
    }

    /// Each agent's pace per arm, from the runs' clocks: wall-clock seconds to its last step,
    /// steps per hour, and the share of that time spent waiting for the other agents.
    fn pace_table(&self) -> String {
        if !(self.arms.iter()).any(|a| a.seeds.iter().any(|s| !s.clock.is_empty())) {
            return String::new();
        }
        let mut out = "\n\nPace, mean over seeds: wall-clock seconds from an agent's first step to its last (evaluations included), its steps per hour, and its idle fraction (seconds waiting for the other agents' rollouts / wall-clock).\n\n| arm | agent | wall s | steps / hour | idle |\n|---|---|---|---|---|\n".to_string();
        for arm in &self.arms {
            for (k, agent) in self.agents.iter().enumerate() {
                let (mut wall, mut rate, mut idle) = (Vec::new(), Vec::new(), Vec::new());
                for seed in &arm.seeds {
                    let Some(&(last_step, secs)) = seed.clock.get(k).and_then(|c| c.last()) else {
                        continue;
                    };
                    if secs <= 0.0 {
                        continue;
                    }
                    let steps = seed.clock[k].len() as f64;
                    let wait = (seed.diagnostics.get(agent))
                        .and_then(|d| d.get("wait_seconds"))
                        .map_or(0.0, |w| w * steps);
                    wall.push(secs);
                    rate.push(last_step as f64 / secs * 3600.0);
                    idle.push(wait / secs);
                }
                if let (Some(w), Some(r), Some(i)) = (mean(&wall), mean(&rate), mean(&idle)) {
                    out += &format!("| {} | {agent} | {w:.0} | {r:.0} | {i:.3} |\n", arm.arm);
                }
            }
        }
        out
    }

    fn arm(&self, name: &str) -> Option<&ArmResult> {
        self.arms.iter().find(|a| a.arm == name)
    }

    /// The primary comparison per agent, p-values Holm-adjusted over the agents, with final and
    /// best accuracy of both arms beside it.
    fn primary_section(&self) -> String {
        let Some(p) = &self.primary else {
            return String::new();
        };
        let (Some(arm), Some(base)) = (self.arm(&p.arm), self.arm(&p.baseline)) else {
            return format!(
                "\n\n**Primary comparison** {} − {}: not run yet.\n",
                p.arm, p.baseline
            );
        };
        let paired: Vec<Option<Paired>> = (0..self.agents.len())
            .map(|k| {
                Paired::of(
                    &arm.endpoints(k, p.endpoint),
                    &base.endpoints(k, p.endpoint),
                )
            })
            .collect();
        let raw: Vec<f64> = paired.iter().flatten().map(|q| q.p).collect();
        let mut adjusted = holm(&raw).into_iter();
        let mut out = format!(
            "\n\n**Primary comparison** (declared in the experiment file before it ran): {} − {} on the {} of held-out accuracy, paired by seed, per agent; p from the paired t test, Holm-adjusted over the {} agents.\n\n| agent | seeds | mean ± sd | 95% interval | p | p (Holm) | final {a} / {b} | best {a} / {b} | per seed |\n|---|---|---|---|---|---|---|---|---|\n",
            p.arm,
            p.baseline,
            p.endpoint.label(),
            self.agents.len(),
            a = p.arm,
            b = p.baseline,
        );
        for (k, agent) in self.agents.iter().enumerate() {
            let Some(q) = &paired[k] else {
                out += &format!("| {agent} | <2 | | | | | | | |\n");
                continue;
            };
            let mean = |a: &ArmResult, e: Endpoint| {
                Spread::of(&a.endpoints(k, e).iter().map(|x| x.1).collect::<Vec<_>>()).mean
            };
            out += &format!(
                "| {agent} | {} | {:+.3} ± {:.3} | [{:+.3}, {:+.3}] | {} | {} | {:.3} / {:.3} | {:.3} / {:.3} | {} |\n",
                q.diffs.len(),
                q.spread.mean,
                q.spread.sd,
                q.ci95.0,
                q.ci95.1,
                p_value(q.p),
                p_value(adjusted.next().unwrap_or(f64::NAN)),
                mean(arm, Endpoint::Final),
                mean(base, Endpoint::Final),
                mean(arm, Endpoint::Best),
                mean(base, Endpoint::Best),
                per_seed(q),
            );
        }
        out
    }

    /// The primary arm against every other arm (and the ablations against it): secondary, so
    /// p-values are unadjusted and only descriptive.
    fn secondary_section(&self) -> String {
        let (main, endpoint) = match &self.primary {
            Some(p) => (p.arm.as_str(), p.endpoint),
            None => ("hacpo", Endpoint::Final),
        };
        let Some(arm) = self.arm(main) else {
            return String::new();
        };
        let mut out = format!(
            "\n\nSecondary comparisons (descriptive; p unadjusted): {main} − each other arm on the {} of held-out accuracy, paired by seed, mean ± sd [95% interval], and per seed.\n\n| comparison | agent | mean ± sd | 95% interval | p | per seed |\n|---|---|---|---|---|---|\n",
            endpoint.label()
        );
        let primary_base = self.primary.as_ref().map(|p| p.baseline.as_str());
        for base in self
            .arms
            .iter()
            .filter(|a| a.arm != main && Some(a.arm.as_str()) != primary_base)
        {
            for (k, agent) in self.agents.iter().enumerate() {
                let Some(q) = Paired::of(&arm.endpoints(k, endpoint), &base.endpoints(k, endpoint))
                else {
                    continue;
                };
                out += &format!(
                    "| {main} − {} | {agent} | {:+.3} ± {:.3} | [{:+.3}, {:+.3}] | {} | {} |\n",
                    base.arm,
                    q.spread.mean,
                    q.spread.sd,
                    q.ci95.0,
                    q.ci95.1,
                    p_value(q.p),
                    per_seed(&q)
                );
            }
        }
        out
    }

    /// TOST at the declared margin for every pair of arms that ran, per agent (the primary
    /// arm first where it is in the pair): where p < 0.05 the two arms match to within it.
    fn equivalence_section(&self) -> String {
        let Some((margin, endpoint, main)) = self
            .primary
            .as_ref()
            .and_then(|p| Some((p.equivalence_margin?, p.endpoint, p.arm.as_str())))
        else {
            return String::new();
        };
        let mut out = format!(
            "\n\nEquivalence (declared): two one-sided t tests that the mean difference of the {} lies within ±{margin}, per pair of arms and agent; p < 0.05 says the arms match to within the margin.\n\n| comparison | agent | seeds | mean | 95% interval | TOST p |\n|---|---|---|---|---|---|\n",
            endpoint.label()
        );
        for (i, a) in self.arms.iter().enumerate() {
            for b in &self.arms[i + 1..] {
                let (a, b) = if b.arm == main { (b, a) } else { (a, b) };
                for (k, agent) in self.agents.iter().enumerate() {
                    let Some(q) = Paired::of(&a.endpoints(k, endpoint), &b.endpoints(k, endpoint))
                    else {
                        continue;
                    };
                    out += &format!(
                        "| {} − {} | {agent} | {} | {:+.3} | [{:+.3}, {:+.3}] | {} |\n",
                        a.arm,
                        b.arm,
                        q.diffs.len(),
                        q.spread.mean,
                        q.ci95.0,
                        q.ci95.1,
                        p_value(q.equivalence_p(margin))
                    );
                }
            }
        }
        out
    }

    fn diagnostics_table(&self) -> String {
        let mut out = "\n\nDiagnostics from `train_metrics`, mean over steps and seeds: training accuracy, clip fractions (all, own, cross), where cross ratios s fall relative to the mini-batch's window [lower_m, 1], mean |A| own / cross, own response tokens, entropy (nats/token), KL over the whole mini-batch and over the learner's own samples only, ‖θ − θ₀‖ after the last step, ω (source / learner), seconds a step waited for the other agents, staleness of the partner rollouts used (in the learner's updates).\n\n| arm | agent | acc | clip | clip own | clip cross | s < lower | s in window | s > 1 | mean s | |A| own | |A| cross | tokens | entropy | KL | KL own | ‖θ−θ₀‖ | ω | wait s | staleness |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n".to_string();
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
                let cells: Vec<String> = KEYS.iter().map(|k| cell(k)).collect();
                out += &format!("| {} | {agent} | {} |\n", a.arm, cells.join(" | "));
            }
        }
        out
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn per_seed(q: &Paired) -> String {
    q.diffs
        .iter()
        .map(|(s, d)| format!("s{s} {d:+.3}"))
        .collect::<Vec<_>>()
        .join(", ")
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

fn tuning_table(t: &Tuning, agents: &[String]) -> String {
    let warm: Vec<String> = t
        .warmup_accuracy
        .iter()
        .map(|w| format!("{w:.3}"))
        .collect();
    let mut out = format!(
        "\n\nTuning sweep on the validation split (seeds {:?}; warm-ups {}): per agent the mean of the last three validation evaluations, and the rule's score ({:?}: the worse agent's, ties to the smaller lr, then the smaller clip). The held-out split was not touched.\n\n| arm | lr | ε scale | {} | score | wall s |\n|---|---|---|{}---|---|\n",
        t.spec.seeds,
        warm.join(" / "),
        t.spec.rule,
        agents.join(" | "),
        "---|".repeat(agents.len()),
    );
    for p in &t.points {
        let chosen = t.chosen.get(&p.arm) == Some(&p.setting);
        let per_agent: Vec<String> = agent_last_three(&p.curves)
            .iter()
            .map(|m| format!("{m:.3}"))
            .collect();
        out += &format!(
            "| {}{} | {} | {} | {} | {:.3} | {:.0} |\n",
            p.arm,
            if chosen { " (chosen)" } else { "" },
            p.setting.lr.map_or("own".into(), |l| format!("{l:e}")),
            p.setting.eps_scale,
            per_agent.join(" | "),
            p.score,
            p.wall_seconds
        );
    }
    out
}

/// A p value as the tables show it: three decimals, or two significant digits below 0.001 (where
/// three decimals would print a misleading 0.000).
fn p_value(p: f64) -> String {
    if p < 1e-3 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::*;
    use crate::experiment::config::Primary;

    #[test]
    fn table_reports_final_accuracy_over_seeds_and_change_from_warmup() {
        let t = report().table();
        assert!(t.contains("| gspo | 0.300 ± 0.141 [0.200–0.400] | +0.200 | 0.400 ± 0.141 [0.300–0.500] | +0.100 | 2 | 64 | 10 |"), "{t}");
        assert!(
            t.contains("| hacpo | 0.500 ± 0.000 [0.500–0.500] | +0.400 | 0.500 ± 0.141"),
            "{t}"
        );
        assert!(t.contains("| warm-up | 0.100 | | 0.300 | |"), "{t}");
        assert!(!t.contains("Primary comparison"), "none declared");
        assert!(
            t.contains("| hacpo − gspo | small | +0.200 ± 0.141 |"),
            "{t}"
        );
    }

    #[test]
    fn skills_table_gives_each_skills_endpoint_and_its_change_from_the_warm_up() {
        let mut r = report();
        assert!(
            !r.table().contains("by skill"),
            "no skills recorded: no table"
        );
        // Two seeds of gspo; agent 0's word curve: warm 0.2, then 0.3 and 0.5 (seed 0) and
        // warm 0.2, then 0.5 and 0.7 (seed 1): final 0.5 and 0.7, mean 0.6, Δ +0.4.
        for (seed, last) in r.arms[0].seeds.iter_mut().zip([0.5, 0.7]) {
            let word = vec![
                vec![(0, 0.2), (5, last - 0.2), (10, last)],
                vec![(0, 0.1), (10, 0.1)],
            ];
            seed.skills.insert("word".into(), word);
        }
        let t = r.table();
        assert!(t.contains("Held-out accuracy by skill (final)"), "{t}");
        assert!(t.contains("| arm | agent | word | Δ |"), "{t}");
        assert!(t.contains("| gspo | small | 0.600 | +0.400 |"), "{t}");
        assert!(t.contains("| gspo | big | 0.100 | +0.000 |"), "{t}");
        assert!(t.contains("| hacpo | small | | |"), "{t}");
    }

    #[test]
    fn pace_table_gives_wall_clock_steps_per_hour_and_idle_fraction() {
        let mut r = report();
        assert!(!r.table().contains("Pace"), "no clocks recorded: no table");
        // gspo seed 0: 'small' takes 20 steps in 600 s (120 steps / hour), waiting 3 s a step
        // (60 s: idle 0.1); seed 1 takes 20 steps in 1,200 s (60 / hour), never waiting.
        let seeds = &mut r.arms[0].seeds;
        for (seed, (secs, wait)) in seeds.iter_mut().zip([(600.0, 3.0), (1200.0, 0.0)]) {
            let clock: Vec<(usize, f64)> = (1..=20).map(|s| (s, secs * s as f64 / 20.0)).collect();
            seed.clock = vec![clock.clone(), clock];
            seed.diagnostics
                .insert("small".into(), [("wait_seconds".into(), wait)].into());
        }
        let t = r.table();
        assert!(
            t.contains("| arm | agent | wall s | steps / hour | idle |"),
            "{t}"
        );
        assert!(t.contains("| gspo | small | 900 | 90 | 0.050 |"), "{t}");
        assert!(t.contains("| gspo | big | 900 | 90 | 0.000 |"), "{t}");
        assert!(
            !t.contains("| hacpo | small | 9"),
            "hacpo has no clock: {t}"
        );
    }

    #[test]
    fn the_primary_comparison_is_holm_adjusted_and_others_are_secondary() {
        let mut r = report();
        for (s, (a, b)) in [(2, (0.45, 0.35)), (3, (0.55, 0.5))] {
            r.arms[0]
                .seeds
                .push(super::super::tests::seed(s, &[0.1, 0.2], &[0.3, b]));
            r.arms[1]
                .seeds
                .push(super::super::tests::seed(s, &[0.1, a], &[0.3, 0.4]));
        }
        r.primary = Some(Primary {
            arm: "hacpo".into(),
            baseline: "gspo".into(),
            endpoint: Endpoint::Final,
            equivalence_margin: Some(0.01),
        });
        let t = r.table();
        let small = Paired::of(
            &r.arms[1].endpoints(0, Endpoint::Final),
            &r.arms[0].endpoints(0, Endpoint::Final),
        )
        .unwrap();
        let big = Paired::of(
            &r.arms[1].endpoints(1, Endpoint::Final),
            &r.arms[0].endpoints(1, Endpoint::Final),
        )
        .unwrap();
        let adj = holm(&[small.p, big.p]);
        assert!(adj[0] >= small.p && adj[1] >= big.p);
        let row = format!(
            "| small | 4 | {:+.3} ± {:.3} | [{:+.3}, {:+.3}] | {} | {} |",
            small.spread.mean,
            small.spread.sd,
            small.ci95.0,
            small.ci95.1,
            p_value(small.p),
            p_value(adj[0])
        );
        assert!(t.contains(&row), "{row}\n{t}");
        assert!(t.contains("Holm-adjusted over the 2 agents"), "{t}");
        assert!(
            t.contains("within ±0.01") && t.contains("| hacpo − gspo |"),
            "{t}"
        );
        assert_eq!(
            (p_value(0.0123), p_value(0.00029)),
            ("0.012".into(), "2.9e-4".into())
        );
        // The baseline of the primary is not repeated among the secondary comparisons (the
        // equivalence section, after them, tests every pair).
        let secondary =
            &t[t.find("Secondary comparisons").unwrap()..t.find("Equivalence").unwrap()];
        assert!(!secondary.contains("| hacpo − gspo |"), "{t}");
    }
}
