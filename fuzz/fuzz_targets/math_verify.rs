//! Fuzzes the math checker end to end: arbitrary bytes become a reference and a response
//! (split at the first NUL), graded both ways, plus the parser on its own. Any panic, hang or
//! non-deterministic verdict is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verifier::math::{Options, parse, verify};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (reference, response) = match text.find('\0') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text.as_ref(), text.as_ref()),
    };
    let options = Options::default();
    let a = verify(reference, response, &options);
    let b = verify(response, reference, &options);
    assert_eq!(a.reward, if a.correct { 1.0 } else { 0.0 });
    assert_eq!(b.reward, if b.correct { 1.0 } else { 0.0 });
    let again = verify(reference, response, &options);
    assert_eq!(a.correct, again.correct, "verdict must be deterministic");
    assert_eq!(a.rule, again.rule);
    let _ = parse::parse_answer(reference);
    // The reasoning-model option cuts the response at `</think>`: same guarantees.
    let think = Options {
        ignore_think: true,
        ..Options::default()
    };
    let t = verify(reference, response, &think);
    assert_eq!(t.reward, if t.correct { 1.0 } else { 0.0 });
});
