//! `verifier import-tasks`: tasks from a JSON Lines file into the pool.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::{DbArgs, migrated};
use verifier::ingest;

/// `verifier import-tasks`.
#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    db: DbArgs,
    /// JSON Lines file; `.gz` is decompressed.
    file: PathBuf,
    /// Dataset name stored with every task (e.g. gsm8k).
    #[arg(long)]
    dataset: String,
}

/// Imports the file, refusing it whole on the first bad line.
pub async fn import(a: ImportArgs) -> anyhow::Result<ExitCode> {
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
    let db = migrated(&a.db).await?;
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
