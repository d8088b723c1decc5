//! What this instance can run: the languages, and for C/C++ how the compiler is confined.

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
    /// `python`, `c` or `cpp`.
    #[schema(value_type = String, example = "cpp")]
    pub language: Language,
    /// Programs in this language are accepted.
    pub supported: bool,
    /// How the compiler is confined (`namespaces` or `landlock`); C/C++ only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "namespaces")]
    pub confinement: Option<Mechanism>,
    /// Why the language is unsupported here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Which languages this instance runs, and how C/C++ compilation is confined.
#[utoipa::path(get, path = "/v1/capabilities", tag = "sandbox",
    responses((status = 200, body = Capabilities)))]
pub async fn get(State(s): State<AppState>) -> Json<Capabilities> {
    let sandbox = s.scorer.code().sandbox();
    let languages = [Language::Python, Language::C, Language::Cpp]
        .into_iter()
        .map(|language| {
            let reason = sandbox.unsupported_reason(language);
            LanguageSupport {
                language,
                supported: reason.is_none(),
                confinement: match language {
                    Language::Python => None,
                    Language::C | Language::Cpp => sandbox.compiler_confinement(),
                },
                reason,
            }
        })
        .collect();
    Json(Capabilities { languages })
}
