//! Answers stated across several inline spans: `$x = -1$ or $x = 4$` as one list, and the value
//! a concluding sentence states before a remark (`So the interest is $600, which is 12% of it.`).

/// Joins before the last span that continue a list of solutions.
const JOINS: [&str; 5] = [", or ", " or ", ", and ", " and ", ", "];

/// The unknown and operator that open a span (`x` and `=` for `x = -1`, `x` for `x_1 = 2`).
fn unknown_and_relation(span: &str) -> Option<(char, bool)> {
    let s = span.trim_start();
    let mut chars = s.chars();
    let unknown = chars.next().filter(char::is_ascii_alphabetic)?;
    let rest = chars.as_str();
    // `x_1`, `x_{2}`: an index of the same unknown.
    let rest = match rest.strip_prefix('_') {
        Some(r) => r
            .trim_start_matches(['{', '}'])
            .trim_start_matches(|c: char| c.is_ascii_digit()),
        None => rest,
    };
    let rest = rest.trim_start_matches('}').trim_start();
    let equation = rest.starts_with('=');
    let inequality = [
        "<", ">", "\\le", "\\ge", "\\lt", "\\gt", "\\ne", "≤", "≥", "≠",
    ]
    .iter()
    .any(|r| rest.starts_with(r));
    (equation || inequality).then_some((unknown, equation))
}

/// `last` (the content of the last inline `$…$` span of `text`) extended back over the spans
/// listed before it on its line when every span states the same unknown (`$x = -1$ or $x = 4$`,
/// `$x < -1$ or $x > 2$`). Inequalities join only with `or`: `$x > 1$ and $x < 5$` is an
/// intersection, which a list (read as a union) would misstate.
pub(super) fn listed_spans<'a>(text: &'a str, last: &'a str) -> &'a str {
    let Some((unknown, _)) = unknown_and_relation(last) else {
        return last;
    };
    let end = last.as_ptr() as usize - text.as_ptr() as usize + last.len();
    let mut start = last.as_ptr() as usize - text.as_ptr() as usize;
    for _ in 0..8 {
        // Before the opening `$` of the span that starts at `start`.
        let Some(before) = text[..start].strip_suffix('$') else {
            break;
        };
        let Some((join, rest)) = JOINS
            .iter()
            .find_map(|j| before.strip_suffix(j).map(|r| (*j, r)))
        else {
            break;
        };
        let Some(body) = rest.strip_suffix('$') else {
            break;
        };
        let Some(open) = body.rfind('$') else {
            break;
        };
        let span = &body[open + 1..];
        if span.contains('\n') || span.is_empty() {
            break;
        }
        match unknown_and_relation(span) {
            Some((u, equation)) if u == unknown && (equation || join.contains("or")) => {
                start = open + 1;
            }
            _ => break,
        }
    }
    &text[start..end]
}

/// Words that open a concluding sentence.
const CONCLUSIONS: [&str; 8] = [
    "so ",
    "thus",
    "therefore",
    "hence",
    "in total",
    "in conclusion",
    "altogether",
    "overall",
];

/// Words that open a remark after the value a sentence states (`, which is 12% of it`).
const REMARKS: [&str; 10] = [
    "which", "since", "because", "after", "before", "enough", "while", "given", "as", "not",
];

/// The main clause of a concluding last sentence whose value is followed by a remark with
/// numbers in it: `So the total is $600` of `So the total is $600, which is 12% of it.` (the
/// last number there would be the remark's). `None` for any other text.
pub(super) fn conclusion_clause(text: &str) -> Option<&str> {
    let body = text.trim_end().trim_end_matches('.');
    let start = [". ", ".\n", "\n"]
        .iter()
        .filter_map(|d| body.rfind(d).map(|i| i + d.len()))
        .max()
        .unwrap_or(0);
    let sentence = body[start..].trim_start();
    let lower = sentence.get(..16).unwrap_or(sentence).to_ascii_lowercase();
    if !CONCLUSIONS.iter().any(|c| lower.starts_with(c)) {
        return None;
    }
    let mut from = 0;
    while let Some(k) = sentence[from..].find(", ").map(|k| from + k) {
        let word = sentence[k + 2..]
            .split(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or("");
        let remark = REMARKS.iter().any(|r| word.eq_ignore_ascii_case(r));
        let has_digit = |s: &str| s.contains(|c: char| c.is_ascii_digit());
        if remark && has_digit(&sentence[..k]) {
            return has_digit(&sentence[k..]).then(|| &sentence[..k]);
        }
        from = k + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `listed_spans` from the last `$…$` span of `t`.
    fn listed(t: &str) -> &str {
        let close = t.rfind('$').unwrap_or(0);
        let open = t[..close].rfind('$').map_or(0, |i| i + 1);
        listed_spans(t, &t[open..close])
    }

    #[test]
    fn spans_of_one_unknown_join() {
        assert_eq!(listed("so $x = -1$ or $x = 4$"), "x = -1$ or $x = 4");
        assert_eq!(listed("$x_1 = 2$, $x_2 = 3$"), "x_1 = 2$, $x_2 = 3");
        assert_eq!(listed("so $x > 1$ and $x < 5$"), "x < 5");
        assert_eq!(listed("so $x < 1$ or $x > 5$"), "x < 1$ or $x > 5");
        assert_eq!(listed("so $y = 1$ and $x = 4$"), "x = 4");
        assert_eq!(listed("so $x = 1$.\nThen $x = 4$"), "x = 4");
    }

    #[test]
    fn a_conclusion_stops_before_its_remark() {
        assert_eq!(
            conclusion_clause("A. So it is $600, which is 12% of it."),
            Some("So it is $600")
        );
        assert_eq!(
            conclusion_clause("Therefore, we have 45 chairs, enough for 40."),
            Some("Therefore, we have 45 chairs")
        );
        assert_eq!(conclusion_clause("So it is 600, which is plenty."), None);
        assert_eq!(conclusion_clause("It is 600, which is 12% of it."), None);
    }
}
