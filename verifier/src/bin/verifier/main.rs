//! `verifier`: the scoring service and its command-line tools, one file per command.

mod import;
mod score;
mod serve;
mod token;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use verifier::pool;
use verifier::telemetry::{self, LogFormat};

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
    Serve(serve::ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate(DbArgs),
    /// Import tasks from a JSON Lines file (optionally .gz): GSM8K, MATH, HumanEval rows or tasks.
    ImportTasks(import::ImportArgs),
    /// Grade JSON Lines from a file or stdin, one JSON result per line on stdout.
    ///
    /// Each input line is `{"kind": "math", "response": "...", "reference": "42"}` or
    /// `{"kind": "code", "response": "...", "prompt": "...", "reference": {"language": "python",
    /// "style": "assert", "test": "...", "entry_point": "f"}}`. Exit code 0 when every line was
    /// graded, 2 when some lines were invalid (they get an `error` result), 1 on I/O failure.
    Score(score::ScoreArgs),
    /// Make, list and revoke the bearer tokens callers present (stored hashed in the pool).
    #[command(subcommand)]
    Token(token::TokenCommand),
}

/// Where the pool's database is.
#[derive(Args)]
pub struct DbArgs {
    /// Postgres connection URL.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    pub database_url: String,
}

/// Connects to the pool's database and applies pending migrations (every command but `serve`,
/// which decides with --no-migrate).
async fn migrated(a: &DbArgs) -> anyhow::Result<sqlx::PgPool> {
    let db = pool::connect(&a.database_url, 2, Duration::from_secs(10)).await?;
    pool::migrate(&db).await?;
    Ok(db)
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init_logging(cli.log_format);
    let result = match cli.command {
        Command::Serve(a) => serve::serve(a).await,
        Command::Migrate(a) => migrate(a).await,
        Command::ImportTasks(a) => import::import(a).await,
        Command::Score(a) => score::score(a).await,
        Command::Token(c) => token::token(c).await,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn migrate(a: DbArgs) -> anyhow::Result<ExitCode> {
    migrated(&a).await?;
    println!("migrations applied");
    Ok(ExitCode::SUCCESS)
}
