//! What judging a program says: per case and overall, with typed statuses (their JSON names
//! are the stored verdicts' and the API's strings).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Extraction;

/// The judgement of one program.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CodeVerdict {
    /// Whether the program passed (reward == 1).
    pub correct: bool,
    /// Reward in [0, 1] according to the task's scoring.
    pub reward: f64,
    /// Outcome: `passed`, `failed`, `compile_error`, or (nothing judged) `internal_error`,
    /// `unsupported_language`, `invalid_reference`.
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
}

impl CodeStatus {
    /// True when the judge itself failed, so the verdict says nothing about the program.
    pub fn is_judge_error(self) -> bool {
        matches!(
            self,
            Self::InternalError | Self::UnsupportedLanguage | Self::InvalidReference
        )
    }
}

/// The result of one test case.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CaseVerdict {
    /// Case number (0-based).
    pub index: usize,
    /// `passed`, `wrong_answer`, `runtime_error`, `timeout`, `memory_limit`, `output_limit`,
    /// `compile_error`, `not_run` (the program ended before the harness reached it) or `internal_error`.
    #[schema(value_type = String)]
    pub status: CaseStatus,
    /// What the program produced (stdout or the returned value; truncated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// What was expected (removed from stored verdicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The end of stderr, or the exception raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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
