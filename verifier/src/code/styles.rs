//! Running a program against each test style (assert, stdio, call) and reading its results.

use sandbox::{Language, Outcome, Program, RunError, Status};

use super::checker::Prepared;
use super::excerpt::{head, tail};
use super::harness::{self, CaseReport};
use super::{CallCase, CaseStatus, CaseVerdict, Judge, RunSettings, StdioCase, Unjudged, compare};

/// Runs of one program before a busy sandbox makes it unjudged.
const BUSY_ATTEMPTS: u32 = 3;

/// The case status for a run that did not end normally.
pub(super) fn abnormal(outcome: &Outcome) -> CaseStatus {
    match outcome.status {
        Status::Ok | Status::RuntimeError => CaseStatus::RuntimeError,
        Status::Timeout => CaseStatus::Timeout,
        Status::MemoryLimit => CaseStatus::MemoryLimit,
        Status::OutputLimit => CaseStatus::OutputLimit,
        Status::CompileError => CaseStatus::CompileError,
        Status::InternalError => CaseStatus::InternalError,
    }
}

/// A stdio case's status by comparing the program's output with the expected one, and the
/// error shown when it did not end normally.
fn compared(outcome: &Outcome, case: &StdioCase, tolerance: f64) -> (CaseStatus, Option<String>) {
    let status = match outcome.status {
        Status::Ok if compare::stdout_matches(&outcome.stdout, &case.stdout, tolerance) => {
            CaseStatus::Passed
        }
        Status::Ok => CaseStatus::WrongAnswer,
        _ => abnormal(outcome),
    };
    let error = match (&outcome.compile, status) {
        (Some(c), CaseStatus::CompileError) => tail(&c.stderr),
        (_, CaseStatus::Passed | CaseStatus::WrongAnswer) => None,
        _ => tail(&outcome.stderr).or(outcome.message.clone()),
    };
    (status, error)
}

impl Judge {
    /// Runs a program built by the judge, mapping refusals to a judge error.
    /// Judging waits to be admitted however long it takes, but a run the memory budget could not
    /// cover ended without a verdict: it is run again, a few times, before the judge gives up.
    pub(super) async fn run_built(&self, program: Program) -> Result<Outcome, Unjudged> {
        self.admitted(|| self.run(program.clone())).await
    }

    /// What `attempt` gives once the sandbox admits it, mapping refusals to a judge error: a
    /// busy answer is tried again, a few times, before the judge gives up.
    pub(super) async fn admitted<T, F>(&self, attempt: impl Fn() -> F) -> Result<T, Unjudged>
    where
        F: Future<Output = Result<T, RunError>>,
    {
        let mut attempts = 1;
        loop {
            return match attempt().await {
                Ok(o) => Ok(o),
                Err(RunError::Busy { retry_after }) if attempts < BUSY_ATTEMPTS => {
                    attempts += 1;
                    tokio::time::sleep(retry_after).await;
                    continue;
                }
                Err(RunError::UnsupportedLanguage(m)) => Err(Unjudged::UnsupportedLanguage(m)),
                Err(RunError::InvalidProgram(m)) => Err(Unjudged::InvalidReference(m)),
                Err(e @ RunError::Busy { .. }) => Err(Unjudged::Internal(e.to_string())),
            };
        }
    }

    /// A program in `language` with the judgement's limits.
    pub(super) fn program(
        run: &RunSettings,
        language: Language,
        source: String,
        stdin: String,
    ) -> Program {
        Program {
            language,
            source,
            stdin: stdin.into_bytes(),
            limits: Some(run.limits.clone()),
            seed: run.seed,
            ..Program::default()
        }
    }

    pub(super) async fn judge_assert(
        &self,
        run: &RunSettings,
        language: Language,
        prompt: &str,
        code: &str,
        test: &str,
        entry_point: &str,
    ) -> Result<Judged, Unjudged> {
        if language != Language::Python {
            return Err(Unjudged::InvalidReference(
                "assert-style tests are Python only".into(),
            ));
        }
        let marker = harness::marker();
        let source = harness::assert_program(prompt, code, test, entry_point, &marker);
        let outcome = self
            .run_built(Self::program(run, language, source, String::new()))
            .await?;
        let reports = harness::parse(&outcome.stdout, &marker);
        let status = if reports.done {
            CaseStatus::Passed
        } else if outcome.status == Status::Ok {
            // The program ended cleanly without the harness finishing: it exited early.
            CaseStatus::NotRun
        } else if outcome.status == Status::RuntimeError
            && outcome.stderr.contains("AssertionError")
        {
            CaseStatus::WrongAnswer
        } else {
            abnormal(&outcome)
        };
        let problem = (status == CaseStatus::NotRun)
            .then(|| "the program exited before the tests finished".to_string());
        Ok(Judged {
            cases: vec![CaseVerdict {
                index: 0,
                status,
                got: None,
                expected: None,
                error: if status == CaseStatus::Passed {
                    None
                } else {
                    tail(&outcome.stderr).or(outcome.message.clone())
                },
                checker_message: None,
                waiting: None,
            }],
            runtime: outcome.runtime.map(|r| r.as_str().to_string()),
            problem,
        })
    }

    /// Runs the program on each case; with a checker, the checker decides each case the program
    /// ran to its end, in place of comparing outputs.
    pub(super) async fn judge_stdio(
        &self,
        run: &RunSettings,
        language: Language,
        code: &str,
        cases: &[StdioCase],
        tolerance: f64,
        checker: Option<&Prepared>,
    ) -> Result<Judged, Unjudged> {
        let runs = cases.iter().map(|case| async move {
            let program = Self::program(run, language, code.to_string(), case.stdin.clone());
            let outcome = self.run_built(program).await?;
            let ruling = match checker {
                Some(c) if outcome.status == Status::Ok => {
                    Some(self.check(c, case, &outcome.stdout).await?)
                }
                _ => None,
            };
            Ok::<_, Unjudged>((outcome, ruling))
        });
        let ran = futures::future::join_all(runs).await;
        let mut verdicts = Vec::with_capacity(cases.len());
        let mut runtime = None;
        for (index, (case, ran)) in cases.iter().zip(ran).enumerate() {
            let (outcome, ruling) = ran?;
            runtime = runtime.or(outcome.runtime.map(|r| r.as_str().to_string()));
            let (status, error, checker_message) = match ruling {
                Some(r) => (r.status, r.error, r.message),
                None => {
                    let (status, error) = compared(&outcome, case, tolerance);
                    (status, error, None)
                }
            };
            let failed = status != CaseStatus::Passed;
            verdicts.push(CaseVerdict {
                index,
                status,
                got: failed.then(|| head(&outcome.stdout)),
                expected: failed.then(|| head(&case.stdout)),
                error,
                checker_message: checker_message.filter(|_| failed),
                waiting: None,
            });
        }
        Ok(Judged {
            cases: verdicts,
            runtime,
            problem: None,
        })
    }

    pub(super) async fn judge_call(
        &self,
        run: &RunSettings,
        language: Language,
        code: &str,
        entry_point: &str,
        cases: &[CallCase],
        tolerance: f64,
    ) -> Result<Judged, Unjudged> {
        let marker = harness::marker();
        let args: Vec<Vec<serde_json::Value>> = cases.iter().map(|c| c.args.clone()).collect();
        let source = match language {
            Language::Python => harness::call_program(code, entry_point, &args, &marker),
            // TypeScript's types are stripped in the guest; the harness is plain JavaScript,
            // which is TypeScript too.
            Language::JavaScript | Language::TypeScript => {
                harness::call_program_js(code, entry_point, &args, &marker)
            }
            Language::Ruby => harness::call_program_rb(code, entry_point, &args, &marker),
            _ => {
                return Err(Unjudged::InvalidReference(
                    "function-call tests are Python, JavaScript, TypeScript and Ruby only".into(),
                ));
            }
        };
        let outcome = self
            .run_built(Self::program(run, language, source, String::new()))
            .await?;
        let reports = harness::parse(&outcome.stdout, &marker);
        let ended = if reports.done {
            CaseStatus::NotRun
        } else {
            abnormal(&outcome)
        };
        let verdicts = cases
            .iter()
            .enumerate()
            .map(|(index, case)| {
                let report = reports
                    .cases
                    .iter()
                    .find(|(i, _)| *i == index)
                    .map(|(_, r)| r);
                let expected = Some(head(&case.expected.to_string()));
                match report {
                    // A reported case only counts when the harness also finished: a program that
                    // kills the process mid-way cannot keep the cases before it.
                    Some(CaseReport::Returned(v))
                        if reports.done && compare::values_match(v, &case.expected, tolerance) =>
                    {
                        CaseVerdict {
                            index,
                            status: CaseStatus::Passed,
                            got: None,
                            expected: None,
                            error: None,
                            checker_message: None,
                            waiting: None,
                        }
                    }
                    Some(CaseReport::Returned(v)) => CaseVerdict {
                        index,
                        status: if reports.done {
                            CaseStatus::WrongAnswer
                        } else {
                            ended
                        },
                        got: Some(head(&v.to_string())),
                        expected,
                        error: None,
                        checker_message: None,
                        waiting: None,
                    },
                    Some(CaseReport::Raised(e)) => CaseVerdict {
                        index,
                        status: CaseStatus::RuntimeError,
                        got: None,
                        expected,
                        error: Some(head(e)),
                        checker_message: None,
                        waiting: None,
                    },
                    Some(CaseReport::Unserializable(t)) => CaseVerdict {
                        index,
                        status: CaseStatus::WrongAnswer,
                        got: Some(format!("<unserializable {t}>")),
                        expected,
                        error: None,
                        checker_message: None,
                        waiting: None,
                    },
                    None => CaseVerdict {
                        index,
                        status: ended,
                        got: None,
                        expected,
                        error: tail(&outcome.stderr).or(outcome.message.clone()),
                        checker_message: None,
                        waiting: None,
                    },
                }
            })
            .collect();
        Ok(Judged {
            cases: verdicts,
            runtime: outcome.runtime.map(|r| r.as_str().to_string()),
            problem: (!reports.done).then(|| {
                format!(
                    "the program ended before the tests finished ({})",
                    outcome.status
                )
            }),
        })
    }
}

/// Per-case results of one judging, before scoring.
pub(super) struct Judged {
    pub(super) cases: Vec<CaseVerdict>,
    pub(super) runtime: Option<String>,
    pub(super) problem: Option<String>,
}
