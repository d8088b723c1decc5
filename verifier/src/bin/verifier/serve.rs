//! `verifier serve`: the HTTP service.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::DbArgs;
use verifier::app;
use verifier::auth::quota::Quota;
use verifier::auth::token::Token;
use verifier::auth::{self, Auth, AuthChoice, manage};
use verifier::code::{self, JudgeConfig};
use verifier::pool;
use verifier::state::{AppState, RequestLimits};

/// `verifier serve`.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on.
    #[arg(long, env = "VERIFIER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Database connections the service holds open at most (its connection pool).
    #[arg(long, env = "VERIFIER_DB_CONNECTIONS", default_value_t = 16)]
    db_connections: u32,
    /// Seconds to wait for a database connection before answering 503.
    #[arg(long, env = "VERIFIER_DB_TIMEOUT", default_value_t = 5)]
    db_timeout_secs: u64,
    /// Largest request body in bytes.
    #[arg(long, env = "VERIFIER_MAX_BODY_BYTES", default_value_t = RequestLimits::default().max_body_bytes)]
    max_body_bytes: usize,
    /// Most rollouts in one submission.
    #[arg(long, env = "VERIFIER_MAX_BATCH", default_value_t = RequestLimits::default().max_batch)]
    max_batch: usize,
    /// Do not apply migrations at start-up.
    #[arg(long)]
    no_migrate: bool,
    /// Ask callers for tokens: `auto` when any token works (else open on a loopback address,
    /// refused elsewhere), `on` always, `off` never (loopback, or with --insecure-open).
    #[arg(long, value_enum, env = "VERIFIER_AUTH", default_value_t)]
    auth: AuthChoice,
    /// Serve a non-loopback address with no token asked: anyone who reaches it can write into
    /// the pool. Warned on every start.
    #[arg(long, env = "VERIFIER_INSECURE_OPEN")]
    insecure_open: bool,
    /// A token (from `verifier token generate`, kept in a secret) to store as `admin` before
    /// serving, as `token create --from-env` would: how compose and Kubernetes give the stack
    /// its first token. Empty: none.
    #[arg(long, env = "VERIFIER_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    #[command(flatten)]
    token_limits: TokenLimitArgs,
    #[command(flatten)]
    sandbox: JudgeConfig,
}

/// Limits per token: what `serve` gives tokens that set none, what `token create` sets.
#[derive(Debug, Clone, Args)]
pub struct TokenLimitArgs {
    /// Requests per second a token may sustain (a refusal is a 429 with Retry-After);
    /// unset: no limit.
    #[arg(long = "token-rate", env = "VERIFIER_TOKEN_RATE")]
    rate: Option<f64>,
    /// Requests a token may send at once above its rate (default: one second's worth).
    #[arg(long = "token-burst", env = "VERIFIER_TOKEN_BURST")]
    burst: Option<u32>,
    /// Requests that run programs (/run_code, /v1/verify/code, /v1/reward, POST /v1/rollouts)
    /// a token may have in flight at once; unset: no limit.
    #[arg(long = "token-sandbox", env = "VERIFIER_TOKEN_SANDBOX")]
    sandbox: Option<u32>,
}

impl TokenLimitArgs {
    pub fn quota(&self) -> Quota {
        Quota {
            rate: self.rate,
            burst: self.burst,
            sandbox: self.sandbox,
        }
    }
}

/// Runs the service until SIGINT or SIGTERM.
pub async fn serve(a: ServeArgs) -> anyhow::Result<ExitCode> {
    let timeout = Duration::from_secs(a.db_timeout_secs);
    let db = if a.no_migrate {
        pool::connect_lazy(&a.db.database_url, a.db_connections, timeout)?
    } else {
        let db = pool::connect(&a.db.database_url, a.db_connections, timeout)
            .await
            .context("connecting to the database")?;
        pool::migrate(&db).await.context("applying migrations")?;
        db
    };
    if let Some(text) = a
        .admin_token
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let token = Token::parse(text).context(
            "--admin-token (VERIFIER_ADMIN_TOKEN) is not a token: make one with `verifier token generate`",
        )?;
        let created = manage::store_admin(&db, &token).await.context(
            "storing --admin-token (another token is named `admin`: revoke it to replace it)",
        )?;
        tracing::info!(token = %token.id, ?created, "admin token from --admin-token");
    }
    // Before the sandbox starts: a refusal should come at once.
    let auth = auth_mode(&a, &db).await?;
    let judge = code::Judge::new(&a.sandbox).context("starting the code sandbox")?;
    let limits = RequestLimits {
        max_body_bytes: a.max_body_bytes,
        max_batch: a.max_batch,
        ..RequestLimits::default()
    };
    let defaults = a.token_limits.quota();
    tracing::info!(?defaults, "limits of tokens that set none");
    let state = AppState::new(db, judge, limits)
        .with_auth(auth)
        .with_token_defaults(defaults);
    let listener = tokio::net::TcpListener::bind(a.listen)
        .await
        .with_context(|| format!("binding {}", a.listen))?;
    tracing::info!(addr = %listener.local_addr()?, "verifier listening");
    axum::serve(listener, app::router(state))
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    tracing::info!("verifier stopped");
    Ok(ExitCode::SUCCESS)
}

/// Decides whether the service asks for tokens, and says so in the log.
async fn auth_mode(a: &ServeArgs, db: &sqlx::PgPool) -> anyhow::Result<Auth> {
    let loopback = a.listen.ip().is_loopback();
    // A database that cannot be asked counts as holding tokens: closed rather than open.
    let live = match pool::tokens::live(db).await {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(error = %e, "cannot count tokens; asking for them");
            1
        }
    };
    let auth = auth::decide(a.auth, loopback, live, a.insecure_open).map_err(anyhow::Error::msg)?;
    match auth {
        Auth::Tokens => tracing::info!(live_tokens = live, "tokens required"),
        Auth::Open if loopback => tracing::info!(
            "authentication off: a loopback address with no token asked; anyone on this host may \
             write (`verifier token create` and a restart make it ask)"
        ),
        Auth::Open => tracing::warn!(
            addr = %a.listen,
            "INSECURE: serving a non-loopback address with no token asked (--insecure-open): \
             anyone who reaches it can write into the pool"
        ),
    }
    Ok(auth)
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing a SIGTERM handler");
    tokio::select! {
        _ = ctrl_c => {},
        _ = term.recv() => {},
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        sandbox: JudgeConfig,
    }

    #[test]
    fn sandbox_flags_reach_the_sandbox_config() {
        let defaults = Cli::parse_from(["verifier"]).sandbox;
        assert_eq!(defaults, JudgeConfig::default());
        let defaults = defaults.sandbox();
        assert!(defaults.fuel);
        assert_eq!(defaults.default_limits.memory_bytes, 512 << 20);
        let set = Cli::parse_from([
            "verifier",
            "--sandbox-fuel",
            "false",
            "--sandbox-memory-mb",
            "64",
            "--sandbox-concurrency",
            "3",
        ])
        .sandbox
        .sandbox();
        assert!(!set.fuel);
        assert_eq!(set.default_limits.memory_bytes, 64 << 20);
        assert_eq!(set.concurrency, 3);
        assert!(Cli::try_parse_from(["verifier", "--sandbox-fuel", "maybe"]).is_err());
        let set = Cli::parse_from([
            "verifier",
            "--sandbox-confinement",
            "landlock",
            "--sandbox-slicing",
            "round-robin",
            "--sandbox-max-runs",
            "7",
        ])
        .sandbox;
        assert_eq!(set.confinement, sandbox::ConfinementChoice::Landlock);
        assert_eq!(set.slicing, sandbox::Slicing::RoundRobin);
        assert_eq!(set.max_runs, Some(7));
        assert!(Cli::try_parse_from(["verifier", "--sandbox-confinement", "none"]).is_err());
        // The defaults --help shows are the names the flags accept.
        use sandbox::ConfinementChoice::*;
        for c in [Auto, Namespaces, Landlock] {
            assert_eq!(c.to_string().parse::<sandbox::ConfinementChoice>(), Ok(c));
        }
    }
}
