//! Pinning libtorch's CPU kernels to one instruction set. ATen dispatches AVX-512 or AVX2
//! kernels by what the CPU offers, and MKL and oneDNN choose their code paths the same way, so
//! one seed gives different numbers on different CPU generations (a warm-up reached 0.413 on one
//! Xeon and 0.482 on another). With the choice pinned to AVX2, which every x86-64 CPU these
//! runs meet has, the same run computes the same way on each of them — among Intel CPUs only:
//! MKL's AVX2 reproducibility branch exists on Intel processors, and on others MKL takes its
//! automatic branch instead (Intel's documentation says so; measured 2026-12-03: arith-tuned's
//! pinned Llama warm-up reached 0.425 on a Xeon and 0.482 on an AMD EPYC).

/// The variables and values that pin the choice.
pub const PINNED: [(&str, &str); 4] = [
    ("ATEN_CPU_CAPABILITY", "avx2"),
    // Conditional numerical reproducibility: MKL's AVX2 code path, strictly.
    ("MKL_CBWR", "AVX2,STRICT"),
    ("MKL_ENABLE_INSTRUCTIONS", "AVX2"),
    ("ONEDNN_MAX_CPU_ISA", "AVX2"),
];

/// Sets [`PINNED`] in this process's environment, for `trainer run` and `trainer experiment`
/// with `deterministic_kernels = true`.
///
/// # Safety
/// Call it before the first tensor operation (the libraries read these once, lazily) and while
/// no other thread reads the environment: at the start of `main`'s command.
pub unsafe fn pin_cpu_kernels() {
    for (key, value) in PINNED {
        // SAFETY: the caller guarantees no other thread touches the environment.
        unsafe { std::env::set_var(key, value) };
    }
    tracing::info!("CPU kernels pinned to AVX2 (deterministic_kernels)");
}
