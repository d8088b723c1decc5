//! `verifier token`: make, list and revoke bearer tokens.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::{DbArgs, migrated};
use verifier::auth::quota::Quota;
use verifier::auth::token::Token;
use verifier::auth::{Scope, manage};
use verifier::pool;

/// `verifier token`'s commands.
#[derive(Subcommand)]
pub enum TokenCommand {
    /// Make a token and print it once on stdout (`HACRL_TOKEN=$(verifier token create ...)`).
    Create(TokenCreateArgs),
    /// List tokens: name, id, scopes, agent, state (never secrets).
    List(DbArgs),
    /// Revoke a token by name, at once.
    Revoke {
        #[command(flatten)]
        db: DbArgs,
        /// The token's name.
        name: String,
    },
    /// Print a fresh token without storing it, to keep in a secret for `create --from-env`.
    Generate,
}

/// `verifier token create`.
#[derive(Args)]
pub struct TokenCreateArgs {
    #[command(flatten)]
    db: DbArgs,
    /// A name people know it by (unique), e.g. `trainer-qwen` or `ci`.
    #[arg(long)]
    name: String,
    /// What it may do: score (verify, reward, run_code), read (pool, dashboard), write
    /// (rollouts and metrics as --agent), admin (everything).
    #[arg(long, value_enum, value_delimiter = ',', required = true)]
    scope: Vec<Scope>,
    /// The one agent (by name) a `write` token writes as.
    #[arg(long)]
    agent: Option<String>,
    /// Days until it expires.
    #[arg(long, default_value_t = 90, conflicts_with = "no_expiry")]
    days: u32,
    /// Never expires.
    #[arg(long)]
    no_expiry: bool,
    /// Store the token held in this environment variable (from `verifier token generate`)
    /// instead of a fresh one; running it again with the same token changes nothing.
    #[arg(long, value_name = "VAR")]
    from_env: Option<String>,
    /// Its requests per second (unset: the service's --token-rate).
    #[arg(long)]
    rate: Option<f64>,
    /// Its requests at once above the rate (unset: the service's --token-burst).
    #[arg(long)]
    burst: Option<u32>,
    /// Its requests that run programs in flight at once (unset: the service's --token-sandbox).
    #[arg(long)]
    sandbox: Option<u32>,
}

/// Runs one `token` command.
pub async fn token(c: TokenCommand) -> anyhow::Result<ExitCode> {
    match c {
        TokenCommand::Generate => println!("{}", Token::generate()?.reveal()),
        TokenCommand::List(a) => {
            let now = chrono::Utc::now();
            println!("name\tid\tscopes\tagent\trate\tburst\tsandbox\tstate");
            for row in pool::tokens::list(&migrated(&a).await?).await? {
                println!("{}", manage::describe(&row, now));
            }
        }
        TokenCommand::Revoke { db: a, name } => {
            if !pool::tokens::revoke(&migrated(&a).await?, &name).await? {
                anyhow::bail!("no token named `{name}`");
            }
            eprintln!("token `{name}` revoked");
        }
        TokenCommand::Create(a) => {
            let given = match &a.from_env {
                Some(var) => Some(
                    std::env::var(var)
                        .ok()
                        .and_then(|t| Token::parse(t.trim()))
                        .with_context(|| {
                            format!(
                                "${var} holds no token (make one with `verifier token generate`)"
                            )
                        })?,
                ),
                None => None,
            };
            let spec = manage::TokenSpec {
                name: a.name.clone(),
                scopes: a.scope.clone(),
                agent: a.agent.clone(),
                expires_at: (!a.no_expiry)
                    .then(|| chrono::Utc::now() + chrono::Duration::days(a.days.into())),
                quota: Quota {
                    rate: a.rate,
                    burst: a.burst,
                    sandbox: a.sandbox,
                },
            };
            let token = match &given {
                Some(t) => t.clone(),
                None => Token::generate()?,
            };
            let created = manage::create(&migrated(&a.db).await?, &spec, &token).await?;
            let expiry = spec
                .expires_at
                .map_or("never".into(), |t| t.format("%F").to_string());
            match (created, given) {
                (manage::Created::Unchanged, _) => eprintln!("token `{}` unchanged", a.name),
                (manage::Created::LimitsChanged, _) => {
                    eprintln!(
                        "token `{}` unchanged but for its limits, now the given ones",
                        a.name
                    )
                }
                (manage::Created::New, Some(_)) => {
                    eprintln!(
                        "token `{}` stored from ${}; expires {expiry}",
                        a.name,
                        a.from_env.unwrap_or_default()
                    )
                }
                (manage::Created::New, None) => {
                    println!("{}", token.reveal());
                    eprintln!(
                        "token `{}` made; expires {expiry}; shown once, keep it secret",
                        a.name
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
