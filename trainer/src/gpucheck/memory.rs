//! Peak memory of one measured part. Each part runs in a process of its own (the script starts
//! one per part), so on CUDA the device memory NVML reports above the process's starting level is
//! that part's: model, optimizer state, activations and the caching allocator's reserve (libtorch
//! through tch exposes no allocator statistics). On CPU it is the process's peak resident set.

use std::ffi::{CString, c_char, c_int, c_uint, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tch::Device;

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// NVML's `nvmlMemory_t`.
#[repr(C)]
#[derive(Default)]
struct NvmlMemory {
    total: u64,
    free: u64,
    used: u64,
}

type NvmlInit = unsafe extern "C" fn() -> c_int;
type NvmlHandleByIndex = unsafe extern "C" fn(c_uint, *mut *mut c_void) -> c_int;
type NvmlMemoryInfo = unsafe extern "C" fn(*mut c_void, *mut NvmlMemory) -> c_int;

/// One GPU's memory counter through NVML (the driver's library, present wherever
/// `nvidia-smi` works).
#[derive(Clone, Copy)]
struct Nvml {
    device: *mut c_void,
    memory_info: NvmlMemoryInfo,
}

// SAFETY: NVML handles are usable from any thread (NVML is thread-safe).
unsafe impl Send for Nvml {}

impl Nvml {
    fn open(index: usize) -> Result<Self> {
        let lib = CString::new("libnvidia-ml.so.1")?;
        // SAFETY: plain dlopen/dlsym of NVML's documented C entry points.
        unsafe {
            let h = dlopen(lib.as_ptr(), 0x2);
            if h.is_null() {
                bail!("libnvidia-ml.so.1 (NVML, from the NVIDIA driver) did not load");
            }
            let sym = |name: &str| -> Result<*mut c_void> {
                let c = CString::new(name)?;
                let p = dlsym(h, c.as_ptr());
                if p.is_null() {
                    bail!("NVML has no {name}");
                }
                Ok(p)
            };
            let init: NvmlInit = std::mem::transmute(sym("nvmlInit_v2")?);
            let by_index: NvmlHandleByIndex =
                std::mem::transmute(sym("nvmlDeviceGetHandleByIndex_v2")?);
            let memory_info: NvmlMemoryInfo = std::mem::transmute(sym("nvmlDeviceGetMemoryInfo")?);
            let rc = init();
            if rc != 0 {
                bail!("nvmlInit_v2 failed with code {rc}");
            }
            let mut device = std::ptr::null_mut();
            let rc = by_index(index as c_uint, &mut device);
            if rc != 0 {
                bail!("NVML has no GPU {index} (code {rc})");
            }
            Ok(Self {
                device,
                memory_info,
            })
        }
    }

    fn used(&self) -> u64 {
        let mut m = NvmlMemory::default();
        // SAFETY: a valid device handle and an out-struct of NVML's layout.
        let rc = unsafe { (self.memory_info)(self.device, &mut m) };
        if rc == 0 { m.used } else { 0 }
    }
}

/// Samples the memory in use while a part runs; [`PeakMemory::finish`] gives the peak.
pub(super) struct PeakMemory {
    kind: Source,
}

enum Source {
    Cuda {
        baseline: u64,
        peak: Arc<AtomicU64>,
        stop: Arc<AtomicBool>,
        sampler: JoinHandle<()>,
    },
    Cpu,
}

impl PeakMemory {
    /// Starts measuring on `device`; on CUDA before libtorch creates its context there, so the
    /// context's own memory counts too.
    pub(super) fn start(device: Device) -> Result<Self> {
        let kind = match device {
            Device::Cuda(i) => {
                let nvml = Nvml::open(i).context("measuring GPU memory")?;
                let baseline = nvml.used();
                let peak = Arc::new(AtomicU64::new(baseline));
                let stop = Arc::new(AtomicBool::new(false));
                let (p, s) = (peak.clone(), stop.clone());
                // 5 ms: far shorter than one update step or one generation batch.
                let sampler = std::thread::spawn(move || {
                    while !s.load(Ordering::Relaxed) {
                        p.fetch_max(nvml.used(), Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(5));
                    }
                });
                Source::Cuda {
                    baseline,
                    peak,
                    stop,
                    sampler,
                }
            }
            _ => Source::Cpu,
        };
        Ok(Self { kind })
    }

    /// Bytes: the peak above the starting level (CUDA) or the peak resident set (CPU).
    pub(super) fn finish(self) -> Result<u64> {
        match self.kind {
            Source::Cuda {
                baseline,
                peak,
                stop,
                sampler,
            } => {
                stop.store(true, Ordering::Relaxed);
                sampler
                    .join()
                    .map_err(|_| anyhow::anyhow!("memory sampler panicked"))?;
                Ok(peak.load(Ordering::Relaxed).saturating_sub(baseline))
            }
            Source::Cpu => peak_rss(),
        }
    }
}

/// VmHWM of this process, in bytes.
fn peak_rss() -> Result<u64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .context("no VmHWM in /proc/self/status")?;
    Ok(kib * 1024)
}
