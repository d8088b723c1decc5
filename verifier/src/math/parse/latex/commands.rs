//! The LaTeX vocabulary: commands, words, named functions, Greek letters, decorations and
//! environments (matrices), as the parser meets them.

use super::{ParseError, Parser, Tok, mul};
use crate::math::expr::{Constant, Expr, Func};

const GREEK: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "varrho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Sigma",
    "Upsilon",
    "Phi",
    "Psi",
    "Omega",
    "hbar",
    "ell",
    "omicron",
];

const MATRIX_ENVS: &[&str] = &[
    "pmatrix",
    "bmatrix",
    "Bmatrix",
    "vmatrix",
    "Vmatrix",
    "matrix",
    "smallmatrix",
    "array",
];

/// Decorations whose argument is parsed as if undecorated (`\mathbf{v}`, `\overline{x}`).
const DECORATIONS: &[&str] = &[
    "mathbf",
    "boldsymbol",
    "bm",
    "vec",
    "hat",
    "bar",
    "overline",
    "underline",
    "tilde",
    "widehat",
    "widetilde",
    "mathcal",
    "mathscr",
    "mathfrak",
    "overrightarrow",
    "dot",
    "ddot",
    "boxed",
    "fbox",
    "underbrace",
    "overbrace",
];

/// Maps a function name (command or plain word) to a function.
pub fn function_named(name: &str) -> Option<Func> {
    Some(match name {
        "sin" => Func::Sin,
        "cos" => Func::Cos,
        "tan" | "tg" => Func::Tan,
        "sec" => Func::Sec,
        "csc" | "cosec" => Func::Csc,
        "cot" | "ctg" => Func::Cot,
        "arcsin" | "asin" => Func::Asin,
        "arccos" | "acos" => Func::Acos,
        "arctan" | "atan" => Func::Atan,
        "sinh" => Func::Sinh,
        "cosh" => Func::Cosh,
        "tanh" => Func::Tanh,
        "ln" => Func::Ln,
        "log" | "lg" => Func::Log,
        "exp" => Func::Exp,
        "sqrt" => Func::Sqrt,
        "abs" => Func::Abs,
        "floor" => Func::Floor,
        "ceil" => Func::Ceil,
        "gcd" => Func::Gcd,
        "lcm" => Func::Lcm,
        _ => return None,
    })
}

impl Parser {
    pub(super) fn word(&mut self, w: &str) -> Result<Expr, ParseError> {
        if let Some(f) = function_named(w) {
            return self.function(f);
        }
        match w {
            "pi" => Ok(Expr::Const(Constant::Pi)),
            "inf" | "infty" | "infinity" | "oo" => Ok(Expr::Const(Constant::Infinity)),
            _ => Err(ParseError::Unexpected(w.to_string())),
        }
    }

    pub(super) fn command(&mut self, c: &str) -> Result<Expr, ParseError> {
        if let Some(f) = function_named(c).filter(|_| c != "sqrt") {
            return self.function(f);
        }
        if GREEK.contains(&c) {
            return self.symbol(c.to_string());
        }
        if DECORATIONS.contains(&c) {
            return self.argument();
        }
        match c {
            "sum" | "prod" | "int" => self.big_operator(match c {
                "sum" => Func::Sum,
                "prod" => Func::Prod,
                _ => Func::Integral,
            }),
            "frac" | "dfrac" | "tfrac" | "cfrac" => {
                let n = self.argument()?;
                let d = self.argument()?;
                Ok(Expr::Div(Box::new(n), Box::new(d)))
            }
            "binom" | "dbinom" | "tbinom" | "choose" => {
                let n = self.argument()?;
                let k = self.argument()?;
                Ok(Expr::Func(Func::Binom, vec![n, k]))
            }
            "sqrt" => {
                if self.eat(&Tok::LBrack) {
                    let (mut idx, _) = self.delimited(&[Tok::RBrack])?;
                    let n = idx.pop().ok_or(ParseError::Empty)?;
                    let x = self.argument()?;
                    return Ok(Expr::Func(Func::Root, vec![n, x]));
                }
                if self.peek() == Some(&Tok::LParen) {
                    return Ok(Expr::Func(Func::Sqrt, vec![self.primary()?]));
                }
                Ok(Expr::Func(Func::Sqrt, vec![self.argument()?]))
            }
            "pi" | "varpi" => Ok(Expr::Const(Constant::Pi)),
            "infty" | "infin" => Ok(Expr::Const(Constant::Infinity)),
            "imath" => Ok(Expr::Const(Constant::I)),
            "emptyset" | "varnothing" => Ok(Expr::Set(Vec::new())),
            "mathbb" => match self.next() {
                Some(Tok::Letter('R')) => Ok(real_line()),
                Some(Tok::LBrace) => {
                    let inner = self.next();
                    self.expect(&Tok::RBrace)?;
                    match inner {
                        Some(Tok::Letter('R')) => Ok(real_line()),
                        Some(Tok::Letter(l)) => Ok(Expr::Sym(format!("mathbb{l}"))),
                        _ => Err(ParseError::Unexpected("\\mathbb".into())),
                    }
                }
                _ => Err(ParseError::Unexpected("\\mathbb".into())),
            },
            "lfloor" | "lceil" => {
                let inner = self.sum()?;
                let close = if c == "lfloor" { "rfloor" } else { "rceil" };
                if self.next() != Some(Tok::Cmd(close.into())) {
                    return Err(ParseError::Expected(close.into()));
                }
                let f = if c == "lfloor" {
                    Func::Floor
                } else {
                    Func::Ceil
                };
                Ok(Expr::Func(f, vec![inner]))
            }
            _ => Err(ParseError::UnknownCommand(c.to_string())),
        }
    }

    /// A function application: `\sin x`, `\sin^2(x)`, `\log_2 8`, `\sin^{-1} x`.
    fn function(&mut self, mut f: Func) -> Result<Expr, ParseError> {
        let mut base = None;
        if f == Func::Log && self.eat(&Tok::Underscore) {
            base = Some(self.argument()?);
        }
        let mut power = None;
        if self.eat(&Tok::Caret) {
            let p = self.exponent()?;
            let inverse = match (&p, f) {
                (Expr::Neg(inner), Func::Sin | Func::Cos | Func::Tan) => **inner == Expr::int(1),
                _ => false,
            };
            if inverse {
                f = match f {
                    Func::Sin => Func::Asin,
                    Func::Cos => Func::Acos,
                    _ => Func::Atan,
                };
            } else {
                power = Some(p);
            }
        }
        if f == Func::Log && base.is_none() && self.eat(&Tok::Underscore) {
            base = Some(self.argument()?);
        }
        self.trig_depth += usize::from(f.is_trigonometric());
        let arg = self.function_argument();
        self.trig_depth -= usize::from(f.is_trigonometric());
        let arg = arg?;
        let applied = match (f, base) {
            (Func::Log, Some(b)) => Expr::Func(Func::Log, vec![b, arg]),
            // A bare `\log` is base 10, as in latex2sympy (and so Math-Verify).
            (Func::Log, None) => Expr::Func(Func::Log, vec![Expr::int(10), arg]),
            (f, _) => Expr::Func(f, vec![arg]),
        };
        Ok(match power {
            Some(p) => Expr::Pow(Box::new(applied), Box::new(p)),
            None => applied,
        })
    }

    /// `\sum_{k=0}^{n} body` (and `\prod`, `\int`): kept as written, to be compared by form.
    fn big_operator(&mut self, f: Func) -> Result<Expr, ParseError> {
        let (mut lower, mut upper) = (Expr::List(Vec::new()), Expr::List(Vec::new()));
        for _ in 0..2 {
            if self.eat(&Tok::Underscore) {
                lower = self.bound()?;
            } else if self.eat(&Tok::Caret) {
                upper = self.bound()?;
            }
        }
        let body = self.function_argument()?;
        Ok(Expr::Func(f, vec![lower, upper, body]))
    }

    /// A bound of a big operator: a braced relation (`{k=0}`) or one atom (`_0`, `^n`).
    fn bound(&mut self) -> Result<Expr, ParseError> {
        if self.eat(&Tok::LBrace) {
            let e = self.relation()?;
            self.expect(&Tok::RBrace)?;
            Ok(e)
        } else {
            self.exponent()
        }
    }

    /// The argument of a function: a bracketed group, or `2x` up to the next function or operator.
    fn function_argument(&mut self) -> Result<Expr, ParseError> {
        Ok(match self.peek() {
            Some(Tok::LParen | Tok::LBrace) => self.primary()?,
            None => return Err(ParseError::Expected("function argument".into())),
            _ => {
                // `\sin 2x` is sin(2x); the argument stops at the next function or operator.
                let mut acc = self.power()?;
                while self.starts_factor() && !self.at_function() {
                    let f = self.power()?;
                    acc = mul(acc, f);
                }
                acc
            }
        })
    }

    fn at_function(&self) -> bool {
        match self.peek() {
            Some(Tok::Cmd(c)) | Some(Tok::Word(c)) => function_named(c).is_some(),
            _ => false,
        }
    }

    pub(super) fn environment(&mut self, env: &str) -> Result<Expr, ParseError> {
        if !MATRIX_ENVS.contains(&env) {
            return Err(ParseError::UnknownCommand(format!("begin{{{env}}}")));
        }
        let mut rows: Vec<Vec<Expr>> = Vec::new();
        let mut row = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::End(_)) => {
                    self.pos += 1;
                    if !row.is_empty() {
                        rows.push(row);
                    }
                    break;
                }
                Some(Tok::RowSep) => {
                    self.pos += 1;
                    if !row.is_empty() {
                        rows.push(std::mem::take(&mut row));
                    }
                }
                Some(Tok::Amp) => {
                    self.pos += 1;
                }
                None => return Err(ParseError::Unclosed),
                _ => row.push(self.relation()?),
            }
        }
        let width = rows.first().map_or(0, Vec::len);
        if width == 0 || rows.iter().any(|r| r.len() != width) {
            return Err(ParseError::Unexpected("ragged matrix".into()));
        }
        Ok(Expr::Matrix(rows))
    }
}

fn real_line() -> Expr {
    Expr::Interval {
        lo: Box::new(Expr::Neg(Box::new(Expr::Const(Constant::Infinity)))),
        hi: Box::new(Expr::Const(Constant::Infinity)),
        lo_closed: false,
        hi_closed: false,
    }
}
