//! The code appended after a program to run its tests (Python; JavaScript, TypeScript and Ruby
//! for function calls), and the parsing of what it prints.
//!
//! The harness prints its results on lines prefixed with a per-run random marker, after the
//! program has run. A program that exits early (`exit(0)`, `os._exit`, `SystemExit`) never
//! reaches the harness, so the marker is missing and the run fails; a program cannot print the
//! marker itself because it is drawn afresh for each run.

use serde_json::Value;

/// A fresh unguessable marker (128 random bits).
pub fn marker() -> String {
    format!("@@judge-{}", uuid::Uuid::new_v4().simple())
}

/// A Python string literal holding `text` (JSON string syntax is valid Python).
fn py_str(text: &str) -> String {
    serde_json::to_string(text).expect("strings serialize")
}

/// Whether `code` defines `name` at top level (a full solution rather than a body completion).
pub fn defines(code: &str, name: &str) -> bool {
    code.lines().any(|l| {
        let rest = l
            .strip_prefix("def ")
            .or_else(|| l.strip_prefix("async def "))
            .map(str::trim_start);
        rest.and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.trim_start().starts_with('('))
    })
}

/// HumanEval-style program, then `check` on a wrapped candidate whose results must be plain
/// values (no objects that compare equal to anything).
///
/// When the prompt is the code stub (it defines the entry point), a body-only completion is
/// appended to it, and a full solution follows it (so the stub's imports and helpers stay
/// available). Any other prompt is prose and is left out.
pub fn assert_program(
    prompt: &str,
    code: &str,
    test: &str,
    entry_point: &str,
    marker: &str,
) -> String {
    let body = if !defines(prompt, entry_point) {
        code.to_string()
    } else if defines(code, entry_point) {
        format!("{prompt}\n    pass\n\n{code}")
    } else {
        format!("{prompt}{code}")
    };
    format!(
        r#"{body}


{test}


def __judge_run(__judge_check, __judge_candidate, __judge_marker):
    import sys as __judge_sys
    __judge_plain = (int, float, complex, str, bytes, bool, type(None), list, tuple, dict, set, frozenset)

    def __judge_is_plain(v, depth=0):
        t = type(v)
        if depth > 200 or t not in __judge_plain:
            return False
        if t in (list, tuple, set, frozenset):
            return all(__judge_is_plain(x, depth + 1) for x in v)
        if t is dict:
            return all(__judge_is_plain(k, depth + 1) and __judge_is_plain(x, depth + 1) for k, x in v.items())
        return True

    def __judge_wrapped(*args, **kwargs):
        r = __judge_candidate(*args, **kwargs)
        if not __judge_is_plain(r):
            raise TypeError("candidate returned a %s, not a plain value" % type(r).__name__)
        return r

    __judge_check(__judge_wrapped)
    __judge_sys.stdout.write("\n" + __judge_marker + ":done\n")
    __judge_sys.stdout.flush()


__judge_run(check, {entry_point}, {marker})
"#,
        marker = py_str(marker),
    )
}

/// Function-call program: the code, then each case's result printed as JSON after the marker.
/// Expected values never enter the sandbox; the host compares.
pub fn call_program(code: &str, entry_point: &str, args: &[Vec<Value>], marker: &str) -> String {
    let cases = serde_json::to_string(args).expect("json values serialize");
    format!(
        r#"{code}


def __judge_cases(__judge_f, __judge_json, __judge_marker):
    import json as __judge_j
    import sys as __judge_sys

    def __judge_default(v):
        if isinstance(v, (set, frozenset)):
            return sorted(v)
        if isinstance(v, complex):
            return [v.real, v.imag]
        raise TypeError("unserializable %s" % type(v).__name__)

    for i, args in enumerate(__judge_j.loads(__judge_json)):
        try:
            r = __judge_f(*args)
            try:
                line = "ok:" + __judge_j.dumps(r, default=__judge_default, allow_nan=False)
            except BaseException as e:
                line = "unserializable:" + type(r).__name__
        except BaseException as e:
            line = "error:%s: %s" % (type(e).__name__, e)
        line = line.replace("\r", " ").replace("\n", " ")[:4000]
        __judge_sys.stdout.write("\n%s:case:%d:%s\n" % (__judge_marker, i, line))
        __judge_sys.stdout.flush()
    __judge_sys.stdout.write("\n" + __judge_marker + ":done\n")
    __judge_sys.stdout.flush()


__judge_cases({entry_point}, {cases}, {marker})
"#,
        cases = py_str(&cases),
        marker = py_str(marker),
    )
}

/// Function-call program in JavaScript or TypeScript: like [`call_program`], for a function the
/// program declares at top level (or exports, as `module.exports` or an ES `export`). Sets come back sorted, as from the
/// Python harness; BigInts as numbers; `undefined` and functions are unserializable.
pub fn call_program_js(code: &str, entry_point: &str, args: &[Vec<Value>], marker: &str) -> String {
    let cases = serde_json::to_string(args).expect("json values serialize");
    let entry = serde_json::to_string(entry_point).expect("strings serialize");
    format!(
        r#"{code}
;(function (__judgeName, __judgeCases, __judgeMarker) {{
  const __judgeLocal = (function () {{ try {{ return eval(__judgeName); }} catch (e) {{ return undefined; }} }})();
  const __judgeF = typeof __judgeLocal === 'function' ? __judgeLocal
    : typeof module.exports === 'function' ? module.exports : module.exports[__judgeName];
  const __judgeWrite = (line) => process.stdout.write('\n' + line + '\n');
  __judgeCases.forEach((args, i) => {{
    let line;
    try {{
      const r = __judgeF(...args);
      const json = JSON.stringify(r, (k, v) =>
        v instanceof Set ? [...v].sort() : typeof v === 'bigint' ? Number(v) : v);
      line = json === undefined ? 'unserializable:' + typeof r : 'ok:' + json;
    }} catch (e) {{
      line = 'error:' + ((e && e.name) || 'Error') + ': ' + (e && e.message);
    }}
    __judgeWrite(__judgeMarker + ':case:' + i + ':' + line.replace(/[\r\n]/g, ' ').slice(0, 4000));
  }});
  __judgeWrite(__judgeMarker + ':done');
}})({entry}, {cases}, {marker});
"#,
        marker = py_str(marker),
    )
}

/// A Ruby double-quoted string literal holding `text`: JSON's string syntax is Ruby's, except
/// that Ruby interpolates after `#`, which JSON never escapes (so a `#` there is never the
/// second half of an escape).
fn rb_str(text: &str) -> String {
    py_str(text).replace('#', "\\#")
}

/// Function-call program in Ruby: like [`call_program`], for a method the program defines at
/// top level or a lambda it assigns to a top-level local. Sets come back sorted, as from the
/// Python harness; NaN and infinities are unserializable.
pub fn call_program_rb(code: &str, entry_point: &str, args: &[Vec<Value>], marker: &str) -> String {
    let cases = serde_json::to_string(args).expect("json values serialize");
    format!(
        r#"{code}
;[{entry}, {cases}, {marker}].then do |__judge_name, __judge_cases, __judge_marker|
  require "json"
  require "set"
  __judge_plain = lambda do |v|
    case v
    when Set then v.to_a.sort.map(&__judge_plain)
    when Array then v.map(&__judge_plain)
    when Hash then v.to_h {{ |k, x| [k, __judge_plain.(x)] }}
    else v
    end
  end
  JSON.parse(__judge_cases).each_with_index do |__judge_args, __judge_i|
    __judge_line =
      begin
        __judge_f = binding.local_variable_defined?(__judge_name) ? binding.local_variable_get(__judge_name) : method(__judge_name)
        __judge_r = __judge_f.call(*__judge_args)
        begin
          "ok:" + JSON.generate(__judge_plain.(__judge_r))
        rescue StandardError
          "unserializable:#{{__judge_r.class}}"
        end
      rescue Exception => __judge_e
        "error:#{{__judge_e.class}}: #{{__judge_e.message}}"
      end
    $stdout.write("
#{{__judge_marker}}:case:#{{__judge_i}}:#{{__judge_line.tr("
", "  ")[0, 4000]}}
")
    $stdout.flush
  end
  $stdout.write("
#{{__judge_marker}}:done
")
end
"#,
        entry = rb_str(entry_point),
        cases = rb_str(&cases),
        marker = rb_str(marker),
    )
}

/// What the harness reported for one call case.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseReport {
    /// The function returned this JSON value.
    Returned(Value),
    /// The function raised (exception type and message).
    Raised(String),
    /// The result could not be expressed as JSON (type name).
    Unserializable(String),
}

/// The harness's reports found in `stdout`: per-case results and whether it finished.
#[derive(Debug, Default)]
pub struct Reports {
    /// Reports by case index.
    pub cases: Vec<(usize, CaseReport)>,
    /// The harness printed its final line.
    pub done: bool,
}

/// Parses the marker lines in `stdout` (other output of the program is ignored).
pub fn parse(stdout: &str, marker: &str) -> Reports {
    let mut reports = Reports::default();
    let done = format!("{marker}:done");
    let case_prefix = format!("{marker}:case:");
    for line in stdout.lines() {
        if line == done {
            reports.done = true;
        } else if let Some(rest) = line.strip_prefix(&case_prefix) {
            let Some((index, report)) = rest.split_once(':') else {
                continue;
            };
            let Ok(index) = index.parse::<usize>() else {
                continue;
            };
            let report = if let Some(json) = report.strip_prefix("ok:") {
                match serde_json::from_str(json) {
                    Ok(v) => CaseReport::Returned(v),
                    Err(_) => CaseReport::Unserializable(json.chars().take(200).collect()),
                }
            } else if let Some(err) = report.strip_prefix("error:") {
                CaseReport::Raised(err.to_string())
            } else {
                CaseReport::Unserializable(report.trim_start_matches("unserializable:").to_string())
            };
            reports.cases.push((index, report));
        }
    }
    reports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_full_solutions() {
        assert!(defines("import math\ndef f(x):\n    return x", "f"));
        assert!(defines("async def f (x): pass", "f"));
        assert!(!defines("    return f(x)", "f"));
        assert!(!defines("def foo(x): pass", "f"));
        assert!(!defines("def f_helper(x): pass", "f"));
    }

    #[test]
    fn ruby_literals_never_interpolate() {
        assert_eq!(rb_str("a#{b}\\#\"c"), r#""a\#{b}\\\#\"c""#);
        let program = call_program_rb("x = 1", "f#{x}", &[vec![Value::from("#@y")]], "m");
        assert!(program.contains(r#"[\"\#@y\"]"#), "{program}");
    }

    #[test]
    fn parses_only_lines_with_this_runs_marker() {
        let m = "@@judge-abc";
        let out = "noise\n@@judge-abc:case:0:ok:[1, 2]\n@@judge-xyz:done\n@@judge-abc:case:1:error:ValueError: bad\n@@judge-abc:done\n";
        let r = parse(out, m);
        assert!(r.done);
        assert_eq!(
            r.cases,
            vec![
                (0, CaseReport::Returned(serde_json::json!([1, 2]))),
                (1, CaseReport::Raised("ValueError: bad".into())),
            ]
        );
        assert!(!parse("@@judge-xyz:done\n", m).done);
        assert_ne!(marker(), marker());
    }
}
