//! SandboxFusion's `/run_code` protocol (the request verl's `sandbox_fusion` reward posts, and
//! the answer it reads) translated to and from the sandbox's [`Program`] and [`Outcome`],
//! without HTTP: the handler reads the request, calls [`RunCode::prepare`], runs the program, and answers
//! with [`FetchNames::answer`].

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use sandbox::{Language, Limits, Outcome, Program, ProgramFile, Status};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::code::budget::{self, TimeBudget};
use crate::refusal::Refusal;
use crate::refusal::check_size;

/// SandboxFusion's `RunCodeRequest` (Python, C, C++, Lua, SQL, JavaScript, Ruby and TypeScript
/// are supported here).
#[derive(Debug, Deserialize, ToSchema)]
pub struct RunCodeRequest {
    /// Source code.
    pub code: String,
    /// `python`, `cpp`, `c`, `lua`, `sql`, `nodejs`, `ruby`, `typescript`, `go` or `rust`, or an
    /// alias (`python3`, `py`, `c++`, `cxx`, `cc`, `sqlite`, `sqlite3`, `node`, `javascript`, `js`,
    /// `rb`, `ts`, `golang`, `rs`); case and surrounding white space are ignored.
    #[schema(
        pattern = r"^\s*(?:[Pp][Yy][Tt][Hh][Oo][Nn]3?|[Pp][Yy]|[Cc]|[Cc][Pp][Pp]|[Cc]\+\+|[Cc][Xx][Xx]|[Cc][Cc]|[Ll][Uu][Aa]|[Ss][Qq][Ll]|[Ss][Qq][Ll][Ii][Tt][Ee]3?|[Nn][Oo][Dd][Ee][Jj][Ss]|[Nn][Oo][Dd][Ee]|[Jj][Aa][Vv][Aa][Ss][Cc][Rr][Ii][Pp][Tt]|[Jj][Ss]|[Rr][Uu][Bb][Yy]|[Rr][Bb]|[Tt][Yy][Pp][Ee][Ss][Cc][Rr][Ii][Pp][Tt]|[Tt][Ss]|[Gg][Oo]|[Gg][Oo][Ll][Aa][Nn][Gg]|[Rr][Uu][Ss][Tt]|[Rr][Ss])\s*$"
    )]
    pub language: String,
    /// Compile timeout in seconds (C, C++, Go, Rust), 0.001–600.
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
    /// Not SandboxFusion's: a deterministic CPU budget in wasm fuel (about one unit per
    /// instruction), as a code reference's `fuel_limit`. Running out is `TimeLimitExceeded`
    /// whatever the load; `run_timeout` then only guards the service, at ten times its value.
    #[serde(default, deserialize_with = "wire::integer::optional")]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1e15)]
    pub fuel_limit: Option<u64>,
    /// Not SandboxFusion's: the seed of the program's random sources, 0 when absent. Under one
    /// seed every run draws the same numbers and reads the same virtual time of day, so its
    /// output and fuel repeat exactly.
    #[serde(default, deserialize_with = "crate::code::seed")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 9007199254740991_f64)]
    pub seed: Option<u64>,
}

/// A path in the run's working directory, as [`working_path`] takes it: optional leading `./`,
/// then `/`-separated parts, none empty, `.` or `..`, without `\` or NUL.
const WORKING_PATH: &str = r"^(?:\./)*(?:[^/\\\u0000.][^/\\\u0000]*|\.[^/\\\u0000.][^/\\\u0000]*|\.\.[^/\\\u0000]+)(?:/(?:[^/\\\u0000.][^/\\\u0000]*|\.[^/\\\u0000.][^/\\\u0000]*|\.\.[^/\\\u0000]+))*$";

/// Standard base64 with padding, ASCII white space ignored ([`decode_base64`]).
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

/// How much longer than `compile_timeout + run_timeout` verl's SandboxFusion client waits for an
/// answer (its `API_TIMEOUT`): a read timeout there is final, so the answer must come sooner.
const CLIENT_GRACE: Duration = Duration::from_secs(10);
/// What the answer may take beyond the wait and the two limits: the epoch tick, the grace for
/// guests blocked in a host call, loading a build and writing the answer.
const ANSWER_MARGIN: Duration = Duration::from_secs(2);

/// A request checked and translated: the program to run, within the request's time budget.
#[derive(Debug)]
pub struct RunCode {
    /// What the sandbox runs.
    pub program: Program,
    /// The longest the request waits to be admitted (and to start compiling) before it is
    /// answered busy: what the client's own timeout leaves once the compile and the run have
    /// had their full limits, so that the client never times out waiting.
    pub budget: Duration,
    /// How the answer names the fetched files.
    pub names: FetchNames,
}

/// Fetched files' working-directory paths → the paths as the client wrote them.
#[derive(Debug)]
pub struct FetchNames(BTreeMap<String, String>);

impl RunCode {
    /// Checks `req` and translates it, starting from the sandbox's `defaults` (`metered`: whether
    /// it meters fuel); the code may be up to `max_code_bytes` long. A refusal names the
    /// request's field.
    pub fn prepare(
        req: RunCodeRequest,
        defaults: &Limits,
        metered: bool,
        max_code_bytes: usize,
    ) -> Result<Self, Refusal> {
        check_size("code", &req.code, max_code_bytes)?;
        let language = Language::parse(&req.language).ok_or_else(|| {
            Refusal::invalid(
                "language",
                format!(
                    "unsupported language {:?}; this sandbox runs python, cpp, c, lua, sql, nodejs (javascript), ruby, typescript, go (golang) and rust (rs)",
                    req.language
                ),
            )
        })?;
        let own = Limits {
            wall_time: seconds("run_timeout", req.run_timeout)?,
            ..defaults.clone()
        };
        let budget = req.fuel_limit.map_or(TimeBudget::Default, TimeBudget::Fuel);
        let mut limits = budget::for_request(&own, metered, budget)?;
        limits.compile_time = seconds("compile_timeout", req.compile_timeout)?;
        match req.memory_limit_mb {
            -1 => {}
            mb if (1..=16_384).contains(&mb) => limits.memory_bytes = (mb as u64) << 20,
            _ => {
                return Err(Refusal::invalid(
                    "memory_limit_MB",
                    "memory_limit_MB must be -1 or in 1..=16384",
                ));
            }
        }
        let mut files = Vec::with_capacity(req.files.len());
        for (path, contents) in &req.files {
            let field = format!("files.{path}");
            let contents = match contents {
                Some(b64) => decode_base64(b64).map_err(|e| Refusal::invalid(&field, e))?,
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
        let budget = CLIENT_GRACE - ANSWER_MARGIN;
        let program = Program {
            language,
            source: req.code,
            stdin: req.stdin.unwrap_or_default().into_bytes(),
            files,
            fetch_files: fetch_names.keys().cloned().collect(),
            limits: Some(limits),
            seed: req.seed.unwrap_or(0),
            ..Program::default()
        };
        Ok(Self {
            program,
            budget,
            names: FetchNames(fetch_names),
        })
    }
}

impl FetchNames {
    /// SandboxFusion's answer for the program's outcome, fetched files under the client's names.
    pub fn answer(&self, outcome: &Outcome) -> RunCodeResponse {
        let mut resp = response(outcome);
        resp.files = outcome
            .files
            .iter()
            .map(|f| {
                let name = self.0.get(&f.path).unwrap_or(&f.path).clone();
                (name, BASE64_ENGINE.encode(&f.contents))
            })
            .collect();
        resp
    }
}

/// Seconds from a request, as a duration within [1 ms, 600 s] (a shorter positive one would
/// round to nothing in the sandbox).
fn seconds(field: &str, value: f64) -> Result<Duration, Refusal> {
    if !(0.001..=600.0).contains(&value) {
        return Err(Refusal::invalid(
            field,
            format!("{field} must be between 0.001 and 600 seconds"),
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// A relative path of the working directory as SandboxFusion clients write it (`./out.txt`
/// is `out.txt`), or a 422 naming `field`.
fn working_path(field: String, path: &str) -> Result<String, Refusal> {
    let trimmed = path.trim_start_matches("./");
    if !ProgramFile::path_is_valid(trimmed) {
        return Err(Refusal::invalid(
            field,
            format!(
                "{path:?} must be a relative path inside the working directory (no `..`, no leading `/`)"
            ),
        ));
    }
    Ok(trimmed.to_string())
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

/// Standard base64 (RFC 4648, with padding); bits past the last byte are ignored when
/// decoding, as they always were here.
const BASE64_ENGINE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// Decodes SandboxFusion's file contents: standard base64, ASCII white space ignored.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    BASE64_ENGINE
        .decode(digits)
        .map_err(|e| format!("not base64: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: serde_json::Value) -> RunCodeRequest {
        serde_json::from_value(json).unwrap()
    }

    fn prepare(json: serde_json::Value) -> Result<RunCode, Refusal> {
        RunCode::prepare(request(json), &Limits::default(), true, 1 << 20)
    }

    #[test]
    fn base64_round_trips_and_ignores_white_space() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = BASE64_ENGINE.encode(s.as_bytes());
            assert_eq!(decode_base64(&e).unwrap(), s.as_bytes());
        }
        assert_eq!(BASE64_ENGINE.encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(decode_base64("Zm9v\nYg==").unwrap(), b"foob");
        assert!(decode_base64("Zm9=Yg==").is_err());
        assert!(decode_base64("Zm9").is_err());
        assert!(decode_base64("Zm9*").is_err());
    }

    #[test]
    fn a_request_becomes_a_program_within_its_budget() {
        let run = prepare(serde_json::json!({
            "code": "print(open('in.txt').read())", "language": " Python3 ",
            "run_timeout": 2, "compile_timeout": 1, "memory_limit_MB": 64,
            "files": {"./in.txt": "aGk=", "empty": null}, "fetch_files": ["./out.txt"],
        }))
        .unwrap();
        assert_eq!(run.program.language, Language::Python);
        assert_eq!(run.budget, Duration::from_secs(8));
        assert_eq!(run.program.limits.as_ref().unwrap().memory_bytes, 64 << 20);
        let files: Vec<(&str, &[u8])> = run
            .program
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.contents.as_slice()))
            .collect();
        assert_eq!(files, [("in.txt", &b"hi"[..]), ("empty", &b""[..])]);
        assert_eq!(run.program.fetch_files, ["out.txt"]);
    }

    #[test]
    fn refusals_name_the_field() {
        let field = |json| prepare(json).unwrap_err().field.unwrap();
        let base = |extra: serde_json::Value| {
            let mut req = serde_json::json!({"code": "x", "language": "python"});
            req.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            req
        };
        assert_eq!(
            field(base(serde_json::json!({"language": "cobol"}))),
            "language"
        );
        assert_eq!(
            field(base(serde_json::json!({"run_timeout": 0}))),
            "run_timeout"
        );
        assert_eq!(
            field(base(serde_json::json!({"memory_limit_MB": 0}))),
            "memory_limit_MB"
        );
        assert_eq!(
            field(base(serde_json::json!({"files": {"a": "*"}}))),
            "files.a"
        );
        assert_eq!(
            field(base(serde_json::json!({"files": {"../a": ""}}))),
            "files.../a"
        );
        assert_eq!(
            field(base(serde_json::json!({"fetch_files": ["/etc"]}))),
            "fetch_files[0]"
        );
    }

    fn outcome(status: Status, exit_code: Option<i32>) -> Outcome {
        Outcome {
            files: vec![ProgramFile {
                path: "out.txt".into(),
                contents: b"hi".to_vec(),
            }],
            ..Outcome::with_status(status, exit_code)
        }
    }

    #[test]
    fn outcomes_map_to_sandbox_fusion_statuses() {
        let run = prepare(serde_json::json!(
            {"code": "x", "language": "python", "fetch_files": ["./out.txt"]}
        ))
        .unwrap();
        let r = run.names.answer(&outcome(Status::Ok, Some(0)));
        assert_eq!(r.status, RunStatus::Success);
        assert_eq!(r.files["./out.txt"], "aGk=");
        let rr = r.run_result.unwrap();
        assert_eq!(
            (rr.status, rr.return_code),
            (CommandRunStatus::Finished, Some(0))
        );
        let r = run.names.answer(&outcome(Status::Timeout, None));
        assert_eq!(r.status, RunStatus::Failed);
        let rr = r.run_result.unwrap();
        assert_eq!(
            (rr.status, rr.return_code),
            (CommandRunStatus::TimeLimitExceeded, None)
        );
        let r = run.names.answer(&outcome(Status::InternalError, None));
        assert_eq!(r.status, RunStatus::SandboxError);
    }
}
