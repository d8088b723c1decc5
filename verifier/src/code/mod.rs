//! Judging generated programs against a task's tests, inside the sandbox.

pub mod budget;
mod checker;
pub mod compare;
mod config;
mod excerpt;
pub mod fence;
pub mod harness;
mod interactive;
mod styles;
mod verdict;

use std::num::NonZeroU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sandbox::{Language, Limits, Outcome, Program, RunError, Sandbox};

use config::shared_sandbox;
use interactive::Judges;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use budget::TimeBudget;
pub use checker::Checker;
pub use config::JudgeConfig;
pub use fence::Extraction;
pub use verdict::{CaseStatus, CaseVerdict, CodeStatus, CodeVerdict, Unjudged};

/// The hidden reference of a `code` task: the language and how to test a program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CodeReference {
    /// Programming language of the expected program (`python`, `c`, `cpp`, `lua`, `sql`,
    /// `javascript`, `ruby`, `typescript`, `go`, `rust`; SandboxFusion's names such as `nodejs`
    /// are accepted too).
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
    /// Wall-clock limit per program run for this task, in milliseconds, at most the service's
    /// `--sandbox-time-limit-ms` (longer values are capped). Tests that finish in milliseconds
    /// can set a short one, so that programs that never finish hold a sandbox slot less long.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "positive"
    )]
    #[schema(value_type = Option<u64>, minimum = 1)]
    pub time_limit_ms: Option<NonZeroU64>,
    /// A deterministic CPU budget per program run, in wasm fuel (about one unit per
    /// instruction). With it the verdict does not depend on load or on the machine: a run that
    /// uses it up is a `timeout`, and the wall clock only guards the service, at
    /// [`budget::FUEL_WALL_GUARD`] times its `--sandbox-time-limit-ms` (`time_limit_ms` is then unused).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fuel"
    )]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1e15)]
    pub fuel_limit: Option<NonZeroU64>,
    /// Seed of the program's random sources (WASI `random_get`), 0 when absent. Every run of a
    /// program under one seed draws the same numbers and reads the same virtual time of day,
    /// so its output and fuel repeat exactly (README, "Deterministic runs").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "seed"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 9007199254740991_f64)]
    pub seed: Option<u64>,
    /// A special judge for `stdio` tests whose cases have more than one right output: it
    /// decides each case the program ran to its end, in testlib's convention (README, "Special
    /// judges"). A checker that fails is a `checker_error`, never the program's fault.
    // Boxed: few references carry one, and every reference would otherwise hold its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checker: Option<Box<Checker>>,
    /// An interactor, for interactive problems (`stdio` tests, no `checker`; same fields and
    /// languages as a checker). For each case it runs in the sandbox beside the program, each
    /// one's stdout piped into the other's stdin, each under its own limits (the interactor's
    /// default: the program's, with twice its wall clock). Its working folder holds
    /// `input.txt` (the case's `stdin`, which the program never sees), an empty `output.txt`
    /// it may write (testlib's `tout`, not read) and `answer.txt` (the case's `stdout`):
    /// compiled interactors get `input.txt output.txt answer.txt` as arguments (C++ ones may
    /// use `registerInteraction` of our `testlib.h`), Python ones in `sys.argv[1:]`. Exit
    /// status 0 passes the case (if the program then ends normally), 1 (Python:
    /// `sys.exit(1)`) makes it a `wrong_answer` and stops the program, anything else (a
    /// crash, a limit, no build) is a `checker_error`, never the program's fault; the
    /// program's own failure first (a crash, a limit) is its verdict. A case that timed out
    /// while one side was blocked waiting for the other says which in `waiting`. What the
    /// interactor wrote to stderr is kept in `checker_message` (data/interactive/README.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactor: Option<Box<Checker>>,
}

/// What every run of one judgement shares: its limits and its random seed.
pub(crate) struct RunSettings {
    limits: Limits,
    seed: u64,
}

/// The largest fuel budget a run may ask for (about days of CPU): JSON Schema's integers stop
/// at 2^63, so the documented range does too, well below it.
pub const MAX_FUEL: u64 = 1_000_000_000_000_000;

/// A fuel budget in 1..=[`MAX_FUEL`], or null.
fn fuel<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<NonZeroU64>, D::Error> {
    match positive(d)? {
        Some(n) if n.get() > MAX_FUEL => Err(serde::de::Error::custom(format!(
            "must be at most {MAX_FUEL}"
        ))),
        n => Ok(n),
    }
}

/// The largest seed a request may give: 2^53 − 1, the largest integer every JSON parser reads
/// exactly (and so what the documented range can state exactly).
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A seed in 0..=[`MAX_SEED`] (`7` or `7.0`, as JSON Schema reads integers), or null.
pub fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match wire::integer::optional::<D, u64>(d)? {
        Some(n) if n > MAX_SEED => Err(serde::de::Error::custom(format!(
            "must be at most {MAX_SEED}"
        ))),
        n => Ok(n),
    }
}

/// A positive integer (`5000` or `5000.0`, as JSON Schema reads integers), or null.
fn positive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<NonZeroU64>, D::Error> {
    match wire::integer::optional::<D, u64>(d)? {
        None => Ok(None),
        Some(n) => NonZeroU64::new(n)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom("must be at least 1")),
    }
}

/// The three styles of tests a code task can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "style", rename_all = "snake_case")]
pub enum Tests {
    /// HumanEval style: `prompt + completion + test + check(entry_point)` (Python only).
    Assert {
        /// Test code defining `check(candidate)`.
        test: String,
        /// Function under test.
        entry_point: String,
    },
    /// Standard input → expected standard output, per case (any language).
    Stdio {
        /// The cases.
        cases: Vec<StdioCase>,
        /// Tolerance for numeric tokens with a fractional part (absolute or relative; default 1e-6).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        float_tolerance: Option<f64>,
    },
    /// Call `entry_point(*args)` and compare with `expected` (Python and JavaScript).
    Call {
        /// Function under test.
        entry_point: String,
        /// The cases.
        cases: Vec<CallCase>,
        /// Tolerance for floats in results (absolute or relative; default 1e-6).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        float_tolerance: Option<f64>,
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

/// Runs programs against tests.
pub struct Judge {
    sandbox: Arc<Sandbox>,
    limits: Limits,
    /// Whether the sandbox meters fuel (a `fuel_limit` needs it).
    fuel: bool,
}

impl Judge {
    /// Builds the judge and its sandbox (shared with other judges of the same settings).
    pub fn new(config: &JudgeConfig) -> anyhow::Result<Self> {
        anyhow::ensure!(
            config.time_limit_ms > 0,
            "--sandbox-time-limit-ms must be positive"
        );
        anyhow::ensure!(config.memory_mb > 0, "--sandbox-memory-mb must be positive");
        anyhow::ensure!(
            config
                .memory_budget_mb
                .is_none_or(|b| b >= config.memory_mb),
            "--sandbox-memory-budget-mb must hold at least one run's --sandbox-memory-mb"
        );
        let sandbox = shared_sandbox(config.sandbox())?;
        Ok(Self {
            sandbox,
            limits: config.limits(),
            fuel: config.fuel,
        })
    }

    /// The sandbox programs run in.
    pub fn sandbox(&self) -> &Arc<Sandbox> {
        &self.sandbox
    }

    /// Runs one program, recording metrics.
    pub async fn run(&self, program: Program) -> Result<Outcome, RunError> {
        self.run_within(program, None).await
    }

    /// Runs one program if a sandbox slot frees up within `max_wait` (else [`RunError::Busy`]),
    /// recording metrics.
    pub async fn run_within(
        &self,
        program: Program,
        max_wait: Option<Duration>,
    ) -> Result<Outcome, RunError> {
        let result = self.sandbox.run_within(program, max_wait).await;
        match &result {
            Ok(o) => record(o),
            Err(e) => record_refusal(e),
        }
        result
    }

    /// Judges `response` (a full model response) for a task with `prompt` and `reference`.
    pub async fn judge(
        &self,
        reference: &CodeReference,
        prompt: &str,
        response: &str,
    ) -> CodeVerdict {
        let started = Instant::now();
        let Some(language) = Language::parse(&reference.language) else {
            return CodeVerdict::not_judged(
                Unjudged::UnsupportedLanguage(format!(
                    "unknown language {:?} (python, c, cpp, lua, sql, javascript, ruby, typescript, go, rust)",
                    reference.language
                )),
                &reference.language,
                Extraction::WholeText,
            );
        };
        let (code, extraction) = fence::program(response, language);
        let seed = reference.seed.unwrap_or(0);
        let budget = TimeBudget::of_task(
            reference.fuel_limit,
            reference.time_limit_ms,
            self.limits.wall_time,
        );
        let limits = match budget::for_request(&self.limits, self.fuel, budget) {
            Ok(limits) => limits,
            Err(r) => {
                let field = r.field.as_deref().unwrap_or("reference");
                return CodeVerdict::not_judged(
                    Unjudged::InvalidReference(format!("{field}: {}", r.message)),
                    language.as_str(),
                    extraction,
                );
            }
        };
        if !self.sandbox.supports(language) {
            return CodeVerdict::not_judged(
                Unjudged::UnsupportedLanguage(format!(
                    "{language} is not installed in this sandbox"
                )),
                language.as_str(),
                extraction,
            );
        }
        let run = RunSettings { limits, seed };
        let judges = match self.prepare_judges(reference, &run) {
            Ok(j) => j,
            Err(why) => return CodeVerdict::not_judged(why, language.as_str(), extraction),
        };
        let judged = match (&reference.tests, judges) {
            (Tests::Stdio { cases, .. }, Judges::Interactor(interactor)) => {
                self.judge_interactive(&run, language, &code, cases, &interactor)
                    .await
            }
            (Tests::Assert { test, entry_point }, _) => {
                self.judge_assert(&run, language, prompt, &code, test, entry_point)
                    .await
            }
            (
                Tests::Stdio {
                    cases,
                    float_tolerance,
                },
                judges,
            ) => {
                let checker = match judges {
                    Judges::Checker(c) => Some(c),
                    Judges::Compared | Judges::Interactor(_) => None,
                };
                self.judge_stdio(
                    &run,
                    language,
                    &code,
                    cases,
                    float_tolerance.unwrap_or(compare::DEFAULT_FLOAT_TOLERANCE),
                    checker.as_ref(),
                )
                .await
            }
            (
                Tests::Call {
                    entry_point,
                    cases,
                    float_tolerance,
                },
                _,
            ) => {
                self.judge_call(
                    &run,
                    language,
                    &code,
                    entry_point,
                    cases,
                    float_tolerance.unwrap_or(compare::DEFAULT_FLOAT_TOLERANCE),
                )
                .await
            }
        };
        match judged {
            Ok(j) => CodeVerdict::of_cases(j, reference.scoring, language, extraction, started),
            Err(why) => CodeVerdict::not_judged(why, language.as_str(), extraction),
        }
    }
}

/// Counts a finished sandbox run in the service's metrics.
fn record(o: &Outcome) {
    let runtime = o.runtime.map_or("none", |r| r.as_str());
    metrics::counter!("verifier_sandbox_runs_total", "runtime" => runtime, "status" => o.status.as_str())
        .increment(1);
    metrics::histogram!("verifier_sandbox_run_seconds", "runtime" => runtime)
        .record(o.wall_time.as_secs_f64());
    if let Some(c) = o.compile.as_ref().filter(|c| c.ok) {
        let cached = if c.cached { "true" } else { "false" };
        metrics::counter!("verifier_sandbox_builds_total", "cached" => cached).increment(1);
    }
}

/// Counts a run the sandbox refused in the service's metrics.
fn record_refusal(e: &RunError) {
    let status = match e {
        RunError::Busy { .. } => "busy",
        _ => "refused",
    };
    metrics::counter!("verifier_sandbox_runs_total", "runtime" => "none", "status" => status)
        .increment(1);
}
