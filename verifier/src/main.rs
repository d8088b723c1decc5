//! `verifier`: the scoring service and its command-line tools.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use serde::Deserialize;
use serde_json::{Value, json};

use verifier::app::{self, AppState, Limits};
use verifier::auth::quota::Quota;
use verifier::auth::token::Token;
use verifier::auth::{self, Auth, AuthChoice, Scope, manage};
use verifier::code::{self, JudgeConfig};
use verifier::scoring::Scorer;
use verifier::task::Reference;
use verifier::telemetry::{self, LogFormat};
use verifier::{ingest, math, pool};

/// Scores LLM outputs (math answers, programs run in a wasm sandbox) and keeps the shared
/// experience pool of verified rollouts in Postgres.
///
/// Start the service with `verifier serve`; grade files offline with `verifier score`.
#[derive(Parser)]
#[command(version, about, long_about)]
struct Cli {
    /// Log line format.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t,
        env = "VERIFIER_LOG_FORMAT"
    )]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP service (applies pending migrations first).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate(DbArgs),
    /// Import tasks from a JSON Lines file (optionally .gz): GSM8K, MATH, HumanEval rows or tasks.
    ImportTasks(ImportArgs),
    /// Grade JSON Lines from a file or stdin, one JSON result per line on stdout.
    ///
    /// Each input line is `{"kind": "math", "response": "...", "reference": "42"}` or
    /// `{"kind": "code", "response": "...", "prompt": "...", "reference": {"language": "python",
    /// "style": "assert", "test": "...", "entry_point": "f"}}`. Exit code 0 when every line was
    /// graded, 2 when some lines were invalid (they get an `error` result), 1 on I/O failure.
    Score(ScoreArgs),
    /// Make, list and revoke the bearer tokens callers present (stored hashed in the pool).
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Subcommand)]
enum TokenCommand {
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

#[derive(Args)]
struct TokenCreateArgs {
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

#[derive(Args)]
struct DbArgs {
    /// Postgres connection URL.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    database_url: String,
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on.
    #[arg(long, env = "VERIFIER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Database connections in the pool.
    #[arg(long, env = "VERIFIER_DB_CONNECTIONS", default_value_t = 16)]
    db_connections: u32,
    /// Seconds to wait for a database connection before answering 503.
    #[arg(long, env = "VERIFIER_DB_TIMEOUT", default_value_t = 5)]
    db_timeout_secs: u64,
    /// Largest request body in bytes.
    #[arg(long, env = "VERIFIER_MAX_BODY_BYTES", default_value_t = Limits::default().max_body_bytes)]
    max_body_bytes: usize,
    /// Most rollouts in one submission.
    #[arg(long, env = "VERIFIER_MAX_BATCH", default_value_t = Limits::default().max_batch)]
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
struct TokenLimitArgs {
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
    fn quota(&self) -> Quota {
        Quota {
            rate: self.rate,
            burst: self.burst,
            sandbox: self.sandbox,
        }
    }
}

#[derive(Args)]
struct ImportArgs {
    #[command(flatten)]
    db: DbArgs,
    /// JSON Lines file; `.gz` is decompressed.
    file: PathBuf,
    /// Dataset name stored with every task (e.g. gsm8k).
    #[arg(long)]
    dataset: String,
}

#[derive(Args)]
struct ScoreArgs {
    /// JSON Lines input; stdin when absent or `-`.
    file: Option<PathBuf>,
    #[command(flatten)]
    sandbox: JudgeConfig,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init_logging(cli.log_format);
    let result = match cli.command {
        Command::Serve(a) => serve(a).await,
        Command::Migrate(a) => migrate(a).await,
        Command::ImportTasks(a) => import(a).await,
        Command::Score(a) => score(a).await,
        Command::Token(c) => token(c).await,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(a: ServeArgs) -> anyhow::Result<ExitCode> {
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
    let limits = Limits {
        max_body_bytes: a.max_body_bytes,
        max_batch: a.max_batch,
        ..Limits::default()
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

async fn token(c: TokenCommand) -> anyhow::Result<ExitCode> {
    let db = |a: &DbArgs| {
        let url = a.database_url.clone();
        async move {
            let db = pool::connect(&url, 2, Duration::from_secs(10)).await?;
            pool::migrate(&db).await?;
            anyhow::Ok(db)
        }
    };
    match c {
        TokenCommand::Generate => println!("{}", Token::generate()?.reveal()),
        TokenCommand::List(a) => {
            let now = chrono::Utc::now();
            println!("name\tid\tscopes\tagent\trate\tburst\tsandbox\tstate");
            for row in pool::tokens::list(&db(&a).await?).await? {
                println!("{}", manage::describe(&row, now));
            }
        }
        TokenCommand::Revoke { db: a, name } => {
            if !pool::tokens::revoke(&db(&a).await?, &name).await? {
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
            let created = manage::create(&db(&a.db).await?, &spec, &token).await?;
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

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing a SIGTERM handler");
    tokio::select! {
        _ = ctrl_c => {},
        _ = term.recv() => {},
    }
}

async fn migrate(a: DbArgs) -> anyhow::Result<ExitCode> {
    let db = pool::connect(&a.database_url, 2, Duration::from_secs(10)).await?;
    pool::migrate(&db).await?;
    println!("migrations applied");
    Ok(ExitCode::SUCCESS)
}

async fn import(a: ImportArgs) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(&a.file).with_context(|| format!("reading {}", a.file.display()))?;
    let bytes = if a.file.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
            .context("decompressing")?;
        out
    } else {
        bytes
    };
    // Errors name the line as `lines[i]` (0-based), as the API's do.
    let at = |e: ingest::IngestError| {
        let field = match &e {
            ingest::IngestError::Refused(r) => r.field.as_ref().map(|f| format!("{f}: ")),
            _ => None,
        };
        anyhow::anyhow!("{}: {}{e}", a.file.display(), field.unwrap_or_default())
    };
    let rows = ingest::parse_lines(&a.dataset, &bytes)
        .and_then(|t| ingest::validate_tasks(t, "lines"))
        .map_err(|e| at(e.into()))?;
    let db = pool::connect(&a.db.database_url, 2, Duration::from_secs(10)).await?;
    pool::migrate(&db).await?;
    let stored = ingest::import_tasks(&db, rows, "lines", None)
        .await
        .map_err(at)?;
    let created = stored.created;
    println!(
        "{}: {} tasks, {created} created, {} unchanged (dataset {})",
        a.file.display(),
        stored.tasks.len(),
        stored.unchanged,
        a.dataset
    );
    Ok(ExitCode::SUCCESS)
}

/// One line of `verifier score` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScoreLine {
    kind: verifier::task::TaskKind,
    response: String,
    #[serde(default)]
    prompt: String,
    #[serde(alias = "tests")]
    reference: Value,
}

async fn score(a: ScoreArgs) -> anyhow::Result<ExitCode> {
    let input: Box<dyn BufRead> = match &a.file {
        Some(p) if p.as_os_str() != "-" => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?,
        )),
        _ => Box::new(std::io::stdin().lock()),
    };
    let scorer = Scorer::new(code::Judge::new(&a.sandbox)?, math::Options::default());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut invalid = 0usize;
    for (i, line) in input.lines().enumerate() {
        let line = line.context("reading input")?;
        if line.trim().is_empty() {
            continue;
        }
        let result = match parse_score_line(&line) {
            Ok((reference, prompt, response)) => {
                let s = scorer.score(&reference, &prompt, &response).await;
                json!({ "line": i + 1, "correct": s.correct, "reward": s.reward,
                        "status": s.status, "verdict": s.verdict.stored() })
            }
            Err(e) => {
                invalid += 1;
                json!({ "line": i + 1, "error": e.to_string() })
            }
        };
        serde_json::to_writer(&mut out, &result)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(if invalid == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

fn parse_score_line(line: &str) -> serde_json::Result<(Reference, String, String)> {
    let l: ScoreLine = serde_json::from_str(line)?;
    let reference = Reference::from_json(l.kind, &l.reference)?;
    Ok((reference, l.prompt, l.response))
}

#[cfg(test)]
mod tests {
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
