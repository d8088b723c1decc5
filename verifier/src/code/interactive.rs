//! Interactive problems: for each case the task's interactor runs beside the program, each
//! one's stdout piped into the other's stdin (`Sandbox::run_interactive`), each under its own
//! limits, and the interactor's exit status decides, in testlib's convention as a checker's.
//!
//! The interactor's working folder holds `input.txt` (the case's `stdin`, which the program
//! never sees), an empty `output.txt` it may write (testlib's `tout`, not read) and
//! `answer.txt` (the case's `stdout`); compiled interactors get those three names as
//! arguments, Python ones in `sys.argv[1:]`. A case ends, the first rule that applies:
//! 1. a sandbox failure on either side: `internal_error`; a program that did not compile:
//!    `compile_error`;
//! 2. the interactor ended otherwise than by exit status 0, the rejection status or running
//!    out of time while it waited for the program (a crash, another status, a limit while
//!    computing, no build): `checker_error`, the judge's failure, never the program's — even
//!    when the program failed first (a hostile interactor may have fed it garbage);
//! 3. the program failed first (crashed, hit a limit): that failure, a `timeout` with
//!    `waiting: program` when its time ran out while it waited for the interactor;
//! 4. the interactor exited 0: `passed` if the program then ended normally, else the
//!    program's failure; with the rejection status: `wrong_answer` (the program is stopped);
//!    its time ran out while it waited for the program's output: the program's `timeout`
//!    (`waiting: interactor`).
//!
//! Unless it sets its own, an interactor's wall clock is twice the program's: it waits for
//! the program as well as computing, and must not run out first on a loaded machine.
//!
//! What the judge cannot tell: who should have spoken in a deadlock. An interactor that blocks
//! forever (reading when its protocol says it writes, or asleep) looks like a program that never
//! answered, and is charged to the program as a `timeout` naming the waiting side; a protocol
//! bug of the interactor's shows as every program timing out on the same cases.

use sandbox::{Interaction, Language, Party, SideRun, Status};

use super::checker::{Checker, Prepared, Role};
use super::excerpt::tail;
use super::styles::{Judged, abnormal};
use super::{
    CaseStatus, CaseVerdict, CodeReference, Judge, RunSettings, StdioCase, Tests, Unjudged, record,
    record_refusal,
};

/// The task's own judge program for a judgement, if it has one.
pub(super) enum Judges {
    /// Outputs are compared with the expected ones.
    Compared,
    /// A special judge decides each case from the program's output.
    Checker(Prepared),
    /// An interactor talks to the program and decides each case.
    Interactor(Prepared),
}

/// How one interactive case went.
struct Decision {
    status: CaseStatus,
    error: Option<String>,
    waiting: Option<Party>,
}

impl Judge {
    /// The checker or interactor of a judgement whose runs have `run`'s settings, or why it
    /// cannot run (naming the field).
    pub(super) fn prepare_judges(
        &self,
        reference: &CodeReference,
        run: &RunSettings,
    ) -> Result<Judges, Unjudged> {
        match (&reference.checker, &reference.interactor) {
            (Some(_), Some(_)) => Err(Unjudged::InvalidReference(
                "interactor: an interactive problem's interactor decides each case itself; \
                 a reference carries a checker or an interactor, not both"
                    .into(),
            )),
            (Some(c), None) => self
                .prepare_checker(c, &reference.tests, run)
                .map(Judges::Checker),
            (None, Some(i)) => self
                .prepare_interactor(i, &reference.tests, run)
                .map(Judges::Interactor),
            (None, None) => Ok(Judges::Compared),
        }
    }

    /// The interactor of a judgement, or why it cannot run.
    fn prepare_interactor(
        &self,
        interactor: &Checker,
        tests: &Tests,
        run: &RunSettings,
    ) -> Result<Prepared, Unjudged> {
        if !matches!(tests, Tests::Stdio { .. }) {
            return Err(Unjudged::InvalidReference(
                "interactor: interactive problems have stdio cases (style \"stdio\"), whose \
                 stdin is the interactor's input.txt"
                    .into(),
            ));
        }
        self.prepare_judge_program(Role::Interactor, interactor, run)
    }

    /// Runs the program against the interactor on each case, side by side.
    pub(super) async fn judge_interactive(
        &self,
        run: &RunSettings,
        language: Language,
        code: &str,
        cases: &[StdioCase],
        interactor: &Prepared,
    ) -> Result<Judged, Unjudged> {
        let runs = cases.iter().map(|case| async move {
            let program = Self::program(run, language, code.to_string(), String::new());
            let talker = interactor.on_case(&case.stdin, "", &case.stdout);
            self.admitted(|| {
                let (talker, program) = (talker.clone(), program.clone());
                async move {
                    let ran = self.sandbox().run_interactive(talker, program, None).await;
                    match &ran {
                        Ok(i) => [&i.interactor, &i.program]
                            .into_iter()
                            .flatten()
                            .for_each(|side| record(&side.outcome)),
                        Err(e) => record_refusal(e),
                    }
                    ran
                }
            })
            .await
        });
        let ran = futures::future::join_all(runs).await;
        let mut cases = Vec::with_capacity(ran.len());
        let mut runtime = None;
        for (index, ran) in ran.into_iter().enumerate() {
            let interaction = ran?;
            let program = interaction.program.as_ref().map(|p| &p.outcome);
            runtime = runtime.or(program.and_then(|p| p.runtime.map(|r| r.as_str().to_string())));
            cases.push(verdict(index, &interaction, interactor.rejected));
        }
        Ok(Judged {
            cases,
            runtime,
            problem: None,
        })
    }
}

/// One case's verdict from its interaction.
fn verdict(index: usize, interaction: &Interaction, rejected: i32) -> CaseVerdict {
    let Decision {
        status,
        error,
        waiting,
    } = decide(interaction, rejected);
    // What the interactor wrote to its stderr (its stdout went to the program); one that did
    // not compile: the compiler's.
    let message = interaction
        .interactor
        .as_ref()
        .and_then(|i| match &i.outcome.compile {
            Some(c) if !c.ok => tail(&c.stderr),
            _ => tail(&i.outcome.stderr),
        });
    CaseVerdict {
        index,
        status,
        got: None,
        expected: None,
        error,
        checker_message: message.filter(|_| status != CaseStatus::Passed),
        waiting,
    }
}

/// How an interaction decides its case (the rules at the top of this module).
fn decide(interaction: &Interaction, rejected: i32) -> Decision {
    let program = interaction.program.as_ref();
    let sides = [interaction.interactor.as_ref(), program];
    if let Some(broken) = sides
        .into_iter()
        .flatten()
        .find(|s| s.outcome.status == Status::InternalError)
    {
        return internal(
            broken
                .outcome
                .message
                .as_deref()
                .unwrap_or("sandbox failure"),
        );
    }
    if let Some(p) = program.filter(|p| p.outcome.status == Status::CompileError) {
        return program_failed(p);
    }
    let Some(interactor) = interaction.interactor.as_ref() else {
        return internal("the interactor did not run");
    };
    let said = match interactor.outcome.status {
        Status::Ok => Said::Accepted,
        Status::RuntimeError if interactor.outcome.exit_code == Some(rejected) => Said::Rejected,
        Status::Timeout if interactor.waited => Said::Waited,
        _ => return interactor_failed(interactor),
    };
    if let Some(p) =
        program.filter(|p| interaction.first == Party::Program && p.outcome.status != Status::Ok)
    {
        return program_failed(p);
    }
    match (said, program) {
        (Said::Accepted, Some(p)) if p.outcome.status == Status::Ok => Decision {
            status: CaseStatus::Passed,
            error: None,
            waiting: None,
        },
        (Said::Accepted, Some(p)) => program_failed(p),
        (Said::Accepted, None) => internal("the program was stopped after the interactor accepted"),
        (Said::Rejected, _) => Decision {
            status: CaseStatus::WrongAnswer,
            error: None,
            waiting: None,
        },
        (Said::Waited, _) => Decision {
            status: CaseStatus::Timeout,
            error: Some(
                "the interactor waited for the program's output past its time limit".into(),
            ),
            waiting: Some(Party::Interactor),
        },
    }
}

/// How an interactor that did not fail ended.
enum Said {
    /// Exit status 0.
    Accepted,
    /// The rejection status.
    Rejected,
    /// Its time ran out while it waited for the program.
    Waited,
}

/// The program's own failure.
fn program_failed(program: &SideRun) -> Decision {
    let outcome = &program.outcome;
    let status = abnormal(outcome);
    let waited = program.waited && status == CaseStatus::Timeout;
    let error = match &outcome.compile {
        Some(c) if status == CaseStatus::CompileError => tail(&c.stderr),
        _ if waited => Some(
            "the program waited for the interactor past its time limit (blocked reading its \
             input or writing its output; a deadlock if the interactor was waiting too: does \
             the program flush its output?)"
                .into(),
        ),
        _ => tail(&outcome.stderr).or(outcome.message.clone()),
    };
    Decision {
        status,
        error,
        waiting: waited.then_some(Party::Program),
    }
}

/// The interactor's failure: the judge's, not the program's.
fn interactor_failed(interactor: &SideRun) -> Decision {
    let outcome = &interactor.outcome;
    let detail = match (&outcome.message, outcome.exit_code) {
        (Some(m), _) => m.clone(),
        (None, Some(code)) => format!("exit status {code}"),
        (None, None) => outcome.status.to_string(),
    };
    Decision {
        status: CaseStatus::CheckerError,
        error: Some(format!(
            "the interactor failed ({}): {detail}",
            outcome.status
        )),
        waiting: None,
    }
}

/// A sandbox failure: nothing was judged.
fn internal(why: &str) -> Decision {
    Decision {
        status: CaseStatus::InternalError,
        error: Some(why.to_string()),
        waiting: None,
    }
}

#[cfg(test)]
mod tests {
    use sandbox::Outcome;

    use super::*;

    const REJECTED: i32 = 1;

    fn side(status: Status, exit_code: Option<i32>, waited: bool) -> Option<SideRun> {
        Some(SideRun {
            outcome: Outcome::with_status(status, exit_code),
            waited,
        })
    }

    fn decided(
        first: Party,
        interactor: Option<SideRun>,
        program: Option<SideRun>,
    ) -> (CaseStatus, Option<Party>) {
        let d = decide(
            &Interaction {
                interactor,
                program,
                first,
            },
            REJECTED,
        );
        (d.status, d.waiting)
    }

    #[test]
    fn the_interactor_decides_a_case_the_program_did_not_fail_first() {
        use CaseStatus::*;
        let ok = || side(Status::Ok, Some(0), false);
        assert_eq!(decided(Party::Interactor, ok(), ok()), (Passed, None));
        assert_eq!(decided(Party::Program, ok(), ok()), (Passed, None));
        // Accepted, but the program then crashed or ran on past its limit.
        let crashed = side(Status::RuntimeError, Some(2), false);
        assert_eq!(
            decided(Party::Interactor, ok(), crashed),
            (RuntimeError, None)
        );
        // Rejected: the program, stopped or not, is wrong.
        let rejected = || side(Status::RuntimeError, Some(REJECTED), false);
        assert_eq!(
            decided(Party::Interactor, rejected(), None),
            (WrongAnswer, None)
        );
        assert_eq!(
            decided(Party::Program, rejected(), ok()),
            (WrongAnswer, None)
        );
        // It waited for the program's output until its time ran out: the program's timeout.
        let waited = side(Status::Timeout, None, true);
        assert_eq!(
            decided(Party::Interactor, waited, None),
            (Timeout, Some(Party::Interactor))
        );
    }

    #[test]
    fn the_programs_own_failure_first_is_its_verdict() {
        use CaseStatus::*;
        let rejected = || side(Status::RuntimeError, Some(REJECTED), false);
        let failures = [
            (Status::RuntimeError, RuntimeError),
            (Status::MemoryLimit, MemoryLimit),
            (Status::OutputLimit, OutputLimit),
            (Status::Timeout, Timeout),
        ];
        for (status, expected) in failures {
            let program = side(status, None, false);
            assert_eq!(
                decided(Party::Program, rejected(), program),
                (expected, None)
            );
        }
        // Its time ran out while it waited: a deadlock, or the interactor is silent.
        let waited = || side(Status::Timeout, None, true);
        assert_eq!(
            decided(Party::Program, rejected(), waited()),
            (Timeout, Some(Party::Program))
        );
        // ...unless the interactor then ran out of time computing: it was the slow one.
        let computing = side(Status::Timeout, None, false);
        assert_eq!(
            decided(Party::Program, computing, waited()),
            (CheckerError, None)
        );
        let broken = side(Status::CompileError, None, false);
        assert_eq!(decided(Party::Program, None, broken), (CompileError, None));
    }

    #[test]
    fn every_other_ending_of_the_interactor_is_its_own_failure() {
        let ok = || side(Status::Ok, Some(0), false);
        for (status, code) in [
            (Status::RuntimeError, Some(2)),
            (Status::RuntimeError, None),
            (Status::Timeout, None),
            (Status::MemoryLimit, None),
            (Status::OutputLimit, None),
            (Status::CompileError, None),
        ] {
            let interactor = side(status, code, false);
            assert_eq!(
                decided(Party::Interactor, interactor, None),
                (CaseStatus::CheckerError, None),
                "{status} {code:?}"
            );
        }
        let lost = side(Status::InternalError, None, false);
        assert_eq!(
            decided(Party::Program, ok(), lost).0,
            CaseStatus::InternalError
        );
    }
}
