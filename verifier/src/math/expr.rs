//! The parsed form of an answer: scalar expressions plus the structures answers come in
//! (relations, sets, tuples, intervals, matrices, text).

use std::fmt;

use super::number::Rational;

/// A named mathematical constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constant {
    /// π
    Pi,
    /// Euler's number e
    E,
    /// The imaginary unit i
    I,
    /// ∞
    Infinity,
}

/// A function applied to arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// sin
    Sin,
    /// cos
    Cos,
    /// tan
    Tan,
    /// sec
    Sec,
    /// csc
    Csc,
    /// cot
    Cot,
    /// arcsin
    Asin,
    /// arccos
    Acos,
    /// arctan
    Atan,
    /// sinh
    Sinh,
    /// cosh
    Cosh,
    /// tanh
    Tanh,
    /// natural logarithm
    Ln,
    /// logarithm with a base: args `[base, x]`
    Log,
    /// exponential
    Exp,
    /// square root
    Sqrt,
    /// n-th root: args `[n, x]`
    Root,
    /// absolute value
    Abs,
    /// factorial
    Factorial,
    /// binomial coefficient: args `[n, k]`
    Binom,
    /// floor
    Floor,
    /// ceiling
    Ceil,
    /// greatest common divisor of integers (one argument: a tuple of them)
    Gcd,
    /// least common multiple of integers (one argument: a tuple of them)
    Lcm,
    /// `\sum`: args `[lower, upper, body]` (an empty list for a missing bound); never evaluated
    Sum,
    /// `\prod`: args as for [`Func::Sum`]; never evaluated
    Prod,
    /// `\int`: args as for [`Func::Sum`], the body including its `dx`; never evaluated
    Integral,
}

impl Func {
    /// `\sum`, `\prod`, `\int`: operators that are compared by their form, not evaluated.
    pub fn is_big_operator(self) -> bool {
        matches!(self, Func::Sum | Func::Prod | Func::Integral)
    }

    /// sin, cos, tan, sec, csc, cot: the functions whose argument may be written in degrees.
    pub fn is_trigonometric(self) -> bool {
        matches!(
            self,
            Func::Sin | Func::Cos | Func::Tan | Func::Sec | Func::Csc | Func::Cot
        )
    }

    /// The function's name in normalised output.
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Sec => "sec",
            Func::Csc => "csc",
            Func::Cot => "cot",
            Func::Asin => "asin",
            Func::Acos => "acos",
            Func::Atan => "atan",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Ln => "ln",
            Func::Log => "log",
            Func::Exp => "exp",
            Func::Sqrt => "sqrt",
            Func::Root => "root",
            Func::Abs => "abs",
            Func::Factorial => "factorial",
            Func::Binom => "binomial",
            Func::Floor => "floor",
            Func::Ceil => "ceiling",
            Func::Gcd => "gcd",
            Func::Lcm => "lcm",
            Func::Sum => "sum",
            Func::Prod => "prod",
            Func::Integral => "integral",
        }
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelOp {
    /// =
    Eq,
    /// ≠
    Ne,
    /// <
    Lt,
    /// ≤
    Le,
    /// >
    Gt,
    /// ≥
    Ge,
}

impl RelOp {
    /// The operator with its sides swapped (`a < b` ⇔ `b > a`).
    pub fn flipped(self) -> Self {
        match self {
            RelOp::Lt => RelOp::Gt,
            RelOp::Le => RelOp::Ge,
            RelOp::Gt => RelOp::Lt,
            RelOp::Ge => RelOp::Le,
            other => other,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            RelOp::Eq => "=",
            RelOp::Ne => "!=",
            RelOp::Lt => "<",
            RelOp::Le => "<=",
            RelOp::Gt => ">",
            RelOp::Ge => ">=",
        }
    }
}

/// A parsed answer or sub-expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number; `decimal` when written with a decimal point or exponent (an approximation).
    Num {
        /// Exact value of the literal.
        value: Rational,
        /// Written as a decimal (so compared with tolerance).
        decimal: bool,
        /// Significant digits as written (`0.8660` has 4), for comparing at the shown precision.
        digits: u16,
        /// Decimal places as written, exponent applied (`0.8660` has 4, `3.3e-5` has 6).
        places: i16,
    },
    /// A variable such as `x` or `x_1`.
    Sym(String),
    /// A named constant.
    Const(Constant),
    /// Sum of terms.
    Add(Vec<Expr>),
    /// Product of factors.
    Mul(Vec<Expr>),
    /// Negation.
    Neg(Box<Expr>),
    /// Quotient.
    Div(Box<Expr>, Box<Expr>),
    /// Power.
    Pow(Box<Expr>, Box<Expr>),
    /// Function application.
    Func(Func, Vec<Expr>),
    /// `x%`.
    Percent(Box<Expr>),
    /// `a ± b` (`0 ± b` for a leading ±).
    PlusMinus(Box<Expr>, Box<Expr>),
    /// A chain of comparisons `a op b op c …` (`ops.len() == sides.len() - 1`).
    Rel {
        /// The compared expressions, in order.
        sides: Vec<Expr>,
        /// The operators between consecutive sides.
        ops: Vec<RelOp>,
    },
    /// Several answers written one after another (`1, 2` or `x = 1, x = 2`).
    List(Vec<Expr>),
    /// `\{a, b\}`.
    Set(Vec<Expr>),
    /// `(a, b, …)`: a point or tuple (with two elements it may also mean an open interval).
    Tuple(Vec<Expr>),
    /// An interval with open or closed ends.
    Interval {
        /// Lower end.
        lo: Box<Expr>,
        /// Upper end.
        hi: Box<Expr>,
        /// Whether the lower end is included.
        lo_closed: bool,
        /// Whether the upper end is included.
        hi_closed: bool,
    },
    /// Union of sets or intervals.
    Union(Vec<Expr>),
    /// A matrix, row by row.
    Matrix(Vec<Vec<Expr>>),
    /// A text answer, normalised (lower case, single spaces).
    Text(String),
}

impl Expr {
    /// An integer literal.
    pub fn int(n: i64) -> Self {
        Expr::Num {
            value: Rational::from_integer(n.into()),
            decimal: false,
            digits: 0,
            places: 0,
        }
    }

    /// Whether this is a scalar expression (not a structure such as a set or relation).
    pub fn is_scalar(&self) -> bool {
        !matches!(
            self,
            Expr::Rel { .. }
                | Expr::List(_)
                | Expr::Set(_)
                | Expr::Tuple(_)
                | Expr::Interval { .. }
                | Expr::Union(_)
                | Expr::Matrix(_)
                | Expr::Text(_)
        )
    }

    /// Calls `f` on every node of the tree (pre-order).
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().for_each(|e| e.walk(f)),
            Expr::List(v) | Expr::Set(v) | Expr::Tuple(v) | Expr::Union(v) => {
                v.iter().for_each(|e| e.walk(f))
            }
            Expr::Rel { sides, .. } => sides.iter().for_each(|e| e.walk(f)),
            Expr::Neg(a) | Expr::Percent(a) => a.walk(f),
            Expr::Div(a, b) | Expr::Pow(a, b) | Expr::PlusMinus(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Interval { lo, hi, .. } => {
                lo.walk(f);
                hi.walk(f);
            }
            Expr::Matrix(rows) => rows.iter().flatten().for_each(|e| e.walk(f)),
            Expr::Num { .. } | Expr::Sym(_) | Expr::Const(_) | Expr::Text(_) => {}
        }
    }

    /// Whether any literal in the tree was written as a decimal.
    pub fn has_decimal(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if matches!(e, Expr::Num { decimal: true, .. }) {
                found = true;
            }
        });
        found
    }

    /// The variables in the tree, sorted and without duplicates.
    pub fn symbols(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let Expr::Sym(s) = e {
                out.push(s.clone());
            }
        });
        out.sort();
        out.dedup();
        out
    }
}

fn join(f: &mut fmt::Formatter<'_>, items: &[Expr], sep: &str) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}

/// The normalised form shown in verdicts: a plain, fully parenthesised notation.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num { value, decimal, .. } => {
                if *decimal {
                    write!(f, "{}", super::number::to_f64(value))
                } else if value.is_integer() {
                    write!(f, "{}", value.numer())
                } else {
                    write!(f, "{}/{}", value.numer(), value.denom())
                }
            }
            Expr::Sym(s) => f.write_str(s),
            Expr::Const(c) => f.write_str(match c {
                Constant::Pi => "pi",
                Constant::E => "E",
                Constant::I => "I",
                Constant::Infinity => "oo",
            }),
            Expr::Add(v) => {
                f.write_str("(")?;
                join(f, v, " + ")?;
                f.write_str(")")
            }
            Expr::Mul(v) => {
                f.write_str("(")?;
                join(f, v, "*")?;
                f.write_str(")")
            }
            Expr::Neg(a) => write!(f, "-{a}"),
            Expr::Div(a, b) => write!(f, "({a})/({b})"),
            Expr::Pow(a, b) => write!(f, "({a})^({b})"),
            Expr::Func(func, args) => {
                write!(f, "{}(", func.name())?;
                join(f, args, ", ")?;
                f.write_str(")")
            }
            Expr::Percent(a) => write!(f, "{a}%"),
            Expr::PlusMinus(a, b) => write!(f, "({a} ± {b})"),
            Expr::Rel { sides, ops } => {
                for (i, s) in sides.iter().enumerate() {
                    if i > 0 {
                        write!(f, " {} ", ops[i - 1].symbol())?;
                    }
                    write!(f, "{s}")?;
                }
                Ok(())
            }
            Expr::List(v) => join(f, v, ", "),
            Expr::Set(v) => {
                f.write_str("{")?;
                join(f, v, ", ")?;
                f.write_str("}")
            }
            Expr::Tuple(v) => {
                f.write_str("(")?;
                join(f, v, ", ")?;
                f.write_str(")")
            }
            Expr::Interval {
                lo,
                hi,
                lo_closed,
                hi_closed,
            } => write!(
                f,
                "{}{lo}, {hi}{}",
                if *lo_closed { '[' } else { '(' },
                if *hi_closed { ']' } else { ')' }
            ),
            Expr::Union(v) => join(f, v, " U "),
            Expr::Matrix(rows) => {
                f.write_str("Matrix([")?;
                for (i, row) in rows.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str("[")?;
                    join(f, row, ", ")?;
                    f.write_str("]")?;
                }
                f.write_str("])")
            }
            Expr::Text(t) => write!(f, "\"{t}\""),
        }
    }
}
