//! Interactive runs: two programs piped into each other, each under its own limits; who ended
//! first, who was waiting when its time ran out, and a flooding program stopped.

mod support;

use std::time::{Duration, Instant};

use sandbox::{Interaction, Language, Limits, Party, Program, ProgramFile, Status};
use support::{SANDBOX, installed};

/// Answers guesses of the number in `input.txt` with `<`, `>` or `=`; exit 0 once found, 3 when
/// the program stops asking or asks more than 10 times.
const INTERACTOR: &str = r#"
import sys
secret = int(open("input.txt").read())
for _ in range(10):
    line = sys.stdin.readline()
    if not line:
        sys.exit(3)
    guess = int(line)
    if guess == secret:
        print("=")
        sys.exit(0)
    print("<" if secret < guess else ">")
sys.exit(3)
"#;

/// Binary search over 1..=100.
const GUESSER: &str = r#"
lo, hi = 1, 100
while True:
    mid = (lo + hi) // 2
    print(mid)
    reply = input()
    if reply == "=":
        break
    if reply == "<":
        hi = mid - 1
    else:
        lo = mid + 1
"#;

fn limited(program: Program, wall_ms: u64) -> Program {
    program.with_limits(Limits {
        wall_time: Duration::from_millis(wall_ms),
        ..Limits::default()
    })
}

fn interactor(source: &str, secret: u32, wall_ms: u64) -> Program {
    let mut p = limited(Program::python(source), wall_ms);
    p.files = vec![ProgramFile {
        path: "input.txt".into(),
        contents: secret.to_string().into_bytes(),
    }];
    p
}

async fn interact(interactor: Program, program: Program) -> Interaction {
    SANDBOX
        .run_interactive(interactor, program, None)
        .await
        .expect("both accepted")
}

#[tokio::test]
async fn a_binary_search_talks_to_its_interactor_through_the_pipes() {
    for secret in [1, 37, 100] {
        let i = interact(
            interactor(INTERACTOR, secret, 5000),
            limited(Program::python(GUESSER), 5000),
        )
        .await;
        let (ir, pr) = (i.interactor.unwrap(), i.program.unwrap());
        assert_eq!(ir.outcome.status, Status::Ok, "{secret}: {ir:?}");
        assert_eq!(pr.outcome.status, Status::Ok, "{secret}: {pr:?}");
        assert!(!ir.waited && !pr.waited);
        // What each wrote went to the other, not into its outcome.
        assert_eq!(
            (ir.outcome.stdout.as_str(), pr.outcome.stdout.as_str()),
            ("", "")
        );
    }
}

#[tokio::test]
async fn a_compiled_program_starts_its_clock_with_the_interactor() {
    if !installed(Language::C) {
        return;
    }
    // A fresh source each run, so its compile is never cached: the interactor's short limit
    // must not run while the program compiles.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let source = format!(
        "#include <stdio.h>\n#include <string.h>\n/* {nonce} */\n\
         int main(void) {{ int lo = 1, hi = 100; char r[8];\n\
           for (;;) {{ int mid = (lo + hi) / 2; printf(\"%d\\n\", mid); fflush(stdout);\n\
             if (scanf(\"%7s\", r) != 1 || r[0] == '=') return 0;\n\
             if (r[0] == '<') hi = mid - 1; else lo = mid + 1; }} }}\n"
    );
    let program = Program {
        language: Language::C,
        source,
        ..Program::default()
    };
    let i = interact(interactor(INTERACTOR, 64, 300), limited(program, 5000)).await;
    let (ir, pr) = (i.interactor.unwrap(), i.program.unwrap());
    assert_eq!(ir.outcome.status, Status::Ok, "{ir:?}");
    assert_eq!(pr.outcome.status, Status::Ok, "{pr:?}");
    assert!(pr.outcome.compile.is_some_and(|c| c.ok && !c.cached));
}

#[tokio::test]
async fn a_deadlock_ends_as_the_timeout_of_the_side_that_was_waiting() {
    // Both read first: neither ever writes.
    let started = Instant::now();
    let i = interact(
        interactor("input()\n", 5, 4000),
        limited(Program::python("input()\nprint(1)\n"), 500),
    )
    .await;
    assert_eq!(i.first, Party::Program);
    let pr = i.program.unwrap();
    assert_eq!(pr.outcome.status, Status::Timeout, "{pr:?}");
    assert!(pr.waited, "the program was blocked reading, not computing");
    // Its stdout closed with it: the interactor read end-of-file and raised.
    let ir = i.interactor.unwrap();
    assert_eq!(ir.outcome.status, Status::RuntimeError, "{ir:?}");
    assert!(ir.outcome.stderr.contains("EOFError"), "{ir:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_program_that_computes_past_its_limit_did_not_wait() {
    let i = interact(
        interactor(INTERACTOR, 5, 4000),
        limited(Program::python("print(50)\nwhile True:\n    pass\n"), 500),
    )
    .await;
    assert_eq!(i.first, Party::Program);
    let pr = i.program.unwrap();
    assert_eq!(pr.outcome.status, Status::Timeout, "{pr:?}");
    assert!(!pr.waited);
}

#[tokio::test]
async fn a_flooding_program_is_stopped_once_the_interactor_has_ended() {
    // The interactor reads one line and gives up; the program would write forever (its writes
    // wait for room in the pipe, so the host holds at most the pipe's bytes of it).
    let started = Instant::now();
    let i = interact(
        interactor("import sys\ninput()\nsys.exit(3)\n", 5, 5000),
        limited(
            Program::python("while True:\n    print('x' * 1000)\n"),
            10_000,
        ),
    )
    .await;
    assert_eq!(i.first, Party::Interactor);
    let ir = i.interactor.unwrap();
    assert_eq!(
        (ir.outcome.status, ir.outcome.exit_code),
        (Status::RuntimeError, Some(3))
    );
    assert!(i.program.is_none(), "stopped, not run to its 10 s limit");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_interactor_that_does_not_compile_never_starts_the_program() {
    if !installed(Language::C) {
        return;
    }
    let broken = Program {
        language: Language::C,
        source: "int main(void) { return }".into(),
        ..Program::default()
    };
    let i = interact(broken, Program::python(GUESSER)).await;
    assert_eq!(i.first, Party::Interactor);
    assert_eq!(i.interactor.unwrap().outcome.status, Status::CompileError);
    assert!(i.program.is_none());
}

#[tokio::test]
async fn what_a_side_writes_after_the_other_ended_is_dropped_not_an_error() {
    // The program asks once and leaves; the interactor's reply, later, finds no reader.
    let i = interact(
        interactor(
            "import time\ninput()\ntime.sleep(0.3)\nprint('late reply')\nprint('and more')\n",
            5,
            5000,
        ),
        limited(Program::python("print(50)\n"), 5000),
    )
    .await;
    let (ir, pr) = (i.interactor.unwrap(), i.program.unwrap());
    assert_eq!(pr.outcome.status, Status::Ok, "{pr:?}");
    assert_eq!(ir.outcome.status, Status::Ok, "{ir:?}");
}
