//! Scoring a response against a task's reference: math answers in-process, programs in the
//! sandbox. Stateless; the pool records what comes out.

use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use crate::code;
use crate::math;
use crate::task::Reference;
use crate::verdict::Verdict;

/// Whether a score says something about the response, or the judge itself failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScoreStatus {
    /// The response was judged.
    Scored,
    /// The judge failed (e.g. sandbox internal error); the reward is 0 and means nothing.
    JudgeError,
}

impl ScoreStatus {
    /// The name stored in `rollouts.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scored => "scored",
            Self::JudgeError => "judge_error",
        }
    }
}

/// The outcome of scoring one response.
#[derive(Debug, Clone)]
pub struct Score {
    /// Reward in [0, 1].
    pub reward: f64,
    /// Whether the response is fully correct.
    pub correct: bool,
    /// Whether the judge could judge.
    pub status: ScoreStatus,
    /// The full verdict (with reference-side details; the APIs show its
    /// [`PublicVerdict`](crate::verdict::PublicVerdict)).
    pub verdict: Verdict,
}

/// Scores responses; one per service, shared by all requests.
pub struct Scorer {
    code: code::Judge,
    math: math::Options,
}

impl Scorer {
    /// A scorer using `code` for programs and `math` options for answers.
    pub fn new(code: code::Judge, math: math::Options) -> Self {
        Self { code, math }
    }

    /// The math options used for rollouts.
    pub fn math_options(&self) -> &math::Options {
        &self.math
    }

    /// The code judge.
    pub fn code(&self) -> &code::Judge {
        &self.code
    }

    /// Scores a math answer against a reference answer; cheap and synchronous.
    pub fn score_math(&self, reference: &str, response: &str) -> Score {
        let v = math::verify(reference, response, &self.math);
        count_math(&v);
        Score {
            reward: v.reward.clamp(0.0, 1.0),
            correct: v.correct,
            status: ScoreStatus::Scored,
            verdict: Verdict::Math(v),
        }
    }

    /// Scores `(reference, prompt, response)` jobs, in order: math answers on a blocking
    /// thread (cheap but CPU-bound, so they stay off the async workers), programs in the
    /// sandbox concurrently (its queue bounds the load). `Err` only if grading itself crashed.
    pub async fn score_batch(
        self: &Arc<Self>,
        jobs: Vec<(Reference, String, String)>,
    ) -> Result<Vec<Score>, String> {
        let (math, code): (Vec<_>, Vec<_>) = jobs
            .into_iter()
            .enumerate()
            .partition(|(_, (r, _, _))| matches!(r, Reference::Math(_)));
        let math_scorer = self.clone();
        let math_scores = tokio::task::spawn_blocking(move || {
            math.into_iter()
                .filter_map(|(i, (reference, _, response))| match reference {
                    Reference::Math(m) => Some((i, math_scorer.score_math(&m.answer, &response))),
                    Reference::Code(_) => None,
                })
                .collect::<Vec<_>>()
        });
        let code_scores = futures::future::join_all(code.into_iter().map(
            |(i, (reference, prompt, response))| {
                let scorer = self.clone();
                async move { (i, scorer.score(&reference, &prompt, &response).await) }
            },
        ))
        .await;
        let math_scores = math_scores
            .await
            .map_err(|e| format!("math grading failed: {e}"))?;
        let mut all: Vec<(usize, Score)> = math_scores.into_iter().chain(code_scores).collect();
        all.sort_by_key(|(i, _)| *i);
        Ok(all.into_iter().map(|(_, s)| s).collect())
    }

    /// Scores `response` to a task with `prompt` and `reference`.
    pub async fn score(&self, reference: &Reference, prompt: &str, response: &str) -> Score {
        match reference {
            Reference::Math(m) => self.score_math(&m.answer, response),
            Reference::Code(c) => {
                let v = self.code.judge(c, prompt, response).await;
                let status = if v.internal_error() {
                    ScoreStatus::JudgeError
                } else {
                    ScoreStatus::Scored
                };
                metrics::counter!("verifier_verifications_total", "kind" => "code", "outcome" => outcome(v.correct, v.internal_error())).increment(1);
                Score {
                    reward: v.reward.clamp(0.0, 1.0),
                    correct: v.correct,
                    status,
                    verdict: Verdict::Code(v),
                }
            }
        }
    }
}

/// Counts a math verdict in `verifier_verifications_total` by its outcome, so that the share of
/// undecided ones shows.
pub fn count_math(v: &math::Verdict) {
    metrics::counter!("verifier_verifications_total", "kind" => "math", "outcome" => v.outcome.as_str()).increment(1);
}

fn outcome(correct: bool, judge_error: bool) -> &'static str {
    match (judge_error, correct) {
        (true, _) => "judge_error",
        (false, true) => "correct",
        (false, false) => "incorrect",
    }
}
