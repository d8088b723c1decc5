//! Every route once: its method and path, who may call it ([`Access`]), whether it draws on a
//! token's sandbox share, and its handler. The router ([`crate::app::router`]), the token check
//! ([`crate::middleware::guard`]) and the security the OpenAPI document declares
//! ([`openapi`]) all read this one table, so none of them can disagree with another.

use axum::Json;
use axum::extract::State;
use axum::handler::Handler;
use axum::http::Method;
use axum::response::Redirect;
use axum::routing::{MethodFilter, MethodRouter, on};
use utoipa::OpenApi;

use crate::api::{
    ApiDoc, agents, code, doc, health, languages, pool, rollouts, tasks, training, verify,
};
use crate::auth::{Access, Auth, Scope};
use crate::state::AppState;
use crate::ui;

/// Whether the OpenAPI document describes a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON operation of the API, in `/openapi.json`.
    Api,
    /// A page, a redirect or the document itself, outside it.
    Page,
}

/// One route of the service.
pub struct Route {
    /// Its method (a GET route answers HEAD too).
    pub method: Method,
    /// Its path pattern, as the router matches it.
    pub path: &'static str,
    /// Who may call it.
    pub access: Access,
    /// Whether it may run programs in the sandbox (what a token's sandbox share counts).
    pub sandbox: bool,
    /// Whether the OpenAPI document describes it.
    pub kind: Kind,
    /// Its handler.
    pub handler: MethodRouter<AppState>,
}

impl Route {
    fn new<H, T>(kind: Kind, method: Method, path: &'static str, access: Access, h: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let filter = MethodFilter::try_from(method.clone()).expect("a method the router knows");
        Self {
            method,
            path,
            access,
            sandbox: false,
            kind,
            handler: on(filter, h),
        }
    }

    /// The same route, counted against a token's sandbox share.
    fn sandbox(self) -> Self {
        Self {
            sandbox: true,
            ..self
        }
    }
}

fn api<H: Handler<T, AppState>, T: 'static>(
    method: Method,
    path: &'static str,
    access: Access,
    h: H,
) -> Route {
    Route::new(Kind::Api, method, path, access, h)
}

fn page<H: Handler<T, AppState>, T: 'static>(path: &'static str, access: Access, h: H) -> Route {
    Route::new(Kind::Page, Method::GET, path, access, h)
}

/// The table. `/healthz`, `/readyz` and `/metrics` are open: kubelets and Prometheus scrape them
/// without credentials, and they hold no pool content (counts, never tokens). `/openapi.json`
/// describes the API, which is public; so do the Swagger UI pages under `/docs`, which
/// [`crate::app::router`] serves beside this table as one open, read-only unit.
pub fn table() -> Vec<Route> {
    use Method as M;
    let open = Access::Open;
    let [score, read, write, admin] =
        [Scope::Score, Scope::Read, Scope::Write, Scope::Admin].map(Access::Scope);
    vec![
        api(M::POST, "/v1/agents", write, agents::create),
        api(M::GET, "/v1/agents", read, agents::list),
        api(M::GET, "/v1/agents/{agent}", read, agents::get),
        api(
            M::GET,
            "/v1/agents/{agent}/capability",
            read,
            agents::capability,
        ),
        api(M::POST, "/v1/tasks", admin, tasks::upload),
        api(M::GET, "/v1/tasks", read, tasks::list),
        api(M::POST, "/v1/rollouts", write, rollouts::submit).sandbox(),
        api(M::GET, "/v1/rollouts", read, rollouts::list),
        api(M::GET, "/v1/pool/groups", read, pool::groups),
        api(M::GET, "/v1/runs/{run}/steps/{step}", read, pool::step),
        api(M::POST, "/v1/metrics", write, training::record),
        api(M::GET, "/v1/metrics", read, training::list),
        api(M::POST, "/v1/verify/math", score, verify::math),
        api(M::POST, "/v1/reward", score, verify::reward).sandbox(),
        api(M::POST, "/v1/verify/code", score, code::verify).sandbox(),
        api(M::POST, "/run_code", score, code::run_code).sandbox(),
        api(M::GET, "/v1/capabilities", score, languages::get),
        api(M::GET, "/healthz", open, health::healthz),
        api(M::GET, "/readyz", open, health::readyz),
        api(M::GET, "/metrics", open, health::metrics),
        page("/openapi.json", open, openapi),
        page("/", open, || async { Redirect::to("/ui") }),
        page("/ui", read, ui::runs),
        page("/ui/", read, || async { Redirect::to("/ui") }),
        page("/ui/runs/{run}", read, ui::run),
        page("/ui/runs/{run}/live", read, ui::live),
        page("/ui/runs/{run}/steps/{step}", read, ui::step),
        page("/ui/tasks/{task}", read, ui::task),
        page("/ui/{*rest}", read, ui::unknown),
    ]
}

/// The access the table gives `method` on `path` (HEAD as GET), or the Swagger UI's beside it
/// (open); `None` for no such route.
pub fn access(method: &Method, path: &str) -> Option<Access> {
    if path == "/docs" || path.starts_with("/docs/") {
        return Some(Access::Open);
    }
    lookup(&table(), method, path)
}

/// The access `table` gives `method` (HEAD as GET) on `path`.
fn lookup(table: &[Route], method: &Method, path: &str) -> Option<Access> {
    let method = if method == Method::HEAD {
        &Method::GET
    } else {
        method
    };
    (table.iter())
        .find(|r| r.method == method && r.path == path)
        .map(|r| r.access)
}

/// `/openapi.json`, as this service runs: with the bearer scheme, and each operation's 401 and
/// 403, where it asks for tokens; without them where it is open (an open service's document
/// must not require a header the service never reads).
async fn openapi(State(s): State<AppState>) -> Json<utoipa::openapi::OpenApi> {
    Json(document(s.auth))
}

/// The OpenAPI document of a service that asks for tokens as `auth` says.
pub fn document(auth: Auth) -> utoipa::openapi::OpenApi {
    let mut d = ApiDoc::openapi();
    if auth == Auth::Tokens {
        let table = table();
        doc::require_tokens(&mut d, |method, path| {
            lookup(&table, method, path).unwrap_or(Access::Scope(Scope::Admin))
        });
    }
    d
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The document describes exactly the table's API routes, each with the security its row
    /// gives it where tokens are asked for, and none where the service is open.
    #[test]
    fn the_document_and_the_table_agree_and_an_open_service_asks_for_no_token() {
        let table = table();
        let mut rows = BTreeSet::new();
        for r in &table {
            assert!(
                rows.insert((r.method.to_string(), r.path)),
                "{} {} twice",
                r.method,
                r.path
            );
        }
        let api: BTreeSet<(String, String)> = (table.iter())
            .filter(|r| r.kind == Kind::Api)
            .map(|r| (r.method.to_string(), r.path.to_string()))
            .collect();
        let ops = |auth: Auth| {
            let doc = serde_json::to_value(document(auth)).unwrap();
            let mut out = Vec::new();
            for (path, item) in doc["paths"].as_object().unwrap() {
                for (method, op) in item.as_object().unwrap() {
                    out.push((method.to_uppercase(), path.clone(), op.clone()));
                }
            }
            (doc, out)
        };
        let (doc, with_tokens) = ops(Auth::Tokens);
        assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
        let documented: BTreeSet<(String, String)> = (with_tokens.iter())
            .map(|(m, p, _)| (m.clone(), p.clone()))
            .collect();
        assert_eq!(
            documented, api,
            "the document's operations are the table's API routes"
        );
        for (method, path, op) in &with_tokens {
            let method: Method = method.parse().unwrap();
            let open = access(&method, path) == Some(Access::Open);
            assert_eq!(op.get("security").is_none(), open, "{method} {path}");
            assert_eq!(
                op["responses"].get("401").is_none(),
                open,
                "{method} {path}"
            );
        }
        let (doc, open) = ops(Auth::Open);
        assert!(doc["components"].get("securitySchemes").is_none());
        for (method, path, op) in &open {
            assert!(op.get("security").is_none(), "{method} {path}");
            assert!(op["responses"].get("401").is_none(), "{method} {path}");
        }
        assert_eq!(open.len(), with_tokens.len());
    }
}
