//! Relations: equations and inequalities compared operator by operator (as proportional
//! differences of their sides), and relations in one unknown read as the set of values they
//! allow, so that `-2 \le x \le 7`, `x \in [-2, 7]` and `[-2, 7]` agree.

use super::{Comparer, Decision, decide};
use crate::math::Rule;
use crate::math::evaluate::approx;
use crate::math::expr::{Constant, Expr, Func, RelOp};

impl Comparer {
    pub(super) fn relations(&mut self, g: &Expr, p: &Expr) -> Decision {
        let (Expr::Rel { sides: gs, ops: go }, Expr::Rel { sides: ps, ops: po }) = (g, p) else {
            return decide(false, Rule::Structure);
        };
        let collapse = |sides: &[Expr], ops: &[RelOp]| -> (Vec<Expr>, Vec<RelOp>) {
            if ops.len() > 1 && ops.iter().all(|o| *o == RelOp::Eq) {
                let first = sides.first().cloned().unwrap_or(Expr::int(0));
                let last = sides.last().cloned().unwrap_or(Expr::int(0));
                (vec![first, last], vec![RelOp::Eq])
            } else {
                (sides.to_vec(), ops.to_vec())
            }
        };
        let (gs, go) = collapse(gs, go);
        let (ps, po) = collapse(ps, po);
        let rule = if go.iter().all(|o| matches!(o, RelOp::Eq | RelOp::Ne)) {
            Rule::Equation
        } else {
            Rule::Inequality
        };
        // Sides that are not scalars (`D = (0, 1)`, `S = \{1, 2\}`): `lhs - rhs` means nothing
        // for them, so they are compared side by side as the structures they are.
        if gs.iter().chain(&ps).any(|s| !s.is_scalar()) {
            if go != po {
                return decide(false, rule);
            }
            for (a, b) in gs.iter().zip(&ps) {
                let d = self.top(a, b);
                if !d.equal {
                    return d;
                }
            }
            return decide(true, rule);
        }
        let d = self.relation_chain(&gs, &go, ps, po, rule);
        if d.equal || d.rule == Rule::Limit {
            return d;
        }
        // `-3 < x < 3` and `|x| < 3` allow the same values of the same unknown.
        match (as_interval_set(g), as_interval_set(p)) {
            (Some(a), Some(b)) if g.symbols() == p.symbols() => self.top(&a, &b),
            _ => d,
        }
    }

    /// Two relations with scalar sides, operator by operator.
    fn relation_chain(
        &mut self,
        gs: &[Expr],
        go: &[RelOp],
        mut ps: Vec<Expr>,
        mut po: Vec<RelOp>,
        rule: Rule,
    ) -> Decision {
        if go.len() != po.len() {
            return decide(false, rule);
        }
        // `b > x > a` reads the same as `a < x < b`.
        let increasing = |ops: &[RelOp]| ops.iter().any(|o| matches!(o, RelOp::Lt | RelOp::Le));
        if go.len() > 1 && increasing(go) != increasing(&po) {
            ps.reverse();
            po = po.iter().rev().map(|o| o.flipped()).collect();
        }
        for i in 0..go.len() {
            let d = self.single_relation(
                (&gs[i], go[i], &gs[i + 1]),
                (&ps[i], po[i], &ps[i + 1]),
                rule,
            );
            if !d.equal {
                return d;
            }
        }
        decide(true, rule)
    }

    /// `a op b` against `c op' d`: the same operator (after flipping to `<`/`≤`) and
    /// `a - b` proportional to `c - d` (by a positive factor for inequalities).
    fn single_relation(
        &mut self,
        g: (&Expr, RelOp, &Expr),
        p: (&Expr, RelOp, &Expr),
        rule: Rule,
    ) -> Decision {
        let orient = |(a, op, b): (&Expr, RelOp, &Expr)| match op {
            RelOp::Gt | RelOp::Ge => (b.clone(), op.flipped(), a.clone()),
            _ => (a.clone(), op, b.clone()),
        };
        let (ga, gop, gb) = orient(g);
        let (pa, pop, pb) = orient(p);
        if gop != pop {
            return decide(false, rule);
        }
        let gd = Expr::Add(vec![ga, Expr::Neg(Box::new(gb))]);
        let pd = Expr::Add(vec![pa, Expr::Neg(Box::new(pb))]);
        let positive = matches!(gop, RelOp::Lt | RelOp::Le);
        let equal = self.proportional(&gd, &pd, positive);
        if self.work == 0 {
            return decide(false, Rule::Limit);
        }
        match equal {
            Some(equal) => decide(equal, rule),
            None => decide(false, Rule::Undecided),
        }
    }
}

/// The unknown a relation bounds: a variable, or a function of one (`f(x)`, read as its range).
fn is_unknown(e: &Expr) -> bool {
    match e {
        Expr::Sym(_) => true,
        // `f(x)` parses as the product `f·x`; only a function letter makes it an application.
        Expr::Mul(v) => {
            matches!(v.as_slice(), [Expr::Sym(f), Expr::Sym(_)]
                if matches!(f.as_str(), "f" | "g" | "h" | "F" | "G" | "H"))
        }
        _ => false,
    }
}

/// `|u|` of an unknown `u`.
fn abs_of_unknown(e: &Expr) -> bool {
    matches!(e, Expr::Func(Func::Abs, args) if args.len() == 1 && is_unknown(&args[0]))
}

/// The real value of a constant bound, when it has one.
fn real(e: &Expr) -> Option<f64> {
    approx(e, &[])
        .filter(|c| c.im == 0.0 && c.re.is_finite())
        .map(|c| c.re)
}

fn interval(lo: Expr, hi: Expr, lo_closed: bool, hi_closed: bool) -> Expr {
    Expr::Interval {
        lo: Box::new(lo),
        hi: Box::new(hi),
        lo_closed,
        hi_closed,
    }
}

fn neg(e: &Expr) -> Expr {
    Expr::Neg(Box::new(e.clone()))
}

fn inf() -> Expr {
    Expr::Const(Constant::Infinity)
}

/// `|u| op c` as a set of values of `u` (`|x| < 2` is `(-2, 2)`); `None` for a negative or
/// non-real `c`, where the reading would be wrong.
fn abs_bound(op: RelOp, c: &Expr) -> Option<Expr> {
    let v = real(c)?;
    if v < 0.0 {
        return None;
    }
    Some(match op {
        RelOp::Lt if v > 0.0 => interval(neg(c), c.clone(), false, false),
        RelOp::Le => interval(neg(c), c.clone(), true, true),
        RelOp::Gt => Expr::Union(vec![
            interval(neg(&inf()), neg(c), false, false),
            interval(c.clone(), inf(), false, false),
        ]),
        RelOp::Ge if v > 0.0 => Expr::Union(vec![
            interval(neg(&inf()), neg(c), false, true),
            interval(c.clone(), inf(), true, false),
        ]),
        RelOp::Eq => Expr::Set(vec![neg(c), c.clone()]),
        _ => return None,
    })
}

/// `a op₁ |u| op₂ b` (increasing) as the values of `u`: `[-b, -a] ∪ [a, b]`, one interval when
/// `a` is 0 and included.
fn abs_chain(a: &Expr, lo_closed: bool, b: &Expr, hi_closed: bool) -> Option<Expr> {
    let (va, vb) = (real(a)?, real(b)?);
    if va < 0.0 || vb <= va {
        return None;
    }
    if va == 0.0 && lo_closed {
        return Some(interval(neg(b), b.clone(), hi_closed, hi_closed));
    }
    Some(Expr::Union(vec![
        interval(neg(b), neg(a), hi_closed, lo_closed),
        interval(a.clone(), b.clone(), lo_closed, hi_closed),
    ]))
}

/// A relation in one unknown with constant bounds (`x > 3`, `1 < x \le 2`, `x \ne 0`,
/// `1 \le |z| \le 2`, `0 < f(x) < 1`), or a list of them, as the set of values it allows.
pub(super) fn as_interval_set(e: &Expr) -> Option<Expr> {
    let lt = |o: &RelOp| matches!(o, RelOp::Lt | RelOp::Le);
    let gt = |o: &RelOp| matches!(o, RelOp::Gt | RelOp::Ge);
    match e {
        Expr::List(items) => {
            let parts: Option<Vec<Expr>> = items.iter().map(as_interval_set).collect();
            Some(Expr::Union(parts?))
        }
        Expr::Rel { sides, ops } => {
            let bounded = |s: &Expr| is_unknown(s) || abs_of_unknown(s);
            let var_count = sides.iter().filter(|s| bounded(s)).count();
            let constants_ok = sides.iter().all(|s| bounded(s) || s.symbols().is_empty());
            if var_count != 1 || !constants_ok {
                return None;
            }
            match (sides.as_slice(), ops.as_slice()) {
                ([u, c], [op]) if abs_of_unknown(u) => abs_bound(*op, c),
                ([u, c], [op]) if is_unknown(u) => Some(match op {
                    RelOp::Lt | RelOp::Le => {
                        interval(neg(&inf()), c.clone(), false, *op == RelOp::Le)
                    }
                    RelOp::Gt | RelOp::Ge => interval(c.clone(), inf(), *op == RelOp::Ge, false),
                    RelOp::Eq => Expr::Set(vec![c.clone()]),
                    RelOp::Ne => Expr::Union(vec![
                        interval(neg(&inf()), c.clone(), false, false),
                        interval(c.clone(), inf(), false, false),
                    ]),
                }),
                ([c, u], [op]) => as_interval_set(&Expr::Rel {
                    sides: vec![u.clone(), c.clone()],
                    ops: vec![op.flipped()],
                }),
                ([a, u, b], [o1, o2]) if lt(o1) && lt(o2) => {
                    let (lo_closed, hi_closed) = (*o1 == RelOp::Le, *o2 == RelOp::Le);
                    if abs_of_unknown(u) {
                        abs_chain(a, lo_closed, b, hi_closed)
                    } else {
                        Some(interval(a.clone(), b.clone(), lo_closed, hi_closed))
                    }
                }
                ([a, u, b], [o1, o2]) if gt(o1) && gt(o2) => as_interval_set(&Expr::Rel {
                    sides: vec![b.clone(), u.clone(), a.clone()],
                    ops: vec![o2.flipped(), o1.flipped()],
                }),
                _ => None,
            }
        }
        _ => None,
    }
}
