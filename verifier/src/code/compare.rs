//! Comparing a program's output with the expected one.

use serde_json::Value;

/// Default tolerance for floating-point tokens and values (absolute or relative).
pub const DEFAULT_FLOAT_TOLERANCE: f64 = 1e-6;

/// Whether two numbers agree within `tol` (absolute, or relative to the larger magnitude).
fn close(a: f64, b: f64, tol: f64) -> bool {
    a == b || (a - b).abs() <= tol * 1f64.max(a.abs().max(b.abs()))
}

/// Whether one whitespace-separated token matches: exactly, or as numbers within tolerance
/// when either has a fractional part or exponent.
fn token_matches(got: &str, expected: &str, tol: f64) -> bool {
    if got == expected {
        return true;
    }
    let is_float = |t: &str| t.contains(['.', 'e', 'E']);
    if !(is_float(got) || is_float(expected)) {
        return false;
    }
    match (got.parse::<f64>(), expected.parse::<f64>()) {
        (Ok(a), Ok(b)) if a.is_finite() && b.is_finite() => close(a, b, tol),
        _ => false,
    }
}

/// Stdout comparison: line by line after trimming, ignoring trailing blank lines; tokens within
/// a line compared with [`token_matches`].
pub fn stdout_matches(got: &str, expected: &str, tol: f64) -> bool {
    let lines = |s: &str| {
        let mut v: Vec<String> = s.lines().map(|l| l.trim().to_string()).collect();
        while v.last().is_some_and(|l| l.is_empty()) {
            v.pop();
        }
        v
    };
    let (g, e) = (lines(got), lines(expected));
    g.len() == e.len()
        && g.iter().zip(&e).all(|(gl, el)| {
            gl == el || {
                let (gt, et): (Vec<_>, Vec<_>) = (
                    gl.split_whitespace().collect(),
                    el.split_whitespace().collect(),
                );
                gt.len() == et.len() && gt.iter().zip(&et).all(|(a, b)| token_matches(a, b, tol))
            }
        })
}

/// JSON value comparison for function-call cases: numbers within tolerance (an integer equals
/// the same float, as in Python), everything else structurally.
pub fn values_match(got: &Value, expected: &Value, tol: f64) -> bool {
    match (got, expected) {
        (Value::Number(a), Value::Number(b)) => {
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                return x == y;
            }
            match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => close(x, y, tol),
                _ => a == b,
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_match(x, y, tol))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| values_match(x, y, tol)))
        }
        _ => got == expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stdout_lines_are_trimmed_and_floats_tolerated() {
        assert!(stdout_matches("1 2 \n3\n\n", "1 2\n3", 1e-6));
        assert!(stdout_matches("0.3333333\n", "0.333333333", 1e-6));
        assert!(!stdout_matches("0.34\n", "0.333333333", 1e-6));
        assert!(!stdout_matches("1 2\n", "1\n2\n", 1e-6));
        assert!(!stdout_matches("10\n", "10.5\n", 1e-6));
        assert!(!stdout_matches("", "1", 1e-6));
        assert!(
            !stdout_matches("1000000\n", "1000001\n", 1e-6),
            "integers are exact"
        );
    }

    #[test]
    fn values_compare_structurally_with_tolerance() {
        assert!(values_match(
            &json!([1, 2.0, {"a": "x"}]),
            &json!([1.0, 2, {"a": "x"}]),
            1e-9
        ));
        assert!(values_match(&json!(0.30000000000000004), &json!(0.3), 1e-9));
        assert!(!values_match(&json!([1, 2]), &json!([2, 1]), 1e-9));
        assert!(!values_match(&json!(null), &json!(false), 1e-9));
        assert!(!values_match(&json!("1"), &json!(1), 1e-9));
        assert!(!values_match(&json!(true), &json!(1), 1e-9));
    }
}
