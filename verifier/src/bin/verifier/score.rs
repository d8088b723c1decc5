//! `verifier score`: grades JSON Lines offline, one JSON result per line.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Deserialize;
use serde_json::{Value, json};

use verifier::code::{self, JudgeConfig};
use verifier::math;
use verifier::scoring::Scorer;
use verifier::task::Reference;

/// `verifier score`.
#[derive(Args)]
pub struct ScoreArgs {
    /// JSON Lines input; stdin when absent or `-`.
    file: Option<PathBuf>,
    #[command(flatten)]
    sandbox: JudgeConfig,
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

/// Grades every line of the input.
pub async fn score(a: ScoreArgs) -> anyhow::Result<ExitCode> {
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
