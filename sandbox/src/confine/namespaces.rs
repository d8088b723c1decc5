//! The compiler in a bubblewrap jail: a mount namespace holding only the toolset.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::seccomp::Filter;
use super::{JAIL_WORK, ProcessLimits, TMPFS_BYTES, Toolset};

/// The descriptor number bwrap reads the seccomp program from.
const SECCOMP_FD: i32 = 3;

/// Finds Debian's `bwrap`.
pub(super) fn find_bwrap() -> Option<PathBuf> {
    ["/usr/bin/bwrap", "/bin/bwrap"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// `bwrap … -- program args…` with every namespace unshared and only the toolset mounted.
pub(super) fn command(
    bwrap: &Path,
    tools: &Toolset,
    filter: &Filter,
    work: &Path,
    program: &Path,
    args: &[OsString],
    limits: ProcessLimits,
) -> std::io::Result<(std::process::Command, OwnedFd)> {
    let mut cmd = std::process::Command::new(bwrap);
    cmd.env_clear().args([
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin",
        "--setenv",
        "TMPDIR",
        "/tmp",
    ]);
    for folder in &tools.folders {
        cmd.arg("--ro-bind").arg(folder).arg(folder);
    }
    for lib in &tools.libraries {
        cmd.arg("--ro-bind").arg(lib).arg(lib);
    }
    for (target, link) in &tools.links {
        cmd.arg("--symlink").arg(target).arg(link);
    }
    cmd.args(["--size", &TMPFS_BYTES.to_string(), "--tmpfs", "/tmp"]);
    cmd.arg("--bind").arg(work).arg(JAIL_WORK);
    cmd.args([
        "--chdir",
        JAIL_WORK,
        "--seccomp",
        &SECCOMP_FD.to_string(),
        "--",
    ]);
    cmd.arg(program).args(args);

    let program_fd = filter_pipe(filter)?;
    let raw = program_fd.as_raw_fd();
    unsafe {
        cmd.pre_exec(move || {
            limits.apply()?;
            // bwrap reads the filter from a fixed descriptor, which must survive `exec`
            // (`dup2` clears close-on-exec, except when the pipe already has that number).
            let ok = if raw == SECCOMP_FD {
                libc::fcntl(raw, libc::F_SETFD, 0) == 0
            } else {
                libc::dup2(raw, SECCOMP_FD) >= 0
            };
            if !ok {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The caller keeps the read end open until the child is spawned.
    Ok((cmd, program_fd))
}

/// A pipe whose read end yields the filter's BPF program (it fits the pipe buffer).
fn filter_pipe(filter: &Filter) -> std::io::Result<OwnedFd> {
    let (read, write) = std::io::pipe()?;
    let mut write = write;
    write.write_all(filter.bytes())?;
    drop(write);
    Ok(read.into())
}
