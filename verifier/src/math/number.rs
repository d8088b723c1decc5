//! Numbers: exact big rationals with bounded size, and complex floating point for everything
//! that is not rational (π, √2, sin 1, …).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::ops::{Mul, Sub};

/// Exact values larger than this many bits fall back to floating point, so that `9^9^9`
/// or `1000!` cost microseconds instead of minutes.
pub const MAX_EXACT_BITS: u64 = 2048;
/// Largest `n` for which `n!` is computed exactly.
pub const MAX_EXACT_FACTORIAL: u64 = 300;
/// Largest decimal exponent written in scientific notation that is kept exact.
pub const MAX_EXACT_EXP10: i64 = 400;

/// An exact rational number.
pub type Rational = BigRational;

/// Whether `r` is small enough to keep computing with exactly.
pub fn fits(r: &Rational) -> bool {
    r.numer().bits() <= MAX_EXACT_BITS && r.denom().bits() <= MAX_EXACT_BITS
}

/// Returns `r` when it fits the size bound.
fn bounded(r: Rational) -> Option<Rational> {
    fits(&r).then_some(r)
}

/// `a + b`, if the result stays within bounds.
pub fn add(a: &Rational, b: &Rational) -> Option<Rational> {
    // Integers skip the gcd normalisation, which dominates on big values.
    if a.is_integer() && b.is_integer() {
        return bounded(Rational::from_integer(a.numer() + b.numer()));
    }
    bounded(a + b)
}

/// `a * b`, if the result stays within bounds.
pub fn mul(a: &Rational, b: &Rational) -> Option<Rational> {
    if a.numer().bits() + b.numer().bits() > 2 * MAX_EXACT_BITS {
        return None;
    }
    if a.is_integer() && b.is_integer() {
        return bounded(Rational::from_integer(a.numer() * b.numer()));
    }
    bounded(a * b)
}

/// `a / b`; `None` on division by zero.
pub fn div(a: &Rational, b: &Rational) -> Option<Rational> {
    if b.is_zero() {
        return None;
    }
    bounded(a / b)
}

/// `base ^ exp` for a rational exponent, exact when the result is rational: integer powers, and
/// roots of perfect powers (`8^(2/3) = 4`). `None` when irrational, undefined or too large.
pub fn pow(base: &Rational, exp: &Rational) -> Option<Rational> {
    let p = exp.numer().to_i64()?;
    let q = exp.denom().to_u32()?;
    if q > 64 {
        return None;
    }
    let root = if q == 1 {
        base.clone()
    } else {
        nth_root(base, q)?
    };
    int_pow(&root, p)
}

/// `base ^ exp` for an integer exponent, bounded in the size of the result.
pub fn int_pow(base: &Rational, exp: i64) -> Option<Rational> {
    if exp == 0 {
        // 0^0 is left undefined, as sympy's `nan` would make any comparison fail.
        return (!base.is_zero()).then(Rational::one);
    }
    if base.is_zero() {
        return (exp > 0).then(Rational::zero);
    }
    let bits = base.numer().bits().max(base.denom().bits());
    let mag = exp.unsigned_abs();
    if bits > 1 && bits.saturating_mul(mag) > MAX_EXACT_BITS {
        return None;
    }
    if bits <= 1 && mag > 1_000_000 {
        // ±1 (or ±1/1) to a huge power: only the sign can change.
        let sign_neg = base.is_negative() && mag % 2 == 1;
        return Some(if sign_neg {
            -Rational::one()
        } else {
            Rational::one()
        });
    }
    let e = u32::try_from(mag).ok()?;
    let n = base.numer().pow(e);
    let d = base.denom().pow(e);
    // Powers of coprime numerator and denominator stay coprime: no gcd needed.
    let r = Rational::new_raw(n, d);
    bounded(if exp < 0 { r.recip() } else { r })
}

/// The exact `q`-th root of `r` when it is rational (negative radicands only for odd `q`).
pub fn nth_root(r: &Rational, q: u32) -> Option<Rational> {
    if q == 0 {
        return None;
    }
    if r.is_negative() {
        if q.is_multiple_of(2) {
            return None;
        }
        return nth_root(&-r, q).map(|x| -x);
    }
    let n = int_root(r.numer(), q)?;
    let d = int_root(r.denom(), q)?;
    Some(Rational::new(n, d))
}

fn int_root(n: &BigInt, q: u32) -> Option<BigInt> {
    let root = n.nth_root(q);
    (root.pow(q) == *n).then_some(root)
}

/// `n!` for a small non-negative integer `n`.
pub fn factorial(n: &Rational) -> Option<Rational> {
    if !n.is_integer() || n.is_negative() {
        return None;
    }
    let k = n.to_integer().to_u64()?;
    if k > MAX_EXACT_FACTORIAL {
        return None;
    }
    let mut acc = BigInt::one();
    for i in 2..=k {
        acc *= i;
    }
    Some(Rational::from_integer(acc))
}

/// `binom(n, k)` for an integer `k` in a small range and any rational `n`.
pub fn binomial(n: &Rational, k: &Rational) -> Option<Rational> {
    if !k.is_integer() {
        return None;
    }
    let k = k.to_integer().to_i64()?;
    if k < 0 {
        return Some(Rational::zero());
    }
    if k > i64::from(u16::MAX) {
        return None;
    }
    let mut acc = Rational::one();
    for i in 0..k {
        let num = n - Rational::from_integer(i.into());
        acc = mul(&acc, &num)?;
        acc = div(&acc, &Rational::from_integer((i + 1).into()))?;
    }
    Some(acc)
}

/// Parses a decimal literal (`12`, `1.50`, `.5`, `3.3e12`, `2.55e-10`) into an exact rational.
pub fn parse_decimal(text: &str) -> Option<Rational> {
    let (mantissa, exp10) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{int_part}{frac_part}");
    let numer: BigInt = digits.parse().ok()?;
    let scale = exp10.checked_sub(i64::try_from(frac_part.len()).ok()?)?;
    if scale.abs() > MAX_EXACT_EXP10 + 2000 {
        return None;
    }
    let ten = Rational::from_integer(BigInt::from(10));
    let factor = int_pow(&ten, scale)?;
    mul(&Rational::from_integer(numer), &factor)
}

/// The precision a decimal literal shows: (significant digits, decimal places), the exponent
/// applied to the places (`0.8660` → (4, 4), `3.333e-5` → (4, 8), `1200` → (2, 0)).
pub fn shown_precision(text: &str) -> (u16, i16) {
    let (mantissa, exp10) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int_part}{frac_part}");
    let significant = all.trim_start_matches('0');
    let significant = if frac_part.is_empty() {
        significant.trim_end_matches('0')
    } else {
        significant
    };
    let places = i64::try_from(frac_part.len())
        .unwrap_or(i64::MAX)
        .saturating_sub(exp10);
    (
        u16::try_from(significant.len()).unwrap_or(u16::MAX),
        i16::try_from(places.clamp(-1000, 1000)).unwrap_or(0),
    )
}

/// Converts a rational to the nearest `f64` (±∞ beyond range).
pub fn to_f64(r: &Rational) -> f64 {
    if let (Some(n), Some(d)) = (r.numer().to_f64(), r.denom().to_f64())
        && n.is_finite()
        && d.is_finite()
        && d != 0.0
    {
        return n / d;
    }
    // Huge numerator or denominator: scale both down by the same power of two first.
    let shift = r.numer().bits().max(r.denom().bits()).saturating_sub(1000);
    let n = (r.numer() >> shift).to_f64().unwrap_or(f64::NAN);
    let d = (r.denom() >> shift).to_f64().unwrap_or(f64::NAN);
    if d == 0.0 {
        if n >= 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
    } else {
        n / d
    }
}

/// A complex number in double precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Complex {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl Complex {
    /// A real number.
    pub const fn real(re: f64) -> Self {
        Self { re, im: 0.0 }
    }

    /// The imaginary unit.
    pub const I: Self = Self { re: 0.0, im: 1.0 };

    /// Modulus.
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }

    /// Whether both parts are finite numbers.
    pub fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }

    /// Principal natural logarithm.
    pub fn ln(self) -> Self {
        Self {
            re: self.abs().ln(),
            im: self.im.atan2(self.re),
        }
    }

    /// Exponential.
    pub fn exp(self) -> Self {
        let m = self.re.exp();
        Self {
            re: m * self.im.cos(),
            im: m * self.im.sin(),
        }
    }

    /// Principal power `self ^ o`; real powers of non-negative reals stay real.
    pub fn pow(self, o: Self) -> Self {
        if self.im == 0.0 && o.im == 0.0 {
            if self.re >= 0.0 {
                return Self::real(self.re.powf(o.re));
            }
            if o.re.fract() == 0.0 {
                return Self::real(self.re.powf(o.re));
            }
        }
        if self.re == 0.0 && self.im == 0.0 {
            return if o.re > 0.0 {
                Self::real(0.0)
            } else {
                Self::real(f64::NAN)
            };
        }
        o.mul(self.ln()).exp()
    }

    /// Principal square root.
    pub fn sqrt(self) -> Self {
        if self.im == 0.0 && self.re >= 0.0 {
            return Self::real(self.re.sqrt());
        }
        self.pow(Self::real(0.5))
    }

    /// Sine.
    pub fn sin(self) -> Self {
        Self {
            re: self.re.sin() * self.im.cosh(),
            im: self.re.cos() * self.im.sinh(),
        }
    }

    /// Cosine.
    pub fn cos(self) -> Self {
        Self {
            re: self.re.cos() * self.im.cosh(),
            im: -self.re.sin() * self.im.sinh(),
        }
    }
}

impl std::ops::Add for Complex {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
}

impl std::ops::Sub for Complex {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
}

impl std::ops::Mul for Complex {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Self {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
}

/// Complex division (non-finite when dividing by zero).
impl std::ops::Div for Complex {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let d = o.re * o.re + o.im * o.im;
        Self {
            re: (self.re * o.re + self.im * o.im) / d,
            im: (self.im * o.re - self.re * o.im) / d,
        }
    }
}

impl std::ops::Neg for Complex {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            re: -self.re,
            im: -self.im,
        }
    }
}

/// Whether two complex values agree within `rel` relative and `abs` absolute tolerance.
pub fn close(a: Complex, b: Complex, rel: f64, abs: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let diff = a.sub(b).abs();
    diff <= abs + rel * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Rational {
        Rational::new(n.into(), d.into())
    }

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("1.50"), Some(r(3, 2)));
        assert_eq!(parse_decimal(".5"), Some(r(1, 2)));
        assert_eq!(parse_decimal("2.5e-3"), Some(r(1, 400)));
        assert_eq!(parse_decimal("3e2"), Some(r(300, 1)));
        assert_eq!(parse_decimal("."), None);
        assert_eq!(parse_decimal("1e99999999999999999999"), None);
    }

    #[test]
    fn powers_are_bounded_and_exact() {
        assert_eq!(pow(&r(8, 1), &r(2, 3)), Some(r(4, 1)));
        assert_eq!(pow(&r(2, 1), &r(1, 2)), None);
        assert_eq!(int_pow(&r(2, 1), -3), Some(r(1, 8)));
        assert_eq!(int_pow(&r(9, 1), 1_000_000_000), None);
        assert_eq!(int_pow(&r(-1, 1), 1_000_000_001), Some(r(-1, 1)));
        assert_eq!(int_pow(&r(0, 1), -1), None);
        assert_eq!(nth_root(&r(-27, 8), 3), Some(r(-3, 2)));
    }

    #[test]
    fn factorial_and_binomial() {
        assert_eq!(factorial(&r(5, 1)), Some(r(120, 1)));
        assert_eq!(factorial(&r(100_000, 1)), None);
        assert_eq!(binomial(&r(10, 1), &r(3, 1)), Some(r(120, 1)));
    }

    #[test]
    fn complex_basics() {
        let z = Complex::I.mul(Complex::I);
        assert!(close(z, Complex::real(-1.0), 1e-12, 0.0));
        assert!(close(
            Complex::real(-4.0).sqrt(),
            Complex { re: 0.0, im: 2.0 },
            1e-12,
            1e-12
        ));
        assert!((to_f64(&r(1, 3)) - 1.0 / 3.0).abs() < 1e-15);
    }
}
