//! The compiler in a bubblewrap jail: a mount namespace holding only the toolset.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::seccomp::Filter;
use super::{JAIL_WORK, ProcessLimits, TMPFS_BYTES, Toolset};

/// Finds Debian's `bwrap`.
pub(super) fn find_bwrap() -> Option<PathBuf> {
    ["/usr/bin/bwrap", "/bin/bwrap"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// `bwrap … -- program args…` with every namespace unshared, only the toolset mounted and
/// `env` set.
pub(super) fn command(
    bwrap: &Path,
    tools: &Toolset,
    filter: &Filter,
    work: &Path,
    (program, args, env): (&Path, &[OsString], &[(&str, &str)]),
    limits: ProcessLimits,
) -> std::io::Result<(std::process::Command, OwnedFd)> {
    let program_fd = filter_pipe(filter)?;
    let seccomp = program_fd.as_raw_fd();
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
    for (name, value) in env {
        cmd.args(["--setenv", name, value]);
    }
    // The private /tmp first: a toolchain staged under the host's /tmp is bound on top of it.
    cmd.args(["--size", &TMPFS_BYTES.to_string(), "--tmpfs", "/tmp"]);
    for folder in &tools.folders {
        cmd.arg("--ro-bind").arg(folder).arg(folder);
    }
    for lib in &tools.libraries {
        cmd.arg("--ro-bind").arg(lib).arg(lib);
    }
    for (target, link) in &tools.links {
        cmd.arg("--symlink").arg(target).arg(link);
    }
    cmd.arg("--bind").arg(work).arg(JAIL_WORK);
    cmd.args([
        "--chdir",
        JAIL_WORK,
        "--seccomp",
        &seccomp.to_string(),
        "--",
    ]);
    cmd.arg(program).args(args);

    unsafe {
        cmd.pre_exec(move || {
            limits.apply()?;
            // bwrap reads the filter from the descriptor named on its command line, which must
            // survive `exec`.
            if libc::fcntl(seccomp, libc::F_SETFD, 0) != 0 {
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
