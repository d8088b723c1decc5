//! The compiler under Landlock and seccomp, for hosts that refuse namespaces.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
    path_beneath_rules,
};

use super::seccomp::Filter;
use super::{ProcessLimits, Toolset};

/// The newest Landlock ABI this code knows; older kernels get what they support.
const NEWEST: ABI = ABI::V6;

/// `program args…` with `env` in `work`, restricted just before `exec` to reading the toolset
/// and reading/writing `work`, with no TCP, no signals or abstract sockets outside, and the
/// filter.
pub(super) fn command(
    tools: &Toolset,
    filter: &Filter,
    work: &Path,
    (program, args, env): (&Path, &[OsString], &[(&str, &str)]),
    limits: ProcessLimits,
) -> std::io::Result<std::process::Command> {
    let ruleset = ruleset(tools, work).map_err(std::io::Error::other)?;
    let mut cmd = std::process::Command::new(program);
    // Temporaries go to the work folder, the only place the jail can write.
    cmd.env_clear()
        .env("PATH", "/usr/bin")
        .env("TMPDIR", work)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(work);
    let raw = ruleset.as_raw_fd();
    let filter = filter.clone();
    unsafe {
        cmd.pre_exec(move || {
            // Keep the ruleset descriptor alive (and owned) for as long as the command lives.
            let _ = &ruleset;
            limits.apply()?;
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(libc::SYS_landlock_restrict_self, raw, 0) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            filter.install()
        });
    }
    Ok(cmd)
}

/// A Landlock ruleset: read-only toolset, read-write `work`, nothing else; its descriptor.
fn ruleset(tools: &Toolset, work: &Path) -> Result<OwnedFd, String> {
    let read = AccessFs::from_read(NEWEST);
    let all = AccessFs::from_all(NEWEST);
    let created = Ruleset::default()
        .handle_access(all)
        .and_then(|r| r.handle_access(AccessNet::from_all(NEWEST)))
        .and_then(|r| r.scope(Scope::from_all(NEWEST)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(&tools.folders, read)))
        .and_then(|r| r.add_rules(path_beneath_rules(&tools.libraries, read)))
        .and_then(|r| r.add_rules(path_beneath_rules([work], all)))
        .map_err(|e| format!("landlock: {e}"))?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| "landlock is not supported by this kernel (or is disabled)".to_string())
}
