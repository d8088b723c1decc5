//! Recursive-descent parser from tokens to [`Expr`], with a hard bound on nesting depth.

use super::ParseError;
use super::lexer::Tok;
use crate::math::expr::{Constant, Expr, Func};
use crate::math::number::{parse_decimal, shown_precision};

/// Deepest nesting the parser follows before giving up (keeps the stack small).
pub const MAX_DEPTH: usize = 64;

mod commands;

pub use commands::function_named;

/// Parses a whole token stream into one answer.
pub fn parse_tokens(toks: Vec<Tok>) -> Result<Expr, ParseError> {
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
        abs_depth: 0,
        trig_depth: 0,
    };
    if p.toks.is_empty() {
        return Err(ParseError::Empty);
    }
    let e = p.list()?;
    match p.peek() {
        None => Ok(e),
        Some(t) => Err(ParseError::Unexpected(format!("{t:?}"))),
    }
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    abs_depth: usize,
    /// How many trigonometric arguments the parser is inside (degrees mean radians there).
    trig_depth: usize,
}

fn mul(a: Expr, b: Expr) -> Expr {
    match a {
        Expr::Mul(mut v) => {
            v.push(b);
            Expr::Mul(v)
        }
        a => Expr::Mul(vec![a, b]),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok) -> Result<(), ParseError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(ParseError::Expected(format!("{t:?}")))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(ParseError::TooDeep)
        } else {
            Ok(())
        }
    }

    fn is_separator(t: &Tok) -> bool {
        matches!(t, Tok::Comma | Tok::Semicolon)
    }

    /// `a, b; c` — several answers.
    fn list(&mut self) -> Result<Expr, ParseError> {
        let mut items = vec![self.relation()?];
        while self.peek().is_some_and(Self::is_separator) {
            self.pos += 1;
            match self.peek() {
                None | Some(Tok::RParen | Tok::RBrack | Tok::RBrace | Tok::RSet | Tok::RAngle) => {
                    break;
                }
                Some(t) if Self::is_separator(t) => continue,
                _ => items.push(self.relation()?),
            }
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::List(items)
        })
    }

    /// `a < b <= c`, `x = 3`, `x \in [0, 1]`.
    fn relation(&mut self) -> Result<Expr, ParseError> {
        let first = self.union()?;
        if self.eat(&Tok::In) {
            let set = self.union()?;
            return match first {
                Expr::Sym(_) => Ok(set),
                _ => Err(ParseError::Unexpected("\\in".into())),
            };
        }
        let mut sides = vec![first];
        let mut ops = Vec::new();
        while let Some(Tok::Rel(op)) = self.peek() {
            let op = *op;
            self.pos += 1;
            ops.push(op);
            sides.push(self.union()?);
        }
        Ok(if ops.is_empty() {
            sides.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::Rel { sides, ops }
        })
    }

    /// `A \cup B \cup …`.
    fn union(&mut self) -> Result<Expr, ParseError> {
        let first = self.sum()?;
        if self.peek() != Some(&Tok::Cup) {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.eat(&Tok::Cup) {
            parts.push(self.sum()?);
        }
        Ok(Expr::Union(parts))
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut acc = self.term()?;
        let mut plus_minus = 0usize;
        loop {
            match self.peek() {
                Some(Tok::Plus) => {
                    self.pos += 1;
                    let t = self.term()?;
                    acc = match acc {
                        Expr::Add(mut v) => {
                            v.push(t);
                            Expr::Add(v)
                        }
                        a => Expr::Add(vec![a, t]),
                    };
                }
                Some(Tok::Minus) => {
                    self.pos += 1;
                    let t = Expr::Neg(Box::new(self.term()?));
                    acc = match acc {
                        Expr::Add(mut v) => {
                            v.push(t);
                            Expr::Add(v)
                        }
                        a => Expr::Add(vec![a, t]),
                    };
                }
                Some(Tok::PlusMinus) => {
                    self.pos += 1;
                    let t = self.term()?;
                    plus_minus += 1;
                    if plus_minus > MAX_DEPTH {
                        return Err(ParseError::TooDeep);
                    }
                    acc = Expr::PlusMinus(Box::new(acc), Box::new(t));
                }
                _ => return Ok(acc),
            }
        }
    }

    fn starts_factor(&self) -> bool {
        match self.peek() {
            Some(
                Tok::Num(_)
                | Tok::Letter(_)
                | Tok::Word(_)
                | Tok::LParen
                | Tok::LBrace
                | Tok::Begin(_),
            ) => true,
            Some(Tok::Cmd(c)) => !matches!(c.as_str(), "rfloor" | "rceil"),
            Some(Tok::Pipe) => self.abs_depth == 0,
            _ => false,
        }
    }

    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut acc = self.unary()?;
        let mut divisions = 0usize;
        loop {
            match self.peek() {
                Some(Tok::Times) => {
                    self.pos += 1;
                    let f = self.unary()?;
                    acc = mul(acc, f);
                }
                Some(Tok::Divide) => {
                    self.pos += 1;
                    let f = self.unary()?;
                    // `a/b/c/…` nests to the left: bound it like recursion.
                    divisions += 1;
                    if divisions > MAX_DEPTH {
                        return Err(ParseError::TooDeep);
                    }
                    acc = Expr::Div(Box::new(acc), Box::new(f));
                }
                _ if self.starts_factor() => {
                    let mixed = matches!(acc, Expr::Num { decimal: false, .. })
                        && matches!(self.peek(), Some(Tok::Cmd(c)) if c.ends_with("frac"));
                    let f = self.power()?;
                    // `1\frac{1}{4}` is the mixed number 5/4.
                    acc = match (&f, mixed) {
                        (Expr::Div(n, d), true)
                            if matches!(**n, Expr::Num { decimal: false, .. })
                                && matches!(**d, Expr::Num { decimal: false, .. }) =>
                        {
                            Expr::Add(vec![acc, f])
                        }
                        _ => mul(acc, f),
                    };
                }
                _ => return Ok(acc),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = match self.peek() {
            Some(Tok::Minus) => {
                self.pos += 1;
                self.unary().map(|e| Expr::Neg(Box::new(e)))
            }
            Some(Tok::Plus) => {
                self.pos += 1;
                self.unary()
            }
            Some(Tok::PlusMinus) => {
                self.pos += 1;
                self.unary()
                    .map(|e| Expr::PlusMinus(Box::new(Expr::int(0)), Box::new(e)))
            }
            _ => self.power(),
        };
        self.depth -= 1;
        r
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.postfix()?;
        if self.eat(&Tok::Caret) {
            let exp = self.exponent()?;
            let e = Expr::Pow(Box::new(base), Box::new(exp));
            return self.postfix_ops(e);
        }
        Ok(base)
    }

    /// The exponent after `^`: a braced group, or a single (signed) atom, right-associative.
    fn exponent(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = (|| {
            let neg = self.eat(&Tok::Minus);
            let atom = if self.peek() == Some(&Tok::LBrace) {
                self.primary()?
            } else {
                self.postfix()?
            };
            let atom = if self.eat(&Tok::Caret) {
                Expr::Pow(Box::new(atom), Box::new(self.exponent()?))
            } else {
                atom
            };
            Ok(if neg { Expr::Neg(Box::new(atom)) } else { atom })
        })();
        self.depth -= 1;
        r
    }

    fn postfix(&mut self) -> Result<Expr, ParseError> {
        let p = self.primary()?;
        self.postfix_ops(p)
    }

    fn postfix_ops(&mut self, mut e: Expr) -> Result<Expr, ParseError> {
        // Each operator nests the tree one level deeper (`5!!!…`): bound it like recursion.
        let mut nest = 0usize;
        loop {
            if nest > MAX_DEPTH {
                return Err(ParseError::TooDeep);
            }
            nest += 1;
            match self.peek() {
                // `!` directly before `=` was already lexed as `≠`.
                Some(Tok::Bang) => {
                    self.pos += 1;
                    e = Expr::Func(Func::Factorial, vec![e]);
                }
                Some(Tok::Percent) => {
                    self.pos += 1;
                    e = Expr::Percent(Box::new(e));
                }
                Some(Tok::Degree) => {
                    self.pos += 1;
                    if self.trig_depth > 0 {
                        let radian = Expr::Div(
                            Box::new(Expr::Const(Constant::Pi)),
                            Box::new(Expr::int(180)),
                        );
                        e = mul(e, radian);
                    }
                }
                Some(Tok::Prime) => {
                    self.pos += 1;
                    e = match e {
                        Expr::Sym(s) => Expr::Sym(format!("{s}'")),
                        other => other,
                    };
                }
                _ => return Ok(e),
            }
        }
    }

    /// A subscript after `_`, rendered as text for a symbol name.
    fn subscript(&mut self) -> Result<String, ParseError> {
        let e = if self.peek() == Some(&Tok::LBrace) {
            self.primary()?
        } else {
            match self.next() {
                Some(Tok::Num(n)) => return Ok(n),
                Some(Tok::Letter(c)) => return Ok(c.to_string()),
                Some(Tok::Word(w)) => return Ok(w),
                Some(Tok::Cmd(c)) => return Ok(c),
                _ => return Err(ParseError::Expected("subscript".into())),
            }
        };
        Ok(e.to_string())
    }

    fn symbol(&mut self, name: String) -> Result<Expr, ParseError> {
        if self.eat(&Tok::Underscore) {
            let sub = self.subscript()?;
            return Ok(Expr::Sym(format!("{name}_{sub}")));
        }
        Ok(Expr::Sym(name))
    }

    /// A braced group or a single token as a command argument (`\frac12`, `\sqrt2`).
    fn argument(&mut self) -> Result<Expr, ParseError> {
        match self.peek().cloned() {
            Some(Tok::LBrace) => self.primary(),
            Some(Tok::Num(n)) => {
                // Malformed `\frac12`: the argument is the first digit only.
                let mut chars = n.chars();
                let first = chars.next().unwrap_or('0');
                let rest: String = chars.collect();
                if first.is_ascii_digit() && !rest.is_empty() && !rest.starts_with(['.', 'e']) {
                    self.toks[self.pos] = Tok::Num(rest);
                    Ok(Expr::int(i64::from(first.to_digit(10).unwrap_or(0))))
                } else {
                    self.primary()
                }
            }
            Some(_) => self.primary(),
            None => Err(ParseError::Expected("argument".into())),
        }
    }

    /// Everything inside a pair of delimiters, up to one of `closers`.
    fn delimited(&mut self, closers: &[Tok]) -> Result<(Vec<Expr>, Tok), ParseError> {
        if let Some(t) = self.peek()
            && closers.contains(t)
        {
            let t = t.clone();
            self.pos += 1;
            return Ok((Vec::new(), t));
        }
        let inner = self.list()?;
        let close = self.next().ok_or(ParseError::Unclosed)?;
        if !closers.contains(&close) {
            return Err(ParseError::Unexpected(format!("{close:?}")));
        }
        let items = match inner {
            Expr::List(v) => v,
            e => vec![e],
        };
        Ok((items, close))
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> Result<Expr, ParseError> {
        let tok = self.next().ok_or(ParseError::Expected("a value".into()))?;
        match tok {
            Tok::Num(n) => {
                let value = parse_decimal(&n).ok_or(ParseError::Number(n.clone()))?;
                let decimal = n.contains(['.', 'e', 'E']);
                // Integers carry no precision, so that they equal `Expr::int`.
                let (digits, places) = if decimal { shown_precision(&n) } else { (0, 0) };
                Ok(Expr::Num {
                    value,
                    decimal,
                    digits,
                    places,
                })
            }
            Tok::Letter(c) => {
                if self.peek() != Some(&Tok::Underscore) {
                    match c {
                        'e' => return Ok(Expr::Const(Constant::E)),
                        'i' => return Ok(Expr::Const(Constant::I)),
                        _ => {}
                    }
                }
                self.symbol(c.to_string())
            }
            Tok::Word(w) => self.word(&w),
            Tok::Cmd(c) => self.command(&c),
            Tok::LBrace => {
                let (items, _) = self.delimited(&[Tok::RBrace])?;
                match items.len() {
                    0 => Err(ParseError::Empty),
                    1 => Ok(items.into_iter().next().unwrap_or(Expr::List(Vec::new()))),
                    _ => Ok(Expr::List(items)),
                }
            }
            Tok::LSet => {
                // Set-builder notation `\{x \mid x > 3\}`: the condition is the answer (it
                // compares with intervals like any relation in one unknown).
                if matches!(self.peek(), Some(Tok::Letter(_)))
                    && self.toks.get(self.pos + 1) == Some(&Tok::Pipe)
                {
                    self.pos += 2;
                    let condition = self.list()?;
                    self.expect(&Tok::RSet)?;
                    return Ok(condition);
                }
                let (items, _) = self.delimited(&[Tok::RSet])?;
                Ok(Expr::Set(items))
            }
            Tok::LAngle => {
                let (items, _) = self.delimited(&[Tok::RAngle])?;
                Ok(Expr::Tuple(items))
            }
            Tok::LParen | Tok::LBrack => {
                let lo_closed = tok == Tok::LBrack;
                let (mut items, close) = self.delimited(&[Tok::RParen, Tok::RBrack])?;
                let hi_closed = close == Tok::RBrack;
                match items.len() {
                    0 => Err(ParseError::Empty),
                    1 if lo_closed == hi_closed => Ok(items.pop().unwrap_or(Expr::int(0))),
                    1 => Err(ParseError::Unexpected("half-open bracket".into())),
                    2 if lo_closed || hi_closed => {
                        let hi = items.pop().unwrap_or(Expr::int(0));
                        let lo = items.pop().unwrap_or(Expr::int(0));
                        Ok(Expr::Interval {
                            lo: Box::new(lo),
                            hi: Box::new(hi),
                            lo_closed,
                            hi_closed,
                        })
                    }
                    _ => Ok(Expr::Tuple(items)),
                }
            }
            Tok::Pipe => {
                self.abs_depth += 1;
                let inner = self.sum();
                self.abs_depth -= 1;
                let inner = inner?;
                self.expect(&Tok::Pipe)?;
                Ok(Expr::Func(Func::Abs, vec![inner]))
            }
            Tok::Begin(env) => self.environment(&env),
            other => Err(ParseError::Unexpected(format!("{other:?}"))),
        }
    }
}
