//! `GET /v1/capabilities`: the languages this instance's sandbox can run, with their versions,
//! for compiled languages (C, C++, Go, Rust) how the compiler is confined, and for Python each
//! of its runtimes (fast, full, scientific) with its packages. (An agent's capability, its
//! accuracy, is another thing: [`super::agents::capability`].)

use axum::Json;
use axum::extract::State;
use sandbox::{Language, Mechanism, Runtime};
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// The languages of this instance.
#[derive(Debug, Serialize, ToSchema)]
pub struct Capabilities {
    /// One entry per language the sandbox knows, supported or not.
    pub languages: Vec<LanguageSupport>,
}

/// Whether one language runs here.
#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageSupport {
    /// `python`, `c`, `cpp`, `lua`, `sql`, `javascript`, `ruby`, `typescript`, `go` or `rust`.
    #[schema(value_type = String, example = "cpp")]
    pub language: Language,
    /// Programs in this language are accepted.
    pub supported: bool,
    /// What runs the language and its version (`Lua 5.4.8`, `SQLite 3.52.0`, `Ruby 3.4.1`), when
    /// supported.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "QuickJS-ng 0.10.1")]
    pub version: Option<String>,

    /// How the compiler is confined (`namespaces` or `landlock`); C, C++, Go and Rust only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "namespaces")]
    pub confinement: Option<Mechanism>,
    /// Why the language is unsupported here; for a supported one, what a caller should know
    /// about its toolchain (Rust's is an old release).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Python only: each runtime the service chooses between per program. Every program starts
    /// on `python_fast`; one that stops at an import the fast runtime lacks runs again on
    /// `python_scientific` when that module is one of its packages, else on `python_full`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtimes: Option<Vec<RuntimeEntry>>,
}

/// Whether one Python runtime runs here.
#[derive(Debug, Serialize, ToSchema)]
pub struct RuntimeEntry {
    /// `python_fast`, `python_full` or `python_scientific`.
    #[schema(value_type = String, example = "python_scientific")]
    pub runtime: Runtime,
    /// The runtime is loaded.
    pub supported: bool,
    /// Its interpreter and version, and the main packages' versions, when loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "CPython 3.15.0 with numpy 2.5.2, pandas 3.0.6")]
    pub version: Option<String>,
    /// Every package it carries beyond the standard library, by distribution name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<PackageEntry>,
    /// Why it is not loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A package a Python runtime carries.
#[derive(Debug, Serialize, ToSchema)]
pub struct PackageEntry {
    /// Its distribution name (`scikit-learn`).
    pub name: String,
    /// Its version.
    pub version: String,
}

/// Which languages this instance runs, their versions, and how compilation is confined.
#[utoipa::path(get, path = "/v1/capabilities", tag = "sandbox",
    responses((status = 200, body = Capabilities)))]
pub async fn get(State(s): State<AppState>) -> Json<Capabilities> {
    let sandbox = s.scorer.code().sandbox();
    let languages = Language::ALL
        .into_iter()
        .map(|language| {
            let reason = sandbox.unsupported_reason(language);
            LanguageSupport {
                language,
                supported: reason.is_none(),
                version: sandbox.version(language),
                // Only compiled languages run a host program (the compiler) on untrusted input.
                confinement: sandbox.compiler_confinement(language),
                reason: reason.or_else(|| caveat(language)),
                runtimes: (language == Language::Python).then(|| python_runtimes(sandbox)),
            }
        })
        .collect();
    Json(Capabilities { languages })
}

/// What a caller should know about a supported language's toolchain.
fn caveat(language: Language) -> Option<String> {
    (language == Language::Rust).then(|| {
        "Debian bookworm's rustc 1.63.0, an old release (August 2022): the newest rustc with a \
         wasm32-wasi standard library on the registries this service installs from. Edition \
         2021, the standard library only (no crates); features stabilised after 1.63 (let-else, \
         GATs, std::hint::black_box) do not compile"
            .to_string()
    })
}

/// Each Python runtime. None runs a host program: like the interpreters, they have no
/// confinement to report beyond wasm's own.
fn python_runtimes(sandbox: &sandbox::Sandbox) -> Vec<RuntimeEntry> {
    sandbox
        .python_runtimes()
        .into_iter()
        .map(|r| RuntimeEntry {
            runtime: r.runtime,
            supported: r.reason.is_none(),
            version: r.version,
            packages: r
                .packages
                .into_iter()
                .map(|(name, version)| PackageEntry { name, version })
                .collect(),
            reason: r.reason,
        })
        .collect()
}
