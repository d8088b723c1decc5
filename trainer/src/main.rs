//! `trainer` command line: generate with and score responses under real checkpoints, create and
//! import models, train agents, run the experiment. One function per subcommand.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use serde_json::json;
use tch::Device;
use trainer::config::{RunConfig, VerifierSection, parse_device};
use trainer::experiment::ExperimentConfig;
use trainer::{Policy, SamplingParams, TextPair};

/// Policy models on libtorch for heterogeneous-agent RL (HACPO).
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate responses to one or more prompts (batched).
    Generate(GenerateArgs),
    /// Log-probability of a response after a prompt, tokenized by the model's own tokenizer.
    Logprob(LogprobArgs),
    /// Train agents against a running verifier (HACPO or a baseline), as a TOML file describes.
    ///
    /// Resumes from the last checkpoint in the run's output_dir when one exists.
    Run(RunArgs),
    /// Compare HACPO with its baselines: warm up the agents, run every arm for every seed
    /// against a running verifier, and write results.md, results.json and curves.png.
    ///
    /// Tasks are generated and imported into the verifier; finished runs are skipped, so an
    /// interrupted experiment resumes where it stopped. See EXPERIMENTS.md.
    Experiment(ExperimentArgs),
    /// Merge the results.json of parts of one experiment (other arms or seeds, other machines)
    /// into one results.md, results.json and curves.png; refuses parts whose runs do not pair.
    MergeResults(MergeResultsArgs),
    /// Create a model with random (seeded) weights from a config.json and a tokenizer directory.
    InitModel(InitModelArgs),
    /// Convert a GGUF file into a Hugging Face-layout directory (config.json, model.safetensors, tokenizer).
    ImportGguf(ImportGgufArgs),
    /// Cut a BPE tokenizer down to the tokens an experiment's tasks need (a small model's output
    /// layer then costs what its text uses, not the full vocabulary).
    TrimTokenizer(TrimTokenizerArgs),
    /// One part of `scripts/gpu-check` (matmul peak, update step, generation, parity, two
    /// agents, report), writing its JSON into the output folder.
    GpuCheck {
        #[command(subcommand)]
        part: trainer::gpucheck::Part,
    },
    /// Whether a model's tokenizer round-trips the model's own samples (decode, re-encode as a
    /// learner does for cross samples, score both), or the learner's ids of a corpus; JSON out.
    Roundtrip {
        #[command(subcommand)]
        part: trainer::roundtrip::Part,
    },
}

#[derive(Args)]
struct RunArgs {
    /// The run's TOML file (see examples/).
    #[arg(long)]
    config: PathBuf,
    /// Train only this agent of the run; the others run as processes of their own (on other
    /// GPUs or machines) against the same verifier, which each step waits for.
    #[arg(long)]
    agent: Option<String>,
}

#[derive(Args)]
struct ExperimentArgs {
    /// The experiment's TOML file (see experiments/).
    #[arg(long)]
    config: PathBuf,
    /// Only these arms (by name); default all.
    #[arg(long, value_delimiter = ',')]
    arms: Vec<String>,
    /// Override the seeds (comma-separated); default the file's.
    #[arg(long, value_delimiter = ',')]
    seeds: Vec<u64>,
    /// Run the arms even if the overlap gate fails: a deviation from the pre-registered
    /// experiment, which the report then states.
    #[arg(long)]
    ignore_gate: bool,
    /// Write the report from the runs finished so far; run nothing new (the warm-ups and the
    /// gate still load, from their caches).
    #[arg(long)]
    report_only: bool,
    /// Take the tuning sweep from an earlier report of this experiment (its results.json)
    /// instead of running it; refused unless that sweep was complete, declared the same grid and
    /// rule, and started from warm-ups with the same validation accuracies as this machine's.
    #[arg(long)]
    tuning_from: Option<PathBuf>,
    /// Run the warm-ups, the gate and the tuning sweep, write the report, and run no arm (a
    /// sweep, or a pilot declared as a one-point sweep, on the validation split only).
    #[arg(long)]
    tuning_only: bool,
}

#[derive(Args)]
struct MergeResultsArgs {
    /// The parts' results.json files; arms keep the order of their first appearance.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// Folder to write the merged report into.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
struct InitModelArgs {
    /// A Hugging Face config.json (llama, qwen2, qwen3 or gemma3_text model_type).
    #[arg(long)]
    config: PathBuf,
    /// Directory with tokenizer.json and tokenizer_config.json (chat template).
    #[arg(long)]
    tokenizer: PathBuf,
    /// Output directory (Hugging Face layout).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the weight initialisation.
    #[arg(long, default_value_t = 0)]
    seed: i64,
}

#[derive(Args)]
struct TrimTokenizerArgs {
    /// The tokenizer's folder (tokenizer.json, tokenizer_config.json, …) or a .gguf file.
    #[arg(long)]
    tokenizer: PathBuf,
    /// The experiment whose tasks (every split, prompts as the chat template renders them, and
    /// worked solutions) the trimmed tokenizer must encode as the full one does.
    #[arg(long)]
    experiment: PathBuf,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
struct ImportGgufArgs {
    /// The .gguf file (F32/F16/BF16/Q8_0/Q4_0/Q4_1/Q5_0/Q4_K/Q6_K tensors; llama, qwen2, qwen3,
    /// gemma3).
    #[arg(long)]
    gguf: PathBuf,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
struct ModelArgs {
    /// Model directory (config.json + model.safetensors + tokenizer.json) or a .gguf file.
    #[arg(long)]
    model: PathBuf,
    /// Device: `cpu`, `cuda` or `cuda:N`. Weights are f32 on CPU, bf16 on GPU.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    device: Device,
}

#[derive(Args)]
struct GenerateArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// User message; repeat for a batch. Rendered with the model's chat template unless --raw.
    #[arg(long, required = true)]
    prompt: Vec<String>,
    /// Most new tokens per response.
    #[arg(long, default_value_t = 128)]
    max_new_tokens: usize,
    /// Sampling temperature; 0 = greedy.
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Nucleus sampling mass.
    #[arg(long, default_value_t = 1.0)]
    top_p: f64,
    /// Random seed for sampling.
    #[arg(long)]
    seed: Option<i64>,
    /// Print one JSON object per response (text, token ids, per-token log-probs).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct LogprobArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// User message (rendered with the chat template).
    #[arg(long)]
    prompt: String,
    /// Assistant response text to score.
    #[arg(long)]
    response: String,
    /// Do not append the end-of-turn token (score the response as unfinished).
    #[arg(long)]
    no_eos: bool,
    /// Print per-token log-probs as JSON.
    #[arg(long)]
    json: bool,
}

fn load(args: &ModelArgs) -> Result<Policy> {
    let device = args.device;
    if device.is_cuda() {
        require_cuda()?;
    }
    let start = std::time::Instant::now();
    let policy = Policy::load(&args.model, device)
        .with_context(|| format!("cannot load model {}", args.model.display()))?;
    tracing::info!(secs = start.elapsed().as_secs_f64(), model = %args.model.display(), "loaded");
    Ok(policy)
}

/// Pins the CPU kernels when the run asks for it; called before any tensor exists.
fn pin_kernels(run: &trainer::config::RunSection) {
    if run.deterministic_kernels {
        // SAFETY: the command's first action: no tensor yet, and no thread but this one.
        unsafe { trainer::kernels::pin_cpu_kernels() };
    }
}

/// Makes CUDA usable (loading libtorch's CUDA backend when the binary was linked without it).
fn require_cuda() -> Result<()> {
    match trainer::cuda::load_backend() {
        Ok(true) => Ok(()),
        Ok(false) => bail!("CUDA requested but libtorch sees no CUDA device"),
        Err(e) => bail!("CUDA requested but libtorch's CUDA backend did not load: {e}"),
    }
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        // Colour codes only for a terminal: piped logs stay plain text.
        .with_ansi(std::io::stderr().is_terminal())
        // Through the progress bars, which it lifts while a line is printed.
        .with_writer(|| trainer::progress::LogWriter)
        .init();
    match Cli::parse().command {
        Command::Generate(a) => generate(a),
        Command::Logprob(a) => logprob(a),
        Command::Run(a) => run(a),
        Command::Experiment(a) => experiment(a),
        Command::MergeResults(a) => merge_results(a),
        Command::InitModel(a) => init_model(a),
        Command::ImportGguf(a) => import_gguf(a),
        Command::TrimTokenizer(a) => trim_tokenizer(a),
        Command::GpuCheck { part } => trainer::gpucheck::run(part),
        Command::Roundtrip { part } => trainer::roundtrip::run(part),
    }
}

fn trim_tokenizer(a: TrimTokenizerArgs) -> Result<()> {
    let cfg = trainer::experiment::config::ExperimentConfig::load(&a.experiment)?;
    let dir = trainer::gguf::model_dir(&a.tokenizer)?;
    let (full, chat) = trainer::policy::tokenizer_and_chat(&dir)?;
    let mut corpus = Vec::new();
    for p in trainer::experiment::arith::generate(&cfg.tasks).all() {
        corpus.push(trainer::chat::prompt_text(chat.as_ref(), &p.prompt)?);
        corpus.push(p.solution.clone());
    }
    let kept = trainer::tokenizer::trim::trim_dir(&dir, &a.out, &corpus)?;
    println!(
        "{}: {kept} of {} tokens kept for {} texts",
        a.out.display(),
        full.vocab_size(),
        corpus.len()
    );
    Ok(())
}

fn generate(a: GenerateArgs) -> Result<()> {
    let policy = load(&a.model)?;
    let params = SamplingParams {
        max_new_tokens: a.max_new_tokens,
        temperature: a.temperature,
        top_p: a.top_p,
        seed: a.seed,
        ..SamplingParams::default()
    };
    let start = std::time::Instant::now();
    let gens = policy.generate(&a.prompt, &params)?;
    let tokens: usize = gens.iter().map(|g| g.sampled.token_ids.len()).sum();
    tracing::info!(tokens, secs = start.elapsed().as_secs_f64(), "generated");
    for (prompt, g) in a.prompt.iter().zip(&gens) {
        if a.json {
            println!(
                "{}",
                json!({"prompt": prompt, "text": g.text, "token_ids": g.sampled.token_ids,
                "logprobs": g.sampled.logprobs, "finish_reason": g.sampled.finish_reason})
            );
        } else {
            println!("{}", g.text);
        }
    }
    Ok(())
}

fn logprob(a: LogprobArgs) -> Result<()> {
    let policy = load(&a.model)?;
    let pair = TextPair {
        prompt: a.prompt,
        response: a.response,
        ends_turn: !a.no_eos,
    };
    let scores = tch::no_grad(|| policy.score_texts(std::slice::from_ref(&pair)))?;
    let mean = f64::try_from(scores.mean_logprob.get(0))?;
    let n = scores.lengths[0];
    let r = scores.token_logprobs.size()[1];
    let per_token = Vec::<f32>::try_from(scores.token_logprobs.get(0).narrow(0, r - n, n))?;
    let sum: f64 = per_token.iter().map(|&x| f64::from(x)).sum();
    if a.json {
        println!(
            "{}",
            json!({"mean_logprob": mean, "sum_logprob": sum, "tokens": n, "token_logprobs": per_token})
        );
    } else {
        println!("mean_logprob {mean:.6}\nsum_logprob {sum:.6}\ntokens {n}");
    }
    Ok(())
}

fn run(a: RunArgs) -> Result<()> {
    let mut cfg = RunConfig::load(&a.config)?;
    cfg.verifier.token = VerifierSection::token_from_env();
    pin_kernels(&cfg.run);
    if cfg.agents.iter().any(|x| x.device.is_cuda()) {
        require_cuda()?;
    }
    match &a.agent {
        Some(name) => trainer::train::run_agent(&cfg, name),
        None => trainer::train::run(&cfg),
    }
}

fn merge_results(a: MergeResultsArgs) -> Result<()> {
    let parts = a
        .parts
        .iter()
        .map(|p| trainer::experiment::Report::read(p))
        .collect::<Result<Vec<_>>>()?;
    let report = trainer::experiment::Report::merge(parts)?;
    report.write(&a.out)?;
    println!("{}", report.table());
    Ok(())
}

fn experiment(a: ExperimentArgs) -> Result<()> {
    let mut cfg = ExperimentConfig::load(&a.config)?;
    cfg.verifier.token = VerifierSection::token_from_env();
    pin_kernels(&cfg.run);
    cfg.experiment.ignore_gate = a.ignore_gate;
    cfg.experiment.report_only = a.report_only;
    cfg.experiment.tuning_from = a.tuning_from;
    cfg.experiment.tuning_only = a.tuning_only;
    if !a.arms.is_empty() {
        (cfg.experiment.select_arms(&a.arms)).with_context(|| a.config.display().to_string())?;
    }
    if !a.seeds.is_empty() {
        cfg.experiment.seeds = a.seeds;
    }
    let report = trainer::experiment::run_experiment(&cfg)?;
    println!("{}", report.table());
    Ok(())
}

fn init_model(a: InitModelArgs) -> Result<()> {
    let cfg = serde_json::from_str(
        &std::fs::read_to_string(&a.config)
            .with_context(|| format!("reading {}", a.config.display()))?,
    )?;
    Policy::from_config(cfg, &a.tokenizer, Device::Cpu, tch::Kind::Float, a.seed)?.save(&a.out)?;
    println!("{}", a.out.display());
    Ok(())
}

fn import_gguf(a: ImportGgufArgs) -> Result<()> {
    trainer::gguf::import(&a.gguf, &a.out)?;
    println!("{}", a.out.display());
    Ok(())
}
