//! A real vLLM server (the CPU build that `scripts/setup.d/50-vllm.sh` installs) as a child
//! process, for tests and benchmarks of generation on a serving engine.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context;

use crate::free_addr;

/// `vllm serve` on a free loopback port with the development endpoints the weight sync uses
/// (`VLLM_SERVER_DEV_MODE=1`). It answers only after minutes on a small CPU: wait with a client
/// (the trainer's `EngineClient::wait_ready`). Stopped, with the engine-core process it forks,
/// when dropped or when the thread that started it ends.
pub struct VllmProcess {
    /// Base URL, e.g. `http://127.0.0.1:41234`.
    pub url: String,
    /// The model name it serves.
    pub served: String,
    log: PathBuf,
    child: Child,
}

/// The `vllm` executable of the venv that `scripts/setup.d/50-vllm.sh` creates.
pub fn vllm_executable() -> anyhow::Result<PathBuf> {
    let cache = match std::env::var_os("HACRL_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?).join(".cache/hacrl")
        }
    };
    let vllm = cache.join("vllm-venv/bin/vllm");
    anyhow::ensure!(
        vllm.is_file(),
        "{} is missing: run scripts/setup (scripts/setup.d/50-vllm.sh installs vLLM)",
        vllm.display()
    );
    Ok(vllm)
}

impl VllmProcess {
    /// Starts serving the Hugging Face folder `model` as `served` in `dtype` (`float32`,
    /// `bfloat16`), its output in `log`.
    pub fn start(model: &Path, served: &str, dtype: &str, log: &Path) -> anyhow::Result<Self> {
        let vllm = vllm_executable()?;
        let listen = free_addr()?;
        let (host, port) = listen
            .split_once(':')
            .context("free_addr gives host:port")?;
        let out =
            std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let mut cmd = Command::new(&vllm);
        cmd.arg("serve")
            .arg(model)
            .args([
                "--served-model-name",
                served,
                "--host",
                host,
                "--port",
                port,
            ])
            .args(["--dtype", dtype, "--max-model-len", "2048", "--seed", "0"])
            // vLLM 0.32 on CPU kills its engine core when a seeded request's prefill is split
            // across steps (it rewinds the request's generator offset, which a CPU generator
            // lacks: "CPU Generator does not use offset"); 64 prompts of ~45 tokens overflow one
            // 2048-token step. Whole prefills only.
            .arg("--no-enable-chunked-prefill")
            .env("VLLM_TARGET_DEVICE", "cpu")
            // GiB of KV cache: plenty for a 135M model's 64 sequences.
            .env("VLLM_CPU_KVCACHE_SPACE", "2")
            .env("VLLM_SERVER_DEV_MODE", "1")
            // The trainer's environment points at another torch build's libraries.
            .env_remove("LD_LIBRARY_PATH")
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            // Its own group, so that stopping it reaches the engine-core process too.
            .process_group(0);
        crate::dies_with_parent(&mut cmd, libc::SIGTERM);
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", vllm.display()))?;
        Ok(Self {
            url: format!("http://{listen}"),
            served: served.to_owned(),
            log: log.to_owned(),
            child,
        })
    }

    /// Whether it exited already, and the last `lines` of its output (last line first): what a
    /// failure message needs.
    pub fn report(&mut self, lines: usize) -> String {
        let status = self.child.try_wait().ok().flatten();
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(lines).collect();
        format!(
            "vLLM exit status {status:?}; log {} (last lines first):\n{}",
            self.log.display(),
            tail.join("\n")
        )
    }
}

impl Drop for VllmProcess {
    fn drop(&mut self) {
        let group = -(self.child.id() as i32);
        // SAFETY: signals our own child's process group only.
        unsafe { libc::kill(group, libc::SIGTERM) };
        for _ in 0..100 {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // SAFETY: as above; the engine core may outlive its parent.
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}
