//! Evaluation of scalar expressions: exactly over the rationals when possible, otherwise in
//! complex floating point. Variables take values from an assignment slice.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use std::ops::{Add, Div, Mul, Neg, Sub};

use super::expr::{Constant, Expr, Func};
use super::number::{self, Complex, Rational};

/// Values for variables, by name.
pub type Assignment<'a, T> = &'a [(String, T)];

fn lookup<'a, T>(vals: Assignment<'a, T>, name: &str) -> Option<&'a T> {
    vals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// The exact rational value of `e`, or `None` when it is irrational, undefined, not a scalar,
/// too large to keep exact, or when `work` runs out. Big-number operations are charged to
/// `work` by operand size, so that a bounded budget is a bounded time however large the numbers.
pub fn exact(e: &Expr, vals: Assignment<'_, Rational>, work: &mut u64) -> Option<Rational> {
    match e {
        Expr::Num { value, .. } => Some(value.clone()),
        Expr::Sym(s) => lookup(vals, s).cloned(),
        Expr::Add(v) => {
            let mut acc = Rational::zero();
            for t in v {
                let t = exact(t, vals, work)?;
                charge(work, op_cost(&acc, &t))?;
                acc = number::add(&acc, &t)?;
            }
            Some(acc)
        }
        Expr::Mul(v) => {
            let mut acc = Rational::from_integer(1.into());
            for t in v {
                let t = exact(t, vals, work)?;
                charge(work, op_cost(&acc, &t))?;
                acc = number::mul(&acc, &t)?;
            }
            Some(acc)
        }
        Expr::Neg(a) => Some(-exact(a, vals, work)?),
        Expr::Div(a, b) => {
            let (a, b) = (exact(a, vals, work)?, exact(b, vals, work)?);
            charge(work, op_cost(&a, &b))?;
            number::div(&a, &b)
        }
        Expr::Pow(a, b) => {
            let e = exact(b, vals, work)?;
            // `π^0 = 1` even though π itself is not rational (as sympy evaluates `x**0`).
            if e.is_zero() && approx(a, &[]).is_some_and(|v| v.abs() > 0.0) {
                return Some(Rational::from_integer(1.into()));
            }
            let r = number::pow(&exact(a, vals, work)?, &e)?;
            // Squarings up to the result's size cost about as much as multiplying it by itself.
            charge(work, op_cost(&r, &r))?;
            Some(r)
        }
        Expr::Percent(a) => {
            number::div(&exact(a, vals, work)?, &Rational::from_integer(100.into()))
        }
        Expr::Func(f, args) => exact_func(*f, args, vals, work),
        _ => None,
    }
}

/// Takes `units` from `work`; `None` (and `work` emptied) when there is not enough left.
fn charge(work: &mut u64, units: u64) -> Option<()> {
    if *work < units {
        *work = 0;
        None
    } else {
        *work -= units;
        Some(())
    }
}

/// Work units of one arithmetic operation on `a` and `b` beyond the node itself (which the
/// caller charges): gcd normalisation is quadratic in the operands' 64-bit limbs, so two
/// 2,048-bit fractions cost about 1,000 units and word-sized values nothing.
pub fn op_cost(a: &Rational, b: &Rational) -> u64 {
    let bits = a.numer().bits() + a.denom().bits() + b.numer().bits() + b.denom().bits();
    let limbs = bits / 64;
    limbs * limbs / 16
}

fn exact_func(
    f: Func,
    args: &[Expr],
    vals: Assignment<'_, Rational>,
    work: &mut u64,
) -> Option<Rational> {
    let mut arg = |i: usize| args.get(i).and_then(|a| exact(a, vals, work));
    let r = match f {
        Func::Sqrt => number::nth_root(&arg(0)?, 2),
        Func::Root => {
            let n = arg(0)?;
            let n = if n.is_integer() {
                n.to_integer().to_u32()?
            } else {
                return None;
            };
            if n > 64 {
                return None;
            }
            number::nth_root(&arg(1)?, n)
        }
        Func::Abs => Some(arg(0)?.abs()),
        Func::Factorial => number::factorial(&arg(0)?),
        Func::Binom => {
            let (n, k) = (arg(0)?, arg(1)?);
            number::binomial(&n, &k)
        }
        Func::Floor => Some(Rational::from_integer(arg(0)?.floor().to_integer())),
        Func::Ceil => Some(Rational::from_integer(arg(0)?.ceil().to_integer())),
        Func::Ln => (arg(0)? == Rational::from_integer(1.into())).then(Rational::zero),
        Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh => {
            arg(0)?.is_zero().then(Rational::zero)
        }
        Func::Cos | Func::Cosh | Func::Exp | Func::Sec => {
            arg(0)?.is_zero().then(|| Rational::from_integer(1.into()))
        }
        Func::Gcd | Func::Lcm => return gcd_lcm(f == Func::Gcd, args, vals, work),
        _ => None,
    }?;
    // Roots, factorials and binomials cost about a multiplication at the result's size.
    charge(work, op_cost(&r, &r))?;
    Some(r)
}

/// `gcd(a, b, …)` or `lcm(a, b, …)` of integers (written `\gcd(12, 18)`: one tuple argument).
/// Euclid's steps are charged like divisions, so the work stays bounded by the budget.
fn gcd_lcm(
    gcd: bool,
    args: &[Expr],
    vals: Assignment<'_, Rational>,
    work: &mut u64,
) -> Option<Rational> {
    let items = match args {
        [Expr::Tuple(v)] => v.as_slice(),
        other => other,
    };
    let mut acc: Option<BigInt> = None;
    for e in items {
        let v = exact(e, vals, work)?;
        if !v.is_integer() {
            return None;
        }
        let n = v.to_integer().abs();
        acc = Some(match acc {
            None => n,
            Some(a) => {
                let (mut x, mut y) = (a.clone(), n.clone());
                while !y.is_zero() {
                    charge(work, 1 + (x.bits() / 64).pow(2) / 16)?;
                    let r = &x % &y;
                    x = y;
                    y = r;
                }
                if gcd {
                    x
                } else if x.is_zero() {
                    BigInt::zero()
                } else {
                    let l = a / &x * n;
                    (l.bits() <= number::MAX_EXACT_BITS).then_some(l)?
                }
            }
        });
    }
    if items.len() < 2 {
        return None;
    }
    acc.map(Rational::from_integer)
}

/// The value of `e` in complex double precision; `None` when undefined or not a scalar.
pub fn approx(e: &Expr, vals: Assignment<'_, Complex>) -> Option<Complex> {
    let v = match e {
        Expr::Num { value, .. } => Complex::real(number::to_f64(value)),
        Expr::Sym(s) => *lookup(vals, s)?,
        Expr::Const(c) => match c {
            Constant::Pi => Complex::real(std::f64::consts::PI),
            Constant::E => Complex::real(std::f64::consts::E),
            Constant::I => Complex::I,
            Constant::Infinity => Complex::real(f64::INFINITY),
        },
        Expr::Add(v) => {
            let mut acc = Complex::real(0.0);
            for t in v {
                acc = acc.add(approx(t, vals)?);
            }
            acc
        }
        Expr::Mul(v) => {
            let mut acc = Complex::real(1.0);
            for t in v {
                acc = acc.mul(approx(t, vals)?);
            }
            acc
        }
        Expr::Neg(a) => approx(a, vals)?.neg(),
        Expr::Div(a, b) => {
            let d = approx(b, vals)?;
            if d.abs() == 0.0 {
                return None;
            }
            approx(a, vals)?.div(d)
        }
        Expr::Pow(a, b) => approx(a, vals)?.pow(approx(b, vals)?),
        Expr::Percent(a) => approx(a, vals)?.div(Complex::real(100.0)),
        Expr::Func(f, args) => approx_func(*f, args, vals)?,
        _ => return None,
    };
    // Infinite values are legitimate only as interval ends; arithmetic on them is undefined.
    (!v.re.is_nan() && !v.im.is_nan()).then_some(v)
}

fn real_only(z: Complex, f: fn(f64) -> f64) -> Option<Complex> {
    (z.im == 0.0).then(|| Complex::real(f(z.re)))
}

fn approx_func(f: Func, args: &[Expr], vals: Assignment<'_, Complex>) -> Option<Complex> {
    let x = approx(args.first()?, vals)?;
    let one = Complex::real(1.0);
    Some(match f {
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.sin().div(x.cos()),
        Func::Sec => one.div(x.cos()),
        Func::Csc => one.div(x.sin()),
        Func::Cot => x.cos().div(x.sin()),
        Func::Asin => real_only(x, f64::asin)?,
        Func::Acos => real_only(x, f64::acos)?,
        Func::Atan => real_only(x, f64::atan)?,
        Func::Sinh => real_only(x, f64::sinh)?,
        Func::Cosh => real_only(x, f64::cosh)?,
        Func::Tanh => real_only(x, f64::tanh)?,
        Func::Ln => {
            if x.abs() == 0.0 {
                return None;
            }
            x.ln()
        }
        Func::Log => {
            let y = approx(args.get(1)?, vals)?;
            if x.abs() == 0.0 || y.abs() == 0.0 {
                return None;
            }
            y.ln().div(x.ln())
        }
        Func::Exp => x.exp(),
        Func::Sqrt => x.sqrt(),
        Func::Root => {
            // The principal root, as sympy's `root` (the exact path gives ∛-8 = -2).
            approx(args.get(1)?, vals)?.pow(one.div(x))
        }
        Func::Abs => Complex::real(x.abs()),
        Func::Factorial => {
            if x.im != 0.0 || x.re < 0.0 || x.re.fract() != 0.0 || x.re > 170.0 {
                return None;
            }
            let n = x.re as u32;
            Complex::real((2..=n).map(f64::from).product())
        }
        Func::Binom => {
            let k = approx(args.get(1)?, vals)?;
            if k.im != 0.0 || k.re.fract() != 0.0 || !(0.0..=1000.0).contains(&k.re) {
                return None;
            }
            let mut acc = one;
            for i in 0..k.re as u32 {
                let i = f64::from(i);
                acc = acc.mul(x.sub(Complex::real(i))).div(Complex::real(i + 1.0));
            }
            acc
        }
        Func::Floor => real_only(x, f64::floor)?,
        Func::Ceil => real_only(x, f64::ceil)?,
        // Integer functions: exact only.
        Func::Gcd | Func::Lcm => return None,
        // Compared by their form instead (see `equivalence::canonical`).
        Func::Sum | Func::Prod | Func::Integral => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::parse::parse_answer;

    fn ex(s: &str) -> Option<Rational> {
        let mut work = u64::MAX;
        exact(&parse_answer(s).ok()?, &[], &mut work)
    }

    fn ap(s: &str) -> Option<f64> {
        approx(&parse_answer(s).ok()?, &[]).map(|c| c.re)
    }

    #[test]
    fn exact_values() {
        let half = Rational::new(1.into(), 2.into());
        assert_eq!(ex("\\frac{1}{2}"), Some(half.clone()));
        assert_eq!(ex("0.5"), Some(half.clone()));
        assert_eq!(ex("50\\%"), Some(half));
        assert_eq!(ex("\\sqrt{16}"), Some(Rational::from_integer(4.into())));
        assert_eq!(ex("\\sqrt{2}"), None);
        assert_eq!(ex("\\binom{5}{2}"), Some(Rational::from_integer(10.into())));
        assert_eq!(ex("2^{10}"), Some(Rational::from_integer(1024.into())));
        assert_eq!(ex("9^{9^{9}}"), None);
        assert_eq!(ex("1/0"), None);
    }

    #[test]
    fn big_number_arithmetic_is_charged_by_operand_size() {
        let spent = |s: &str| {
            let mut work = 1_000_000;
            exact(&parse_answer(s).unwrap(), &[], &mut work).expect("rational");
            1_000_000 - work
        };
        assert_eq!(spent("\\frac{1}{3} + \\frac{2}{7} \\cdot 5"), 0);
        let big = "7".repeat(300);
        let cost = spent(&format!(
            "\\frac{{1}}{{{big}}} + \\frac{{2}}{{{big}1}} \\cdot 5"
        ));
        assert!(cost > 50, "~1,000-bit operands cost {cost}");
        // Out of work: no value, and the budget is emptied so the caller can tell why.
        let mut work = cost - 1;
        let e = parse_answer(&format!(
            "\\frac{{1}}{{{big}}} + \\frac{{2}}{{{big}1}} \\cdot 5"
        ))
        .unwrap();
        assert_eq!(exact(&e, &[], &mut work), None);
        assert_eq!(work, 0);
    }

    #[test]
    fn approximate_values() {
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
        assert!(close(ap("\\pi"), std::f64::consts::PI));
        assert!(close(ap("\\sqrt{2}"), std::f64::consts::SQRT_2));
        assert!(close(ap("e^{2}"), std::f64::consts::E.powi(2)));
        assert!(close(ap("\\log_2 8"), 3.0));
        assert!(close(ap("\\sqrt[3]{27}"), 3.0));
        assert_eq!(
            ex("\\sqrt[3]{-8}"),
            Some(Rational::from_integer((-2).into()))
        );
        assert!(close(ap("\\sin(\\pi/6)"), 0.5));
        assert!(ap("\\arcsin 2").is_none());
    }
}
