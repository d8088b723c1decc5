//! The statistics of the report: spread over seeds, the endpoints compared seed by seed, paired
//! t intervals and p-values, and Holm's correction for several comparisons.

use serde::{Deserialize, Serialize};

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

/// What one run contributes to a comparison, read off an agent's curve of (step, accuracy)
/// whose first point is the warm-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// Accuracy at the last evaluation.
    Final,
    /// Mean of the last three evaluations: less noisy than one evaluation, and still about
    /// where training ended rather than its luckiest moment.
    LastThree,
    /// The best evaluation after the warm-up (optimistic: reported, never primary).
    Best,
}

impl Endpoint {
    /// The endpoint of one curve (`None` when it has no evaluation after the warm-up).
    pub fn of(self, curve: &[(usize, f64)]) -> Option<f64> {
        let after = curve.get(1..)?;
        let last = after.len().checked_sub(1)?;
        match self {
            Self::Final => Some(after[last].1),
            Self::LastThree => {
                let tail = &after[after.len().saturating_sub(3)..];
                Some(tail.iter().map(|p| p.1).sum::<f64>() / tail.len() as f64)
            }
            Self::Best => after.iter().map(|p| p.1).reduce(f64::max),
        }
    }

    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Final => "final",
            Self::LastThree => "mean of the last three evaluations",
            Self::Best => "best",
        }
    }
}

/// Seed-by-seed differences `a − b` with their mean, 95% t interval and two-sided p-value.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// Per seed (seed, difference), seeds both arms ran.
    pub diffs: Vec<(u64, f64)>,
    /// Mean and sd of the differences.
    pub spread: Spread,
    /// 95% interval of the mean difference (t with n − 1 degrees of freedom).
    pub ci95: (f64, f64),
    /// Two-sided p-value of the paired t test of a zero mean difference.
    pub p: f64,
}

impl Paired {
    /// The paired comparison of `a` and `b`, each (seed, value), over the seeds both have;
    /// `None` with fewer than two.
    pub fn of(a: &[(u64, f64)], b: &[(u64, f64)]) -> Option<Self> {
        let diffs: Vec<(u64, f64)> = a
            .iter()
            .filter_map(|&(s, x)| Some((s, x - b.iter().find(|p| p.0 == s)?.1)))
            .collect();
        if diffs.len() < 2 {
            return None;
        }
        let spread = Spread::of(&diffs.iter().map(|d| d.1).collect::<Vec<_>>());
        let df = (diffs.len() - 1) as f64;
        let se = spread.sd / (diffs.len() as f64).sqrt();
        let half = t_quantile_975(df) * se;
        let p = if se > 0.0 {
            2.0 * student_t_upper(spread.mean.abs() / se, df)
        } else if spread.mean == 0.0 {
            1.0
        } else {
            0.0
        };
        Some(Self {
            diffs,
            spread,
            ci95: (spread.mean - half, spread.mean + half),
            p,
        })
    }
}

impl Paired {
    /// The p-value of the two one-sided t tests (TOST) that the mean difference lies within
    /// ±`margin`: the larger of P(T ≥ (x̄ + margin)/se) and P(T ≤ (x̄ − margin)/se). Below 0.05,
    /// "the arms match to within the margin" is a tested statement, not an absence of evidence.
    pub fn equivalence_p(&self, margin: f64) -> f64 {
        let n = self.diffs.len() as f64;
        let se = self.spread.sd / n.sqrt();
        let mean = self.spread.mean;
        if se == 0.0 {
            return if mean.abs() < margin { 0.0 } else { 1.0 };
        }
        let df = n - 1.0;
        let above_lower = student_t_tail((mean + margin) / se, df);
        let below_upper = student_t_tail((margin - mean) / se, df);
        above_lower.max(below_upper)
    }
}

/// P(T ≥ t) for Student's t with `df` degrees of freedom, any t.
fn student_t_tail(t: f64, df: f64) -> f64 {
    if t >= 0.0 {
        student_t_upper(t, df)
    } else {
        1.0 - student_t_upper(-t, df)
    }
}

/// Holm's step-down adjustment of `p` (same order out): controls the family-wise error rate of
/// all the comparisons together without assuming they are independent.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; p.len()];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((p.len() - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// Two-sided 95% Student t quantiles for 1–30 degrees of freedom (then the normal's 1.96).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

fn t_quantile_975(df: f64) -> f64 {
    T975.get(df as usize - 1).copied().unwrap_or(1.96)
}

/// P(T > t) for Student's t with `df` degrees of freedom, t ≥ 0: half the regularised
/// incomplete beta I_x(df/2, 1/2) at x = df / (df + t²).
fn student_t_upper(t: f64, df: f64) -> f64 {
    0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
}

/// The regularised incomplete beta function I_x(a, b), by its continued fraction (Lentz's
/// method), using the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(x, a, b) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + num / c;
            if c.abs() < TINY {
                c = TINY;
            }
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: ~1e-15 relative).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its accurate range.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = G[1..]
        .iter()
        .enumerate()
        .fold(G[0], |s, (i, g)| s + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_the_sample_statistics() {
        let s = Spread::of(&[0.2, 0.4, 0.6]);
        assert!((s.mean - 0.4).abs() < 1e-12);
        assert!((s.sd - 0.2).abs() < 1e-12);
        assert_eq!((s.min, s.max), (0.2, 0.6));
        assert_eq!(Spread::of(&[0.7]).sd, 0.0);
    }

    #[test]
    fn t_tail_matches_published_tables() {
        // Critical values from standard t tables: P(T > t) = 0.025 and 0.005.
        for (t, df, want) in [
            (12.706, 1.0, 0.025),
            (2.262, 9.0, 0.025),
            (3.250, 9.0, 0.005),
            (2.042, 30.0, 0.025),
            (0.0, 5.0, 0.5),
        ] {
            let got = student_t_upper(t, df);
            assert!((got - want).abs() < 2e-5, "t={t} df={df}: {got}");
        }
        // Large df approaches the normal: P(Z > 1.96) = 0.025.
        assert!((student_t_upper(1.96, 1e6) - 0.025).abs() < 1e-4);
    }

    #[test]
    fn paired_differences_match_seeds_and_use_t_intervals() {
        let a = [(0, 0.40), (1, 0.45), (2, 0.50), (3, 0.2)];
        let b = [(2, 0.45), (1, 0.40), (0, 0.40)];
        let p = Paired::of(&a, &b).unwrap();
        // Seed 3 has no partner; differences 0, .05, .05: mean .0333, sd .02887, t(2) = 4.303.
        assert_eq!(p.diffs.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!((p.spread.mean - 0.1 / 3.0).abs() < 1e-12);
        let half = 4.303 * p.spread.sd / 3f64.sqrt();
        assert!((p.ci95.1 - p.spread.mean - half).abs() < 1e-12);
        // t = 2, df = 2: two-sided p = 1 − 2/√6... = 0.18350.
        assert!((p.p - 0.183_503).abs() < 1e-5, "{}", p.p);
        assert!(Paired::of(&a, &[(0, 0.1)]).is_none());
        let same = Paired::of(&[(0, 0.5), (1, 0.5)], &[(0, 0.5), (1, 0.5)]).unwrap();
        assert_eq!(same.p, 1.0);
    }

    #[test]
    fn equivalence_is_tested_by_two_one_sided_t_tests() {
        // Differences 0.004, -0.002, 0.001, 0.005: mean 0.002, sd 0.003162, se 0.001581, df 3.
        // t against -0.01: 7.590 (p 0.00237); against +0.01: 5.060 (p 0.00745): TOST p 0.00745.
        let a = [(0, 0.504), (1, 0.498), (2, 0.501), (3, 0.505)];
        let b = [(0, 0.5), (1, 0.5), (2, 0.5), (3, 0.5)];
        let q = Paired::of(&a, &b).unwrap();
        assert!(
            (q.equivalence_p(0.01) - 0.00745).abs() < 2e-4,
            "{}",
            q.equivalence_p(0.01)
        );
        // A margin narrower than the differences' own spread shows nothing.
        assert!(q.equivalence_p(0.001) > 0.5);
        assert!((student_t_tail(-1.0, 3.0) + student_t_tail(1.0, 3.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn holm_multiplies_by_rank_and_stays_monotone() {
        let adj = holm(&[0.04, 0.01, 0.03]);
        // Sorted 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → max(0.06, 0.04) = 0.06.
        for (got, want) in adj.iter().zip([0.06, 0.03, 0.06]) {
            assert!((got - want).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(holm(&[0.6, 0.7]), [1.0, 1.0]);
    }

    #[test]
    fn endpoints_read_the_curve_after_the_warm_up() {
        let c = [(0, 0.9), (10, 0.1), (20, 0.5), (30, 0.3), (40, 0.4)];
        assert_eq!(Endpoint::Final.of(&c), Some(0.4));
        assert!((Endpoint::LastThree.of(&c).unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(Endpoint::Best.of(&c), Some(0.5));
        assert_eq!(Endpoint::Final.of(&[(0, 0.9)]), None);
        assert!((Endpoint::LastThree.of(&c[..3]).unwrap() - 0.3).abs() < 1e-12);
    }
}
