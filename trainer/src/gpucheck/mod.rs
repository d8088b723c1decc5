//! `trainer gpu-check`: the measured parts of `scripts/gpu-check`, which proves the HACPO update
//! path on a GPU machine in one short call. Each part runs in a process of its own (so that its
//! peak memory is its own) and writes one JSON file into the output folder; `report` gathers
//! them into `summary.json` and `summary.md`. Models get random weights from a config in the
//! repository and a real tokenizer: no checkpoint has to travel to the GPU machine.

mod agents;
mod flops;
mod memory;
mod parts;
mod report;
mod synthetic;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use serde_json::Value;
use tch::{Device, Kind};

use crate::config::parse_device;
use crate::policy::{Policy, default_kind};

pub use synthetic::{LEARNING_RATE, SyntheticBatch, WEIGHT_DECAY};

/// One part of the GPU check.
#[derive(Subcommand)]
pub enum Part {
    /// The bf16 matmul peak (f32 on CPU) that MFU divides by.
    Peak(PeakArgs),
    /// One HACPO update step (log-probs, loss, backward, clip, AdamW): tokens/s, memory, MFU.
    Update(parts::UpdateArgs),
    /// Generation tokens/s with the KV cache at several batch sizes.
    Generate(parts::GenerateArgs),
    /// A model folder and this crate's logits for a prompt, for the transformers parity script.
    Parity(parts::ParityArgs),
    /// Two agents of different families doing HACPO updates from rollouts they generate.
    Agents(agents::AgentsArgs),
    /// Gathers the parts' files into summary.json and summary.md (and prints the latter).
    Report(report::ReportArgs),
}

/// Where a part runs and writes.
#[derive(Args)]
pub struct Target {
    /// Device: `cpu`, `cuda` or `cuda:N` (bf16 on CUDA, f32 on CPU, as the trainer runs).
    #[arg(long, default_value = "cuda", value_parser = parse_device)]
    device: Device,
    /// Output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
}

/// A model with random weights: a config.json, a tokenizer folder, and overrides.
#[derive(Args)]
pub struct ModelSpec {
    /// Name of the model in the output.
    #[arg(long)]
    name: String,
    /// A Hugging Face config.json (see trainer/assets/gpu-check).
    #[arg(long)]
    config: PathBuf,
    /// Folder with tokenizer.json and tokenizer_config.json.
    #[arg(long)]
    tokenizer: PathBuf,
    /// Override a numeric config field, e.g. `num_hidden_layers=2` (smaller sizes on CPU).
    #[arg(long = "set", value_name = "KEY=NUMBER", value_parser = parse_override)]
    overrides: Vec<(String, f64)>,
}

/// Arguments of [`Part::Peak`].
#[derive(Args)]
pub struct PeakArgs {
    #[command(flatten)]
    target: Target,
    /// Matrix size (square).
    #[arg(long, default_value_t = 8192)]
    n: i64,
    /// Timed products (median), after one warm-up.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
}

fn parse_override(s: &str) -> Result<(String, f64)> {
    let Some((k, v)) = s.split_once('=') else {
        bail!("expected KEY=NUMBER, got `{s}`");
    };
    let v: f64 = v
        .parse()
        .with_context(|| format!("`{v}` in `{s}` is not a number"))?;
    Ok((k.to_owned(), v))
}

impl ModelSpec {
    /// The config with the overrides applied (integers stay integers).
    fn config_json(&self) -> Result<Value> {
        let text = std::fs::read_to_string(&self.config)
            .with_context(|| format!("reading {}", self.config.display()))?;
        let mut v: Value = serde_json::from_str(&text)
            .with_context(|| format!("invalid JSON in {}", self.config.display()))?;
        let Some(obj) = v.as_object_mut() else {
            bail!("{} is not a JSON object", self.config.display());
        };
        for (k, x) in &self.overrides {
            let value = if x.fract() == 0.0 && x.abs() < 1e15 {
                Value::from(*x as i64)
            } else {
                Value::from(*x)
            };
            obj.insert(k.clone(), value);
        }
        Ok(v)
    }

    /// The model with seeded random weights on `device` in the trainer's dtype for it.
    fn policy(&self, device: Device) -> Result<Policy> {
        Policy::from_config(
            self.config_json()?,
            &self.tokenizer,
            device,
            default_kind(device),
            0,
        )
        .with_context(|| format!("building {} from {}", self.name, self.config.display()))
    }
}

/// Prepares `device` for a part: memory measurement starts first (before libtorch's CUDA
/// context exists), then CUDA must be usable.
fn open_device(device: Device) -> Result<memory::PeakMemory> {
    let peak = memory::PeakMemory::start(device)?;
    if device.is_cuda() {
        match crate::cuda::load_backend() {
            Ok(true) => {}
            Ok(false) => bail!("{device:?} requested, but libtorch sees no CUDA device"),
            Err(e) => bail!("{device:?} requested, but libtorch's CUDA backend did not load: {e}"),
        }
    }
    Ok(peak)
}

/// Writes a part's result as pretty JSON to `out/file`.
fn write_part(out: &Path, file: &str, value: &Value) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join(file);
    std::fs::write(&path, serde_json::to_string_pretty(value)?)
        .with_context(|| format!("writing {}", path.display()))?;
    println!("{}", path.display());
    Ok(())
}

/// Name of a dtype in the output.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::BFloat16 => "bf16",
        Kind::Half => "f16",
        Kind::Float => "f32",
        Kind::Double => "f64",
        _ => "other",
    }
}

/// Runs one part.
pub fn run(part: Part) -> Result<()> {
    match part {
        Part::Peak(a) => peak(a),
        Part::Update(a) => parts::update(a),
        Part::Generate(a) => parts::generate(a),
        Part::Parity(a) => parts::parity(a),
        Part::Agents(a) => agents::run(a),
        Part::Report(a) => report::run(a),
    }
}

fn peak(a: PeakArgs) -> Result<()> {
    let device = a.target.device;
    let _memory = open_device(device)?;
    let kind = default_kind(device);
    let p = flops::matmul_peak(device, kind, a.n, a.repeats);
    write_part(
        &a.target.out,
        report::PEAK_FILE,
        &serde_json::json!({
            "device": format!("{device:?}"),
            "dtype": kind_name(kind),
            "n": p.n,
            "flops_per_s": p.flops_per_s,
        }),
    )
}
