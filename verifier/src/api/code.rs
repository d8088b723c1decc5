//! `/v1/verify/code` (judge a program against tests) and a SandboxFusion-compatible `/run_code`
//! (the protocol itself is [`crate::compat::sandbox_fusion`]).

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;

use super::doc::BodyErrors;
use crate::code::{CodeReference, CodeVerdict};
use crate::compat::sandbox_fusion::{RunCode, RunCodeRequest, RunCodeResponse};
use crate::error::ApiError;
use crate::refusal::check_size;
use crate::request::ApiJson;
use crate::state::AppState;

/// A program to judge.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyCode {
    /// The tests and language.
    pub reference: CodeReference,
    /// The task prompt (HumanEval completions are appended to it).
    #[serde(default)]
    pub prompt: String,
    /// The model's response (a fenced code block or bare code).
    pub response: String,
}

/// Judge a program against tests in the sandbox.
#[utoipa::path(post, path = "/v1/verify/code", tag = "verify", request_body = VerifyCode,
    responses((status = 200, body = CodeVerdict), BodyErrors))]
pub async fn verify(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<VerifyCode>,
) -> Result<Json<CodeVerdict>, ApiError> {
    check_size("response", &req.response, s.limits.max_response_bytes)?;
    Ok(Json(
        s.scorer
            .code()
            .judge(&req.reference, &req.prompt, &req.response)
            .await,
    ))
}

/// Run one program, SandboxFusion style (drop-in for verl's `sandbox_fusion` reward).
///
/// Runs are admitted side by side (time-sliced), so `run_timeout` is wall-clock time from the
/// start of the run, as in SandboxFusion. A run that cannot be admitted within 8 s (what verl's
/// client, which waits `compile_timeout + run_timeout + 10 s`, leaves for waiting) is answered
/// 504 with `Retry-After`: SandboxFusion's answer when it cannot run a request in time, and the
/// one status verl's client retries (a 503 or a read timeout would be final there, and would
/// cost the sample its reward).
#[utoipa::path(post, path = "/run_code", tag = "sandbox", request_body = RunCodeRequest,
    responses((status = 200, body = RunCodeResponse), BodyErrors,
        (status = 504, body = wire::ErrorBody, description = "the sandbox could not admit the run in time; retry (see `Retry-After`)")))]
pub async fn run_code(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RunCodeRequest>,
) -> Result<Json<RunCodeResponse>, ApiError> {
    let judge = s.scorer.code();
    let config = judge.sandbox().config();
    let RunCode {
        program,
        budget,
        names,
    } = RunCode::prepare(
        req,
        &config.default_limits,
        config.fuel,
        s.limits.max_response_bytes,
    )?;
    let outcome = judge.run_within(program, Some(budget)).await?;
    Ok(Json(names.answer(&outcome)))
}
