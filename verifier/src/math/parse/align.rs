//! Alignment environments (`aligned`, `align*`, `gathered`, `split`, `eqnarray`) hold a
//! derivation written over several lines: `A + B &= … \\ &= M`. Without their layout they are
//! one chain of relations (whose last side is the result) or, when a line starts afresh, a list.

use super::lexer::Tok;

const ALIGN_ENVS: &[&str] = &[
    "aligned", "align", "alignat", "gathered", "gather", "split", "eqnarray", "multline",
];

fn is_align(env: &str) -> bool {
    ALIGN_ENVS.contains(&env)
}

/// Removes alignment environments: their `&` go, and a line break continues the chain when
/// the next line starts with a relation (`\\ &= …`) and separates answers otherwise. Breaks
/// and `&` inside matrices inside them are kept.
pub fn flatten(toks: Vec<Tok>) -> Vec<Tok> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Begin(e) if is_align(e)))
    {
        return toks;
    }
    let mut out = Vec::with_capacity(toks.len());
    // Open environments from the outside in: whether each is an alignment.
    let mut stack: Vec<bool> = Vec::new();
    let mut iter = toks.into_iter().peekable();
    while let Some(t) = iter.next() {
        let in_align = stack.last().copied().unwrap_or(false);
        match t {
            Tok::Begin(e) if is_align(&e) => stack.push(true),
            Tok::End(e) if is_align(&e) => {
                stack.pop();
            }
            Tok::Begin(e) => {
                stack.push(false);
                out.push(Tok::Begin(e));
            }
            Tok::End(e) => {
                stack.pop();
                out.push(Tok::End(e));
            }
            Tok::Amp if in_align => {}
            Tok::RowSep if in_align => {
                while iter.peek() == Some(&Tok::Amp) {
                    iter.next();
                }
                let continues = matches!(iter.peek(), Some(Tok::Rel(_)));
                let ends = matches!(iter.peek(), None | Some(Tok::End(_)));
                if !continues && !ends {
                    out.push(Tok::Comma);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    #[test]
    fn derivations_become_chains_and_lines_become_lists() {
        let chain = flatten(lex("\\begin{aligned} x &= 1+1 \\\\ &= 2 \\end{aligned}"));
        assert_eq!(chain, lex("x = 1+1 = 2"));
        let list = flatten(lex("\\begin{align*} x &= 1 \\\\ y &= 2 \\end{align*}"));
        assert_eq!(list, lex("x = 1, y = 2"));
        let m = "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}";
        let kept = flatten(lex(&format!(
            "\\begin{{aligned}} A &= {m} \\end{{aligned}}"
        )));
        assert_eq!(kept, lex(&format!("A = {m}")));
    }
}
