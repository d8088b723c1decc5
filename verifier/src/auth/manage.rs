//! Making, listing and revoking tokens (what `verifier token` runs).

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use super::Scope;
use super::quota::Quota;
use super::token::Token;
use crate::pool::tokens::{self, NewToken, TokenRow};

/// What a new token may do, and for how long.
#[derive(Debug)]
pub struct TokenSpec {
    /// Its name.
    pub name: String,
    /// Its scopes.
    pub scopes: Vec<Scope>,
    /// The agent a `write` token writes as.
    pub agent: Option<String>,
    /// When it stops working (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// Its own limits (unset ones: the service's defaults).
    pub quota: Quota,
}

/// What [`create`] did.
#[derive(Debug)]
pub enum Created {
    /// A new token was stored.
    New,
    /// The given token was stored before, under the same name.
    Unchanged,
    /// The given token was stored before, under the same name, with other limits: they are
    /// now the given ones (a deployment changed them).
    LimitsChanged,
}

/// Why a token was not made.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The request does not hold together.
    #[error("{0}")]
    Invalid(String),
    /// The name or the given token's id is taken by another token.
    #[error("a token named `{0}` (or with this id) exists; revoke it or choose another name")]
    Taken(String),
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Stores `token` (a fresh one, or one given from a secret) with `spec`; storing the same
/// token under the same name again changes nothing, so deployments can run it at each start.
pub async fn create(db: &PgPool, spec: &TokenSpec, token: &Token) -> Result<Created, TokenError> {
    check(spec)?;
    let mut scopes: Vec<Scope> = spec.scopes.clone();
    scopes.sort_unstable();
    scopes.dedup();
    let scopes: Vec<String> = scopes.iter().map(|s| s.as_str().to_string()).collect();
    let digest = token.digest();
    let (burst, sandbox) = (spec.quota.burst, spec.quota.sandbox);
    let stored = tokens::create(
        db,
        &NewToken {
            id: token.id,
            name: &spec.name,
            scopes: &scopes,
            agent: spec.agent.as_deref(),
            digest: &digest.0,
            expires_at: spec.expires_at,
            rate: spec.quota.rate,
            burst: burst.map(|b| b as i32),
            sandbox: sandbox.map(|n| n as i32),
        },
    )
    .await?;
    if stored {
        return Ok(Created::New);
    }
    match tokens::by_name(db, &spec.name).await? {
        Some(row) if row.id == token.id && row.digest == digest.0 => {
            if quota_of(&row) == spec.quota {
                return Ok(Created::Unchanged);
            }
            tokens::set_limits(db, row.id, spec.quota.rate, burst, sandbox).await?;
            Ok(Created::LimitsChanged)
        }
        _ => Err(TokenError::Taken(spec.name.clone())),
    }
}

/// Stores `token` as `admin` (every scope, no expiry, the service's default limits): the first
/// token a deployment gives the stack from a secret (`verifier serve --admin-token`).
pub async fn store_admin(db: &PgPool, token: &Token) -> Result<Created, TokenError> {
    let spec = TokenSpec {
        name: "admin".into(),
        scopes: vec![Scope::Admin],
        agent: None,
        expires_at: None,
        quota: Quota::default(),
    };
    create(db, &spec, token).await
}

/// A stored token's own limits.
pub fn quota_of(row: &TokenRow) -> Quota {
    let count = |n: Option<i32>| n.and_then(|n| u32::try_from(n).ok());
    Quota {
        rate: row.rate,
        burst: count(row.burst),
        sandbox: count(row.sandbox),
    }
}

fn check(spec: &TokenSpec) -> Result<(), TokenError> {
    let invalid = |m: &str| Err(TokenError::Invalid(m.to_string()));
    let q = &spec.quota;
    if q.rate.is_some_and(|r| !(r > 0.0 && r <= 1e6)) {
        return invalid("--rate is requests per second, above 0 and at most 1e6");
    }
    if q.burst.is_some_and(|b| b == 0 || b > 1_000_000)
        || q.sandbox.is_some_and(|n| n == 0 || n > 100_000)
    {
        return invalid("--burst is 1 to 1e6 requests, --sandbox 1 to 1e5 requests");
    }
    if spec.name.trim().is_empty() || spec.name.len() > 200 || spec.name.contains('\0') {
        return invalid("a token's name is 1 to 200 bytes of text");
    }
    if spec.scopes.is_empty() {
        return invalid("give at least one --scope (score, read, write, admin)");
    }
    let writes = spec.scopes.contains(&Scope::Write);
    match &spec.agent {
        None if writes => invalid("a `write` token writes as one agent: give --agent NAME"),
        Some(_) if !writes => invalid("--agent is for `write` tokens only"),
        Some(a) if a.trim().is_empty() || a.len() > 200 || a.contains('\0') => {
            invalid("an agent name is 1 to 200 bytes of text")
        }
        _ => Ok(()),
    }
}

/// One line of `verifier token list` (never the secret or its digest).
pub fn describe(row: &TokenRow, now: DateTime<Utc>) -> String {
    let state = match (row.revoked_at, row.expires_at) {
        (Some(t), _) => format!("revoked {}", t.format("%F %T")),
        (None, Some(t)) if t <= now => format!("expired {}", t.format("%F %T")),
        (None, Some(t)) => format!("live, expires {}", t.format("%F %T")),
        (None, None) => "live, never expires".into(),
    };
    let q = quota_of(row);
    let or_default = |v: Option<String>| v.unwrap_or_else(|| "default".into());
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        row.name,
        row.id,
        row.scopes.join(","),
        row.agent.as_deref().unwrap_or("-"),
        or_default(q.rate.map(|r| format!("{r}/s"))),
        or_default(q.burst.map(|b| b.to_string())),
        or_default(q.sandbox.map(|n| n.to_string())),
        state
    )
}
