//! Makes the trainer's binaries (CLI, tests, benches) find libtorch at run time without
//! LD_LIBRARY_PATH, and optionally link libtorch_cuda so CUDA is usable.
fn main() {
    println!("cargo:rerun-if-env-changed=HACRL_TORCH_CUDA");
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
    // libtorch_cuda registers the CUDA backend from a static initialiser; the linker drops it
    // (as-needed) unless forced. Only valid with the full CUDA venv, whose libraries resolve.
    if std::env::var("HACRL_TORCH_CUDA").as_deref() == Ok("1") {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch");
    }
}
