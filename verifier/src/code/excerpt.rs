//! What a verdict shows of a program's output: its beginning (expected and received output) or
//! its end (errors and tracebacks, which end with the useful part), cut to a bounded length.

/// Most characters of program output kept in a verdict.
const SHOWN_CHARS: usize = 1000;

/// The first `SHOWN_CHARS` characters of `s`.
pub(super) fn head(s: &str) -> String {
    s.chars().take(SHOWN_CHARS).collect()
}

/// The last `SHOWN_CHARS` characters of `s` (tracebacks end with the useful part).
pub(super) fn tail(s: &str) -> Option<String> {
    let n = s.chars().count();
    (n > 0).then(|| s.chars().skip(n.saturating_sub(SHOWN_CHARS)).collect())
}
