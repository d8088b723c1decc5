//! Ratios by value, behind [`RatioPolicy::Value`](crate::math::RatioPolicy): `3:4` equals
//! `6:8` and, having two parts, `\frac{3}{4}`. Off by default: see the policy for why.

use super::{Comparer, Decision, decide};
use crate::math::Rule;
use crate::math::evaluate::approx;
use crate::math::expr::Expr;
use crate::math::parse::parse_answer;

/// Most parts a ratio may have (`a:b:c:…`).
const MAX_PARTS: usize = 8;

/// The parts of a ratio written as text (`3:4` → 3 and 4): every part a number that is not
/// zero (a zero part, as in the clock time `12:00`, keeps the text as written).
fn parts(text: &str) -> Option<Vec<Expr>> {
    if !text.contains(':') || text.matches(':').count() >= MAX_PARTS {
        return None;
    }
    let parts: Vec<Expr> = text
        .split(':')
        .map(|p| parse_answer(p).ok().filter(Expr::is_scalar))
        .collect::<Option<_>>()?;
    let non_zero = |e: &Expr| approx(e, &[]).is_some_and(|c| c.re != 0.0 || c.im != 0.0);
    (parts.len() >= 2 && parts.iter().all(non_zero)).then_some(parts)
}

impl Comparer {
    /// A ratio against another ratio (proportional parts, in order) or against a number (the
    /// quotient of a two-part ratio); `None` when `text` is no ratio or `other` is neither.
    pub(super) fn ratio_value(&mut self, text: &str, other: &Expr) -> Option<Decision> {
        let a = parts(text)?;
        let b = match other {
            Expr::Text(t) => parts(t)?,
            e if e.is_scalar() && a.len() == 2 => {
                let q = Expr::Div(Box::new(a[0].clone()), Box::new(a[1].clone()));
                return Some(self.scalar(&q, e));
            }
            _ => return None,
        };
        if a.len() != b.len() {
            return Some(decide(false, Rule::Text));
        }
        // a_i : a_0 = b_i : b_0 for every part, cross-multiplied.
        let mut last = decide(true, Rule::Exact);
        for i in 1..a.len() {
            let l = Expr::Mul(vec![a[i].clone(), b[0].clone()]);
            let r = Expr::Mul(vec![b[i].clone(), a[0].clone()]);
            last = self.scalar(&l, &r);
            if !last.equal {
                return Some(decide(
                    false,
                    if last.rule == Rule::Limit {
                        last.rule
                    } else {
                        Rule::Text
                    },
                ));
            }
        }
        Some(last)
    }
}
