//! Splits an answer written in LaTeX or plain text into tokens, dropping pure layout
//! (`\left`, `\,`, `$`, `^\circ`, …) on the way.

use crate::math::expr::RelOp;

/// One lexical unit of an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A number literal, separators removed (`7425000`, `1.5`, `3.3e12`).
    Num(String),
    /// A single letter variable.
    Letter(char),
    /// A run of two or more plain letters (`cm`, `sin`, `yes`).
    Word(String),
    /// A backslash command without the backslash (`frac`, `alpha`).
    Cmd(String),
    /// The raw content of `\text{…}`, `\mathrm{…}`, `\mbox{…}`, `\operatorname{…}`.
    Text(String),
    /// `\begin{env}`.
    Begin(String),
    /// `\end{env}`.
    End(String),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBrack,
    /// `]`
    RBrack,
    /// `\{`
    LSet,
    /// `\}`
    RSet,
    /// `\langle`
    LAngle,
    /// `\rangle`
    RAngle,
    /// `+`
    Plus,
    /// `-` (and Unicode minus signs)
    Minus,
    /// `\pm`
    PlusMinus,
    /// `*`, `\cdot`, `\times`
    Times,
    /// `/`, `\div`
    Divide,
    /// `^`
    Caret,
    /// `_`
    Underscore,
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// `!`
    Bang,
    /// `%`
    Percent,
    /// `|`
    Pipe,
    /// `&`
    Amp,
    /// `\\`
    RowSep,
    /// `'`
    Prime,
    /// A comparison operator.
    Rel(RelOp),
    /// `\in`
    In,
    /// `\cup`
    Cup,
    /// A degree mark (`°`, `^\circ`): turns an angle into radians inside a trigonometric
    /// function, and is dropped everywhere else.
    Degree,
}

/// Commands that only affect layout and are skipped entirely.
const LAYOUT: &[&str] = &[
    "left",
    "right",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "middle",
    "displaystyle",
    "textstyle",
    "scriptstyle",
    "quad",
    "qquad",
    "limits",
    "nolimits",
    "circ",
    "degree",
    "dollar",
    "mathdollar",
    "euro",
    "pounds",
    "cdots",
    "ldots",
    "dots",
    "hline",
    "phantom",
    "mathstrut",
    "strut",
    "hfill",
    "displaylines",
    "noindent",
];

/// Commands whose braced argument is taken as raw text.
const TEXT_CMDS: &[&str] = &[
    "text",
    "textrm",
    "textnormal",
    "textbf",
    "textit",
    "textsf",
    "texttt",
    "mathrm",
    "mbox",
    "operatorname",
    "mathit",
    "mathsf",
    "mathtt",
    "hbox",
    "emph",
];

/// Tokenises `s`. Never fails: unknown characters are skipped.
pub fn lex(s: &str) -> Vec<Tok> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::with_capacity(chars.len() / 2 + 1);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() || c == '~' || c == '$' => i += 1,
            '0'..='9' => i = lex_number(&chars, i, &mut out),
            '.' if chars.get(i + 1).is_some_and(char::is_ascii_digit) => {
                i = lex_number(&chars, i, &mut out)
            }
            '\\' => i = lex_command(&chars, i, &mut out),
            c if c.is_alphabetic() => {
                let start = i;
                while i < chars.len() && chars[i].is_alphabetic() {
                    i += 1;
                }
                if i - start == 1 {
                    out.push(Tok::Letter(c));
                } else {
                    out.push(Tok::Word(chars[start..i].iter().collect()));
                }
            }
            _ => {
                i += 1;
                let tok = match c {
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '[' => Tok::LBrack,
                    ']' => Tok::RBrack,
                    '⟨' => Tok::LAngle,
                    '⟩' => Tok::RAngle,
                    '+' => Tok::Plus,
                    '-' | '−' | '–' | '—' | '‐' | '‒' | '﹣' | '－' => Tok::Minus,
                    '±' => Tok::PlusMinus,
                    '*' | '×' | '·' | '⋅' | '∙' => Tok::Times,
                    '/' | '÷' => Tok::Divide,
                    '^' => Tok::Caret,
                    '_' => Tok::Underscore,
                    ',' | '，' => Tok::Comma,
                    ';' => Tok::Semicolon,
                    '!' => Tok::Bang,
                    '%' | '％' => Tok::Percent,
                    '|' => Tok::Pipe,
                    '&' => Tok::Amp,
                    '\'' | '′' => Tok::Prime,
                    '∪' => Tok::Cup,
                    '∈' => Tok::In,
                    '°' => Tok::Degree,
                    'π' => Tok::Cmd("pi".into()),
                    '∞' => Tok::Cmd("infty".into()),
                    '√' => Tok::Cmd("sqrt".into()),
                    '=' => Tok::Rel(RelOp::Eq),
                    '≠' => Tok::Rel(RelOp::Ne),
                    '≤' | '⩽' => Tok::Rel(RelOp::Le),
                    '≥' | '⩾' => Tok::Rel(RelOp::Ge),
                    '≈' => Tok::Rel(RelOp::Eq),
                    '<' | '>' => {
                        let strict = if c == '<' { RelOp::Lt } else { RelOp::Gt };
                        if chars.get(i) == Some(&'=') {
                            i += 1;
                            Tok::Rel(if c == '<' { RelOp::Le } else { RelOp::Ge })
                        } else {
                            Tok::Rel(strict)
                        }
                    }
                    // Currency signs, quotes and anything unknown carry no value.
                    _ => continue,
                };
                // `!=` is "not equal", not a factorial followed by `=`.
                if tok == Tok::Rel(RelOp::Eq) && out.last() == Some(&Tok::Bang) {
                    out.pop();
                    out.push(Tok::Rel(RelOp::Ne));
                } else {
                    out.push(tok);
                }
            }
        }
    }
    out
}

fn digits_at(chars: &[char], i: usize) -> usize {
    chars[i.min(chars.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
}

/// Length of a thousands separator at `i` followed by exactly three digits, if any.
fn thousands_sep(chars: &[char], i: usize) -> Option<usize> {
    let sep = match chars.get(i) {
        // `16,\!386` and `16,\,386`: a comma with a negative or thin space after it.
        Some(',')
            if chars.get(i + 1) == Some(&'\\') && matches!(chars.get(i + 2), Some('!' | ',')) =>
        {
            3
        }
        Some(',') | Some(' ') | Some('\u{202f}') | Some('\u{a0}') => 1,
        Some('{') if chars.get(i + 1) == Some(&',') && chars.get(i + 2) == Some(&'}') => 3,
        Some('\\') if matches!(chars.get(i + 1), Some(',') | Some('!') | Some(' ')) => 2,
        _ => return None,
    };
    // A typeset separator may be followed by a source space (`11,\! 111,\! 100`); a plain
    // comma may not (`1, 000` is a list).
    let sep = if sep > 1 {
        sep + chars[i + sep..].iter().take_while(|c| **c == ' ').count()
    } else {
        sep
    };
    let n = digits_at(chars, i + sep);
    let after = chars.get(i + sep + n);
    let ends_clean = !matches!(after, Some(c) if c.is_alphanumeric());
    (n == 3 && ends_clean).then_some(sep)
}

fn lex_number(chars: &[char], start: usize, out: &mut Vec<Tok>) -> usize {
    let mut text = String::new();
    let mut i = start;
    let lead = digits_at(chars, i);
    text.extend(&chars[i..i + lead]);
    i += lead;
    // A leading `0` never starts a thousands group: `0,111` is not 111.
    if lead > 0 && lead <= 3 && !(lead == 1 && chars[start] == '0') {
        while let Some(sep) = thousands_sep(chars, i) {
            text.extend(&chars[i + sep..i + sep + 3]);
            i += sep + 3;
        }
    }
    if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
        let n = digits_at(chars, i + 1);
        text.push('.');
        text.extend(&chars[i + 1..i + 1 + n]);
        i += 1 + n;
    }
    // Scientific notation glued to the digits: 3.3e12, 2.55e-10 (but not 2e alone or 2ex).
    if matches!(chars.get(i), Some('e') | Some('E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+') | Some('-')) {
            j += 1;
        }
        let n = digits_at(chars, j);
        if n > 0 && !chars.get(j + n).is_some_and(|c| c.is_alphabetic()) {
            text.push('e');
            text.extend(&chars[i + 1..j + n]);
            i = j + n;
        }
    }
    out.push(Tok::Num(text));
    i
}

/// Reads a balanced `{…}` group starting at `i` (which must be `{`); returns content and end.
fn brace_group(chars: &[char], i: usize) -> Option<(String, usize)> {
    if chars.get(i) != Some(&'{') {
        return None;
    }
    let mut depth = 0usize;
    for (j, &c) in chars.iter().enumerate().skip(i) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((chars[i + 1..j].iter().collect(), j + 1));
                }
            }
            _ => {}
        }
    }
    None
}

fn skip_spaces(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn lex_command(chars: &[char], start: usize, out: &mut Vec<Tok>) -> usize {
    let i = start + 1;
    let Some(&c) = chars.get(i) else {
        return i;
    };
    if !c.is_ascii_alphabetic() {
        let tok = match c {
            '{' => Some(Tok::LSet),
            '}' => Some(Tok::RSet),
            '\\' => Some(Tok::RowSep),
            '%' => Some(Tok::Percent),
            '|' => Some(Tok::Pipe),
            '(' | ')' | '[' | ']' => None,
            _ => None, // \, \; \! \: \  \$ and friends are spacing or currency
        };
        if let Some(t) = tok {
            out.push(t);
        }
        return i + 1;
    }
    let mut j = i;
    while chars.get(j).is_some_and(char::is_ascii_alphabetic) {
        j += 1;
    }
    let name: String = chars[i..j].iter().collect();
    if TEXT_CMDS.contains(&name.as_str()) {
        let k = skip_spaces(chars, j);
        return match brace_group(chars, k) {
            Some((content, end)) => {
                out.push(Tok::Text(content));
                end
            }
            None => j,
        };
    }
    if name == "begin" || name == "end" {
        let k = skip_spaces(chars, j);
        if let Some((env, mut end)) = brace_group(chars, k) {
            let env = env.trim_end_matches('*').to_string();
            if name == "begin" {
                // `\begin{array}{cc}`: the column spec is layout.
                if env == "array"
                    && let Some((_, e2)) = brace_group(chars, skip_spaces(chars, end))
                {
                    end = e2;
                }
                out.push(Tok::Begin(env));
            } else {
                out.push(Tok::End(env));
            }
            return end;
        }
        return j;
    }
    // `\not=`, `\not<`, `\not>`: the negated relation.
    if name == "not" {
        let k = skip_spaces(chars, j);
        let negated = match chars.get(k) {
            Some('=') => Some(RelOp::Ne),
            Some('<') => Some(RelOp::Ge),
            Some('>') => Some(RelOp::Le),
            _ => None,
        };
        if let Some(op) = negated {
            out.push(Tok::Rel(op));
            return k + 1;
        }
    }
    if LAYOUT.contains(&name.as_str()) {
        // `\left.` and `\right.` are invisible delimiters.
        if (name == "left" || name == "right") && chars.get(j) == Some(&'.') {
            return j + 1;
        }
        return j;
    }
    let tok = match name.as_str() {
        "cdot" | "times" | "ast" => Tok::Times,
        "div" => Tok::Divide,
        "pm" | "mp" => Tok::PlusMinus,
        "le" | "leq" | "leqslant" | "leqq" => Tok::Rel(RelOp::Le),
        "ge" | "geq" | "geqslant" | "geqq" => Tok::Rel(RelOp::Ge),
        "lt" => Tok::Rel(RelOp::Lt),
        "gt" => Tok::Rel(RelOp::Gt),
        "ne" | "neq" => Tok::Rel(RelOp::Ne),
        "approx" | "simeq" | "cong" | "equiv" | "doteq" => Tok::Rel(RelOp::Eq),
        "in" => Tok::In,
        "cup" => Tok::Cup,
        "langle" => Tok::LAngle,
        "rangle" => Tok::RAngle,
        "lbrace" => Tok::LSet,
        "rbrace" => Tok::RSet,
        "lvert" | "rvert" | "vert" | "mid" => Tok::Pipe,
        "lbrack" => Tok::LBrack,
        "rbrack" => Tok::RBrack,
        "colon" => Tok::Rel(RelOp::Eq),
        _ => Tok::Cmd(name),
    };
    out.push(tok);
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_separators_and_exponents() {
        assert_eq!(lex("7,425,000"), vec![Tok::Num("7425000".into())]);
        assert_eq!(lex("1 000"), vec![Tok::Num("1000".into())]);
        assert_eq!(lex("1{,}000.5"), vec![Tok::Num("1000.5".into())]);
        assert_eq!(lex("16,\\!386.2"), vec![Tok::Num("16386.2".into())]);
        assert_eq!(lex("1,\\,000"), vec![Tok::Num("1000".into())]);
        assert_eq!(lex("11,\\! 111,\\! 100"), vec![Tok::Num("11111100".into())]);
        assert_eq!(lex("1\\, 000"), vec![Tok::Num("1000".into())]);
        assert_eq!(lex("12,\\! 34")[0], Tok::Num("12".into()));
        assert_eq!(lex("0,111")[0], Tok::Num("0".into()));
        assert_eq!(lex("3.3e12"), vec![Tok::Num("3.3e12".into())]);
        assert_eq!(
            lex("1, 2"),
            vec![Tok::Num("1".into()), Tok::Comma, Tok::Num("2".into())]
        );
        assert_eq!(lex("2e"), vec![Tok::Num("2".into()), Tok::Letter('e')]);
    }

    #[test]
    fn layout_is_dropped() {
        assert_eq!(
            lex("\\left( x \\right)"),
            vec![Tok::LParen, Tok::Letter('x'), Tok::RParen]
        );
        assert_eq!(lex("\\$5"), vec![Tok::Num("5".into())]);
        assert_eq!(lex("\\text{ cm}"), vec![Tok::Text(" cm".into())]);
        assert_eq!(lex("x \\le 1")[1], Tok::Rel(RelOp::Le));
        assert_eq!(lex("−3")[0], Tok::Minus);
    }
}
