//! Test support shared by the workspace's test suites (the verifier's, the trainer's and the
//! end-to-end ones), so that each is written once:
//!
//! - [`database_url`], [`with_schema`], [`Schema`]: every test in a fresh schema of its own
//!   inside the run's throwaway database (`DATABASE_URL`, set by `scripts/test`).
//! - [`workspace_binary`], [`free_addr`]: the binaries of this build, a free loopback port.
//! - [`VerifierProcess`]: the real `verifier serve` on a schema, talked to only over HTTP.
//! - [`VllmProcess`]: a real vLLM server (`scripts/setup.d/50-vllm.sh`) on a model folder.

mod binary;
mod verifier;
mod vllm;

pub use binary::{repo_root, workspace_binary};
pub use verifier::VerifierProcess;
pub use vllm::{VllmProcess, vllm_executable};

use std::time::Duration;

use anyhow::Context;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

/// The database server tests use: `DATABASE_URL` (scripts/test points it at a throwaway
/// database), else the local default.
pub fn database_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// `url` with its connections confined to `schema` (libpq and sqlx both read `options`).
pub fn with_schema(url: &str, schema: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}options=-c%20search_path%3D{schema}")
}

/// A free loopback address. The port is released again, so another process may take it before
/// the caller binds it (seen in CI: [`VerifierProcess::start`] starts again on another).
pub fn free_addr() -> anyhow::Result<String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").context("binding a loopback port")?;
    Ok(l.local_addr()?.to_string())
}

/// Makes the process `cmd` starts receive `signal` when the thread that started it ends, so a
/// test that panics or is killed leaves no server behind.
fn dies_with_parent(cmd: &mut std::process::Command, signal: libc::c_int) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches only the child being set up.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A schema created for one test; nothing else uses it.
#[derive(Debug, Clone)]
pub struct Schema {
    /// Its name: the prefix and a random suffix.
    pub name: String,
    /// Connection URL of the database server with connections confined to it.
    pub url: String,
}

impl Schema {
    /// Creates `{prefix}_{random}` in the database of [`database_url`].
    pub async fn create(prefix: &str) -> anyhow::Result<Self> {
        let base = database_url();
        let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
        let admin = connect(&base, 1).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("create schema {name}")))
            .execute(&admin)
            .await
            .with_context(|| format!("creating schema {name}"))?;
        admin.close().await;
        let url = with_schema(&base, &name);
        Ok(Self { name, url })
    }

    /// Up to `max_connections` database connections on this schema (what `psql` users see).
    pub async fn connect(&self, max_connections: u32) -> anyhow::Result<PgPool> {
        connect(&self.url, max_connections).await
    }
}

/// Connects to `url`, failing within 10 s with a hint when no server answers.
pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(10))
        .connect(url)
        .await
        .with_context(|| {
            format!("connecting to {url} (is PostgreSQL up? scripts/postgres ensure starts one)")
        })
}
