//! Throughput of the math checker on real references: GSM8K and Minerva graded against
//! themselves and against perturbed answers, on one thread (checks per second per core).
//!
//! `cargo bench -p verifier --bench math`; set `MATH_BENCH_PAIRS=path.jsonl` to also write every
//! pair with our verdict (used by `benches/mathverify_compare.py` to run Math-Verify on the same
//! pairs), `HACRL_DATA` to point at the data folder, `MATH_BENCH_SECONDS` for the timing length.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use verifier::math::{Options, verify};

/// One graded pair.
struct Pair {
    set: &'static str,
    kind: &'static str,
    reference: String,
    response: String,
}

fn data_dir() -> PathBuf {
    std::env::var("HACRL_DATA").map_or_else(
        |_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data"),
        PathBuf::from,
    )
}

fn rows(name: &str) -> Vec<serde_json::Value> {
    let path = data_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Changes the last digit of `s` (so the value changes but the shape does not).
fn perturb(s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    if let Some(i) = chars.iter().rposition(char::is_ascii_digit) {
        let d = chars[i].to_digit(10).unwrap_or(0);
        chars[i] = char::from_digit((d + 1) % 10, 10).unwrap_or('1');
        chars.into_iter().collect()
    } else {
        format!("{s}+1")
    }
}

/// `1234567` written as `1,234,567`.
fn with_commas(n: &str) -> String {
    let (sign, digits) = n.strip_prefix('-').map_or(("", n), |d| ("-", d));
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return n.to_string();
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// The content of the last `\boxed{…}` in `s`.
fn last_boxed(s: &str) -> Option<String> {
    let start = s.rfind("\\boxed{")? + 7;
    let mut depth = 1;
    for (i, c) in s[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(s[start..start + i].to_string());
                }
            }
            _ => {}
        }
    }
    None
}

fn pairs() -> Vec<Pair> {
    let mut out = Vec::new();
    for row in rows("gsm8k_test.jsonl") {
        let answer = row["answer"].as_str().unwrap_or_default().to_string();
        let n = answer
            .rsplit("####")
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let wrong = perturb(&n);
        let mk = |kind, response: String| Pair {
            set: "gsm8k",
            kind,
            reference: answer.clone(),
            response,
        };
        out.push(mk("self", answer.clone()));
        out.push(mk(
            "boxed",
            format!("So she makes $\\boxed{{{n}}}$ dollars."),
        ));
        out.push(mk(
            "formatted",
            format!(
                "She earns ${} per week.\n**Answer:** ${}.00",
                with_commas(&n),
                with_commas(&n)
            ),
        ));
        out.push(mk(
            "perturbed",
            format!("So she makes $\\boxed{{{wrong}}}$ dollars."),
        ));
        out.push(mk(
            "sentence",
            format!("Adding it all up, the answer is {n}."),
        ));
        out.push(mk(
            "sentence_wrong",
            format!("Adding it all up, the answer is {wrong}."),
        ));
    }
    for row in rows("minerva_math.jsonl") {
        let solution = row["solution"].as_str().unwrap_or_default().to_string();
        let Some(boxed) = last_boxed(&solution) else {
            continue;
        };
        let mk = |kind, response: String| Pair {
            set: "minerva",
            kind,
            reference: solution.clone(),
            response,
        };
        out.push(mk("self", solution.clone()));
        out.push(mk(
            "boxed",
            format!("Final Answer: The final answer is $\\boxed{{{boxed}}}$."),
        ));
        out.push(mk(
            "restyled",
            format!(
                "Final Answer: The final answer is $\\boxed{{{}}}$.",
                boxed.replace("\\frac", "\\dfrac").replace(' ', "")
            ),
        ));
        out.push(mk(
            "perturbed",
            format!(
                "Final Answer: The final answer is $\\boxed{{{}}}$.",
                perturb(&boxed)
            ),
        ));
    }
    out
}

/// Grades a labelled cases file (`tests/data/math_*cases.jsonl`, each case's `options` applied)
/// and writes every case with our verdict (`ours`, `rule`) to `out`: the input of
/// `benches/mathverify_compare.py --cases`, which puts Math-Verify's verdicts beside ours.
fn grade_cases(path: &str, out: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).expect("create verdicts"));
    let mut n = 0;
    for line in text.lines() {
        let mut case: serde_json::Value = serde_json::from_str(line).expect("valid case line");
        let options: Options = case
            .get("options")
            .map(|o| serde_json::from_value(o.clone()).expect("valid options"))
            .unwrap_or_default();
        let field = |k: &str| case[k].as_str().unwrap_or_default().to_string();
        let v = verify(&field("reference"), &field("response"), &options);
        case["ours"] = v.correct.into();
        case["rule"] = serde_json::to_value(v.rule).expect("rule serialises");
        writeln!(f, "{case}").expect("write verdicts");
        n += 1;
    }
    eprintln!("graded {n} cases from {path} into {out}");
}

fn main() {
    if let Ok(path) = std::env::var("MATH_BENCH_CASES") {
        let out = std::env::var("MATH_BENCH_CASES_OUT")
            .unwrap_or_else(|_| "target/math-bench/case_verdicts.jsonl".into());
        return grade_cases(&path, &out);
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: keep that run short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let pairs = pairs();
    let options = Options::default();
    let verdicts: Vec<_> = pairs
        .iter()
        .map(|p| verify(&p.reference, &p.response, &options))
        .collect();
    if let Ok(path) = std::env::var("MATH_BENCH_PAIRS") {
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(&path).expect("create pairs file"));
        for (p, v) in pairs.iter().zip(&verdicts) {
            let line = serde_json::json!({
                "set": p.set, "kind": p.kind, "reference": p.reference, "response": p.response,
                "correct": v.correct, "rule": v.rule,
                "reference_answer": v.reference_answer, "response_answer": v.response_answer,
            });
            writeln!(f, "{line}").expect("write pairs file");
        }
        eprintln!("wrote {} pairs to {path}", pairs.len());
    }
    let seconds: f64 = std::env::var("MATH_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if quick { 0.05 } else { 3.0 });
    println!("set      kind            pairs  correct   checks/s/core");
    for set in ["gsm8k", "minerva", "all"] {
        let chosen: Vec<&Pair> = pairs
            .iter()
            .filter(|p| set == "all" || p.set == set)
            .collect();
        let kinds: Vec<&str> = if set == "all" {
            vec!["all"]
        } else {
            let mut k: Vec<&str> = chosen.iter().map(|p| p.kind).collect();
            k.dedup();
            k.sort();
            k.dedup();
            k.push("all");
            k
        };
        for kind in kinds {
            let sel: Vec<&&Pair> = chosen
                .iter()
                .filter(|p| kind == "all" || p.kind == kind)
                .collect();
            let correct = sel
                .iter()
                .filter(|p| verify(&p.reference, &p.response, &options).correct)
                .count();
            let start = Instant::now();
            let mut checks = 0u64;
            while start.elapsed() < Duration::from_secs_f64(seconds) {
                for p in &sel {
                    std::hint::black_box(verify(&p.reference, &p.response, &options));
                }
                checks += sel.len() as u64;
            }
            let rate = checks as f64 / start.elapsed().as_secs_f64();
            println!(
                "{set:<8} {kind:<15} {:>5} {correct:>8} {rate:>15.0}",
                sel.len()
            );
        }
    }
}
