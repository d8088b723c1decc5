//! What this instance can run: the languages with their versions, and for compiled languages
//! (C, C++, Go) how the compiler is confined.

use axum::Json;
use axum::extract::State;
use sandbox::{Language, Mechanism};
use serde::Serialize;
use utoipa::ToSchema;

use crate::app::AppState;

/// The languages of this instance.
#[derive(Debug, Serialize, ToSchema)]
pub struct Capabilities {
    /// One entry per language the sandbox knows, supported or not.
    pub languages: Vec<LanguageSupport>,
}

/// Whether one language runs here.
#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageSupport {
    /// `python`, `c`, `cpp`, `lua`, `sql`, `javascript`, `ruby`, `typescript` or `go`.
    #[schema(value_type = String, example = "cpp")]
    pub language: Language,
    /// Programs in this language are accepted.
    pub supported: bool,
    /// What runs the language and its version (`Lua 5.4.8`, `SQLite 3.52.0`, `Ruby 3.4.1`), when
    /// supported.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "QuickJS-ng 0.10.1")]
    pub version: Option<String>,

    /// How the compiler is confined (`namespaces` or `landlock`); C, C++ and Go only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "namespaces")]
    pub confinement: Option<Mechanism>,
    /// Why the language is unsupported here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
                reason,
            }
        })
        .collect();
    Json(Capabilities { languages })
}
