//! Special judges: a task's own checker program decides whether a stdio case's output is right,
//! for problems with more than one right answer (exact comparison would reject correct ones).
//!
//! The checker runs in the sandbox, in testlib's convention: its working folder holds
//! `input.txt` (the case's stdin), `output.txt` (the program's stdout) and `answer.txt` (the
//! case's expected stdout); compiled checkers get those three names as arguments; exit status 0
//! accepts, 1 rejects, anything else (a crash, a limit, a compile error) is the checker's own
//! failure, a `checker_error` that says nothing about the program.
//!
//! An interactor (`interactive`) is the same kind of program in the same convention, prepared
//! here too.

use std::num::NonZeroU64;

use sandbox::{Language, Limits, Outcome, Program, ProgramFile, Status};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::budget::{self, TimeBudget};
use super::excerpt::tail;
use super::{CaseStatus, Judge, RunSettings, StdioCase, Tests, Unjudged, fuel, positive};

/// The files a checker finds in its working folder, in the order of its arguments.
const FILES: [&str; 3] = ["input.txt", "output.txt", "answer.txt"];

/// The exit status with which a checker rejects an output.
const REJECTED: i32 = 1;

/// The exit status the Python wrapper gives a checker's `sys.exit(1)`: a Python program that
/// raises also exits with 1, and a checker's bug must not read as the contestant's wrong answer.
const PYTHON_REJECTED: i32 = 97;

/// A task's special judge (`checker` in a code reference) or interactor (`interactor`): a
/// program of the task's own, run in the sandbox in testlib's convention (`style: stdio`
/// only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Checker {
    /// The checker's language, named as the reference's `language` is: `cpp` (with our
    /// testlib-compatible `testlib.h`), `c`, `go`, `rust` or `python`. Other names make the
    /// verdict `invalid_reference`, as an unknown `language` of the reference makes it
    /// `unsupported_language`: the other interpreted languages because a program of theirs
    /// that fails exits with status 1, "rejected".
    pub language: String,
    /// The checker's source. Compiled checkers get `input.txt output.txt answer.txt` as
    /// arguments; Python checkers see them in `sys.argv[1:]` and reject with `sys.exit(1)` (a
    /// raised exception, or `os._exit(1)`, is the checker's failure). An interactor gets the
    /// same three names, `output.txt` an empty file it may write (testlib's `tout`, not read).
    pub source: String,
    /// Wall-clock limit per checker run, in milliseconds, at most the service's
    /// `--sandbox-time-limit-ms` (default: the limits of the judgement's own runs; for an
    /// interactor, which also waits for the program, twice their wall clock).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "positive"
    )]
    #[schema(value_type = Option<u64>, minimum = 1)]
    pub time_limit_ms: Option<NonZeroU64>,
    /// Wasm fuel per checker run, as the reference's `fuel_limit` (default: the limits of the
    /// judgement's own runs).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fuel"
    )]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1e15)]
    pub fuel_limit: Option<NonZeroU64>,
    /// Linear-memory limit per checker run, in MiB, at most the service's `--sandbox-memory-mb`
    /// (default: the service's).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "positive"
    )]
    #[schema(value_type = Option<u64>, minimum = 1)]
    pub memory_mb: Option<NonZeroU64>,
}

/// What a judge program is to the judgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// It decides a case from the program's output.
    Checker,
    /// It talks to the program and decides the case from what it was told.
    Interactor,
}

impl Role {
    /// The reference's field that holds it.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Role::Checker => "checker",
            Role::Interactor => "interactor",
        }
    }
}

/// A checker or interactor ready to run for one judgement: its program (the source as it
/// runs, its arguments, limits and seed), without the case's files.
pub(super) struct Prepared {
    program: Program,
    /// The exit status that means "rejected".
    pub(super) rejected: i32,
}

impl Prepared {
    /// Its program for one case: `input`, `output` and `answer` in its working folder.
    pub(super) fn on_case(&self, input: &str, output: &str, answer: &str) -> Program {
        let mut program = self.program.clone();
        program.files = FILES
            .into_iter()
            .zip([input, output, answer])
            .map(|(path, text)| ProgramFile {
                path: path.into(),
                contents: text.as_bytes().to_vec(),
            })
            .collect();
        // The files are the judge's, not the program's writing: they do not count against it.
        let files: u64 = program.files.iter().map(|f| f.contents.len() as u64).sum();
        if let Some(limits) = program.limits.as_mut() {
            limits.scratch_bytes = limits.scratch_bytes.saturating_add(files);
        }
        program
    }
}

/// What a checker said of one case.
pub(super) struct Ruling {
    /// `Passed`, `WrongAnswer`, `CheckerError`, or `InternalError` when the sandbox failed.
    pub(super) status: CaseStatus,
    /// Why the checker failed, in the judge's words (no checker output: it may quote the answer).
    pub(super) error: Option<String>,
    /// What the checker wrote: its stderr, else its stdout (compile errors: the compiler's).
    pub(super) message: Option<String>,
}

impl Judge {
    /// The checker of a judgement with `tests` whose runs have `run`'s settings, or why it
    /// cannot run (naming the field).
    pub(super) fn prepare_checker(
        &self,
        checker: &Checker,
        tests: &Tests,
        run: &RunSettings,
    ) -> Result<Prepared, Unjudged> {
        if !matches!(tests, Tests::Stdio { .. }) {
            return Err(Unjudged::InvalidReference(
                "checker: a checker judges stdio cases only (style \"stdio\")".into(),
            ));
        }
        self.prepare_judge_program(Role::Checker, checker, run)
    }

    /// A checker's or interactor's program for a judgement whose runs have `run`'s settings,
    /// or why it cannot run (naming the field).
    pub(super) fn prepare_judge_program(
        &self,
        role: Role,
        checker: &Checker,
        run: &RunSettings,
    ) -> Result<Prepared, Unjudged> {
        let field = role.as_str();
        let Some(language) = Language::parse(&checker.language) else {
            return Err(Unjudged::InvalidReference(format!(
                "{field}.language: unknown language {:?} ({field}s are c, cpp, go, rust or python)",
                checker.language
            )));
        };
        let (source, args, rejected) = match language {
            Language::Python => (
                python_wrapper(role, &checker.source),
                Vec::new(),
                PYTHON_REJECTED,
            ),
            Language::C | Language::Cpp | Language::Go | Language::Rust => (
                checker.source.clone(),
                FILES.map(String::from).to_vec(),
                REJECTED,
            ),
            // Their uncaught errors exit with status 1 too, which would read as a rejection.
            other => {
                return Err(Unjudged::InvalidReference(format!(
                    "{field}.language: {field}s are C, C++, Go, Rust or Python, not {other} \
                     (a {other} program that fails exits with status 1, which means \"wrong answer\")"
                )));
            }
        };
        if !self.sandbox.supports(language) {
            return Err(Unjudged::UnsupportedLanguage(format!(
                "{field}.language: {language} is not installed in this sandbox"
            )));
        }
        let limits = self.checker_limits(role, checker, &run.limits)?;
        Ok(Prepared {
            program: Program {
                language,
                source,
                args,
                limits: Some(limits),
                seed: run.seed,
                ..Program::default()
            },
            rejected,
        })
    }

    /// The checker's limits: its own time, fuel and memory where it sets them, within the
    /// service's; the judgement's otherwise.
    fn checker_limits(
        &self,
        role: Role,
        checker: &Checker,
        judgement: &Limits,
    ) -> Result<Limits, Unjudged> {
        let budget = TimeBudget::of_task(
            checker.fuel_limit,
            checker.time_limit_ms,
            self.limits.wall_time,
        );
        let mut limits = match budget {
            // Unset, the checker runs as the judgement's own runs do; an interactor, which
            // waits for the program as well as computing, gets twice the program's clock.
            TimeBudget::Default => {
                let mut limits = judgement.clone();
                if role == Role::Interactor {
                    limits.wall_time *= 2;
                }
                limits
            }
            b => budget::for_request(&self.limits, self.fuel, b).map_err(|r| {
                let field = r.field.as_deref().unwrap_or("limits");
                Unjudged::InvalidReference(format!("{}.{field}: {}", role.as_str(), r.message))
            })?,
        };
        if let Some(mb) = checker.memory_mb {
            limits.memory_bytes = self
                .limits
                .memory_bytes
                .min(mb.get().saturating_mul(1 << 20));
        }
        Ok(limits)
    }

    /// Runs `checker` on one case whose program printed `output`.
    pub(super) async fn check(
        &self,
        checker: &Prepared,
        case: &StdioCase,
        output: &str,
    ) -> Result<Ruling, Unjudged> {
        let program = checker.on_case(&case.stdin, output, &case.stdout);
        let outcome = self.run_built(program).await.map_err(|why| match why {
            Unjudged::InvalidReference(m) => Unjudged::InvalidReference(format!("checker: {m}")),
            other => other,
        })?;
        Ok(ruling(&outcome, checker.rejected))
    }
}

/// How a checker's run decides a case.
fn ruling(outcome: &Outcome, rejected: i32) -> Ruling {
    let status = match outcome.status {
        Status::Ok => CaseStatus::Passed,
        Status::RuntimeError if outcome.exit_code == Some(rejected) => CaseStatus::WrongAnswer,
        Status::InternalError => CaseStatus::InternalError,
        _ => CaseStatus::CheckerError,
    };
    let message = match &outcome.compile {
        Some(c) if !c.ok => tail(&c.stderr),
        _ => tail(&outcome.stderr).or_else(|| tail(&outcome.stdout)),
    };
    let error = match status {
        CaseStatus::Passed | CaseStatus::WrongAnswer => None,
        _ => {
            let detail = match (&outcome.message, outcome.exit_code) {
                (Some(m), _) => m.clone(),
                (None, Some(code)) => format!("exit status {code}"),
                (None, None) => outcome.status.to_string(),
            };
            Some(format!("the checker failed ({}): {detail}", outcome.status))
        }
    };
    Ruling {
        status,
        error,
        message,
    }
}

/// A Python checker's (or interactor's) source as it runs: with testlib's `sys.argv`, and its
/// `sys.exit(1)` turned into [`PYTHON_REJECTED`], so that an exception (status 1) is a checker
/// failure, not a wrong answer. The source is compiled apart, so its line numbers and
/// `from __future__` imports stay its own, and an import the fast runtime lacks still moves it
/// to a fuller one.
fn python_wrapper(role: Role, source: &str) -> String {
    // A JSON string is a valid Python string literal.
    let literal = serde_json::to_string(source).expect("strings serialize");
    let name = role.as_str();
    let argv =
        serde_json::to_string(&[name, FILES[0], FILES[1], FILES[2]]).expect("strings serialize");
    format!(
        "import sys\n\
         sys.argv = {argv}\n\
         try:\n    \
             exec(compile({literal}, \"{name}\", \"exec\"), {{\"__name__\": \"__main__\"}})\n\
         except SystemExit as e:\n    \
             if e.code == {REJECTED}:\n        \
                 sys.exit({PYTHON_REJECTED})\n    \
             raise\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: Status, exit_code: Option<i32>, stderr: &str) -> Outcome {
        Outcome {
            stderr: stderr.into(),
            ..Outcome::with_status(status, exit_code)
        }
    }

    #[test]
    fn exit_status_zero_accepts_the_rejection_status_rejects_and_the_rest_is_a_checker_error() {
        let r = ruling(&outcome(Status::Ok, Some(0), "ok 2 numbers"), REJECTED);
        assert_eq!(r.status, CaseStatus::Passed);
        assert_eq!(r.message.as_deref(), Some("ok 2 numbers"));
        let r = ruling(&outcome(Status::RuntimeError, Some(1), "wrong"), REJECTED);
        assert_eq!((r.status, r.error), (CaseStatus::WrongAnswer, None));
        for (status, code) in [
            (Status::RuntimeError, Some(3)),
            (Status::RuntimeError, None),
            (Status::Timeout, None),
            (Status::MemoryLimit, None),
            (Status::OutputLimit, Some(1)),
            (Status::CompileError, None),
        ] {
            let r = ruling(&outcome(status, code, ""), REJECTED);
            assert_eq!(r.status, CaseStatus::CheckerError, "{status} {code:?}");
            assert!(r.error.unwrap().contains(status.as_str()));
        }
        // A Python checker's exception exits with 1: not a rejection.
        let raised = outcome(Status::RuntimeError, Some(1), "Traceback …");
        assert_eq!(
            ruling(&raised, PYTHON_REJECTED).status,
            CaseStatus::CheckerError
        );
        assert_eq!(
            ruling(&outcome(Status::InternalError, None, ""), REJECTED).status,
            CaseStatus::InternalError
        );
    }

    #[test]
    fn a_checker_reference_keeps_its_fields_and_refuses_unknown_ones() {
        let c: Checker = serde_json::from_value(serde_json::json!(
            {"language": "c++", "source": "int main(){}", "fuel_limit": 1000}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            serde_json::json!({"language": "c++", "source": "int main(){}", "fuel_limit": 1000})
        );
        for bad in [
            serde_json::json!({"language": 3, "source": ""}),
            serde_json::json!({"language": "cpp", "source": "", "memory_mb": 0}),
            serde_json::json!({"language": "cpp", "source": "", "argv": []}),
        ] {
            assert!(
                serde_json::from_value::<Checker>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_python_wrapper_keeps_the_source_verbatim() {
        let source = "print(\"a\\\\b\")\n\t'é' \u{7f}";
        let wrapped = python_wrapper(Role::Checker, source);
        let literal = wrapped
            .lines()
            .find_map(|l| l.trim().strip_prefix("exec(compile("))
            .and_then(|l| l.split_once(", \"checker\"").map(|(lit, _)| lit))
            .unwrap();
        assert_eq!(serde_json::from_str::<String>(literal).unwrap(), source);
        assert!(
            wrapped.contains(r#"sys.argv = ["checker","input.txt","output.txt","answer.txt"]"#)
        );
    }
}
