//! Values inside prose: the value an answer sentence states (`the largest $n$ is 34`), and the
//! last number of a text that stands on its own (not glued to a word, not inside broken inline
//! math). Every scan is linear in the text.

use super::leading_math;

/// Verbs after which a sentence states its value (`the largest $n$ is 34`).
const COPULAS: [&str; 6] = [" is ", " are ", " equals ", " was ", " be ", " becomes "];

/// The value a prose answer phrase states: the phrase itself when it reads as an answer
/// (`42 apples`, `\text{Yes}`), else the value after its last copula, else its leading value
/// (`34 because 34 > 30`). Falls back to the phrase, which then compares as text.
pub(super) fn value_in_phrase(phrase: &str) -> &str {
    // One token (`18`, `\frac{1}{2}`) is an answer as it stands: no need to look further. A
    // denial (`cannot be 5`) states no value: it stays prose, which compares as text.
    if !phrase.contains(' ') || crate::math::parse::negated(phrase) {
        return phrase;
    }
    let lower = phrase.to_ascii_lowercase();
    let after = COPULAS
        .iter()
        .filter_map(|c| lower.rfind(c).map(|i| i + c.len()))
        .max()
        .map_or(phrase, |i| &phrase[i..]);
    match leading_value(after.trim_start()) {
        // Parsing is the costly step: only when the phrase could be read otherwise.
        Some(v) if v != phrase && !crate::math::parse::is_bare_answer(phrase) => v,
        _ => phrase,
    }
}

/// The value at the start of `s`: a math environment, or the characters up to the first word
/// of prose (`12 red marbles` → `12`, `3/4, so` → `3/4`).
fn leading_value(s: &str) -> Option<&str> {
    if let Some(m) = leading_math(s) {
        return Some(m);
    }
    if !s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
        return None;
    }
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        let prose = c == ' ' && s[i + 1..].starts_with(|c: char| c.is_alphabetic() || c == '(');
        if prose || c == '$' || (c == ',' && s[i + 1..].starts_with(' ')) {
            end = i;
            break;
        }
    }
    let v = s[..end].trim().trim_end_matches(['.', ',', ';']);
    v.contains(|c: char| c.is_ascii_digit()).then_some(v)
}

/// Thousands separators written in LaTeX between digit groups (`16,\!386`, `1\,000`, `1{,}000`).
const LATEX_SEPARATORS: [&str; 4] = [",\\!", ",\\,", "\\,", "{,}"];

/// The last number that stands on its own: (end of the number, its text). A number glued to a
/// letter before it (`AZYUK2A`, `CO2`, `x10`) is part of a word, and one inside inline math
/// whose delimiters are split across lines (`$ \n 9 \n $`) is not an answer; both are skipped.
pub(super) fn last_number_span(text: &str) -> Option<(usize, &str)> {
    let b = text.as_bytes();
    let mut i = b.len();
    loop {
        // Find the last digit.
        while i > 0 && !b[i - 1].is_ascii_digit() {
            i -= 1;
        }
        if i == 0 {
            return None;
        }
        let end = i;
        let start = number_start(text, end);
        if start > 0 && b[start - 1].is_ascii_alphabetic() {
            i = start - 1;
            continue;
        }
        if let Some(open) = split_inline_open(text, start, end) {
            i = open;
            continue;
        }
        // A plain fraction in prose (`is 2/3.`) is one number.
        let start = if start > 1 && b[start - 1] == b'/' && b[start - 2].is_ascii_digit() {
            number_start(text, start - 1)
        } else {
            start
        };
        let start = if start > 0 && b[start - 1] == b'-' {
            start - 1
        } else {
            start
        };
        let mut stop = end;
        let tail = &text[end..];
        let trimmed = tail.trim_start();
        if trimmed.starts_with('%') || trimmed.starts_with("\\%") {
            stop =
                end + (tail.len() - trimmed.len()) + if trimmed.starts_with('%') { 1 } else { 2 };
        }
        return Some((stop, &text[start..stop]));
    }
}

/// Where the digits (with separators, decimals and clock colons) ending at `end` start.
fn number_start(text: &str, end: usize) -> usize {
    let b = text.as_bytes();
    let mut start = end;
    while start > 0 {
        let c = b[start - 1];
        let sep_ok = matches!(c, b',' | b'.' | b':')
            && start >= 2
            && b[start - 2].is_ascii_digit()
            && start < end;
        if c.is_ascii_digit() || sep_ok {
            start -= 1;
            continue;
        }
        let latex_sep = LATEX_SEPARATORS.iter().find(|s| {
            text[..start].ends_with(**s)
                && start > s.len()
                && b[start - s.len() - 1].is_ascii_digit()
                && start < end
        });
        match latex_sep {
            Some(s) => start -= s.len(),
            None => break,
        }
    }
    start
}

/// How far (bytes) around a number to look for split inline delimiters: inline math is short,
/// and a bounded window keeps the scan linear however many numbers are rejected.
const SPLIT_WINDOW: usize = 512;

/// `i` moved towards `toward` until it is a char boundary of `text`.
fn boundary(text: &str, mut i: usize, toward_end: bool) -> usize {
    while !text.is_char_boundary(i) {
        if toward_end { i += 1 } else { i -= 1 }
    }
    i
}

/// When the number at `start..end` sits between inline delimiters that are split across lines
/// (`$ \n 9 \n $`, `\( \n 9 \n \)`), the position of the opening delimiter.
fn split_inline_open(text: &str, start: usize, end: usize) -> Option<usize> {
    let lo = boundary(text, start.saturating_sub(SPLIT_WINDOW), true);
    let hi = boundary(text, (end + SPLIT_WINDOW).min(text.len()), false);
    for (open, close) in [("$", "$"), ("\\(", "\\)")] {
        let Some(o) = text[lo..start].rfind(open).map(|k| lo + k) else {
            continue;
        };
        let after_open = &text[o + open.len()..start];
        // A `$` before a digit is a currency sign; `$$` is display math, which may span lines.
        let currency = open == "$" && text[o + 1..].starts_with(|c: char| c.is_ascii_digit());
        let display = open == "$" && (text[..o].ends_with('$') || text[o + 1..].starts_with('$'));
        if currency || display || (open == "\\(" && after_open.contains(close)) {
            continue;
        }
        // The `$` must open a span on its line (an odd count of single `$` up to it there),
        // not close one (`$x$ …`).
        let line_start = text[lo..o].rfind('\n').map_or(lo, |k| lo + k + 1);
        if open == "$" && text[line_start..=o].matches('$').count().is_multiple_of(2) {
            continue;
        }
        if let Some(c) = text[end..hi].find(close)
            && text[o..end + c].contains('\n')
        {
            return Some(o);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last(text: &str) -> Option<&str> {
        last_number_span(text).map(|(_, n)| n)
    }

    #[test]
    fn numbers_glued_to_words_or_in_broken_math_are_skipped() {
        assert_eq!(last("AZYUK2A"), None);
        assert_eq!(last("it is 5, not CO2"), Some("5"));
        assert_eq!(last("It takes 5min."), Some("5"));
        assert_eq!(last("Answer $ \n 9 \n $"), None);
        assert_eq!(last("Answer \\( \n 9 \n \\)"), None);
        // A closing `$` of an earlier span does not open a broken one.
        assert_eq!(last("Let $x$ be it.\nThen 7 remain, see $y$"), Some("7"));
        assert_eq!(last("costs $5\nand then 6"), Some("6"));
    }

    #[test]
    fn separators_and_clock_times_stay_in_the_number() {
        assert_eq!(last("total \\$16,\\!386.20."), Some("16,\\!386.20"));
        assert_eq!(last("about 1\\,000 of them"), Some("1\\,000"));
        assert_eq!(last("at 3:30."), Some("3:30"));
        assert_eq!(last("down by -7%"), Some("-7%"));
        assert_eq!(last("so it is 2/3. <|im_start|>user"), Some("2/3"));
    }

    #[test]
    fn an_answer_sentence_yields_its_value() {
        assert_eq!(value_in_phrase("The largest $n$ is 34"), "34");
        assert_eq!(value_in_phrase("34 because 34 > 30"), "34");
        assert_eq!(value_in_phrase("There are 12 red marbles"), "12");
        assert_eq!(value_in_phrase("42 apples"), "42 apples");
        assert_eq!(
            value_in_phrase("the value is unknown"),
            "the value is unknown"
        );
    }
}
