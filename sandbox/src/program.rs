//! What a caller hands the sandbox: a [`Program`] in one of its [`Language`]s, with its input,
//! files, limits and seed; the checks made before it runs; and why it may be refused
//! ([`RunError`]).

use serde::{Deserialize, Serialize};

use crate::config::Limits;

/// A language the sandbox can run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// Python 3 (fast 3.14 component; full 3.12 module or 3.15 with the scientific stack when
    /// the program imports what the fast one lacks).
    #[default]
    Python,
    /// C (C17), compiled with clang to wasm32-wasi.
    C,
    /// C++ (C++17; exceptions where the set-up built their libraries), compiled with clang to
    /// wasm32-wasi.
    Cpp,
    /// Lua 5.4, on the reference interpreter built for wasm32-wasi.
    Lua,
    /// SQL: a script for SQLite's shell, run against an in-memory database.
    Sql,
    /// JavaScript on QuickJS-ng, with the Node.js subset of `sandbox/interpreters/prelude.js`.
    #[serde(rename = "javascript", alias = "nodejs", alias = "js")]
    JavaScript,
    /// Ruby 3.4 on ruby.wasm's CRuby for WASI, its standard library packed in the module.
    #[serde(alias = "rb")]
    Ruby,
    /// TypeScript: its types stripped (not checked) by sucrase inside the guest, then run as
    /// JavaScript is.
    #[serde(rename = "typescript", alias = "ts")]
    TypeScript,
    /// Go, compiled by Go's own toolchain for `GOOS=wasip1 GOARCH=wasm`.
    #[serde(alias = "golang")]
    Go,
    /// Rust (edition 2021), compiled by Debian bookworm's rustc 1.63.0 for wasm32-wasi.
    #[serde(alias = "rs")]
    Rust,
}

impl Language {
    /// Every language, in the order `/v1/capabilities` lists them.
    pub const ALL: [Language; 10] = [
        Language::Python,
        Language::C,
        Language::Cpp,
        Language::Lua,
        Language::Sql,
        Language::JavaScript,
        Language::Ruby,
        Language::TypeScript,
        Language::Go,
        Language::Rust,
    ];

    /// Parses the names used by SandboxFusion and markdown fences (`python`, `py`, `c`, `cpp`,
    /// `c++`, `lua`, `sql`, `sqlite`, `nodejs`, `javascript`, `js`, `ruby`, `rb`, `typescript`,
    /// `ts`, `go`, `golang`, `rust`, `rs`).
    pub fn parse(name: &str) -> Option<Language> {
        match name.trim().to_ascii_lowercase().as_str() {
            "python" | "python3" | "py" => Some(Language::Python),
            "c" => Some(Language::C),
            "cpp" | "c++" | "cxx" | "cc" => Some(Language::Cpp),
            "lua" => Some(Language::Lua),
            "sql" | "sqlite" | "sqlite3" => Some(Language::Sql),
            "nodejs" | "node" | "javascript" | "js" => Some(Language::JavaScript),
            "ruby" | "rb" => Some(Language::Ruby),
            "typescript" | "ts" => Some(Language::TypeScript),
            "go" | "golang" => Some(Language::Go),
            "rust" | "rs" => Some(Language::Rust),
            _ => None,
        }
    }

    /// The canonical lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Lua => "lua",
            Language::Sql => "sql",
            Language::JavaScript => "javascript",
            Language::Ruby => "ruby",
            Language::TypeScript => "typescript",
            Language::Go => "go",
            Language::Rust => "rust",
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which Python runtime a run may use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PythonRuntime {
    /// Fast path first; when the program imports a module the fast path lacks, the scientific
    /// runtime if that module is one of its packages (numpy, pandas, sklearn, …), else the full
    /// runtime.
    #[default]
    Auto,
    /// Only the pre-initialised componentize-py component.
    Fast,
    /// Only the full CPython 3.12 WASI module.
    Full,
    /// Only CPython 3.15 with the scientific stack.
    Scientific,
}

/// A file in the program's working directory (provided before the run, or fetched after it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramFile {
    /// Relative path, `/`-separated, without `..` components.
    pub path: String,
    /// File contents.
    pub contents: Vec<u8>,
}

impl ProgramFile {
    /// Whether `path` names a file inside the working directory: relative, `/`-separated,
    /// without `.`, `..` or empty parts.
    pub fn path_is_valid(path: &str) -> bool {
        !(path.is_empty()
            || path.starts_with('/')
            || path.contains('\\')
            || path.contains('\0')
            || path
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == ".."))
    }
}

/// One program to run.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// Source language.
    pub language: Language,
    /// Source code.
    pub source: String,
    /// Bytes fed to standard input.
    pub stdin: Vec<u8>,
    /// Files placed in the working directory (which the program may also write to).
    pub files: Vec<ProgramFile>,
    /// Paths in the working directory to return after the run (`Outcome::files`).
    pub fetch_files: Vec<String>,
    /// Arguments appended to argv after the program's name, for the compiled languages (C,
    /// C++, Go, Rust); the interpreted ones (Python, Lua, SQL, JavaScript, TypeScript, Ruby)
    /// ignore them, their argv being the interpreter's own. At most 256 of them, 64 KiB
    /// together, none holding a NUL byte.
    pub args: Vec<String>,
    /// Per-run limits; `None` takes the sandbox's defaults.
    pub limits: Option<Limits>,
    /// Python runtime choice (ignored for other languages).
    pub python_runtime: PythonRuntime,
    /// Seed of the guest's random sources and start of its virtual wall clock (`determinism`):
    /// runs of the same program with the same input, limits and seed are identical.
    pub seed: u64,
}

impl Program {
    /// A Python program with default limits and no input.
    pub fn python(source: impl Into<String>) -> Program {
        Program {
            language: Language::Python,
            source: source.into(),
            ..Program::default()
        }
    }

    /// Sets standard input.
    pub fn with_stdin(mut self, stdin: impl Into<Vec<u8>>) -> Program {
        self.stdin = stdin.into();
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Program {
        self.limits = Some(limits);
        self
    }

    /// Sets the Python runtime choice.
    pub fn with_python_runtime(mut self, runtime: PythonRuntime) -> Program {
        self.python_runtime = runtime;
        self
    }

    /// Sets the seed of the guest's random sources.
    pub fn with_seed(mut self, seed: u64) -> Program {
        self.seed = seed;
        self
    }
}

/// Why a program was refused before running.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The language is not supported on this machine (e.g. no clang wasm32-wasi toolchain).
    #[error("unsupported language: {0}")]
    UnsupportedLanguage(String),
    /// The program or its limits are malformed.
    #[error("invalid program: {0}")]
    InvalidProgram(String),
    /// The run could not be admitted (or compiled) within the wait its caller allows, or the
    /// sandbox's memory budget could not cover it: load, not a verdict on the program.
    #[error("the sandbox is busy: this run could not be admitted or given its memory in time")]
    Busy {
        /// When a retry has a fair chance: the expected wait for a slot.
        retry_after: std::time::Duration,
    },
}

/// Most arguments a program may be given (`Program::args`).
const MAX_ARGS: usize = 256;

/// Most bytes a program's arguments may hold together (`Program::args`).
const MAX_ARGS_BYTES: usize = 64 << 10;

/// Checks what can be checked before running.
pub(crate) fn validate(program: &Program, limits: &Limits) -> Result<(), RunError> {
    if program.source.contains('\0') {
        return Err(RunError::InvalidProgram(
            "source contains a NUL byte".into(),
        ));
    }
    if program.stdin.len() > limits.stdin_bytes {
        return Err(RunError::InvalidProgram(format!(
            "stdin is {} bytes, more than the limit of {}",
            program.stdin.len(),
            limits.stdin_bytes
        )));
    }
    if limits.wall_time.is_zero() || limits.memory_bytes == 0 {
        return Err(RunError::InvalidProgram(
            "time and memory limits must be positive".into(),
        ));
    }
    args_ok(&program.args)?;
    for file in &program.files {
        file_path_ok(&file.path)?;
    }
    for path in &program.fetch_files {
        file_path_ok(path)?;
    }
    Ok(())
}

/// Arguments become C strings in the guest (so no NUL) and live in its memory (so bounded).
fn args_ok(args: &[String]) -> Result<(), RunError> {
    if args.len() > MAX_ARGS {
        return Err(RunError::InvalidProgram(format!(
            "{} arguments, more than the limit of {MAX_ARGS}",
            args.len()
        )));
    }
    let bytes: usize = args.iter().map(String::len).sum();
    if bytes > MAX_ARGS_BYTES {
        return Err(RunError::InvalidProgram(format!(
            "the arguments hold {bytes} bytes, more than the limit of {MAX_ARGS_BYTES}"
        )));
    }
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(RunError::InvalidProgram(format!(
            "argument {i} contains a NUL byte"
        )));
    }
    Ok(())
}

/// A provided or fetched file's path must stay inside the working directory.
fn file_path_ok(path: &str) -> Result<(), RunError> {
    if !ProgramFile::path_is_valid(path) {
        return Err(RunError::InvalidProgram(format!(
            "file path {path:?} must be relative, `/`-separated, without `.`/`..`/empty parts"
        )));
    }
    Ok(())
}
