//! `/v1/verify/code` (judge a program against tests) and a SandboxFusion-compatible `/run_code`.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use sandbox::{Language, Outcome, Program, ProgramFile, RunError, Status};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use wire::{ErrorBody, ErrorCode, ErrorDetail};

use super::{ApiJson, AppState, check_size};
use crate::code::{CodeReference, CodeVerdict};
use crate::error::ApiError;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/verify/code", post(verify))
        .route("/run_code", post(run_code))
}

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
    responses((status = 200, body = CodeVerdict), (status = 400, description = "Unreadable JSON", body = wire::ErrorBody), (status = 413, description = "Body over the size limit", body = wire::ErrorBody), (status = 422, description = "Invalid values", body = wire::ErrorBody)))]
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

/// SandboxFusion's `RunCodeRequest` (Python, C and C++ are supported here).
#[derive(Debug, Deserialize, ToSchema)]
pub struct RunCodeRequest {
    /// Source code.
    pub code: String,
    /// `python`, `cpp` or `c`, or an alias (`python3`, `py`, `c++`, `cxx`, `cc`); case and
    /// surrounding white space are ignored.
    #[schema(
        pattern = r"^\s*(?:[Pp][Yy][Tt][Hh][Oo][Nn]3?|[Pp][Yy]|[Cc]|[Cc][Pp][Pp]|[Cc]\+\+|[Cc][Xx][Xx]|[Cc][Cc])\s*$"
    )]
    pub language: String,
    /// Compile timeout in seconds (C/C++), 0.001–600.
    #[serde(default = "ten")]
    #[schema(minimum = 0.001, maximum = 600)]
    pub compile_timeout: f64,
    /// Run timeout in seconds, 0.001–600.
    #[serde(default = "ten")]
    #[schema(minimum = 0.001, maximum = 600)]
    pub run_timeout: f64,
    /// Memory limit in MiB, 1–16384; -1 (SandboxFusion's default) means the service's default.
    #[serde(
        default = "minus_one",
        rename = "memory_limit_MB",
        deserialize_with = "wire::integer::exact"
    )]
    #[schema(schema_with = memory_limit_schema)]
    pub memory_limit_mb: i64,
    /// Standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Files placed in the run's working directory (a fresh folder per run, which the program
    /// may also write to): relative path → base64 contents.
    #[serde(default)]
    #[schema(schema_with = files_schema)]
    pub files: BTreeMap<String, Option<String>>,
    /// Relative paths in the working directory to return after the run (base64 in `files`);
    /// missing ones are left out.
    #[serde(default)]
    #[schema(schema_with = fetch_files_schema)]
    pub fetch_files: Vec<String>,
}

/// A path in the run's working directory, as [`working_path`] takes it: optional leading `./`,
/// then `/`-separated parts, none empty, `.` or `..`, without `\` or NUL.
const WORKING_PATH: &str = r"^(?:\./)*(?:[^/\\\u0000.][^/\\\u0000]*|\.[^/\\\u0000.][^/\\\u0000]*|\.\.[^/\\\u0000]+)(?:/(?:[^/\\\u0000.][^/\\\u0000]*|\.[^/\\\u0000.][^/\\\u0000]*|\.\.[^/\\\u0000]+))*$";

/// Standard base64 with padding, ASCII white space ignored ([`base64::decode`]).
const BASE64: &str = r"^[ \t\n\f\r]*(?:(?:[A-Za-z0-9+/][ \t\n\f\r]*){4})*(?:(?:[A-Za-z0-9+/][ \t\n\f\r]*){2}=[ \t\n\f\r]*=[ \t\n\f\r]*|(?:[A-Za-z0-9+/][ \t\n\f\r]*){3}=[ \t\n\f\r]*)?$";

/// `files`: working-directory path → base64 contents (null: an empty file).
fn files_schema() -> utoipa::openapi::schema::Schema {
    serde_json::from_value(serde_json::json!({
        "type": "object",
        "description": "Files placed in the run's working directory (a fresh folder per run, which the program may also write to): relative path → base64 contents (null: empty).",
        "propertyNames": { "type": "string", "pattern": WORKING_PATH },
        "additionalProperties": { "type": ["string", "null"], "pattern": BASE64 },
    }))
    .expect("a valid schema")
}

/// `fetch_files`: working-directory paths.
fn fetch_files_schema() -> utoipa::openapi::schema::Schema {
    serde_json::from_value(serde_json::json!({
        "type": "array",
        "description": "Relative paths in the working directory to return after the run (base64 in `files`); missing ones are left out.",
        "items": { "type": "string", "pattern": WORKING_PATH },
    }))
    .expect("a valid schema")
}

/// `memory_limit_MB`: -1, or 1–16384.
fn memory_limit_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    let int = || ObjectBuilder::new().schema_type(Type::Integer);
    OneOfBuilder::new()
        .item(int().enum_values(Some([-1])))
        .item(int().minimum(Some(1)).maximum(Some(16_384)))
        .default(Some((-1).into()))
        .description(Some(
            "Memory limit in MiB, 1–16384; -1 (SandboxFusion's default) means the service's default.",
        ))
        .into()
}

fn ten() -> f64 {
    10.0
}

fn minus_one() -> i64 {
    -1
}

/// SandboxFusion's overall status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum RunStatus {
    /// Compiled (if needed) and exited with 0.
    Success,
    /// Compile error, non-zero exit, or time limit.
    Failed,
    /// The sandbox failed.
    SandboxError,
}

/// SandboxFusion's per-command status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum CommandRunStatus {
    /// The command ended (any exit code).
    Finished,
    /// The sandbox could not run it, or stopped it for writing past the output limits.
    Error,
    /// It ran out of time.
    TimeLimitExceeded,
}

/// SandboxFusion's `CommandRunResult`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CommandRunResult {
    /// How the command ended.
    pub status: CommandRunStatus,
    /// Seconds.
    pub execution_time: Option<f64>,
    /// Exit code.
    pub return_code: Option<i32>,
    /// Standard output.
    pub stdout: Option<String>,
    /// Standard error.
    pub stderr: Option<String>,
}

/// SandboxFusion's `RunCodeResponse`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunCodeResponse {
    /// Overall status.
    pub status: RunStatus,
    /// Detail for sandbox errors and limits.
    pub message: String,
    /// The compile step (C/C++).
    pub compile_result: Option<CommandRunResult>,
    /// The run.
    pub run_result: Option<CommandRunResult>,
    /// Always null here (SandboxFusion's Kubernetes pod name).
    pub executor_pod_name: Option<String>,
    /// Fetched files: path → base64.
    pub files: BTreeMap<String, String>,
    /// Extra detail beyond SandboxFusion: the sandbox's own status (`ok`, `memory_limit`, ...).
    pub sandbox_status: Option<String>,
    /// Extra detail: which runtime ran the program.
    pub runtime: Option<String>,
}

impl RunCodeResponse {
    fn sandbox_error(message: String) -> Self {
        Self {
            status: RunStatus::SandboxError,
            message,
            compile_result: None,
            run_result: None,
            executor_pod_name: None,
            files: BTreeMap::new(),
            sandbox_status: None,
            runtime: None,
        }
    }
}

/// Seconds from a request, as a duration within [1 ms, 600 s] (a shorter positive one would
/// round to nothing in the sandbox).
fn seconds(field: &str, value: f64) -> Result<Duration, ApiError> {
    if !(0.001..=600.0).contains(&value) {
        return Err(ApiError::invalid(
            field,
            format!("{field} must be between 0.001 and 600 seconds"),
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// A relative path of the working directory as SandboxFusion clients write it (`./out.txt`
/// is `out.txt`), or a 422 naming `field`.
fn working_path(field: String, path: &str) -> Result<String, ApiError> {
    let trimmed = path.trim_start_matches("./");
    if !ProgramFile::path_is_valid(trimmed) {
        return Err(ApiError::invalid(
            field,
            format!(
                "{path:?} must be a relative path inside the working directory (no `..`, no leading `/`)"
            ),
        ));
    }
    Ok(trimmed.to_string())
}

/// The answer when no sandbox slot frees up within the request's own time budget: 503 with
/// `Retry-After`, sent while the client is still waiting (verl's client gives up after
/// compile + run timeouts + 10 s and counts that as a failed test).
fn busy(retry_after: Duration) -> Response {
    let seconds = retry_after.as_secs_f64().ceil().max(1.0) as u64;
    let body = ErrorBody {
        error: ErrorDetail {
            code: ErrorCode::SandboxBusy,
            message: format!(
                "every sandbox slot is taken for longer than this request's time budget; retry in {seconds} s"
            ),
            field: None,
        },
    };
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, seconds.to_string())],
        Json(body),
    )
        .into_response()
}

/// Run one program, SandboxFusion style (drop-in for verl's `sandbox_fusion` reward).
///
/// A request that would wait for a sandbox slot longer than its own time budget
/// (`compile_timeout + run_timeout`) is answered early with 503 and `Retry-After`.
#[utoipa::path(post, path = "/run_code", tag = "sandbox", request_body = RunCodeRequest,
    responses((status = 200, body = RunCodeResponse), (status = 400, description = "Unreadable JSON", body = wire::ErrorBody), (status = 413, description = "Body over the size limit", body = wire::ErrorBody), (status = 422, description = "Invalid values", body = wire::ErrorBody),
        (status = 503, body = wire::ErrorBody, description = "the sandbox is busy for longer than the request's time budget; see `Retry-After`")))]
pub async fn run_code(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RunCodeRequest>,
) -> Result<Response, ApiError> {
    check_size("code", &req.code, s.limits.max_response_bytes)?;
    let language = Language::parse(&req.language).ok_or_else(|| {
        ApiError::invalid(
            "language",
            format!(
                "unsupported language {:?}; this sandbox runs python, cpp and c",
                req.language
            ),
        )
    })?;
    let judge = s.scorer.code();
    let mut limits = judge.sandbox().config().default_limits.clone();
    limits.wall_time = seconds("run_timeout", req.run_timeout)?;
    limits.compile_time = seconds("compile_timeout", req.compile_timeout)?;
    match req.memory_limit_mb {
        -1 => {}
        mb if (1..=16_384).contains(&mb) => limits.memory_bytes = (mb as u64) << 20,
        _ => {
            return Err(ApiError::invalid(
                "memory_limit_MB",
                "memory_limit_MB must be -1 or in 1..=16384",
            ));
        }
    }
    let mut files = Vec::with_capacity(req.files.len());
    for (path, contents) in &req.files {
        let field = format!("files.{path}");
        let contents = match contents {
            Some(b64) => base64::decode(b64).map_err(|e| ApiError::invalid(&field, e))?,
            None => Vec::new(),
        };
        files.push(ProgramFile {
            path: working_path(field, path)?,
            contents,
        });
    }
    // Answers are keyed by the paths as the client wrote them.
    let mut fetch_names = BTreeMap::new();
    for (i, path) in req.fetch_files.iter().enumerate() {
        fetch_names.insert(
            working_path(format!("fetch_files[{i}]"), path)?,
            path.clone(),
        );
    }
    // The request's own time budget, as SandboxFusion clients state it for every language
    // (verl sends both timeouts and waits for their sum plus 10 s).
    let budget = limits.wall_time + limits.compile_time;
    let program = Program {
        language,
        source: req.code,
        stdin: req.stdin.unwrap_or_default().into_bytes(),
        files,
        fetch_files: fetch_names.keys().cloned().collect(),
        limits: Some(limits),
        ..Program::default()
    };
    let outcome = match judge.run_within(program, Some(budget)).await {
        Ok(o) => o,
        Err(RunError::InvalidProgram(m)) => return Err(ApiError::invalid("code", m)),
        Err(RunError::UnsupportedLanguage(m)) => return Err(ApiError::invalid("language", m)),
        Err(RunError::Busy { retry_after }) => return Ok(busy(retry_after)),
    };
    let mut resp = response(&outcome);
    resp.files = outcome
        .files
        .iter()
        .map(|f| {
            let name = fetch_names.get(&f.path).unwrap_or(&f.path).clone();
            (name, base64::encode(&f.contents))
        })
        .collect();
    Ok(Json(resp).into_response())
}

/// Maps an outcome to SandboxFusion's response shape.
fn response(o: &Outcome) -> RunCodeResponse {
    let compile_result = o.compile.as_ref().map(|c| CommandRunResult {
        status: if c.timed_out {
            CommandRunStatus::TimeLimitExceeded
        } else {
            CommandRunStatus::Finished
        },
        execution_time: Some(c.wall_time.as_secs_f64()),
        return_code: c.exit_code,
        stdout: Some(String::new()),
        stderr: Some(c.stderr.clone()),
    });
    if o.status == Status::InternalError {
        let mut r = RunCodeResponse::sandbox_error(o.message.clone().unwrap_or_default());
        r.compile_result = compile_result;
        r.sandbox_status = Some(o.status.as_str().into());
        return r;
    }
    let run_result = (o.status != Status::CompileError).then(|| CommandRunResult {
        // A run stopped at the output limit may have exited 0 (C ignores failed writes):
        // `Error` keeps clients such as verl's from reading it as a clean finish.
        status: match o.status {
            Status::Timeout => CommandRunStatus::TimeLimitExceeded,
            Status::OutputLimit => CommandRunStatus::Error,
            _ => CommandRunStatus::Finished,
        },
        execution_time: Some(o.wall_time.as_secs_f64()),
        // A trap or limit has no exit code; SandboxFusion reports killed processes as non-zero.
        return_code: match o.status {
            Status::Timeout | Status::OutputLimit => None,
            _ => Some(o.exit_code.unwrap_or(1)),
        },
        stdout: Some(o.stdout.clone()),
        stderr: Some(o.stderr.clone()),
    });
    RunCodeResponse {
        status: if o.status == Status::Ok {
            RunStatus::Success
        } else {
            RunStatus::Failed
        },
        message: match o.status {
            Status::Ok => String::new(),
            _ => o.message.clone().unwrap_or_default(),
        },
        compile_result,
        run_result,
        executor_pod_name: None,
        files: BTreeMap::new(),
        sandbox_status: Some(o.status.as_str().into()),
        runtime: o.runtime.map(|r| r.as_str().into()),
    }
}

/// Standard base64 (RFC 4648, with padding), enough for SandboxFusion's file fields.
mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Encodes bytes.
    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// Decodes text (whitespace ignored).
    pub fn decode(text: &str) -> Result<Vec<u8>, String> {
        let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        if !digits.len().is_multiple_of(4) {
            return Err("base64 length must be a multiple of 4".into());
        }
        let mut out = Vec::with_capacity(digits.len() / 4 * 3);
        for (q, quad) in digits.chunks(4).enumerate() {
            let last = q == digits.len() / 4 - 1;
            let pad = quad.iter().rev().take_while(|b| **b == b'=').count();
            if pad > 2 || (pad > 0 && !last) {
                return Err("misplaced base64 padding".into());
            }
            let mut n = 0u32;
            for &c in &quad[..4 - pad] {
                let v = ALPHABET
                    .iter()
                    .position(|a| *a == c)
                    .ok_or_else(|| format!("invalid base64 character {:?}", c as char))?;
                n = (n << 6) | v as u32;
            }
            n <<= 6 * pad as u32;
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            out.extend_from_slice(&bytes[..3 - pad]);
        }
        Ok(out)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn round_trips() {
            for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
                let e = super::encode(s.as_bytes());
                assert_eq!(super::decode(&e).unwrap(), s.as_bytes());
            }
            assert_eq!(super::encode(b"foobar"), "Zm9vYmFy");
            assert_eq!(super::decode("Zm9v\nYg==").unwrap(), b"foob");
            assert!(super::decode("Zm9=Yg==").is_err());
            assert!(super::decode("Zm9").is_err());
            assert!(super::decode("Zm9*").is_err());
        }
    }
}
