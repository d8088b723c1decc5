//! Deciding whether two parsed answers mean the same thing, and by which rule.
//!
//! Scalars are compared exactly over the rationals when both sides are rational, numerically
//! (with tolerance) when a side is written as a decimal or is irrational, and symbolically by
//! evaluating both sides at deterministic pseudo-random points (exact rational points first,
//! complex floating point where exact evaluation is impossible). All work is metered by a
//! budget, so a hostile answer costs a bounded amount of time.

use std::borrow::Cow;

use super::expr::{Expr, RelOp};
use super::parse::normalise_text;
use super::{Options, PercentPolicy, RatioPolicy, Rule};

mod canonical;
mod label;
mod matrix;
mod precision;
mod ratio;
mod relation;
mod scalar;

use relation::as_interval_set;

/// Evaluation work one verification may spend: one unit per expression node evaluated, plus
/// big-number arithmetic by operand size (see [`super::evaluate::op_cost`]).
pub const WORK_BUDGET: u64 = 150_000;
/// Most element comparisons one verification may make (sets inside sets, …).
pub const MAX_COMPARISONS: u32 = 10_000;
/// Most `±` signs expanded in one expression (2^3 variants).
const MAX_PLUS_MINUS: usize = 3;
/// Relative tolerance for values that are meant to be exact but are computed in floating point.
const TIGHT_REL: f64 = 1e-11;
const TIGHT_ABS: f64 = 1e-14;

/// The outcome of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Whether the answers are equivalent.
    pub equal: bool,
    /// The rule that decided.
    pub rule: Rule,
}

const fn decide(equal: bool, rule: Rule) -> Decision {
    Decision { equal, rule }
}

/// Compares a gold answer with a predicted one.
pub fn equivalent(gold: &Expr, pred: &Expr, options: &Options) -> Decision {
    let rel_tol = if options.rel_tol.is_finite() {
        options.rel_tol.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let abs_tol = if options.abs_tol.is_finite() {
        options.abs_tol.clamp(0.0, 1e300)
    } else {
        0.0
    };
    let places_tol = if options.decimal_places == 0 {
        0.0
    } else {
        0.5 * 10f64.powi(-i32::try_from(options.decimal_places.min(300)).unwrap_or(300))
    };
    let mut cmp = Comparer {
        rel_tol,
        abs_tol,
        places_tol,
        percent: options.percent,
        ratios: options.ratios,
        points: options.symbolic_points.clamp(3, 32),
        work: WORK_BUDGET,
        comparisons: MAX_COMPARISONS,
    };
    cmp.top(gold, pred)
}

struct Comparer {
    rel_tol: f64,
    abs_tol: f64,
    places_tol: f64,
    percent: PercentPolicy,
    ratios: RatioPolicy,
    points: u32,
    work: u64,
    comparisons: u32,
}

fn is_equation(e: &Expr) -> bool {
    matches!(e, Expr::Rel { ops, .. } if ops.iter().all(|o| *o == RelOp::Eq))
}

/// `x = …`, `f(x) = …`, `xy = …`: an equation whose left side is only variables.
fn is_assignment(e: &Expr) -> bool {
    fn only_symbols(e: &Expr) -> bool {
        match e {
            Expr::Sym(_) => true,
            Expr::Mul(v) => v.iter().all(only_symbols),
            _ => false,
        }
    }
    match e {
        Expr::Rel { sides, .. } if is_equation(e) => sides.first().is_some_and(only_symbols),
        _ => false,
    }
}

fn last_side(e: &Expr) -> &Expr {
    match e {
        Expr::Rel { sides, .. } => sides.last().unwrap_or(e),
        _ => e,
    }
}

fn contains_plus_minus(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |n| found |= matches!(n, Expr::PlusMinus(..)));
    found
}

/// All sign choices of the `±` in a scalar expression.
fn sign_variants(e: &Expr) -> Vec<Expr> {
    fn go(e: &Expr) -> Vec<Expr> {
        match e {
            Expr::PlusMinus(a, b) => {
                let mut out = Vec::new();
                for x in go(a) {
                    for y in go(b) {
                        out.push(Expr::Add(vec![x.clone(), y.clone()]));
                        out.push(Expr::Add(vec![x.clone(), Expr::Neg(Box::new(y))]));
                    }
                }
                out
            }
            Expr::Neg(a) => go(a).into_iter().map(|x| Expr::Neg(Box::new(x))).collect(),
            Expr::Add(v) | Expr::Mul(v) => {
                let mut acc: Vec<Vec<Expr>> = vec![Vec::new()];
                for t in v {
                    let vs = go(t);
                    acc = acc
                        .into_iter()
                        .flat_map(|prefix| {
                            vs.iter().map(move |x| {
                                let mut p = prefix.clone();
                                p.push(x.clone());
                                p
                            })
                        })
                        .collect();
                }
                acc.into_iter()
                    .map(|v| match e {
                        Expr::Add(_) => Expr::Add(v),
                        _ => Expr::Mul(v),
                    })
                    .collect()
            }
            Expr::Div(a, b) | Expr::Pow(a, b) => {
                let mut out = Vec::new();
                for x in go(a) {
                    for y in go(b) {
                        out.push(match e {
                            Expr::Div(..) => Expr::Div(Box::new(x.clone()), Box::new(y)),
                            _ => Expr::Pow(Box::new(x.clone()), Box::new(y)),
                        });
                    }
                }
                out
            }
            Expr::Func(f, args) if args.len() == 1 => go(&args[0])
                .into_iter()
                .map(|x| Expr::Func(*f, vec![x]))
                .collect(),
            other => vec![other.clone()],
        }
    }
    let mut count = 0;
    e.walk(&mut |n| count += usize::from(matches!(n, Expr::PlusMinus(..))));
    if count == 0 || count > MAX_PLUS_MINUS {
        return vec![e.clone()];
    }
    go(e)
}

/// Turns `a ± b` into the set `{a + b, a - b}` (inside lists and equations too).
fn expand_plus_minus(e: &Expr) -> Cow<'_, Expr> {
    if !contains_plus_minus(e) {
        return Cow::Borrowed(e);
    }
    match e {
        Expr::List(items) | Expr::Set(items) => {
            let mut out = Vec::new();
            for it in items {
                match expand_plus_minus(it).into_owned() {
                    Expr::Set(vs) if it.is_scalar() => out.extend(vs),
                    x => out.push(x),
                }
            }
            Cow::Owned(match e {
                Expr::List(_) => Expr::List(out),
                _ => Expr::Set(out),
            })
        }
        // Only `x = a ± b` expands (± on the left, or too many, stays as written: expanding it
        // again and again would never end).
        Expr::Rel { sides, ops }
            if sides.len() == 2
                && !contains_plus_minus(&sides[0])
                && sign_variants(&sides[1]).len() > 1 =>
        {
            let vs = sign_variants(&sides[1]);
            Cow::Owned(Expr::List(
                vs.into_iter()
                    .map(|v| Expr::Rel {
                        sides: vec![sides[0].clone(), v],
                        ops: ops.clone(),
                    })
                    .collect(),
            ))
        }
        e if e.is_scalar() => {
            let vs = sign_variants(e);
            if vs.len() == 1 {
                Cow::Borrowed(e)
            } else {
                Cow::Owned(Expr::Set(vs))
            }
        }
        e => Cow::Borrowed(e),
    }
}

impl Comparer {
    fn spend(&mut self, units: u64) -> bool {
        if self.work < units {
            self.work = 0;
            false
        } else {
            self.work -= units;
            true
        }
    }

    fn top(&mut self, gold: &Expr, pred: &Expr) -> Decision {
        if self.comparisons == 0 {
            return decide(false, Rule::Limit);
        }
        self.comparisons -= 1;
        let gold = expand_plus_minus(gold);
        let pred = expand_plus_minus(pred);
        let (mut g, mut p) = (gold.as_ref(), pred.as_ref());
        // `x = 5` against `5`: compare the value (the reference decides what is an assignment).
        if let Some((a, b)) = label::indexed_values(g, p) {
            (g, p) = (a, b);
        } else if is_equation(p) && !is_equation(g) {
            p = last_side(p);
        } else if (is_assignment(g) || label::is_labelled_value(g)) && !is_equation(p) {
            g = last_side(g);
        }
        // `a = 1, b = 2` against `(1, 2)`: the assignments as the tuple they name.
        let (g_tuples, p_tuples) = (label::tuples_against(g, p), label::tuples_against(p, g));
        if let Some(t) = &g_tuples {
            g = t;
        }
        if let Some(t) = &p_tuples {
            p = t;
        }
        // `\frac{1}{2}\begin{pmatrix}…\end{pmatrix}`, `M + N`: the matrix they compute.
        let (g_matrix, p_matrix) = (matrix::computed(g), matrix::computed(p));
        for m in [&g_matrix, &p_matrix] {
            if let Some(Err(matrix::Incompatible)) = m {
                return decide(false, Rule::Undecided);
            }
        }
        if let Some(Ok(m)) = &g_matrix {
            g = m;
        }
        if let Some(Ok(m)) = &p_matrix {
            p = m;
        }
        use Expr::*;
        match (g, p) {
            (Text(a), Text(b)) if a == b => decide(true, Rule::Text),
            (Text(a), other) | (other, Text(a)) => {
                if self.ratios == RatioPolicy::Value
                    && let Some(d) = self.ratio_value(a, other)
                {
                    return d;
                }
                let other = match other {
                    Text(b) => b.clone(),
                    e => normalise_text(&e.to_string()),
                };
                decide(*a == other, Rule::Text)
            }
            (Rel { .. }, Rel { .. }) => self.relations(g, p),
            (Rel { .. } | List(_), Interval { .. } | Union(_))
            | (Interval { .. } | Union(_), Rel { .. } | List(_))
            | (Rel { .. }, Tuple(_))
            | (Tuple(_), Rel { .. })
                if as_interval_set(g).is_some() || as_interval_set(p).is_some() =>
            {
                match (as_interval_set(g), as_interval_set(p)) {
                    (Some(a), _) if matches!(g, Rel { .. } | List(_)) => self.top(&a, p),
                    (_, Some(b)) => self.top(g, &b),
                    _ => decide(false, Rule::Interval),
                }
            }
            (Matrix(a), Matrix(b)) => {
                if a.len() != b.len() || a.first().map(Vec::len) != b.first().map(Vec::len) {
                    return decide(false, Rule::Matrix);
                }
                let ga: Vec<&Expr> = a.iter().flatten().collect();
                let pb: Vec<&Expr> = b.iter().flatten().collect();
                self.ordered(&ga, &pb, Rule::Matrix)
            }
            (Matrix(m), Tuple(v) | List(v)) | (Tuple(v) | List(v), Matrix(m)) => {
                let flat: Vec<&Expr> = m.iter().flatten().collect();
                let is_vector = m.len() == 1 || m.iter().all(|r| r.len() == 1);
                if !is_vector || flat.len() != v.len() {
                    return decide(false, Rule::Matrix);
                }
                let other: Vec<&Expr> = v.iter().collect();
                if matches!(g, Matrix(_)) {
                    self.ordered(&flat, &other, Rule::Matrix)
                } else {
                    self.ordered(&other, &flat, Rule::Matrix)
                }
            }
            (
                Interval {
                    lo: a,
                    hi: b,
                    lo_closed: ac,
                    hi_closed: bc,
                },
                Interval {
                    lo: c,
                    hi: d,
                    lo_closed: cc,
                    hi_closed: dc,
                },
            ) => {
                if ac != cc || bc != dc {
                    return decide(false, Rule::Interval);
                }
                self.ordered(&[a, b], &[c, d], Rule::Interval)
            }
            (
                Interval {
                    lo,
                    hi,
                    lo_closed: false,
                    hi_closed: false,
                },
                Tuple(v),
            )
            | (
                Tuple(v),
                Interval {
                    lo,
                    hi,
                    lo_closed: false,
                    hi_closed: false,
                },
            ) if v.len() == 2 => {
                let ends = [lo.as_ref(), hi.as_ref()];
                let other: Vec<&Expr> = v.iter().collect();
                self.ordered(&ends, &other, Rule::Interval)
            }
            (Union(a), Union(b)) => self.unordered(a, b, Rule::Interval),
            (Union(a), Interval { .. }) => {
                self.unordered(a, std::slice::from_ref(p), Rule::Interval)
            }
            (Interval { .. }, Union(b)) => {
                self.unordered(std::slice::from_ref(g), b, Rule::Interval)
            }
            (Tuple(a), Tuple(b)) | (Tuple(a), List(b)) | (List(a), Tuple(b)) => {
                let ga: Vec<&Expr> = a.iter().collect();
                let pb: Vec<&Expr> = b.iter().collect();
                self.ordered(&ga, &pb, Rule::Tuple)
            }
            (Set(a) | List(a), Set(b) | List(b)) => self.unordered(a, b, Rule::Set),
            (Set(a) | List(a), single) | (single, Set(a) | List(a))
                if a.len() == 1 && single.is_scalar() =>
            {
                if matches!(g, Set(_) | List(_)) {
                    self.top(&a[0], single)
                } else {
                    self.top(single, &a[0])
                }
            }
            (a, b) if a.is_scalar() && b.is_scalar() => self.scalar(a, b),
            _ => decide(false, Rule::Structure),
        }
    }

    /// Element by element, in order.
    fn ordered(&mut self, a: &[&Expr], b: &[&Expr], rule: Rule) -> Decision {
        if a.len() != b.len() {
            return decide(false, rule);
        }
        for (x, y) in a.iter().zip(b) {
            let d = self.top(x, y);
            if !d.equal {
                return decide(false, if d.rule == Rule::Limit { d.rule } else { rule });
            }
        }
        decide(true, rule)
    }

    /// The elements of a set without repeats (`{1, 1, 2}` is `{1, 2}`).
    fn distinct<'e>(&mut self, items: &'e [Expr]) -> Result<Vec<&'e Expr>, Decision> {
        let mut out: Vec<&Expr> = Vec::with_capacity(items.len());
        for x in items {
            let mut seen = false;
            for y in &out {
                let d = self.top(y, x);
                if d.rule == Rule::Limit {
                    return Err(d);
                }
                if d.equal {
                    seen = true;
                    break;
                }
            }
            if !seen {
                out.push(x);
            }
        }
        Ok(out)
    }

    /// As sets: every distinct gold element matched by a distinct predicted one.
    fn unordered(&mut self, a: &[Expr], b: &[Expr], rule: Rule) -> Decision {
        let (a, b) = match (self.distinct(a), self.distinct(b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(d), _) | (_, Err(d)) => return d,
        };
        if a.len() != b.len() {
            return decide(false, rule);
        }
        let mut used = vec![false; b.len()];
        for x in a {
            let mut found = false;
            for (j, y) in b.iter().enumerate() {
                if used[j] {
                    continue;
                }
                let d = self.top(x, y);
                if d.rule == Rule::Limit {
                    return d;
                }
                if d.equal {
                    used[j] = true;
                    found = true;
                    break;
                }
            }
            if !found {
                return decide(false, rule);
            }
        }
        decide(true, rule)
    }
}
