//! Scalars: exact rational comparison, numeric comparison with tolerance, symbolic comparison
//! by evaluating both sides at deterministic pseudo-random points, and proportionality of two
//! expressions (for relations). Every evaluation is charged to the comparer's work budget.

use std::borrow::Cow;
use std::ops::{Div, Sub};

use num_traits::{Signed, Zero};
use splitmix::SplitMix64;

use super::{Comparer, Decision, TIGHT_ABS, TIGHT_REL, canonical, decide, precision};
use crate::math::evaluate::{approx, exact, op_cost};
use crate::math::expr::{Constant, Expr};
use crate::math::number::{self, Complex, Rational};
use crate::math::{PercentPolicy, Rule};

/// `50%` read as a number: the variants allowed by the percent policy.
fn percent_variants(e: &Expr, policy: PercentPolicy) -> Vec<Cow<'_, Expr>> {
    fn strip(e: &Expr) -> Option<Expr> {
        match e {
            Expr::Percent(a) => Some((**a).clone()),
            Expr::Neg(a) => strip(a).map(|x| Expr::Neg(Box::new(x))),
            _ => None,
        }
    }
    match (strip(e), policy) {
        (None, _) | (Some(_), PercentPolicy::Fraction) => vec![Cow::Borrowed(e)],
        (Some(n), PercentPolicy::Number) => vec![Cow::Owned(n)],
        (Some(n), PercentPolicy::Both) => vec![Cow::Borrowed(e), Cow::Owned(n)],
    }
}

fn has_infinity(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |n| found |= matches!(n, Expr::Const(Constant::Infinity)));
    found
}

fn node_count(e: &Expr) -> u64 {
    let mut n = 0u64;
    e.walk(&mut |_| n += 1);
    n
}

/// The values of both sides at one point: exact when possible.
enum PointValue {
    Exact(Rational, Rational),
    Approx(Complex, Complex),
    Undefined,
}

fn is_infinite(c: Complex) -> bool {
    c.re.is_infinite() && c.im == 0.0
}

impl Comparer {
    /// Values of both sides at the `k`-th deterministic point.
    fn point_value(&mut self, g: &Expr, p: &Expr, symbols: &[String], k: u32) -> PointValue {
        let cost = node_count(g) + node_count(p);
        if !self.spend(cost) {
            return PointValue::Undefined;
        }
        let mut rng = SplitMix64(0x5EED_0000_0000_0000 ^ u64::from(k));
        let exact_vals: Vec<(String, Rational)> = symbols
            .iter()
            .map(|s| {
                let mut n = rng.range(-997, 997);
                if n == 0 {
                    n = 1;
                }
                let d = rng.range(1, 97);
                (s.clone(), Rational::new(n.into(), d.into()))
            })
            .collect();
        let exact_pair = (
            exact(g, &exact_vals, &mut self.work),
            exact(p, &exact_vals, &mut self.work),
        );
        if self.work == 0 {
            return PointValue::Undefined;
        }
        if let (Some(a), Some(b)) = exact_pair {
            // The caller compares, subtracts or divides the two values once.
            return if self.spend(op_cost(&a, &b)) {
                PointValue::Exact(a, b)
            } else {
                PointValue::Undefined
            };
        }
        // Not rational here (√, π, sin, …): sample reals of both signs away from zero, so
        // that identities true only for positive values (√(x²) = x, ln x² = 2 ln x) fail as
        // they do for sympy's real symbols.
        // The signs run through every pattern of the first three variables in the first
        // eight points, so sign-dependent identities are caught deterministically.
        let approx_vals: Vec<(String, Complex)> = symbols
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let u = rng.unit();
                let negative = (k >> (j % 3)) & 1 == 1;
                let sign = if negative { -1.0 } else { 1.0 };
                (s.clone(), Complex::real(sign * (0.25 + 2.5 * u)))
            })
            .collect();
        match (approx(g, &approx_vals), approx(p, &approx_vals)) {
            // An infinity that does not come from `\infty` is an overflow, not a value.
            (Some(a), Some(b))
                if (a.is_finite() || has_infinity(g)) && (b.is_finite() || has_infinity(p)) =>
            {
                PointValue::Approx(a, b)
            }
            _ => PointValue::Undefined,
        }
    }

    fn close_exact(&self, a: &Rational, b: &Rational, decimal: bool) -> bool {
        if a == b {
            return true;
        }
        if !decimal {
            return false;
        }
        let diff = number::to_f64(&(a - b)).abs();
        let scale = number::to_f64(a).abs().max(number::to_f64(b).abs());
        self.within_decimal_tolerance(diff, scale)
    }

    /// The tolerance for answers written with decimals: relative, or to the decimal places.
    fn within_decimal_tolerance(&self, diff: f64, scale: f64) -> bool {
        diff <= self.abs_tol + self.rel_tol * scale
            || (scale >= 1e-3 && diff <= self.places_tol * (1.0 + 1e-9))
    }

    fn close_approx(&self, a: Complex, b: Complex, decimal: bool) -> bool {
        if is_infinite(a) || is_infinite(b) {
            return is_infinite(a) && is_infinite(b) && a.re.signum() == b.re.signum();
        }
        if !a.is_finite() || !b.is_finite() {
            return false;
        }
        if decimal {
            return self.within_decimal_tolerance(a.sub(b).abs(), a.abs().max(b.abs()));
        }
        number::close(a, b, TIGHT_REL, TIGHT_ABS)
    }

    /// Whether `g = c · p` for one constant `c` (positive when `positive`) at every point;
    /// `None` when no point evaluates on both sides.
    pub(super) fn proportional(&mut self, g: &Expr, p: &Expr, positive: bool) -> Option<bool> {
        let mut symbols = g.symbols();
        symbols.extend(p.symbols());
        symbols.sort();
        symbols.dedup();
        let decimal = g.has_decimal() || p.has_decimal();
        let mut ratio: Option<PointValue> = None;
        let mut valid = 0;
        // Points where both sides were zero: `x - x` against `y - y` is proportional, but a
        // pair that is undefined everywhere proves nothing.
        let mut zeros = 0;
        let attempts = if symbols.is_empty() {
            1
        } else {
            self.points * 3
        };
        for k in 0..attempts {
            if valid >= self.points {
                break;
            }
            match self.point_value(g, p, &symbols, k) {
                PointValue::Exact(a, b) => {
                    if a.is_zero() && b.is_zero() {
                        zeros += 1;
                        continue;
                    }
                    if a.is_zero() || b.is_zero() {
                        return Some(false);
                    }
                    let r = a / b;
                    if positive && r.is_negative() {
                        return Some(false);
                    }
                    match &ratio {
                        None => ratio = Some(PointValue::Exact(r.clone(), r)),
                        Some(PointValue::Exact(r0, _)) => {
                            if !self.close_exact(r0, &r, decimal) {
                                return Some(false);
                            }
                        }
                        Some(PointValue::Approx(r0, _)) => {
                            if !self.close_approx(*r0, Complex::real(number::to_f64(&r)), decimal) {
                                return Some(false);
                            }
                        }
                        Some(PointValue::Undefined) => {}
                    }
                    valid += 1;
                }
                PointValue::Approx(a, b) => {
                    let (za, zb) = (a.abs() <= TIGHT_ABS, b.abs() <= TIGHT_ABS);
                    if za && zb {
                        zeros += 1;
                        continue;
                    }
                    if za || zb || !a.is_finite() || !b.is_finite() {
                        return Some(false);
                    }
                    let r = a.div(b);
                    if positive && (r.re <= 0.0 || r.im.abs() > TIGHT_REL * r.re.abs()) {
                        return Some(false);
                    }
                    match &ratio {
                        None => ratio = Some(PointValue::Approx(r, r)),
                        Some(PointValue::Exact(r0, _)) => {
                            if !self.close_approx(Complex::real(number::to_f64(r0)), r, decimal) {
                                return Some(false);
                            }
                        }
                        Some(PointValue::Approx(r0, _)) => {
                            if !self.close_approx(*r0, r, decimal) {
                                return Some(false);
                            }
                        }
                        Some(PointValue::Undefined) => {}
                    }
                    valid += 1;
                }
                PointValue::Undefined => {
                    if self.work == 0 {
                        return Some(false);
                    }
                }
            }
        }
        // Both sides identically zero (`x = x`) is proportional too; no point where both are
        // defined decides nothing.
        if ratio.is_some() || zeros > 0 {
            Some(ratio.is_some() || valid == 0 && self.work > 0)
        } else {
            None
        }
    }

    /// Identical expressions are equal even where they cannot be evaluated; otherwise an
    /// answer that cannot be evaluated enough is undecided (and so incorrect).
    fn unevaluated(g: &Expr, p: &Expr) -> Decision {
        if g.to_string() == p.to_string() {
            decide(true, Rule::String)
        } else {
            decide(false, Rule::Undecided)
        }
    }

    pub(super) fn scalar(&mut self, g: &Expr, p: &Expr) -> Decision {
        let mut last = decide(false, Rule::Exact);
        for a in percent_variants(g, self.percent) {
            for b in percent_variants(p, self.percent) {
                let d = self.scalar_once(&a, &b);
                if d.equal || d.rule == Rule::Limit {
                    return d;
                }
                last = d;
            }
        }
        last
    }

    fn scalar_once(&mut self, g: &Expr, p: &Expr) -> Decision {
        if g == p {
            return decide(true, Rule::Exact);
        }
        // Sums, products, integrals and gcds of unknowns are not evaluated: their form decides.
        if canonical::needs_form(g) || canonical::needs_form(p) {
            let same = canonical::same_form(g, p);
            return decide(same, if same { Rule::Exact } else { Rule::Undecided });
        }
        let mut symbols = g.symbols();
        symbols.extend(p.symbols());
        symbols.sort();
        symbols.dedup();
        let decimal = g.has_decimal() || p.has_decimal();
        let rule = if !symbols.is_empty() {
            Rule::Symbolic
        } else if decimal {
            Rule::Numeric
        } else {
            Rule::Exact
        };
        if symbols.is_empty() {
            return match self.point_value(g, p, &symbols, 0) {
                PointValue::Exact(a, b) => {
                    let diff = number::to_f64(&(&a - &b)).abs();
                    let close = self.close_exact(&a, &b, decimal)
                        || precision::at_shown_precision(g, p, a.is_integer(), diff);
                    decide(close, rule)
                }
                PointValue::Approx(a, b) => {
                    let shown = a.im == 0.0
                        && b.im == 0.0
                        && precision::at_shown_precision(g, p, false, (a.re - b.re).abs());
                    decide(self.close_approx(a, b, decimal) || shown, Rule::Numeric)
                }
                PointValue::Undefined if self.work == 0 => decide(false, Rule::Limit),
                PointValue::Undefined => Self::unevaluated(g, p),
            };
        }
        let mut valid = 0;
        for k in 0..self.points * 3 {
            if valid >= self.points {
                break;
            }
            let ok = match self.point_value(g, p, &symbols, k) {
                PointValue::Exact(a, b) => self.close_exact(&a, &b, decimal),
                PointValue::Approx(a, b) => self.close_approx(a, b, decimal),
                PointValue::Undefined if self.work == 0 => return decide(false, Rule::Limit),
                PointValue::Undefined => continue,
            };
            if !ok {
                return decide(false, rule);
            }
            valid += 1;
        }
        if valid >= 3 {
            decide(true, rule)
        } else {
            // Too few points where both sides are defined to judge by evaluation.
            Self::unevaluated(g, p)
        }
    }
}
