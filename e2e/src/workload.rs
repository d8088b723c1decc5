//! Realistic rollouts from the example datasets: right and wrong GSM8K answers, canonical,
//! wrong and hostile HumanEval programs, as model responses.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;
use uuid::Uuid;
use wire::NewRollout;

/// A GSM8K problem with its final numeric answer.
#[derive(Debug, Clone)]
pub struct MathItem {
    /// Id the verifier gives the row (its 0-based line number).
    pub external_id: String,
    /// The final answer after `####`, without thousands separators.
    pub answer: String,
}

/// A HumanEval problem.
#[derive(Debug, Clone)]
pub struct CodeItem {
    /// `HumanEval/N`.
    pub external_id: String,
    /// Function signature and docstring.
    pub prompt: String,
    /// The reference body.
    pub canonical_solution: String,
    /// Function under test.
    pub entry_point: String,
}

/// The example datasets as files on disk plus what tests need to know about their rows.
#[derive(Debug, Clone)]
pub struct Examples {
    /// `gsm8k_test.jsonl`.
    pub gsm8k_file: PathBuf,
    /// `HumanEval.jsonl.gz` or `HumanEval.jsonl`.
    pub humaneval_file: PathBuf,
    /// GSM8K rows in file order.
    pub math: Vec<MathItem>,
    /// HumanEval rows in file order.
    pub code: Vec<CodeItem>,
}

impl Examples {
    /// Reads `dir/gsm8k_test.jsonl` and `dir/HumanEval.jsonl[.gz]` (the names `scripts/up` imports).
    pub fn load(dir: &Path) -> anyhow::Result<Self> {
        let gsm8k_file = dir.join("gsm8k_test.jsonl");
        let humaneval_file = [dir.join("HumanEval.jsonl.gz"), dir.join("HumanEval.jsonl")]
            .into_iter()
            .find(|p| p.is_file())
            .with_context(|| format!("no HumanEval.jsonl[.gz] in {}", dir.display()))?;
        let math = lines(&gsm8k_file)?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let answer = row["answer"]
                    .as_str()
                    .and_then(|a| a.rsplit_once("####"))
                    .map(|(_, n)| n.trim().replace(',', ""))
                    .with_context(|| {
                        format!(
                            "{} line {}: no `#### N` answer",
                            gsm8k_file.display(),
                            i + 1
                        )
                    })?;
                Ok(MathItem {
                    external_id: i.to_string(),
                    answer,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let code = lines(&humaneval_file)?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let field = |k: &str| {
                    row[k].as_str().map(str::to_string).with_context(|| {
                        format!(
                            "{} line {}: no string `{k}`",
                            humaneval_file.display(),
                            i + 1
                        )
                    })
                };
                Ok(CodeItem {
                    external_id: field("task_id")?,
                    prompt: field("prompt")?,
                    canonical_solution: field("canonical_solution")?,
                    entry_point: field("entry_point")?,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(
            !math.is_empty() && !code.is_empty(),
            "empty example data in {}",
            dir.display()
        );
        Ok(Self {
            gsm8k_file,
            humaneval_file,
            math,
            code,
        })
    }

    /// The raw JSON Lines of a dataset file (decompressed), for `POST /v1/tasks`.
    pub fn raw(path: &Path) -> anyhow::Result<Vec<u8>> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        if path.extension().is_some_and(|e| e == "gz") {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_end(&mut out)
                .with_context(|| format!("decompressing {}", path.display()))?;
            Ok(out)
        } else {
            Ok(bytes)
        }
    }
}

fn lines(path: &Path) -> anyhow::Result<Vec<Value>> {
    let text = String::from_utf8(Examples::raw(path)?)
        .with_context(|| format!("{} is not UTF-8", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect()
}

/// A model-like response to a GSM8K problem, right or wrong.
pub fn math_response(item: &MathItem, correct: bool) -> String {
    let answer = if correct {
        item.answer.clone()
    } else {
        wrong_number(&item.answer)
    };
    format!(
        "Let me work through it step by step. Adding up the parts gives the total, so the answer is \\boxed{{{answer}}}."
    )
}

/// A number clearly different from `answer` (by half its size plus one), so that only a
/// checker bug, never a tolerance, can accept it.
fn wrong_number(answer: &str) -> String {
    if let Ok(n) = answer.parse::<i64>() {
        (n + n.abs() / 2 + 1).to_string()
    } else if let Ok(x) = answer.parse::<f64>() {
        (x + x.abs() / 2.0 + 1.0).to_string()
    } else {
        format!("{answer}1")
    }
}

/// What a code response does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// The reference solution: must pass.
    Canonical,
    /// A plausible but wrong body: must fail.
    Wrong,
    /// Spins forever: must hit the time limit.
    InfiniteLoop,
    /// Tries to escape the sandbox (shell, host files, network): must fail, touching nothing.
    Escape,
    /// Allocates far beyond the memory cap.
    MemoryBomb,
    /// Exits with status 0 before the tests run, the classic fake pass.
    FakeExit,
    /// Floods standard output.
    OutputFlood,
}

impl Program {
    /// Every hostile program.
    pub const HOSTILE: [Program; 5] = [
        Program::InfiniteLoop,
        Program::Escape,
        Program::MemoryBomb,
        Program::FakeExit,
        Program::OutputFlood,
    ];
}

/// A model-like response to a HumanEval problem containing `program` in a Python code block.
pub fn code_response(item: &CodeItem, program: Program) -> String {
    let body = match program {
        Program::Canonical => {
            return fenced(&format!("{}{}", item.prompt, item.canonical_solution));
        }
        Program::Wrong => "    return None\n",
        Program::InfiniteLoop => "    while True:\n        pass\n",
        Program::Escape => {
            "    import os, socket\n    os.system('rm -rf / --no-preserve-root')\n    \
             open('/etc/passwd').read()\n    socket.create_connection(('1.1.1.1', 80))\n"
        }
        Program::MemoryBomb => "    x = bytearray(1 << 40)\n    return x\n",
        Program::FakeExit => "    import sys\n    sys.exit(0)\n",
        Program::OutputFlood => "    while True:\n        print('x' * 65536)\n",
    };
    fenced(&format!("{}{body}", item.prompt))
}

fn fenced(code: &str) -> String {
    format!("Here is my solution.\n\n```python\n{code}```\n")
}

/// One element of a `POST /v1/rollouts` batch.
pub fn rollout(
    id: Uuid,
    task: Uuid,
    agent: Uuid,
    run: &str,
    step: i64,
    response: &str,
) -> NewRollout {
    NewRollout {
        id: Some(id),
        task_id: task,
        agent_id: agent,
        run: run.to_string(),
        step,
        policy_version: 0,
        response: response.to_string(),
        token_count: Some((response.len() / 4) as i32),
        logprob_mean: Some(-0.5),
        logprob_sum: None,
        ends_turn: None,
        metadata: None,
    }
}
