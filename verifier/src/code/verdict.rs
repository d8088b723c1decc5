//! What judging a program says: per case and overall, with typed statuses (their JSON names
//! are the stored verdicts' and the API's strings).

use std::time::Instant;

use sandbox::{Language, Party};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::styles::Judged;
use super::{Extraction, Scoring};

/// The judgement of one program.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CodeVerdict {
    /// Whether the program passed (reward == 1).
    pub correct: bool,
    /// Reward in [0, 1] according to the task's scoring.
    pub reward: f64,
    /// Outcome: `passed`, `failed`, `compile_error`, or (the judge failed, the reward means
    /// nothing) `checker_error`, `internal_error`, `unsupported_language`, `invalid_reference`.
    #[schema(value_type = String)]
    pub status: CodeStatus,
    /// Human-readable detail.
    pub message: String,
    /// Language judged.
    pub language: String,
    /// How the program was taken from the response.
    #[schema(value_type = String)]
    pub extraction: Extraction,
    /// Runtime(s) that ran it (`python_fast`, `python_full`, `wasi`, `lua`, `sqlite`, `quickjs`
    /// for JavaScript and TypeScript, `ruby`).
    pub runtime: Option<String>,
    /// Cases passed.
    pub passed: usize,
    /// Cases in the test.
    pub total: usize,
    /// Every case's result.
    pub cases: Vec<CaseVerdict>,
    /// Total sandbox time, in seconds.
    pub elapsed_seconds: f64,
}

/// The overall outcome of judging a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeStatus {
    /// Every case passed.
    Passed,
    /// Some case did not pass.
    Failed,
    /// The program did not compile.
    CompileError,
    /// The sandbox failed: nothing was judged.
    InternalError,
    /// The task's language cannot run here: nothing was judged.
    UnsupportedLanguage,
    /// The task's tests cannot be run as given: nothing was judged.
    InvalidReference,
    /// The task's checker failed on some case (crashed, hit a limit, did not compile): the
    /// program is not to blame, and the reward is 0.
    CheckerError,
}

impl CodeStatus {
    /// True when the judge itself failed, so the verdict says nothing about the program.
    pub fn is_judge_error(self) -> bool {
        matches!(
            self,
            Self::InternalError
                | Self::UnsupportedLanguage
                | Self::InvalidReference
                | Self::CheckerError
        )
    }
}

/// The result of one test case.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CaseVerdict {
    /// Case number (0-based).
    pub index: usize,
    /// `passed`, `wrong_answer`, `runtime_error`, `timeout`, `memory_limit`, `output_limit`,
    /// `compile_error`, `not_run` (the program ended before the harness reached it),
    /// `checker_error` (the task's checker failed on this case) or `internal_error`.
    #[schema(value_type = String)]
    pub status: CaseStatus,
    /// What the program produced (stdout or the returned value; truncated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// What was expected (removed from stored verdicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The end of stderr, or the exception raised; for a `checker_error`, how the checker failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the task's checker or interactor wrote of a case it did not accept (the end of its
    /// stderr, else of its stdout; one that did not compile: the compiler's). Removed from
    /// stored verdicts' public view, like `expected`: checkers often quote the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checker_message: Option<String>,
    /// An interactive case that timed out while one side was blocked waiting for the other
    /// (for its output, or for room in its own pipe): that side, `program` or `interactor`. A
    /// deadlock (both waiting) names the side whose time ran out first; either way the case is
    /// the program's `timeout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub waiting: Option<Party>,
}

/// How one test case went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// The case passed.
    Passed,
    /// The program ran but gave another answer.
    WrongAnswer,
    /// The program failed or raised.
    RuntimeError,
    /// A time or fuel limit ended the program.
    Timeout,
    /// The memory limit ended the program.
    MemoryLimit,
    /// The output or working-folder limit ended the program.
    OutputLimit,
    /// The program did not compile.
    CompileError,
    /// The program ended before the harness reached this case.
    NotRun,
    /// The task's checker crashed, hit a limit or did not compile on this case's output (or
    /// its interactor failed so on this case).
    CheckerError,
    /// The sandbox failed.
    InternalError,
}

/// Why a program was not judged at all.
#[derive(Debug, Clone)]
pub enum Unjudged {
    /// The task's language cannot run here.
    UnsupportedLanguage(String),
    /// The task's tests cannot be run as given (e.g. a Python-only style for C).
    InvalidReference(String),
    /// The sandbox failed.
    Internal(String),
}

impl CodeVerdict {
    /// True when the judge itself failed, so the verdict says nothing about the program.
    pub fn internal_error(&self) -> bool {
        self.status.is_judge_error()
    }

    /// The verdict of judged cases under `scoring`, judging having begun at `started`. A case the
    /// sandbox failed makes it an `internal_error`, one the checker failed a `checker_error`
    /// (reward 0): either way the judge's failure, not the program's.
    pub(super) fn of_cases(
        judged: Judged,
        scoring: Scoring,
        language: Language,
        extraction: Extraction,
        started: Instant,
    ) -> Self {
        let Judged {
            cases,
            runtime,
            problem,
        } = judged;
        let total = cases.len();
        let passed = cases
            .iter()
            .filter(|c| c.status == CaseStatus::Passed)
            .count();
        if let Some(internal) = cases.iter().find(|c| c.status == CaseStatus::InternalError) {
            let why = internal
                .error
                .clone()
                .unwrap_or_else(|| "sandbox failure".into());
            let mut v = Self::not_judged(Unjudged::Internal(why), language.as_str(), extraction);
            v.cases = cases;
            v.total = total;
            return v;
        }
        let all = total > 0 && passed == total;
        let checker_failed = cases.iter().find(|c| c.status == CaseStatus::CheckerError);
        let reward = match scoring {
            _ if checker_failed.is_some() => 0.0,
            Scoring::AllOrNothing => f64::from(u8::from(all)),
            Scoring::Fraction if total > 0 => passed as f64 / total as f64,
            Scoring::Fraction => 0.0,
        };
        let status = if all {
            CodeStatus::Passed
        } else if checker_failed.is_some() {
            CodeStatus::CheckerError
        } else if cases.iter().any(|c| c.status == CaseStatus::CompileError) {
            CodeStatus::CompileError
        } else {
            CodeStatus::Failed
        };
        let message = match (checker_failed, problem) {
            (Some(c), _) => format!(
                "the checker failed on case {}: {}",
                c.index,
                c.error.as_deref().unwrap_or("no detail")
            ),
            (None, Some(problem)) => problem,
            (None, None) => format!("{passed}/{total} cases passed"),
        };
        CodeVerdict {
            correct: all,
            reward,
            status,
            message,
            language: language.as_str().into(),
            extraction,
            runtime,
            passed,
            total,
            cases,
            elapsed_seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// A verdict that judged nothing.
    pub(super) fn not_judged(why: Unjudged, language: &str, extraction: Extraction) -> Self {
        let (status, message) = match why {
            Unjudged::UnsupportedLanguage(m) => (CodeStatus::UnsupportedLanguage, m),
            Unjudged::InvalidReference(m) => (CodeStatus::InvalidReference, m),
            Unjudged::Internal(m) => (CodeStatus::InternalError, m),
        };
        Self {
            correct: false,
            reward: 0.0,
            status,
            message,
            language: language.into(),
            extraction,
            runtime: None,
            passed: 0,
            total: 0,
            cases: Vec::new(),
            elapsed_seconds: 0.0,
        }
    }
}
