//! Comparing at the precision the response shows: `0.3333` is `1/3` rounded to four places, so
//! it matches a reference `1/3`; `0.3334` and `0.33` do not. Math-Verify rounds both sides to a
//! fixed six places (so it rejects `0.3333`); here the precision is the one the response
//! writes, and only for decimals that show at least [`MIN_DIGITS`] significant digits (fewer is
//! too coarse to tell an answer from a near miss, so `0.33` and `3.14` stay incorrect against
//! `1/3` and `π`). A decimal *reference* keeps the usual tolerance: an exact response must
//! match it to six places (`π` against `3.14159` is incorrect).

use crate::math::expr::Expr;

/// Fewest significant digits a decimal must show to be compared at its own precision.
pub const MIN_DIGITS: u16 = 4;

/// Decimal places shown by a plain decimal answer (`0.3333`, `-2.6667`, `33.33\%`,
/// `3.333 \times 10^{-1}`), when it shows at least [`MIN_DIGITS`] significant digits.
fn shown_places(e: &Expr) -> Option<i32> {
    match e {
        Expr::Num {
            decimal: true,
            digits,
            places,
            ..
        } if *digits >= MIN_DIGITS => Some(i32::from(*places)),
        Expr::Neg(a) => shown_places(a),
        Expr::Percent(a) => shown_places(a).map(|p| p + 2),
        Expr::Mul(v) => match v.as_slice() {
            [m, Expr::Pow(base, exp)] if **base == Expr::int(10) => {
                let k = match exp.as_ref() {
                    Expr::Num {
                        value,
                        decimal: false,
                        ..
                    } if value.is_integer() => value.to_integer().try_into().ok()?,
                    Expr::Neg(inner) => match inner.as_ref() {
                        Expr::Num {
                            value,
                            decimal: false,
                            ..
                        } if value.is_integer() => -i32::try_from(value.to_integer()).ok()?,
                        _ => return None,
                    },
                    _ => return None,
                };
                Some(shown_places(m)?.checked_sub(k)?)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether values `diff` apart agree at the precision the response shows: the response a
/// decimal with enough digits after the point, the reference a non-integer written without
/// decimals (a fraction, or a constant such as `π`), and the reference rounds to the response
/// (within half a unit in its last place).
pub fn at_shown_precision(gold: &Expr, pred: &Expr, gold_is_integer: bool, diff: f64) -> bool {
    // An integer reference is an exact count: `1.235e8` is not 123456789, nor `99.99` 100.
    if gold.has_decimal() || gold_is_integer {
        return false;
    }
    // Only digits after the point are a shown precision (`1.2e3` rounds to hundreds).
    let Some(places) = shown_places(pred).filter(|p| *p >= 1) else {
        return false;
    };
    let half_unit = 0.5 * 10f64.powi(-places.clamp(-300, 300));
    diff.is_finite() && diff <= half_unit * (1.0 + 1e-9)
}
