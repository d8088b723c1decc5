//! The check's summary: every part's JSON gathered into `summary.json`, and the figures as a
//! short Markdown table in `summary.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};
use clap::Args;
use serde_json::{Map, Value};

/// The matmul peak's file, which the update part reads for MFU.
pub(super) const PEAK_FILE: &str = "peak.json";
/// What the transformers parity script writes.
const PARITY_FILE: &str = "parity.json";

/// Arguments of the report part.
#[derive(Args)]
pub struct ReportArgs {
    /// The folder the parts wrote to.
    #[arg(long)]
    out: PathBuf,
}

fn read(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("invalid JSON in {}", path.display()))
}

/// The measured peak FLOP/s in `out`, if the peak part ran.
pub(super) fn read_peak(out: &Path) -> Result<Option<f64>> {
    let path = out.join(PEAK_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    Ok(read(&path)?["flops_per_s"].as_f64())
}

fn mib(v: &Value) -> String {
    v.as_f64()
        .map_or("–".into(), |b| format!("{:.0} MiB", b / 1048576.0))
}

fn num(v: &Value, digits: usize) -> String {
    v.as_f64().map_or("–".into(), |x| format!("{x:.digits$}"))
}

/// Gathers the parts.
pub(super) fn run(a: ReportArgs) -> Result<()> {
    let mut parts = Map::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&a.out)
        .with_context(|| format!("reading {}", a.out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "summary.json"))
        .collect();
    names.sort();
    for p in &names {
        let stem = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        parts.insert(stem, read(p)?);
    }
    ensure!(!parts.is_empty(), "no part results in {}", a.out.display());
    let mut md = String::from("# GPU check\n\n");
    if let Some(p) = parts.get("peak") {
        writeln!(
            md,
            "Matmul peak ({} {}, n = {}): **{:.2} TFLOP/s** (MFU divides by it)\n",
            p["device"].as_str().unwrap_or("?"),
            p["dtype"].as_str().unwrap_or("?"),
            p["n"],
            p["flops_per_s"].as_f64().unwrap_or(f64::NAN) / 1e12
        )?;
    }
    md += "| HACPO update step | dtype | params | tokens | tokens/s | model GFLOP/token | MFU | peak memory |\n|---|---|---|---|---|---|---|---|\n";
    for (k, v) in parts.iter().filter(|(k, _)| k.starts_with("update-")) {
        writeln!(
            md,
            "| {} | {} | {:.1} M | {} | {} | {} | {} | {} |",
            &k["update-".len()..],
            v["dtype"].as_str().unwrap_or("?"),
            v["parameters"].as_f64().unwrap_or(0.0) / 1e6,
            v["tokens"],
            num(&v["tokens_per_s"], 0),
            num(&(v["flops_per_token"].as_f64().map(|f| f / 1e9).into()), 2),
            v["mfu"]
                .as_f64()
                .map_or("–".into(), |m| format!("{:.1} %", m * 100.0)),
            mib(&v["peak_memory_bytes"]),
        )?;
    }
    md += "\n| generation (KV cache) | new tokens | batch → tokens/s | peak memory |\n|---|---|---|---|\n";
    for (k, v) in parts.iter().filter(|(k, _)| k.starts_with("generate-")) {
        let rows: Vec<String> = v["batches"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| format!("{} → {}", r["batch"], num(&r["tokens_per_s"], 0)))
            .collect();
        writeln!(
            md,
            "| {} | {} | {} | {} |",
            &k["generate-".len()..],
            v["new_tokens"],
            rows.join(", "),
            mib(&v["peak_memory_bytes"])
        )?;
    }
    if let Some(v) = parts.get("agents") {
        md += "\n| two-agent HACPO step | generate s | update s | response tokens | mean reward | losses |\n|---|---|---|---|---|---|\n";
        for (i, s) in v["steps"].as_array().into_iter().flatten().enumerate() {
            let losses: Vec<String> = s["updates"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|u| num(&u["loss"], 4))
                .collect();
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                i + 1,
                num(&s["generate_seconds"], 2),
                num(&s["update_seconds"], 2),
                s["tokens"],
                s["mean_reward"],
                losses.join(", ")
            )?;
        }
        writeln!(
            md,
            "\nAgents: {}; weights moved (max |Δ|): {}; peak memory {}",
            v["agents"],
            v["max_weight_change"],
            mib(&v["peak_memory_bytes"])
        )?;
    }
    md += "\n";
    match parts.get(PARITY_FILE.trim_end_matches(".json")) {
        Some(p) => writeln!(md, "Logit parity with transformers: {p}")?,
        None => md += "Logit parity with transformers: not run (see gpu-check.log)\n",
    }
    let summary = Value::Object(parts);
    std::fs::write(
        a.out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?,
    )?;
    std::fs::write(a.out.join("summary.md"), &md)?;
    print!("{md}");
    Ok(())
}
