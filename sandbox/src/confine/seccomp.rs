//! A seccomp filter refusing the kernel surfaces a compiler never needs.
//!
//! A deny list rather than an allow list: clang, the linker and the dynamic loader use a wide,
//! version-dependent set of ordinary calls, and the jail's other layers already bound files,
//! network and processes. What is denied here is what would matter if clang itself were
//! subverted by crafted source: sockets, inspecting or signalling other processes, mounts and
//! namespaces, kernel modules, keyrings, BPF, io_uring, file handles that bypass paths.

use std::collections::BTreeMap;

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};

/// System calls answered with `EPERM`.
const DENIED: &[libc::c_long] = &[
    libc::SYS_socket,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_getfd,
    libc::SYS_pidfd_send_signal,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_syslog,
    libc::SYS_quotactl,
];

/// A compiled filter: the BPF program, and its bytes as bwrap's `--seccomp` reads them.
#[derive(Debug, Clone)]
pub(super) struct Filter {
    program: BpfProgram,
    bytes: Vec<u8>,
}

impl Filter {
    /// Compiles the deny list for this machine's architecture.
    pub(super) fn build() -> Result<Filter, String> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)
            .map_err(|e| format!("seccomp: unsupported architecture: {e}"))?;
        let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> =
            DENIED.iter().map(|&nr| (nr, Vec::new())).collect();
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .map_err(|e| format!("seccomp: {e}"))?;
        let program =
            BpfProgram::try_from(filter).map_err(|e| format!("seccomp: compiling: {e}"))?;
        let bytes = program
            .iter()
            .flat_map(|i| {
                let mut b = Vec::with_capacity(8);
                b.extend_from_slice(&i.code.to_ne_bytes());
                b.push(i.jt);
                b.push(i.jf);
                b.extend_from_slice(&i.k.to_ne_bytes());
                b
            })
            .collect();
        Ok(Filter { program, bytes })
    }

    /// The program as `struct sock_filter` bytes in native order.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Installs the filter on the calling process (after `no_new_privs`). Async-signal-safe.
    pub(super) fn install(&self) -> std::io::Result<()> {
        seccompiler::apply_filter(&self.program).map_err(|e| match e {
            seccompiler::Error::Prctl(io) | seccompiler::Error::Seccomp(io) => io,
            _ => std::io::Error::from_raw_os_error(libc::EINVAL),
        })
    }
}
