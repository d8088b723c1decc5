//! Answers that cannot be evaluated (`\sum_{k=0}^{n-1} F_k F_{n-k-1}`, `\int_0^1 f(x)g(x)\,dx`,
//! `\gcd(a, b)`) compare by their form, up to the order of the terms of a sum, the factors of a
//! product and the arguments of gcd and lcm: the algebra that needs no evaluation and that
//! reorderings (`F_{n-k-1} F_k`, `\gcd(b, a)`) need.

use crate::math::expr::{Expr, Func};

/// Whether `e` holds what evaluation cannot reach: a sum, product or integral sign, or the gcd
/// or lcm of unknowns (defined on integers only, so random points say nothing about them).
pub(super) fn needs_form(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |n| {
        found |= match n {
            Expr::Func(f, _) if f.is_big_operator() => true,
            Expr::Func(Func::Gcd | Func::Lcm, args) => args.iter().any(|a| !a.symbols().is_empty()),
            _ => false,
        }
    });
    found
}

/// `e` with the terms of every sum and the factors of every product (flattened) in one order.
fn canonical(e: &Expr) -> Expr {
    let sorted = |v: &[Expr], flat: fn(&Expr) -> Option<&Vec<Expr>>| {
        let mut items = Vec::with_capacity(v.len());
        for x in v {
            let c = canonical(x);
            match flat(&c) {
                Some(inner) => items.extend(inner.iter().cloned()),
                None => items.push(c),
            }
        }
        let mut keyed: Vec<(String, Expr)> =
            items.into_iter().map(|x| (x.to_string(), x)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed.into_iter().map(|(_, x)| x).collect()
    };
    let boxed = |a: &Expr| Box::new(canonical(a));
    match e {
        Expr::Add(v) => Expr::Add(sorted(v, |x| match x {
            Expr::Add(v) => Some(v),
            _ => None,
        })),
        Expr::Mul(v) => Expr::Mul(sorted(v, |x| match x {
            Expr::Mul(v) => Some(v),
            _ => None,
        })),
        Expr::Neg(a) => Expr::Neg(boxed(a)),
        Expr::Div(a, b) => Expr::Div(boxed(a), boxed(b)),
        Expr::Pow(a, b) => Expr::Pow(boxed(a), boxed(b)),
        // gcd and lcm are symmetric in their arguments (one tuple of them).
        Expr::Func(f @ (Func::Gcd | Func::Lcm), args) => Expr::Func(
            *f,
            args.iter()
                .map(|a| match a {
                    Expr::Tuple(v) => Expr::Tuple(sorted(v, |_| None)),
                    a => canonical(a),
                })
                .collect(),
        ),
        Expr::Func(f, args) => Expr::Func(*f, args.iter().map(canonical).collect()),
        Expr::Rel { sides, ops } => Expr::Rel {
            sides: sides.iter().map(canonical).collect(),
            ops: ops.clone(),
        },
        other => other.clone(),
    }
}

/// Whether two expressions are the same up to the order of terms and factors.
pub(super) fn same_form(a: &Expr, b: &Expr) -> bool {
    canonical(a).to_string() == canonical(b).to_string()
}
