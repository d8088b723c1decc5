//! Who may call what: bearer tokens ([`token`]) with scopes. Each route's [`Access`] is declared
//! once, in [`crate::routes`]; its guard ([`crate::middleware::guard`]) [`check`]s the token and
//! hands the handler a [`Caller`]. Handlers that write for an agent ask the caller whether it
//! may ([`Caller::may_write_as`]).

pub mod manage;
pub mod quota;
pub mod token;

use std::fmt;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use sqlx::PgPool;
use uuid::Uuid;

use crate::error::ApiError;
use crate::pool::{agents, tokens};
use quota::Quota;
use token::{SecretDigest, Token};

/// What a token may do; the roles of the service's callers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Scope {
    /// Stateless scoring: `/v1/verify/*`, `/v1/reward`, `/run_code`, `/v1/capabilities`.
    Score,
    /// Reading the pool: agents, tasks, rollouts, groups, metrics, the dashboard.
    Read,
    /// Writing rollouts and metrics (and registering) as the token's one agent.
    Write,
    /// Everything: tasks, agents of any name, writing as any agent.
    Admin,
}

impl Scope {
    /// The scope as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Score => "score",
            Self::Read => "read",
            Self::Write => "write",
            Self::Admin => "admin",
        }
    }

    /// The scope stored as `s`.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Score, Self::Read, Self::Write, Self::Admin]
            .into_iter()
            .find(|scope| scope.as_str() == s)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a route asks of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Nothing: probes, Prometheus, the API's own description.
    Open,
    /// A token with this scope (or `admin`).
    Scope(Scope),
}

/// Whether the service asks for tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Auth {
    /// Every route is open (a loopback service with no tokens, or `--auth off`).
    #[default]
    Open,
    /// Every route but the open ones needs a token with its scope.
    Tokens,
}

/// The `verifier serve --auth` choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AuthChoice {
    /// Tokens when any works; otherwise open on a loopback address and refused elsewhere.
    #[default]
    Auto,
    /// Always ask for tokens.
    On,
    /// Never ask (a loopback address, or with `--insecure-open`).
    Off,
}

/// Decides whether a service listening on a `loopback` address (or not), with `live_tokens`
/// working tokens, asks for them; an open service on another address needs `insecure_open`.
pub fn decide(
    choice: AuthChoice,
    loopback: bool,
    live_tokens: i64,
    insecure_open: bool,
) -> Result<Auth, String> {
    let auth = match choice {
        AuthChoice::On => Auth::Tokens,
        AuthChoice::Auto if live_tokens > 0 => Auth::Tokens,
        AuthChoice::Auto | AuthChoice::Off => Auth::Open,
    };
    if auth == Auth::Open && !loopback && !insecure_open {
        return Err(
            "refusing to serve a non-loopback address with no token: anyone who reaches it could \
             write into the pool. Create one (`verifier token create --name admin --scope admin`), \
             or pass --insecure-open (VERIFIER_INSECURE_OPEN=1) to serve openly anyway"
                .into(),
        );
    }
    Ok(auth)
}

/// A token that was checked: who is calling, with what rights.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The token's id (what rows record and metrics count, never the secret).
    pub id: Uuid,
    /// The token's name.
    pub name: String,
    /// Its scopes.
    pub scopes: Vec<Scope>,
    /// The agent it writes as.
    pub agent: Option<String>,
    /// Its own limits (unset ones: the service's defaults).
    pub quota: Quota,
}

impl Grant {
    fn allows(&self, scope: Scope) -> bool {
        self.scopes.iter().any(|&s| s == scope || s == Scope::Admin)
    }
}

/// Who is calling: anyone (an open route or an open service), or a token's holder.
#[derive(Debug, Clone)]
pub enum Caller {
    /// No token was asked for.
    Anyone,
    /// A checked token.
    Token(Grant),
}

impl Caller {
    /// The token that writes, as rows record it (`None` on an open service).
    pub fn token_id(&self) -> Option<Uuid> {
        match self {
            Self::Anyone => None,
            Self::Token(g) => Some(g.id),
        }
    }

    /// The agent this caller is bound to; `None` when it may write as any (open, `admin`).
    fn bound_agent(&self) -> Option<&str> {
        match self {
            Self::Token(g) if !g.allows(Scope::Admin) => Some(g.agent.as_deref().unwrap_or("")),
            _ => None,
        }
    }

    /// Refuses (403) registering an agent called `name` with a key made for another.
    pub fn may_register(&self, name: &str) -> Result<(), ApiError> {
        match self.bound_agent() {
            Some(mine) if mine != name => Err(not_yours("name", mine, name)),
            _ => Ok(()),
        }
    }

    /// Refuses (403, naming `field(i)`) the first of `ids` that is not this caller's agent.
    pub async fn may_write_as(
        &self,
        db: &PgPool,
        ids: &[Uuid],
        field: impl Fn(usize) -> String,
    ) -> Result<(), ApiError> {
        let Some(mine) = self.bound_agent() else {
            return Ok(());
        };
        let mut unique = ids.to_vec();
        unique.sort_unstable();
        unique.dedup();
        let names = agents::names(db, &unique).await?;
        for (i, id) in ids.iter().enumerate() {
            let name = names.iter().find(|(n, _)| n == id).map(|(_, name)| name);
            if name.map(String::as_str) != Some(mine) {
                let theirs = name.map_or_else(|| id.to_string(), Clone::clone);
                return Err(not_yours(&field(i), mine, &theirs));
            }
        }
        Ok(())
    }
}

fn not_yours(field: &str, mine: &str, theirs: &str) -> ApiError {
    ApiError::Forbidden {
        field: field.to_string(),
        message: format!("{field}: this token writes as agent `{mine}` only, not as `{theirs}`"),
    }
}

/// The [`Caller`] the layer found (a handler on a route without the layer is a bug: 500).
impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::Internal("no caller: the route has no auth layer".into()))
    }
}

/// Checks the presented token for `scope`.
pub async fn check(db: &PgPool, headers: &HeaderMap, scope: Scope) -> Result<Caller, ApiError> {
    let token = presented(headers)?;
    let row = tokens::get(db, token.id).await?;
    // An unknown id costs the same digest and comparison as a known one.
    let stored = row.as_ref().map_or([0; 32], |r| {
        r.digest.as_slice().try_into().unwrap_or([0; 32])
    });
    let row = match row {
        Some(row) if SecretDigest(stored).matches(&token) => row,
        _ => return Err(unauthenticated("the token is not known")),
    };
    if row.revoked_at.is_some() {
        return Err(unauthenticated(&format!(
            "token `{}` was revoked",
            row.name
        )));
    }
    if row.expires_at.is_some_and(|t| t <= Utc::now()) {
        return Err(unauthenticated(&format!("token `{}` expired", row.name)));
    }
    let grant = Grant {
        id: row.id,
        scopes: row.scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        quota: manage::quota_of(&row),
        agent: row.agent,
        name: row.name,
    };
    metrics::counter!("verifier_token_requests_total", "token" => grant.id.to_string())
        .increment(1);
    if !grant.allows(scope) {
        let has: Vec<&str> = grant.scopes.iter().map(|s| s.as_str()).collect();
        return Err(ApiError::Forbidden {
            field: "authorization".into(),
            message: format!(
                "token `{}` lacks the `{scope}` scope this route needs (it has {})",
                grant.name,
                has.join(", ")
            ),
        });
    }
    Ok(Caller::Token(grant))
}

/// The token in `Authorization: Bearer <token>`, or as the password of HTTP Basic (what a
/// browser sends for the dashboard once asked).
fn presented(headers: &HeaderMap) -> Result<Token, ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(|| unauthenticated("no token: send `Authorization: Bearer <token>`"))?
        .to_str()
        .map_err(|_| unauthenticated("the authorization header is not text"))?;
    let text = match value.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim().to_string(),
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("basic") => STANDARD
            .decode(rest.trim())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| s.split_once(':').map(|(_, password)| password.to_string()))
            .unwrap_or_default(),
        _ => String::new(),
    };
    Token::parse(&text).ok_or_else(|| {
        unauthenticated("the token is not of the form `hacrl_<id>_<secret>` (Bearer or Basic)")
    })
}

fn unauthenticated(message: &str) -> ApiError {
    ApiError::Unauthenticated(message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_listeners_elsewhere_than_loopback_are_refused() {
        use AuthChoice::*;
        assert_eq!(decide(Auto, true, 0, false), Ok(Auth::Open));
        assert_eq!(decide(Auto, true, 2, false), Ok(Auth::Tokens));
        assert_eq!(decide(Auto, false, 1, false), Ok(Auth::Tokens));
        assert!(decide(Auto, false, 0, false).is_err());
        assert_eq!(decide(Auto, false, 0, true), Ok(Auth::Open));
        assert!(decide(Off, false, 3, false).is_err());
        assert_eq!(decide(Off, true, 3, false), Ok(Auth::Open));
        assert_eq!(decide(On, false, 0, false), Ok(Auth::Tokens));
    }

    #[test]
    fn admin_allows_every_scope_and_others_only_their_own() {
        let grant = |scopes: Vec<Scope>| Grant {
            id: Uuid::nil(),
            name: "t".into(),
            scopes,
            agent: Some("a".into()),
            quota: Quota::default(),
        };
        assert!(grant(vec![Scope::Admin]).allows(Scope::Write));
        assert!(!grant(vec![Scope::Read]).allows(Scope::Write));
        let writer = Caller::Token(grant(vec![Scope::Write]));
        assert!(writer.may_register("a").is_ok());
        let e = writer.may_register("b").unwrap_err();
        assert_eq!((e.status().as_u16(), e.field()), (403, Some("name")));
        assert!(Caller::Anyone.may_register("b").is_ok());
        assert!(
            Caller::Token(grant(vec![Scope::Admin]))
                .may_register("b")
                .is_ok()
        );
    }

    #[test]
    fn basic_auth_carries_the_token_as_its_password() {
        let t = Token::generate().unwrap();
        let mut h = HeaderMap::new();
        let basic = STANDARD.encode(format!("me:{}", t.reveal()));
        h.insert(
            header::AUTHORIZATION,
            format!("Basic {basic}").parse().unwrap(),
        );
        assert_eq!(presented(&h).unwrap(), t);
        h.insert(
            header::AUTHORIZATION,
            format!("Bearer {}", t.reveal()).parse().unwrap(),
        );
        assert_eq!(presented(&h).unwrap(), t);
        h.insert(header::AUTHORIZATION, "Bearer nope".parse().unwrap());
        assert_eq!(presented(&h).unwrap_err().status().as_u16(), 401);
    }
}
