//! Finding the final answer in a solution or model response. Every pass is a linear scan, so
//! extraction is cheap even on very long responses.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod listing;
mod prose;

use listing::{conclusion_clause, listed_spans};
use prose::{last_number_span, value_in_phrase};

/// Where in the text the answer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The last `\boxed{…}` / `\fbox{…}` (several adjacent ones form a set).
    Boxed,
    /// `The final answer is X`.
    FinalAnswer,
    /// `#### X` (GSM8K).
    Hashes,
    /// `Answer: X` / `the answer is X`.
    AnswerPrefix,
    /// The whole text is itself an answer (a bare gold answer such as `18` or `\frac{1}{2}`).
    WholeText,
    /// The last `$…$`, `\(…\)`, `\[…\]` or `$$…$$`.
    LatexEnvironment,
    /// The last number in the text.
    LastNumber,
}

/// An answer found in a text: one or more answer strings and where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    /// The answer strings (several when the text boxes several answers).
    pub answers: Vec<String>,
    /// Where they were found.
    pub source: Source,
}

impl Extraction {
    fn one(answer: &str, source: Source) -> Option<Self> {
        let a = answer.trim();
        (!a.is_empty()).then(|| Self {
            answers: vec![a.to_string()],
            source,
        })
    }

    /// The answers joined for display.
    pub fn joined(&self) -> String {
        self.answers.join(", ")
    }
}

/// Finds `{…}` starting at byte `open` (which must be `{`); returns the content range end.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.as_bytes()[open..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// All complete `\boxed{…}` / `\fbox{…}` in order: (start of command, end after `}`, content).
fn boxes(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = text[from..].find('\\') {
        let start = from + rel;
        let rest = &text[start + 1..];
        let cmd_len = if rest.starts_with("boxed") {
            5
        } else if rest.starts_with("fbox") {
            4
        } else {
            from = start + 1;
            continue;
        };
        let mut j = start + 1 + cmd_len;
        while text.as_bytes().get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        match text.as_bytes().get(j) {
            Some(b'{') => match matching_brace(text, j) {
                Some(close) => {
                    out.push((start, close + 1, &text[j + 1..close]));
                    from = close + 1;
                }
                // A truncated box: no answer in it.
                None => break,
            },
            // `\boxed 5`: up to the next space or `$`.
            Some(_) if j > start + 1 + cmd_len => {
                let end = text[j..]
                    .find(|c: char| c.is_whitespace() || c == '$')
                    .map_or(text.len(), |k| j + k);
                out.push((start, end, &text[j..end]));
                from = end;
            }
            _ => from = j,
        }
    }
    out
}

fn has_separator_word(gap: &str) -> bool {
    gap.contains(',')
        || gap.contains(';')
        || gap
            .split(|c: char| !c.is_alphabetic())
            .any(|w| w == "and" || w == "or")
}

/// The last boxed answer, plus the boxes just before it when they are listed together
/// (`\boxed{1} and \boxed{2}`).
pub fn boxed(text: &str) -> Option<Extraction> {
    let all = boxes(text);
    let (mut start, _, last) = *all.last()?;
    let mut answers = vec![last.trim().to_string()];
    for &(s, end, content) in all.iter().rev().skip(1) {
        let gap = &text[end..start];
        let content = content.trim();
        let listed = gap.len() < 10 || (gap.len() < 70 && has_separator_word(gap));
        if !listed || answers.iter().any(|a| a == content) {
            break;
        }
        answers.push(content.to_string());
        start = s;
    }
    answers.reverse();
    answers.retain(|a| !a.is_empty());
    (!answers.is_empty()).then_some(Extraction {
        answers,
        source: Source::Boxed,
    })
}

/// Byte index of the last case-insensitive occurrence of an ASCII `needle`.
fn rfind_ci(text: &str, needle: &str) -> Option<usize> {
    let hay = text.as_bytes();
    let n = needle.as_bytes();
    if n.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - n.len())
        .rev()
        .find(|&i| hay[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The math environment at the start of `s` (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), if any.
fn leading_math(s: &str) -> Option<&str> {
    let (open, close) = if s.starts_with("$$") {
        ("$$", "$$")
    } else if s.starts_with('$') {
        ("$", "$")
    } else if s.starts_with("\\(") {
        ("\\(", "\\)")
    } else if s.starts_with("\\[") {
        ("\\[", "\\]")
    } else {
        return None;
    };
    let body = &s[open.len()..];
    let inner = &body[..body.find(close)?];
    // Inline math (`$…$`, `\(…\)`) ends with its line; only display math spans lines.
    (open == "$$" || open == "\\[" || !inner.contains('\n')).then_some(inner)
}

/// Words that join several answers written as separate math spans (`$x = 3$ and $y = 4$`).
const MATH_JOINS: [&str; 5] = [", and ", " and ", ", ", " or ", ", or "];

/// `first` (the leading math of `rest`) extended over the inline spans listed after it:
/// `$x = 3$ and $y = 4$` gives `x = 3$ and $y = 4`, whose inner `$` the lexer skips and whose
/// `and` separates answers. At most eight spans, all on one line.
fn listed_math<'a>(rest: &'a str, first: &'a str) -> &'a str {
    let start = first.as_ptr() as usize - rest.as_ptr() as usize;
    let mut end = start + first.len();
    for _ in 0..8 {
        // Past the closing `$` of the span that ends at `end`.
        let Some(after) = rest[end..].strip_prefix('$') else {
            break;
        };
        let Some(next) = MATH_JOINS.iter().find_map(|j| {
            after
                .strip_prefix(j)
                .filter(|n| n.starts_with('$') && !n.starts_with("$$"))
        }) else {
            break;
        };
        match leading_math(next) {
            Some(m) => end = m.as_ptr() as usize - rest.as_ptr() as usize + m.len(),
            None => break,
        }
    }
    &rest[start..end]
}

/// The answer phrase after an anchor: a math environment, or the text up to the sentence end.
fn phrase_after(rest: &str) -> Option<&str> {
    // Only the next few hundred bytes can hold the phrase; never scan further (keeps repeated
    // anchors on one huge line linear).
    let mut cut = rest.len().min(1024);
    while !rest.is_char_boundary(cut) {
        cut -= 1;
    }
    let rest = rest[..cut]
        .trim_start_matches([':', ' ', '\t', '*'])
        .trim_start();
    if let Some(m) = leading_math(rest) {
        return Some(listed_math(rest, m));
    }
    let line = rest.lines().next().unwrap_or("");
    let mut end = line.len();
    for stop in [". ", ".$", "I hope", "</", ".<"] {
        if let Some(k) = line.find(stop) {
            end = end.min(k);
        }
    }
    let phrase = line[..end].trim().trim_end_matches(['.', '*']).trim();
    (!phrase.is_empty() && phrase.len() <= 300).then(|| value_in_phrase(phrase))
}

/// `The final answer is X` (the Minerva/MATH few-shot format).
pub fn final_answer(text: &str) -> Option<Extraction> {
    let i = rfind_ci(text, "final answer is")?;
    Extraction::one(phrase_after(&text[i + 15..])?, Source::FinalAnswer)
}

/// `#### X` (GSM8K).
pub fn hashes(text: &str) -> Option<Extraction> {
    let i = text.rfind("####")?;
    let line = text[i + 4..].lines().next().unwrap_or("");
    Extraction::one(line.trim().trim_end_matches('.'), Source::Hashes)
}

/// How many `answer` anchors (from the end) are tried.
const MAX_ANCHORS: usize = 16;

/// `Answer: X`, `the answer is X`, `answer = X`.
pub fn answer_prefix(text: &str) -> Option<Extraction> {
    let mut end = text.len();
    // The answer sits near the end: looking at the last few anchors bounds the work.
    for _ in 0..MAX_ANCHORS {
        let Some(i) = rfind_ci(&text[..end], "answer") else {
            break;
        };
        let rest = text[i + 6..].trim_start_matches(['*', ' ']);
        let after = [":", "is", "=", "would be", "will be", "should be"]
            .iter()
            .find_map(|p| {
                let r = rest.strip_prefix(p)?;
                // `is` must be a whole word (not "isn't").
                let word_goes_on = r.starts_with(|c: char| c.is_alphanumeric() || c == '\'');
                (!p.ends_with(char::is_alphabetic) || !word_goes_on).then_some(r)
            })
            // `the answer cannot be 5`: the denial is the answer phrase (it compares as text).
            .or_else(|| {
                let first = rest.split_whitespace().next()?;
                super::parse::negated(first).then_some(rest)
            });
        if let Some(after) = after
            && let Some(phrase) = phrase_after(after)
        {
            return Extraction::one(phrase, Source::AnswerPrefix);
        }
        end = i;
    }
    None
}

/// The last LaTeX math environment: (end of the environment, content).
fn last_environment(text: &str) -> Option<(usize, &str)> {
    let mut best: Option<(usize, &str)> = None;
    for (open, close) in [("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")] {
        if let Some(end) = text.rfind(close)
            && let Some(start) = text[..end].rfind(open)
            && start + open.len() <= end
            && best.is_none_or(|(e, _)| end + close.len() > e)
            && !text[start + open.len()..end].trim().is_empty()
            // Inline math ends with its line.
            && (open != "\\(" || !text[start..end].contains('\n'))
        {
            best = Some((end + close.len(), &text[start + open.len()..end]));
        }
    }
    // Single dollars: pair them from the left, remembering the last complete pair.
    let mut open: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Inline math ends with its line: a `$` never pairs with one on another line.
        if bytes[i] == b'\n' {
            open = None;
        }
        if bytes[i] == b'$' && (i == 0 || bytes[i - 1] != b'\\') {
            if bytes.get(i + 1) == Some(&b'$') {
                i += 2;
                open = None;
                continue;
            }
            match open {
                None => open = Some(i),
                // `$18 and $36`: a dollar before a digit is a currency sign, not a closer.
                Some(_) if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => open = Some(i),
                Some(s) => {
                    if best.is_none_or(|(e, _)| i + 1 > e) && !text[s + 1..i].trim().is_empty() {
                        best = Some((i + 1, &text[s + 1..i]));
                    }
                    open = None;
                }
            }
        }
        i += 1;
    }
    best
}

/// The last LaTeX math environment.
pub fn latex_environment(text: &str) -> Option<Extraction> {
    Extraction::one(last_environment(text)?.1, Source::LatexEnvironment)
}

/// The last number in the text (with sign, thousands separators, decimals and `%`).
pub fn last_number(text: &str) -> Option<Extraction> {
    Extraction::one(last_number_span(text)?.1, Source::LastNumber)
}

/// Whichever comes last: a math environment or a plain number (`$x = 2$, so 3 apples` → 3);
/// an environment with the spans that list the same unknown before it (`$x = 1$ or $x = 4$`).
pub fn last_math(text: &str) -> Option<Extraction> {
    let env = |env| Extraction::one(listed_spans(text, env), Source::LatexEnvironment);
    match (last_environment(text), last_number_span(text)) {
        (Some((e, found)), Some((n, _))) if e >= n => env(found),
        (_, Some((_, num))) => Extraction::one(num, Source::LastNumber),
        (Some((_, found)), None) => env(found),
        (None, None) => None,
    }
}

/// The value a concluding sentence states before a remark with numbers in it (`So the total
/// is $600, which is 12% of it.` → 600).
pub fn conclusion(text: &str) -> Option<Extraction> {
    last_math(conclusion_clause(text)?)
}

/// Whether the whole (short) text reads as an answer by itself rather than as prose.
pub fn whole_text(text: &str) -> Option<Extraction> {
    let t = text.trim();
    if t.is_empty() || t.len() > super::parse::MAX_ANSWER_CHARS || t.contains('\n') {
        return None;
    }
    super::parse::is_bare_answer(t).then(|| Extraction::one(t, Source::WholeText))?
}

/// Extraction passes in priority order.
pub const PASSES: [fn(&str) -> Option<Extraction>; 7] = [
    boxed,
    final_answer,
    hashes,
    answer_prefix,
    whole_text,
    conclusion,
    last_math,
];

/// The first answer found by the passes in priority order.
pub fn extract(text: &str) -> Option<Extraction> {
    PASSES.iter().find_map(|pass| pass(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(s: &str) -> Option<(Vec<String>, Source)> {
        extract(s).map(|e| (e.answers, e.source))
    }

    #[test]
    fn boxed_answers() {
        assert_eq!(
            ex("so \\boxed{\\frac{1}{2}}."),
            Some((vec!["\\frac{1}{2}".into()], Source::Boxed))
        );
        assert_eq!(
            ex("first \\boxed{3} then lots of other text here ... \\boxed{5}"),
            Some((vec!["5".into()], Source::Boxed))
        );
        assert_eq!(
            ex("$\\boxed{1}$ and $\\boxed{2}$"),
            Some((vec!["1".into(), "2".into()], Source::Boxed))
        );
        assert_eq!(ex("\\fbox{7}"), Some((vec!["7".into()], Source::Boxed)));
        // A truncated box holds no answer.
        assert_eq!(ex("\\boxed{{a}"), None);
    }

    #[test]
    fn anchors() {
        assert_eq!(
            ex("Final Answer: The final answer is $18$. I hope it is correct."),
            Some((vec!["18".into()], Source::FinalAnswer))
        );
        assert_eq!(
            ex("She makes 9 * 2 = $18.\n#### 18"),
            Some((vec!["18".into()], Source::Hashes))
        );
        assert_eq!(
            ex("Thus the answer is 42 apples. Done."),
            Some((vec!["42 apples".into()], Source::AnswerPrefix))
        );
        assert_eq!(
            ex("We get $x=3$ in the end"),
            Some((vec!["x=3".into()], Source::LatexEnvironment))
        );
        assert_eq!(
            ex("so it costs 1,234.5 dollars in total"),
            Some((vec!["1,234.5".into()], Source::LastNumber))
        );
        assert_eq!(
            ex("\\frac{1}{2}"),
            Some((vec!["\\frac{1}{2}".into()], Source::WholeText))
        );
        assert_eq!(ex("no digits here at all"), None);
        assert_eq!(
            ex("She makes $18 per day and $36 per week"),
            Some((vec!["36".into()], Source::LastNumber))
        );
        assert_eq!(
            ex("So $x = 2$, and then 3 apples are left"),
            Some((vec!["3".into()], Source::LastNumber))
        );
    }
}
