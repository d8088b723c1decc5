//! Judging generated programs against a task's tests, inside the sandbox.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The hidden reference of a `code` task: the language and how to test a program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CodeReference {
    /// Programming language of the expected program (`python`, `c`, `cpp`).
    pub language: String,
    /// How programs are tested.
    #[serde(flatten)]
    pub tests: Tests,
    /// How passed cases become a reward.
    #[serde(default)]
    pub scoring: Scoring,
    /// A known-good solution (kept hidden like the tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_solution: Option<String>,
}

/// The three styles of tests a code task can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "style", rename_all = "snake_case")]
pub enum Tests {
    /// HumanEval style: `prompt + completion + test + check(entry_point)`.
    Assert {
        /// Test code defining `check(candidate)`.
        test: String,
        /// Function under test.
        entry_point: String,
    },
    /// Standard input → expected standard output, per case.
    Stdio {
        /// The cases.
        cases: Vec<StdioCase>,
    },
    /// Call `entry_point(*args)` and compare with `expected`.
    Call {
        /// Function under test.
        entry_point: String,
        /// The cases.
        cases: Vec<CallCase>,
    },
}

/// One stdin/stdout case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StdioCase {
    /// Text fed to standard input.
    #[serde(default)]
    pub stdin: String,
    /// Expected standard output.
    pub stdout: String,
}

/// One function-call case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CallCase {
    /// Positional arguments.
    pub args: Vec<serde_json::Value>,
    /// Expected return value.
    pub expected: serde_json::Value,
}

/// Reward policy for multi-case tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// 1 when every case passes, else 0.
    #[default]
    AllOrNothing,
    /// Fraction of cases passed.
    Fraction,
}

/// Sandbox settings shared by `verifier serve` and `verifier score`.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// Maximum number of programs running at once (default: number of cores).
    #[arg(long, env = "VERIFIER_SANDBOX_CONCURRENCY")]
    pub sandbox_concurrency: Option<usize>,
}

/// Runs programs against tests.
pub struct Judge {
    _args: SandboxArgs,
}

/// The judgement of one program.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CodeVerdict {
    /// Whether the program passed (reward == 1).
    pub correct: bool,
    /// Reward in [0, 1] according to the task's scoring.
    pub reward: f64,
    /// Outcome (`passed`, `failed`, `internal_error`, ...).
    pub status: String,
    /// Human-readable detail.
    pub message: String,
}

impl CodeVerdict {
    /// True when the judge itself failed, so the verdict says nothing about the program.
    pub fn internal_error(&self) -> bool {
        self.status == "internal_error"
    }
}

impl Judge {
    /// Builds the judge and its sandbox.
    pub fn new(args: &SandboxArgs) -> anyhow::Result<Self> {
        Ok(Self {
            _args: args.clone(),
        })
    }

    /// Judges `response` (a full model response) for a task with `prompt` and `reference`.
    pub async fn judge(
        &self,
        _reference: &CodeReference,
        _prompt: &str,
        _response: &str,
    ) -> CodeVerdict {
        CodeVerdict {
            correct: false,
            reward: 0.0,
            status: "internal_error".into(),
            message: "the code sandbox is not wired into this build yet".into(),
        }
    }
}
