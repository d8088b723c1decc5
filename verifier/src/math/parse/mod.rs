//! From an extracted answer string to an [`Expr`]: clean-up of units and layout, tokenising,
//! then parsing. Text answers (`\text{Yes}`, `Monday`) become [`Expr::Text`].

mod align;
pub mod latex;
pub mod lexer;

use super::expr::{Expr, Func};
use lexer::Tok;

/// Longest answer (in characters) the parser accepts; longer ones are compared as text.
pub const MAX_ANSWER_CHARS: usize = 4000;
/// Deepest expression tree accepted: evaluation and comparison recurse over the tree, so this
/// bounds their stack use (well within a 2 MiB thread) whatever the operators were.
pub const MAX_TREE_DEPTH: usize = 128;

/// Depth of an expression tree (recursion with tiny frames; bounded by the parser's limits).
fn tree_depth(e: &Expr) -> usize {
    let children = |v: &[Expr]| v.iter().map(tree_depth).max().unwrap_or(0);
    1 + match e {
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => children(v),
        Expr::List(v) | Expr::Set(v) | Expr::Tuple(v) | Expr::Union(v) => children(v),
        Expr::Rel { sides, .. } => children(sides),
        Expr::Neg(a) | Expr::Percent(a) => tree_depth(a),
        Expr::Div(a, b) | Expr::Pow(a, b) | Expr::PlusMinus(a, b) => {
            tree_depth(a).max(tree_depth(b))
        }
        Expr::Interval { lo, hi, .. } => tree_depth(lo).max(tree_depth(hi)),
        Expr::Matrix(rows) => rows.iter().map(|r| children(r)).max().unwrap_or(0),
        Expr::Num { .. } | Expr::Sym(_) | Expr::Const(_) | Expr::Text(_) => 0,
    }
}

/// Why an answer could not be parsed as mathematics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing to parse.
    #[error("empty answer")]
    Empty,
    /// Longer than [`MAX_ANSWER_CHARS`].
    #[error("answer longer than {MAX_ANSWER_CHARS} characters")]
    TooLong,
    /// Nested deeper than [`latex::MAX_DEPTH`].
    #[error("nested deeper than {}", latex::MAX_DEPTH)]
    TooDeep,
    /// A token that does not fit here.
    #[error("unexpected {0}")]
    Unexpected(String),
    /// Something required is missing.
    #[error("expected {0}")]
    Expected(String),
    /// A bracket was never closed.
    #[error("unclosed bracket")]
    Unclosed,
    /// A LaTeX command this parser does not know.
    #[error("unknown command \\{0}")]
    UnknownCommand(String),
    /// A malformed number.
    #[error("bad number {0}")]
    Number(String),
}

/// Two-letter words that are units, not products of two variables.
const SHORT_UNITS: &[&str] = &[
    "cm", "mm", "km", "kg", "mg", "ml", "mL", "ft", "hr", "lb", "oz", "yd", "mi", "in", "am", "pm",
    "th", "st", "nd", "rd", "sq", "cc", "Hz", "eV", "Pa", "kJ", "kW", "nm", "pc", "AU", "ms", "ns",
    "mA", "kV", "dB", "mol", "is", "of", "be", "it", "to", "so", "by", "at", "on", "we", "as",
    "an", "no", "No", "if",
];

/// Words that split answers (`1 and 2`, `x = 1 or x = 2`).
fn is_conjunction(w: &str) -> bool {
    matches!(w.to_ascii_lowercase().as_str(), "and" | "or")
}

fn is_known_word(w: &str) -> bool {
    latex::function_named(w).is_some() || matches!(w, "pi" | "inf" | "infty" | "infinity")
}

/// Rewrites the tokens of `\text{…}` and plain words: conjunctions become commas, single
/// letters become variables, known function names stay; anything else is a unit or prose word.
/// Returns the cleaned tokens and what was dropped.
///
/// In LaTeX (`latex` true) a run of up to four letters inside the expression is a product of
/// variables (`LCs^2`, `e^{2it}`); words at the end, after the value, are units (`5 cm`,
/// `12 apples`); longer words elsewhere are prose.
fn classify_words(toks: Vec<Tok>, latex: bool) -> (Vec<Tok>, Dropped) {
    let tail = unit_tail_start(&toks);
    let mut out = Vec::with_capacity(toks.len());
    let mut prose = Dropped::default();
    let mut trig_seen = false;
    let mut iter = toks.into_iter().enumerate().peekable();
    while let Some((i, t)) = iter.next() {
        let mut dropped = false;
        match t {
            Tok::Text(content) => {
                let inner = content.trim().trim_start_matches('~').trim();
                if inner.is_empty() {
                    continue;
                }
                let sub = lexer::lex(inner);
                let only = sub.len() == 1;
                match sub.first() {
                    // `\mathrm{e}`, `\text{i}`: constants; other single letters after a
                    // number are units (`10 \text{m}`).
                    Some(Tok::Letter('e' | 'i')) if only => out.extend(sub),
                    Some(Tok::Letter(_)) if only && !matches!(out.last(), Some(Tok::Num(_))) => {
                        out.extend(sub)
                    }
                    Some(Tok::Num(_)) if only => out.extend(sub),
                    Some(Tok::Word(w)) if only && is_conjunction(w) => out.push(Tok::Comma),
                    Some(Tok::Word(w)) if only && is_percent_word(w) => out.push(Tok::Percent),
                    Some(Tok::Word(w)) if only && is_known_word(w) => out.extend(sub),
                    Some(Tok::Comma) if only => out.push(Tok::Comma),
                    _ => {
                        dropped = true;
                        prose.annotations = true;
                    }
                }
            }
            Tok::Word(w) => {
                let len = w.chars().count();
                let unit = SHORT_UNITS.contains(&w.as_str()) || len >= 3;
                if is_conjunction(&w) {
                    out.push(Tok::Comma);
                } else if is_percent_word(&w) {
                    out.push(Tok::Percent);
                } else if is_known_word(&w) {
                    out.push(Tok::Word(w));
                } else if i >= tail && i > 0 && unit {
                    dropped = true;
                    prose.annotations = true;
                } else if (latex && len <= 4) || (len == 2 && !SHORT_UNITS.contains(&w.as_str())) {
                    out.extend(w.chars().map(Tok::Letter));
                } else {
                    dropped = true;
                    prose.words = true;
                }
            }
            // Degrees only change a value inside a trigonometric function: elsewhere (`60°`)
            // the mark is dropped here, so that nothing else sees it.
            Tok::Degree if !trig_seen => {}
            other => {
                trig_seen |= matches!(&other, Tok::Cmd(c) | Tok::Word(c)
                    if latex::function_named(c).is_some_and(Func::is_trigonometric));
                out.push(other)
            }
        }
        if dropped {
            // A unit's exponent goes with it: `10 \text{cm}^2` is 10.
            if iter.peek().map(|(_, t)| t) == Some(&Tok::Caret) {
                iter.next();
                match iter.next().map(|(_, t)| t) {
                    Some(Tok::LBrace) => {
                        let mut depth = 1usize;
                        for (_, t) in iter.by_ref() {
                            match t {
                                Tok::LBrace => depth += 1,
                                Tok::RBrace => depth -= 1,
                                _ => {}
                            }
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                    Some(Tok::Minus) => {
                        iter.next();
                    }
                    _ => {}
                }
            }
        }
    }
    (out, prose)
}

/// Where the trailing run of unit-like tokens starts (`cm^2`, `m/s`, `\text{ dollars}`):
/// words from there on are units when something comes before them.
fn unit_tail_start(toks: &[Tok]) -> usize {
    let mut i = toks.len();
    while i > 0 {
        match &toks[i - 1] {
            Tok::Word(_) | Tok::Text(_) | Tok::Divide | Tok::Caret => i -= 1,
            Tok::Num(_) if i >= 2 && toks[i - 2] == Tok::Caret => i -= 2,
            Tok::Letter(_) if i >= 2 && toks[i - 2] == Tok::Divide => i -= 2,
            _ => break,
        }
    }
    i
}

/// What [`classify_words`] left out.
#[derive(Debug, Default, Clone, Copy)]
struct Dropped {
    /// Plain words of prose (`apples`, `Monday`).
    words: bool,
    /// `\text{…}` annotations and unit abbreviations (`\text{ cm}`, `km`).
    annotations: bool,
}

fn is_percent_word(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "percent" | "percentage" | "pct"
    )
}

/// Normalises prose for text comparison: LaTeX commands and punctuation dropped, lower case,
/// single spaces.
pub fn normalise_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // Drop the command name, keep its argument's text.
            while chars.peek().is_some_and(char::is_ascii_alphabetic) {
                chars.next();
            }
            out.push(' ');
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else {
            out.push(' ');
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    words.join(" ")
}

/// Layout that is simpler to drop from the string than from the token stream.
fn clean(s: &str) -> String {
    let mut t = s.trim().to_string();
    // Degree marks become `°` (one token for the lexer: see [`lexer::Tok::Degree`]).
    for pat in ["^{\\circ}", "^\\circ", "^{\\circ }", "^\\degree"] {
        if t.contains(pat) {
            t = t.replace(pat, "°");
        }
    }
    for pat in ["^{\\prime\\prime}", "^{\\prime}", "^\\prime", "\\%"] {
        if t.contains(pat) {
            t = t.replace(pat, if pat == "\\%" { "%" } else { "" });
        }
    }
    let t = t.trim();
    let t = t.trim_end_matches(['.', '。']).trim();
    t.to_string()
}

/// Whether the answer is written in LaTeX rather than plain text.
fn is_latex(s: &str) -> bool {
    s.contains(['\\', '^', '_', '{'])
}

fn has_math(toks: &[Tok]) -> bool {
    toks.iter().any(|t| {
        !matches!(
            t,
            Tok::Comma
                | Tok::Degree
                | Tok::Semicolon
                | Tok::LParen
                | Tok::RParen
                | Tok::LBrace
                | Tok::RBrace
                | Tok::Bang
        )
    })
}

/// Whether `s` as a whole is an answer: parseable mathematics without prose around it, or a
/// short phrase of words (a text answer such as `Yes` or `\text{Monday}`).
pub fn is_bare_answer(s: &str) -> bool {
    if s.chars().count() > MAX_ANSWER_CHARS {
        return false;
    }
    let cleaned = clean(s);
    if has_digit_colon(&cleaned) {
        // `S_{ABC} : S = 7 : 32` is its ratio, spaced or not; a clock time may carry `pm`.
        let ratio = ratio_after_label(&cleaned)
            .replace(" :", ":")
            .replace(": ", ":");
        return ratio.split_whitespace().count() <= 2;
    }
    let (toks, dropped) = classify_words(align::flatten(lexer::lex(&cleaned)), is_latex(&cleaned));
    if dropped.words || (dropped.annotations && !has_math(&toks)) {
        return !has_math(&toks) && cleaned.split_whitespace().count() <= 4;
    }
    !toks.is_empty() && latex::parse_tokens(toks).is_ok()
}

/// Words that deny what follows them (`not 5`, `cannot be 5`, `isn't 5`), with either
/// apostrophe.
const NEGATIONS: [&str; 11] = [
    "not", "cannot", "can't", "can’t", "isn't", "isn’t", "never", "neither", "nor", "won't",
    "won’t",
];

/// Whether prose in `s` contains a negation word.
pub fn negated(s: &str) -> bool {
    s.split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '’'))
        .any(|w| NEGATIONS.iter().any(|n| w.eq_ignore_ascii_case(n)))
}

/// Whether a colon stands between two values (`12:00`, `2 : 3`, `\sqrt{2}:1`): a clock time or
/// a ratio. Read as numbers, a colon would be skipped and `\sqrt{2}:1` would be `\sqrt{2}`.
fn has_digit_colon(s: &str) -> bool {
    if !s.contains(':') {
        return false;
    }
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .filter(|(_, c)| **c == b':')
        .any(|(i, _)| {
            let before = s[..i].trim_end().as_bytes().last();
            let after = s[i + 1..].trim_start().as_bytes().first();
            before.is_some_and(|c| c.is_ascii_digit() || matches!(c, b'}' | b')'))
                && after.is_some_and(|c| c.is_ascii_digit() || matches!(c, b'\\' | b'('))
        })
}

/// A labelled ratio (`S_{ABC}:S = 7:32`, `a:b:c = 3:4:5`): the ratio after the label.
fn ratio_after_label(s: &str) -> &str {
    match s.rsplit_once('=') {
        Some((label, ratio)) if label.contains(':') && has_digit_colon(ratio) => ratio,
        _ => s,
    }
}

/// A clock time or ratio (`12:00`, `3:30 pm`, `2:3`) as text without spaces, lower case, so
/// that it equals only the same time or ratio: read as numbers, `12:00` and `1:00` would both
/// be a product with 0. A point between digits stays (`1.5:2` is not `15:2`); others go
/// (`p.m.`).
fn colon_text(s: &str) -> Expr {
    let mut t: String = ratio_after_label(s)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '$')
        .flat_map(char::to_lowercase)
        .collect();
    for layout in ["\\text{", "\\mathrm{", "\\,", "\\!", "\\;", "{", "}"] {
        t = t.replace(layout, "");
    }
    let chars: Vec<char> = t.chars().collect();
    let kept = chars.iter().enumerate().filter(|&(i, c)| match c {
        '~' => false,
        '.' => {
            let digit = |j: Option<&char>| j.is_some_and(char::is_ascii_digit);
            i > 0 && digit(chars.get(i - 1)) && digit(chars.get(i + 1))
        }
        _ => true,
    });
    Expr::Text(kept.map(|(_, c)| *c).collect())
}

/// The answer read with a decimal comma (`1000,99` → `1000.99`, `0,111` → `0.111`), when its
/// one comma sits between digits and cannot separate thousands (not three digits after it, or a
/// lone `0` before it). One digit after a plain comma (`3,5`) reads as two answers unless the
/// comma is braced (`3{,}5`, LaTeX's decimal comma) or follows a lone `0`. Whether the reading
/// applies depends on the other side: see [`crate::math::verify`].
pub fn decimal_comma_reading(answer: &str) -> Option<String> {
    if !answer.contains(',') {
        return None;
    }
    let braced = answer.contains("{,}");
    let t = answer.replace("{,}", ",");
    if t.matches(',').count() != 1 {
        return None;
    }
    let i = t.find(',')?;
    let before = t[..i].bytes().rev().take_while(u8::is_ascii_digit).count();
    let after = t[i + 1..].bytes().take_while(u8::is_ascii_digit).count();
    if before == 0 || after == 0 || t[..i - before].ends_with(['.', ',']) {
        return None;
    }
    let lone_zero = before == 1 && t.as_bytes()[i - 1] == b'0';
    let decimal = lone_zero || (after != 3 && (after != 1 || braced));
    decimal.then(|| format!("{}.{}", &t[..i], &t[i + 1..]))
}

/// Parses one extracted answer.
pub fn parse_answer(answer: &str) -> Result<Expr, ParseError> {
    if answer.chars().count() > MAX_ANSWER_CHARS {
        return Err(ParseError::TooLong);
    }
    let cleaned = clean(answer);
    if has_digit_colon(&cleaned) {
        return Ok(colon_text(&cleaned));
    }
    let toks = align::flatten(lexer::lex(&cleaned));
    let (toks, dropped) = classify_words(toks, is_latex(&cleaned));
    // `not 5`: dropping the prose would leave 5, the very value the answer denies.
    if (dropped.words || dropped.annotations) && (!has_math(&toks) || negated(&cleaned)) {
        let text = normalise_text(&cleaned);
        return if text.is_empty() {
            Err(ParseError::Empty)
        } else {
            Ok(Expr::Text(text))
        };
    }
    let e = latex::parse_tokens(toks)?;
    if tree_depth(&e) > MAX_TREE_DEPTH {
        return Err(ParseError::TooDeep);
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        match parse_answer(s) {
            Ok(e) => e.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn numbers_and_fractions() {
        assert_eq!(show("18"), "18");
        assert_eq!(show("\\frac{1}{2}"), "(1)/(2)");
        assert_eq!(show("\\frac12"), "(1)/(2)");
        assert_eq!(show("\\frac1{2}"), "(1)/(2)");
        assert_eq!(show("-\\dfrac{3}{4}"), "-(3)/(4)");
        assert_eq!(show("7,425,000"), "7425000");
        assert_eq!(show("\\$18.00"), "18");
        assert_eq!(show("50\\%"), "50%");
        assert_eq!(show("30^\\circ"), "30");
        assert_eq!(show("10 \\text{ cm}"), "10");
    }

    #[test]
    fn structures() {
        assert_eq!(show("\\{1,2\\}"), "{1, 2}");
        assert_eq!(show("(1,2]"), "(1, 2]");
        assert_eq!(show("(1,2)"), "(1, 2)");
        assert_eq!(show("[0, \\infty)"), "[0, oo)");
        assert_eq!(show("x=1, x=2"), "x = 1, x = 2");
        assert_eq!(
            show("\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"),
            "Matrix([[1, 2], [3, 4]])"
        );
        assert_eq!(show("1 \\text{ or } 2"), "1, 2");
    }

    #[test]
    fn text_answers() {
        assert_eq!(show("\\text{Yes}"), "\"yes\"");
        assert_eq!(show("Monday"), "\"monday\"");
        assert_eq!(show("\\textbf{(B) Even}"), "\"b even\"");
    }

    #[test]
    fn functions() {
        assert_eq!(show("\\sin^2 x"), "(sin(x))^(2)");
        assert_eq!(show("\\log_2 8"), "log(2, 8)");
        assert_eq!(show("\\sqrt[3]{8}"), "root(3, 8)");
        assert_eq!(show("2\\pi r"), "(2*pi*r)");
    }

    #[test]
    fn hostile_input_errors_cleanly() {
        let deep = "(".repeat(10_000) + &")".repeat(10_000);
        assert!(parse_answer(&deep).is_err());
        let deep_frac = "\\frac{".repeat(200) + "1";
        assert!(parse_answer(&deep_frac).is_err());
        assert!(parse_answer(&"1".repeat(MAX_ANSWER_CHARS + 1)).is_err());
        assert!(parse_answer("\\").is_err());
        assert!(parse_answer("{}").is_err());
    }
}
