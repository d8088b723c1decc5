//! Times the checker on hostile inputs (huge numbers, deep nesting, big sets, long texts) to
//! show that work is bounded: `cargo run --release -p verifier --example math_worst_case`.

use std::time::Instant;

use verifier::math::{Options, verify};

fn main() {
    let big_product = (2..40)
        .map(|p| format!("({p}^{{{}}}+1)", 4000 / p))
        .collect::<Vec<_>>()
        .join("");
    let big_sum = (2..300)
        .map(|p| format!("{p}^{{{p}}}"))
        .collect::<Vec<_>>()
        .join("+");
    let set: String = (0..64)
        .map(|i| format!("{}", i * 7 + 1))
        .collect::<Vec<_>>()
        .join(",");
    let sym_set: String = (0..64)
        .map(|i| format!("x^{{{}}}+{i}", i % 9))
        .collect::<Vec<_>>()
        .join(",");
    let poly = (0..200)
        .map(|i| format!("{i}x^{{{}}}", i % 30))
        .collect::<Vec<_>>()
        .join("+");
    let digits = "7".repeat(500);
    let plus_minus = |reorder: bool| {
        let terms: Vec<String> = (1..=4)
            .map(|i| {
                if reorder {
                    format!("{digits}{i}x")
                } else {
                    format!("x\\cdot{digits}{i}")
                }
            })
            .collect();
        format!("\\boxed{{{}}}", terms.join(" \\pm "))
    };
    let huge_text = "answer: ".repeat(200_000) + "\\boxed{" + &"{".repeat(100_000);
    let matrix = "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}";
    let big_matrix = format!(
        "\\begin{{pmatrix}}{}\\end{{pmatrix}}",
        vec![vec!["x+1"; 16].join("&"); 16].join("\\\\")
    );
    let cases: Vec<(&str, String, String)> = vec![
        (
            "big exact product",
            big_product.clone(),
            format!("{big_product}+1"),
        ),
        ("big exact sum", big_sum.clone(), format!("{big_sum}+1")),
        (
            "64-element sets",
            format!("\\{{{set}\\}}"),
            format!("\\{{{set},0\\}}"),
        ),
        (
            "64 symbolic elements",
            format!("\\{{{sym_set}\\}}"),
            format!("\\{{{sym_set}\\}}").replace("x^{0}", "x^{1}"),
        ),
        ("200-term polynomial", poly.clone(), format!("{poly}+x")),
        (
            "deep parentheses",
            "1".into(),
            format!("{}1{}", "(".repeat(3000), ")".repeat(3000)),
        ),
        (
            "tower of powers",
            "1".into(),
            "9^{9^{9^{9^{9^{9}}}}}".into(),
        ),
        ("1 MB of anchors", "1".into(), huge_text),
        ("± of 500-digit terms", plus_minus(false), plus_minus(true)),
        ("product of 40 matrices", matrix.into(), matrix.repeat(40)),
        (
            "16×16 matrix cubed",
            big_matrix.clone(),
            big_matrix.repeat(3),
        ),
        (
            "1 MB of split \\( spans",
            "1".into(),
            "\\( 1\n".repeat(200_000),
        ),
        ("1 MB of glued digits", "1".into(), "A1".repeat(500_000)),
        ("1 MB of clock times", "1".into(), "12:00 ".repeat(170_000)),
        (
            "1 MB of <think> blocks",
            "1".into(),
            "<think>1</think>".repeat(65_000) + "<think>",
        ),
    ];
    // The <think> option on: it changes nothing where there are no tags.
    let options = Options {
        ignore_think: true,
        ..Options::default()
    };
    if std::env::var("PROFILE_PARSE").is_ok() {
        let t = Instant::now();
        let e = verifier::math::parse::parse_answer(&big_sum);
        println!(
            "parse {:?} ms ok={}",
            t.elapsed().as_secs_f64() * 1e3,
            e.is_ok()
        );
        let t = Instant::now();
        let b = verifier::math::parse::is_bare_answer(&big_sum);
        println!("bare {:?} ms {b}", t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let x = verifier::math::extract::extract(&big_sum);
        println!(
            "extract {:?} ms {:?}",
            t.elapsed().as_secs_f64() * 1e3,
            x.map(|x| x.source)
        );
        if let Ok(e) = e {
            let t = Instant::now();
            let mut work = verifier::math::equivalence::WORK_BUDGET;
            let v = verifier::math::evaluate::exact(&e, &[], &mut work);
            println!(
                "exact {:?} ms {}",
                t.elapsed().as_secs_f64() * 1e3,
                v.is_some()
            );
            let t = Instant::now();
            let v = verifier::math::evaluate::approx(&e, &[]);
            println!("approx {:?} ms {:?}", t.elapsed().as_secs_f64() * 1e3, v);
        }
    }
    for (name, reference, response) in cases {
        let start = Instant::now();
        let v = verify(&reference, &response, &options);
        println!(
            "{name:<22} {:>10.3} ms  correct={} rule={:?}",
            start.elapsed().as_secs_f64() * 1e3,
            v.correct,
            v.rule
        );
    }
}
