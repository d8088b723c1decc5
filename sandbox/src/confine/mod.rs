//! Confines the compilers (clang for C/C++, Go's compile and link), the host programs that
//! untrusted source drives.
//!
//! The compilers run natively (no WASI build of them is published on the registries we reach),
//! and the source decides what they open (clang: `#include`, `#embed`, `__has_include`, line
//! markers). So a compile runs in a jail that can read only its toolchain's files and write only
//! its own work folder. Two maintained kernel mechanisms, chosen at start-up by a self-test,
//! never neither:
//!
//! - **Namespaces** (Debian's `bubblewrap`): a fresh mount namespace holding only the toolchain's
//!   files (read-only), a private `/tmp` and the work folder; new user, PID, network, IPC, UTS
//!   and cgroup namespaces; no `/proc`, no `/dev`. The rest of the host does not exist there, so
//!   neither contents nor the existence of host paths can leak. Needs user namespaces (or root).
//! - **Landlock** (+ seccomp): for hosts where namespaces are refused, such as Docker's default
//!   seccomp profile. Reads outside the toolchain and writes outside the work folder fail; TCP
//!   and signals/abstract sockets outside the jail are denied (Landlock ABI 4 / 6); a seccomp
//!   filter refuses sockets, ptrace, mounts and other kernel surfaces clang never needs. What
//!   Landlock cannot hide: whether a host path *exists* (`stat` is not mediated), which
//!   `__has_include` turns into one bit per probe.
//!
//! Both add resource limits (address space, CPU seconds, file size, no core dumps), run with no
//! environment but `PATH`/`TMPDIR` and what the toolchain names, and, when the service runs as
//! root, as `nobody` with a process-count cap. Each toolchain's self-test compiles a program
//! that reads a host file the service can read; a mechanism that lets it through is refused.

mod landlock;
mod namespaces;
mod seccomp;
mod toolset;

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde::{Deserialize, Serialize};

pub(crate) use toolset::{Clang, Toolset};

/// Which confinement the compile step may use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfinementChoice {
    /// Namespaces when the host allows them, else Landlock.
    #[default]
    Auto,
    /// Only bubblewrap namespaces.
    Namespaces,
    /// Only Landlock + seccomp.
    Landlock,
}

impl std::str::FromStr for ConfinementChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ConfinementChoice::Auto),
            "namespaces" => Ok(ConfinementChoice::Namespaces),
            "landlock" => Ok(ConfinementChoice::Landlock),
            other => Err(format!(
                "unknown confinement {other:?} (auto, namespaces, landlock)"
            )),
        }
    }
}

impl std::fmt::Display for ConfinementChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ConfinementChoice::Auto => "auto",
            ConfinementChoice::Namespaces => "namespaces",
            ConfinementChoice::Landlock => "landlock",
        })
    }
}

/// The mechanism confining the compile step on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// bubblewrap: mount, user, PID, network, IPC, UTS and cgroup namespaces.
    Namespaces,
    /// Landlock file-system/network/scope rules plus a seccomp filter.
    Landlock,
}

impl Mechanism {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Namespaces => "namespaces",
            Mechanism::Landlock => "landlock",
        }
    }
}

/// Most bytes the compiler may write into one file (the module, temporaries).
const FILE_SIZE_BYTES: u64 = 64 << 20;

/// Address-space cap for the compiler process.
const ADDRESS_SPACE_BYTES: u64 = 4 << 30;

/// Size of the jail's private `/tmp` (namespaces only; Landlock uses the work folder).
const TMPFS_BYTES: u64 = 256 << 20;

/// Where the work folder appears inside the namespace jail.
const JAIL_WORK: &str = "/work";

/// The uid/gid compiles run as when the service runs as root (`nobody` on Debian).
const NOBODY: u32 = 65534;

/// Processes (threads included) that one compile may use: clang, wasm-ld, bwrap's two; Go's
/// compile and link, each a Go program with a few runtime threads.
const PROCESSES_PER_COMPILE: u64 = 16;

/// The least process cap for `nobody`. The count is per user across the host, so every
/// sandbox (and every replica) compiling as `nobody` shares it; a cap hit would fail a correct
/// program's compile, so it is sized for many concurrent compiles, bounding only runaways.
const NOBODY_PROCESSES: u64 = 1024;

/// A confinement established on this host for one toolchain.
#[derive(Clone)]
pub(crate) struct Jail {
    kind: Kind,
    tools: Toolset,
    filter: seccomp::Filter,
    /// Run as `nobody` (the service is root), with this process-count cap.
    drop_to_nobody: Option<u64>,
}

/// A mechanism with what it runs.
#[derive(Clone)]
enum Kind {
    /// Through this `bwrap`.
    Namespaces(PathBuf),
    Landlock,
}

impl Jail {
    /// Whether compiles run as `nobody` (the service runs as root).
    pub(crate) fn as_nobody() -> bool {
        unsafe { libc::geteuid() == 0 }
    }

    /// Sets up a confinement for `tools`, checking it holds with `self_test` (which tries to
    /// read a host file through it, see [`Canary`]); `Err` says why none could be used (the
    /// toolchain's languages then stay unsupported).
    pub(crate) fn establish(
        choice: ConfinementChoice,
        tools: Toolset,
        concurrency: usize,
        self_test: impl Fn(&Jail) -> Result<(), String>,
    ) -> Result<Jail, String> {
        let filter = seccomp::Filter::build()?;
        let drop_to_nobody = Jail::as_nobody()
            .then_some((PROCESSES_PER_COMPILE * concurrency.max(1) as u64).max(NOBODY_PROCESSES));
        let order: &[Mechanism] = match choice {
            ConfinementChoice::Auto => &[Mechanism::Namespaces, Mechanism::Landlock],
            ConfinementChoice::Namespaces => &[Mechanism::Namespaces],
            ConfinementChoice::Landlock => &[Mechanism::Landlock],
        };
        let mut reasons = Vec::new();
        for &mechanism in order {
            let kind = match mechanism {
                Mechanism::Namespaces => match namespaces::find_bwrap() {
                    Some(bwrap) => Kind::Namespaces(bwrap),
                    None => {
                        reasons
                            .push("namespaces: bwrap not found (Debian package bubblewrap)".into());
                        continue;
                    }
                },
                Mechanism::Landlock => Kind::Landlock,
            };
            let jail = Jail {
                kind,
                tools: tools.clone(),
                filter: filter.clone(),
                drop_to_nobody,
            };
            match self_test(&jail) {
                Ok(()) => return Ok(jail),
                Err(e) => {
                    tracing::warn!(mechanism = mechanism.as_str(), reason = %e, "confinement refused");
                    reasons.push(format!("{}: {e}", mechanism.as_str()))
                }
            }
        }
        Err(format!(
            "no confinement for the compiler could be established ({})",
            reasons.join("; ")
        ))
    }

    /// The mechanism in use.
    pub(crate) fn mechanism(&self) -> Mechanism {
        match self.kind {
            Kind::Namespaces(_) => Mechanism::Namespaces,
            Kind::Landlock => Mechanism::Landlock,
        }
    }

    /// Where the jail shows the work folder `work` to the compiler (for paths the compiler
    /// records in its output, which should not depend on the mechanism).
    pub(crate) fn work_folder(&self, work: &Path) -> PathBuf {
        match self.kind {
            Kind::Namespaces(_) => PathBuf::from(JAIL_WORK),
            Kind::Landlock => work.to_path_buf(),
        }
    }

    /// A confined command running `program` (a path inside the jail) with `args` and the
    /// environment `env`, in `work` (created by the caller, removed by the caller). The command
    /// starts its own process group so a timeout can kill every process of the compile.
    pub(crate) fn command(
        &self,
        work: &Path,
        program: &Path,
        args: &[OsString],
        env: &[(&str, &str)],
        cpu_seconds: u64,
    ) -> std::io::Result<JailedCommand> {
        let limits = ProcessLimits {
            cpu_seconds,
            processes: self.drop_to_nobody,
        };
        if self.drop_to_nobody.is_some() {
            // The jail's user must be able to write its own work folder.
            let c = std::ffi::CString::new(work.as_os_str().as_encoded_bytes())
                .map_err(std::io::Error::other)?;
            if unsafe { libc::chown(c.as_ptr(), NOBODY, NOBODY) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        let (mut cmd, held) = match &self.kind {
            Kind::Namespaces(bwrap) => {
                let (cmd, fd) = namespaces::command(
                    bwrap,
                    &self.tools,
                    &self.filter,
                    work,
                    (program, args, env),
                    limits,
                )?;
                (cmd, Some(fd))
            }
            Kind::Landlock => (
                landlock::command(
                    &self.tools,
                    &self.filter,
                    work,
                    (program, args, env),
                    limits,
                )?,
                None,
            ),
        };
        // Both streams are diagnostics: Go's compiler reports errors on stdout.
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        Ok(JailedCommand { cmd, held })
    }

    /// Runs `steps` (program and arguments, each confined, in order, until one fails) in a
    /// fresh work folder holding `files`; returns whether all succeeded, their diagnostics and
    /// the folder. For self-tests: CPU seconds bound each step, and they read only their input.
    pub(crate) fn probe(
        &self,
        files: &[(&str, &[u8])],
        steps: &[(&Path, Vec<OsString>)],
        env: &[(&str, &str)],
    ) -> Result<(bool, String, tempfile::TempDir), String> {
        let work = tempfile::Builder::new()
            .prefix("sandbox-probe-")
            .tempdir()
            .map_err(|e| format!("creating probe folder: {e}"))?;
        for (name, contents) in files {
            std::fs::write(work.path().join(name), contents)
                .map_err(|e| format!("writing {name}: {e}"))?;
        }
        let mut diagnostics = String::new();
        for (program, args) in steps {
            let mut jailed = self
                .command(work.path(), program, args, env, 30)
                .map_err(|e| format!("preparing: {e}"))?;
            let output = jailed.cmd.output().map_err(|e| format!("starting: {e}"))?;
            diagnostics.push_str(&String::from_utf8_lossy(&output.stdout));
            diagnostics.push_str(&String::from_utf8_lossy(&output.stderr));
            if !output.status.success() {
                return Ok((false, diagnostics, work));
            }
        }
        Ok((true, diagnostics, work))
    }
}

/// A secret-bearing file outside every jail, world-readable so that only a jail (not file
/// permissions) can keep it out of a compile.
pub(crate) struct Canary {
    _dir: tempfile::TempDir,
    /// The file.
    pub(crate) path: PathBuf,
    /// A string found nowhere but in the file.
    pub(crate) secret: String,
}

impl Canary {
    /// Writes `contents(secret)` into `name` in a fresh world-readable folder.
    pub(crate) fn new(
        name: &str,
        contents: impl FnOnce(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Canary, String> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("sandbox-canary-")
            .tempdir()
            .map_err(|e| format!("creating canary folder: {e}"))?;
        let secret = format!("canary{}", std::process::id() ^ 0x5eed_cafe);
        let path = dir.path().join(name);
        std::fs::write(&path, contents(&secret)?).map_err(|e| format!("writing canary: {e}"))?;
        for (p, mode) in [(dir.path(), 0o755), (path.as_path(), 0o644)] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
                .map_err(|e| format!("opening canary permissions: {e}"))?;
        }
        Ok(Canary {
            _dir: dir,
            path,
            secret,
        })
    }
}

/// A command ready to spawn, with what must stay open until it is spawned.
pub(crate) struct JailedCommand {
    /// The command.
    pub(crate) cmd: std::process::Command,
    /// The seccomp program's pipe that bwrap reads at start-up: drop it only after spawning.
    pub(crate) held: Option<std::os::fd::OwnedFd>,
}

/// Limits applied to the jailed process just before `exec`.
#[derive(Debug, Clone, Copy)]
struct ProcessLimits {
    cpu_seconds: u64,
    /// `Some(cap)`: switch to `nobody` and cap its processes.
    processes: Option<u64>,
}

impl ProcessLimits {
    /// Applies the limits to the calling (forked, not yet exec'd) process. Async-signal-safe:
    /// only raw system calls, no allocation.
    fn apply(&self) -> std::io::Result<()> {
        let set = |resource, value: u64| -> std::io::Result<()> {
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            if unsafe { libc::setrlimit(resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        };
        set(libc::RLIMIT_AS, ADDRESS_SPACE_BYTES)?;
        set(libc::RLIMIT_CPU, self.cpu_seconds.max(1))?;
        set(libc::RLIMIT_FSIZE, FILE_SIZE_BYTES)?;
        set(libc::RLIMIT_CORE, 0)?;
        if let Some(cap) = self.processes {
            set(libc::RLIMIT_NPROC, cap)?;
            unsafe {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(NOBODY) != 0
                    || libc::setuid(NOBODY) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}
