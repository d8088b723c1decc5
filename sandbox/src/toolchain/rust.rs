//! Rust, compiled for wasm32-wasi by Debian bookworm's rustc 1.63.0 and linked by LLVM 14's lld
//! (scripts/setup.d/27-rust.sh unpacks both, with the wasm32-wasi standard library).
//!
//! One `rustc` step per program, a single-file binary crate: no Cargo, so no dependency
//! resolution, no build scripts and no procedural macros beyond the compiler's own. What source
//! can make rustc read (`include_str!`, `include_bytes!`, `#[path]` modules) is bounded by the
//! jail like clang's `#include`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::step::{OUTPUT, Prepared, Step};
use crate::config::Config;
use crate::confine::{Canary, ConfinementChoice, Jail, Toolset};
use crate::program::Program;

/// The folder scripts/setup.d/27-rust.sh installs for the sandbox, under the cache root.
const FOLDER: &str = "rust/wasi-1.63.0";

/// rustc's and LLVM's shared libraries, inside the folder (Debian's rustc has no RUNPATH).
const LIBRARIES: &str = "lib/x86_64-linux-gnu";

/// lld, which rustc runs with `-flavor wasm`.
const LINKER: &str = "bin/rust-lld";

/// Optimised, no unwinding (a panic aborts, as a wasm32-wasi panic does anyway), one codegen
/// unit and a single-threaded linker so a compile's process count stays small, stripped.
/// Overflow checks off as in any release build.
const FLAGS: &[&str] = &[
    "--edition",
    "2021",
    "--crate-type",
    "bin",
    "--target",
    "wasm32-wasi",
    "-O",
    "-C",
    "overflow-checks=off",
    "-C",
    "panic=abort",
    "-C",
    "codegen-units=1",
    "-C",
    "strip=symbols",
    "-C",
    "link-arg=--threads=1",
];

/// An installed rustc for wasm32-wasi.
#[derive(Clone)]
pub(crate) struct Rust {
    /// The installed folder: Debian's /usr of the packages, plus `VERSION`.
    origin: PathBuf,
    /// The folder the jail exposes: `origin`, or a staged copy the jail's user can reach.
    folder: PathBuf,
    /// `rustc 1.63.0`.
    version: String,
    /// `bin/rustc` in `origin`.
    rustc: PathBuf,
}

impl Rust {
    /// Finds the toolchain (in `configured`, else under the cache root) and confines it.
    pub(crate) fn establish(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<(Jail, Rust), String> {
        let origin = configured
            .map(Path::to_path_buf)
            .unwrap_or_else(|| Config::cache_root().join(FOLDER));
        let missing = || {
            format!(
                "Rust is not installed in {} (run scripts/setup.d/27-rust.sh)",
                origin.display()
            )
        };
        let version = std::fs::read_to_string(origin.join("VERSION")).map_err(|_| missing())?;
        let rustc = origin.join("bin/rustc");
        let lld = origin.join("lib/llvm-14/bin/lld");
        if !rustc.is_file() || !lld.is_file() || !origin.join("lib/rustlib/wasm32-wasi").is_dir() {
            return Err(missing());
        }
        let mut tools = Toolset::folder_with_host_libraries(
            &origin,
            &[&rustc, &lld],
            &origin.join(LIBRARIES),
            Jail::as_nobody(),
        )?;
        let folder = tools.folders[0].clone();
        // rustc reads its own path at start-up even with `--sysroot` (and panics without it);
        // the namespace jail has no /proc, so it gets that one link.
        tools
            .links
            .push((folder.join("bin/rustc"), PathBuf::from("/proc/self/exe")));
        let rust = Rust {
            rustc,
            origin,
            folder,
            version: version.trim().to_string(),
        };
        let jail = Jail::establish(choice, tools, concurrency, |jail| rust.self_test(jail))?;
        Ok((jail, rust))
    }

    /// The compiler executable on the host.
    pub(crate) fn executable(&self) -> &Path {
        &self.rustc
    }

    /// The toolchain's version and target, in words.
    pub(crate) fn version(&self) -> String {
        let number = self.version.trim_start_matches("rustc ");
        format!("Rust {number} (edition 2021, wasm32-wasi)")
    }

    /// Appends the version and the arguments.
    pub(crate) fn identity(&self, id: &mut Vec<u8>) {
        id.extend(self.origin.as_os_str().as_encoded_bytes());
        id.push(0);
        id.extend(self.version.as_bytes());
        for arg in FLAGS {
            id.push(0);
            id.extend(arg.as_bytes());
        }
    }

    /// Writes the source into `dir`; the one step compiling and linking it.
    pub(crate) fn prepare(&self, dir: &Path, program: &Program) -> std::io::Result<Prepared> {
        std::fs::write(dir.join("main.rs"), &program.source)?;
        Ok((vec![self.step("main.rs", OUTPUT)], self.env()))
    }

    /// rustc compiling `file` into `output`, both in the work folder.
    fn step(&self, file: &str, output: &str) -> Step {
        let mut sysroot = OsString::from("--sysroot=");
        sysroot.push(&self.folder);
        let mut linker = OsString::from("linker=");
        linker.push(self.folder.join(LINKER));
        let args = FLAGS
            .iter()
            .map(OsString::from)
            .chain([sysroot, "-C".into(), linker])
            .chain(["-o", output, file].map(OsString::from))
            .collect();
        Step {
            program: self.folder.join("bin/rustc"),
            args,
        }
    }

    /// Where the loader finds rustc's and LLVM's libraries inside the jail.
    fn env(&self) -> Vec<(&'static str, String)> {
        let libraries = self.folder.join(LIBRARIES);
        vec![("LD_LIBRARY_PATH", libraries.display().to_string())]
    }

    /// Compiles a program that includes a secret host file (readable by the service) and a
    /// program that must compile; the jail holds only if the first fails without the secret in
    /// its diagnostics and the second links.
    fn self_test(&self, jail: &Jail) -> Result<(), String> {
        let canary = Canary::new("canary.txt", |secret| Ok(secret.as_bytes().to_vec()))?;
        let leak = format!(
            "const S: &str = include_str!({:?});\nfn main() {{ println!(\"{{S}}\"); }}\n",
            canary.path.display()
        );
        let (ok, diagnostics) = self.probe(jail, &leak)?;
        if ok || diagnostics.contains(&canary.secret) {
            return Err("a host file outside the toolchain was readable through it".into());
        }
        let (ok, diagnostics) = self.probe(jail, "fn main() { println!(\"ok\"); }\n")?;
        if !ok {
            return Err(format!(
                "a plain Rust program did not compile inside it: {}",
                diagnostics.trim()
            ));
        }
        Ok(())
    }

    /// Compiles `source` in a fresh work folder; returns (linked, diagnostics).
    fn probe(&self, jail: &Jail, source: &str) -> Result<(bool, String), String> {
        let step = self.step("probe.rs", "probe.wasm");
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (ok, diagnostics, work) = jail.probe(
            &[("probe.rs", source.as_bytes())],
            &[(step.program.as_path(), step.args)],
            &env,
        )?;
        Ok((ok && work.path().join("probe.wasm").is_file(), diagnostics))
    }
}
