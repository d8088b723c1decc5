//! CUDA at run time for a binary linked against libtorch_cpu only: libtorch registers its CUDA
//! backend from `libtorch_cuda.so`'s static initialisers, so loading that library into the
//! process (as Python's `import torch` does) makes `Device::Cuda` usable without linking it at
//! build time. This is how the binary built against PyPI's CPU-runnable torch 2.11 uses a GPU
//! image's CUDA torch 2.11 (`scripts/gpu-check`).

use std::ffi::{CStr, CString, c_char, c_int, c_void};

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

/// `RTLD_NOW | RTLD_GLOBAL` on Linux: resolve everything now (a missing cuDNN fails here, not
/// mid-run) and export the symbols to libraries loaded later.
const RTLD_NOW_GLOBAL: c_int = 0x2 | 0x100;

/// The library that registers libtorch's CUDA backend.
pub const CUDA_LIBRARY: &str = "libtorch_cuda.so";

/// Loads [`CUDA_LIBRARY`] (found through `LD_LIBRARY_PATH` or the binary's run path) unless CUDA
/// is usable already. Returns whether CUDA is usable afterwards; the error says why the library
/// did not load (a CPU-only libtorch has none; a CUDA one without its NVIDIA libraries fails).
pub fn load_backend() -> Result<bool, String> {
    if tch::Cuda::is_available() {
        return Ok(true);
    }
    let name = CString::new(CUDA_LIBRARY).map_err(|e| e.to_string())?;
    // SAFETY: dlopen with a valid C string; the handle is kept for the life of the process.
    let handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW_GLOBAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a thread-local C string or null right after a failed dlopen.
        let err = unsafe { dlerror() };
        let msg = if err.is_null() {
            format!("{CUDA_LIBRARY} did not load")
        } else {
            unsafe { CStr::from_ptr(err) }
                .to_string_lossy()
                .into_owned()
        };
        return Err(msg);
    }
    Ok(tch::Cuda::is_available())
}
