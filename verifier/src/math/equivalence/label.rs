//! Labelled answers: `(p, q) = (3, 2)`, `\frac{NO}{BO} = \frac{1}{\sqrt6}`, `|AB| = 1`,
//! `m + n = 7` name the quantity and give its value; `p = 5, q = 2; p = 7, q = 2` lists
//! solutions as assignments. Both compare by their values.

use crate::math::expr::{Expr, Func, RelOp};

/// An expression that only names a quantity: variables combined without numbers (`AB`,
/// `\frac{NO}{BO}`, `|AB|`, `m + n`, `(p, q)`), or a function at a number (`f(2)`).
fn is_label(e: &Expr) -> bool {
    match e {
        Expr::Sym(_) => true,
        Expr::Tuple(v) => !v.is_empty() && v.iter().all(|x| matches!(x, Expr::Sym(_))),
        Expr::Mul(v) => match v.as_slice() {
            [Expr::Sym(_), Expr::Num { decimal: false, .. }] => true,
            [Expr::Sym(_), rest @ ..] => rest.iter().all(is_label),
            _ => false,
        },
        Expr::Add(v) => v.iter().all(|x| matches!(x, Expr::Sym(_))),
        Expr::Div(a, b) => is_label(a) && is_label(b),
        Expr::Func(Func::Abs, args) => args.len() == 1 && is_label(&args[0]),
        _ => false,
    }
}

/// `label = value` where the value has no variables: the reference's answer is the value.
pub(super) fn is_labelled_value(e: &Expr) -> bool {
    match e {
        Expr::Rel { sides, ops } if ops.as_slice() == [RelOp::Eq] => {
            is_label(&sides[0]) && sides[1].symbols().is_empty()
        }
        _ => false,
    }
}

/// `name = value` with a plain variable name: (name, value).
fn assignment(e: &Expr) -> Option<(&str, &Expr)> {
    match e {
        Expr::Rel { sides, ops } if ops.as_slice() == [RelOp::Eq] => match &sides[0] {
            Expr::Sym(name) if sides[1].symbols().is_empty() => Some((name, &sides[1])),
            _ => None,
        },
        _ => None,
    }
}

/// A list of assignments as the tuples it lists: `a = 1, b = 2` is `(1, 2)`, and
/// `p = 5, q = 2, p = 7, q = 2` is `(5, 2), (7, 2)` (a group ends where a name repeats; every
/// group must name the same unknowns in the same order).
fn as_tuples(items: &[Expr]) -> Option<Expr> {
    let pairs: Vec<(&str, &Expr)> = items.iter().map(assignment).collect::<Option<_>>()?;
    let first = pairs.first()?.0;
    let width = pairs[1..]
        .iter()
        .position(|(n, _)| *n == first)
        .map_or(pairs.len(), |k| k + 1);
    if !pairs.len().is_multiple_of(width) {
        return None;
    }
    let names: Vec<&str> = pairs[..width].iter().map(|(n, _)| *n).collect();
    let mut tuples = Vec::new();
    for group in pairs.chunks(width) {
        if group.iter().map(|(n, _)| *n).ne(names.iter().copied()) {
            return None;
        }
        tuples.push(Expr::Tuple(
            group.iter().map(|(_, v)| (*v).clone()).collect(),
        ));
    }
    Some(if tuples.len() == 1 {
        tuples.pop()?
    } else {
        Expr::List(tuples)
    })
}

/// `side` rewritten as tuples when it lists assignments and `other` is a tuple or a list of
/// tuples (the form the assignments stand for).
pub(super) fn tuples_against(side: &Expr, other: &Expr) -> Option<Expr> {
    let Expr::List(items) = side else {
        return None;
    };
    let tuple_like = match other {
        Expr::Tuple(_) => true,
        Expr::List(v) | Expr::Set(v) => {
            !v.is_empty() && v.iter().all(|x| matches!(x, Expr::Tuple(_)))
        }
        _ => false,
    };
    if tuple_like { as_tuples(items) } else { None }
}

/// `x` of `x_1`, `x_{2}` (an indexed unknown); the name itself otherwise.
fn unindexed(name: &str) -> &str {
    match name.split_once('_') {
        Some((base, index))
            if !index.is_empty()
                && index
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '{' || c == '}') =>
        {
            base
        }
        _ => name,
    }
}

/// `x_1 = -1` against `x = -1` (one root of a list named with and without its index): the two
/// values, when both sides assign a constant to the same unknown, one of them
/// without its index.
pub(super) fn indexed_values<'a>(g: &'a Expr, p: &'a Expr) -> Option<(&'a Expr, &'a Expr)> {
    let ((a, va), (b, vb)) = (assignment(g)?, assignment(p)?);
    // `x_1` against `x_2` names two different roots: only a bare `x` stands for any of them.
    let one_bare = (unindexed(a) == a) != (unindexed(b) == b);
    (one_bare && unindexed(a) == unindexed(b)).then_some((va, vb))
}
