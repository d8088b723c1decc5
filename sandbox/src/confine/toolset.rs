//! The files a compiler needs: exactly what a jail exposes, read-only; and where clang's are.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

/// Where Debian's wasi-libc puts the wasm32-wasi sysroot's libraries.
const SYSROOT_LIB: &str = "/usr/lib/wasm32-wasi";

/// Where Debian's wasi-libc and libc++ put the wasm32-wasi headers.
const SYSROOT_INCLUDE: &str = "/usr/include/wasm32-wasi";

/// Top-level folders that merged-/usr systems make symlinks (the loader's paths go through them).
const MERGED_USR_LINKS: [&str; 5] = ["/bin", "/sbin", "/lib", "/lib64", "/lib32"];

/// Every host path a toolchain reads, as a jail exposes them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Toolset {
    /// Folders exposed read-only, at the same path: the LLVM prefix and the sysroot.
    pub(crate) folders: Vec<PathBuf>,
    /// Shared libraries the compiler loads outside its folders (canonical folder, file name as
    /// the loader asks for it): exposed one by one, not their whole folder.
    pub(crate) libraries: Vec<PathBuf>,
    /// `(target, link)` pairs for merged-/usr top-level symlinks such as `/lib -> usr/lib`.
    pub(crate) links: Vec<(PathBuf, PathBuf)>,
    /// Copies of folders the jail's user could not reach, kept while the toolset lives.
    _staged: Vec<Arc<tempfile::TempDir>>,
}

/// An installed clang able to target wasm32-wasi, and the linker it runs.
#[derive(Debug, Clone)]
pub(crate) struct Clang {
    /// The clang executable (canonical path).
    pub(crate) clang: PathBuf,
    /// The wasm linker clang runs (canonical path).
    linker: PathBuf,
}

impl Toolset {
    /// A toolset of one self-contained folder (static executables and their data). When the
    /// jail's user (`nobody`, for a service running as root) cannot reach it, as under root's
    /// own 0700 home, the folder is first staged (hard links, else copies) in a root-owned
    /// world-readable folder under the temporary directory: bwrap runs as that user and
    /// resolves what it mounts by path.
    pub(crate) fn folder(folder: &Path, as_nobody: bool) -> Result<Toolset, String> {
        if !as_nobody || reachable_by_others(folder) {
            return Ok(Toolset {
                folders: vec![folder.to_path_buf()],
                ..Toolset::default()
            });
        }
        let staged = tempfile::Builder::new()
            .prefix("sandbox-toolchain-")
            .tempdir()
            .map_err(|e| format!("staging {}: {e}", folder.display()))?;
        stage(folder, staged.path()).map_err(|e| format!("staging {}: {e}", folder.display()))?;
        Ok(Toolset {
            folders: vec![staged.path().to_path_buf()],
            _staged: vec![Arc::new(staged)],
            ..Toolset::default()
        })
    }

    /// Exposes `folder` too, staged as [`Toolset::folder`] stages it; returns the path the jail
    /// sees it at.
    pub(crate) fn add_folder(&mut self, folder: &Path, as_nobody: bool) -> Result<PathBuf, String> {
        let mut extra = Toolset::folder(folder, as_nobody)?;
        let seen = extra.folders.pop().ok_or("no folder to expose")?;
        self.folders.push(seen.clone());
        self._staged.append(&mut extra._staged);
        Ok(seen)
    }

    /// [`Toolset::folder`] plus the host's shared libraries that `executables` (inside
    /// `folder`) load with `library_path` (inside `folder`) searched first, and the merged-/usr
    /// links the loader's paths go through: for a toolchain of dynamically linked programs
    /// whose own libraries ship with it.
    pub(crate) fn folder_with_host_libraries(
        folder: &Path,
        executables: &[&Path],
        library_path: &Path,
        as_nobody: bool,
    ) -> Result<Toolset, String> {
        let mut tools = Toolset::folder(folder, as_nobody)?;
        tools.libraries = host_libraries(executables, folder, Some(library_path))?;
        tools.links = merged_usr_links();
        Ok(tools)
    }
}

/// The shared libraries outside `prefix` that `executables` load (with `library_path`
/// searched first): both the name the loader opens and the file it resolves to (Debian's
/// llvm-19/lib holds symlinks into the multiarch folder).
fn host_libraries(
    executables: &[&Path],
    prefix: &Path,
    library_path: Option<&Path>,
) -> Result<Vec<PathBuf>, String> {
    let mut libraries = Vec::new();
    for exe in executables {
        for lib in shared_libraries(exe, library_path)? {
            let real = lib
                .canonicalize()
                .map_err(|e| format!("resolving {}: {e}", lib.display()))?;
            for path in [lib, real] {
                if !path.starts_with(prefix) && !libraries.contains(&path) {
                    libraries.push(path);
                }
            }
        }
    }
    Ok(libraries)
}

/// `(target, link)` for each of [`MERGED_USR_LINKS`] that is a symlink on this host.
fn merged_usr_links() -> Vec<(PathBuf, PathBuf)> {
    MERGED_USR_LINKS
        .iter()
        .filter_map(|l| {
            let target = std::fs::read_link(l).ok()?;
            Some((target, PathBuf::from(l)))
        })
        .collect()
}

/// Whether every folder from `/` down to `path` lets others search it, and `path` lets them
/// read it.
fn reachable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(path) = path.canonicalize() else {
        return false;
    };
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode())
            .unwrap_or(0)
    };
    mode(&path) & 0o005 == 0o005 && path.ancestors().skip(1).all(|a| mode(a) & 0o001 != 0)
}

/// Recreates `from` under `to` (created, made world-readable), linking files where it can.
fn stage(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir(&target)?;
            stage(&entry.path(), &target)?;
        } else if std::fs::hard_link(entry.path(), &target).is_err() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755))
}

impl Clang {
    /// Finds clang (the configured one, else `clang-19`, else `clang` on `PATH`), its linker,
    /// the wasm32-wasi sysroot and the shared libraries they load.
    pub(crate) fn discover(configured: Option<&Path>) -> Result<(Clang, Toolset), String> {
        if !Path::new(SYSROOT_LIB).join("libc.a").is_file() {
            return Err(format!(
                "no wasm32-wasi sysroot in {SYSROOT_LIB} (run scripts/setup.d/21-clang-wasi.sh)"
            ));
        }
        let candidates: Vec<PathBuf> = match configured {
            Some(p) => vec![p.to_path_buf()],
            None => vec!["clang-19".into(), "clang".into()],
        };
        let clang = candidates
            .iter()
            .find_map(|c| on_path(c))
            .ok_or("clang not found (run scripts/setup.d/21-clang-wasi.sh)")?;
        let clang = clang
            .canonicalize()
            .map_err(|e| format!("resolving {}: {e}", clang.display()))?;
        let prefix = clang
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| format!("{} is not inside a bin folder", clang.display()))?
            .to_path_buf();
        let linker = prefix.join("bin").join("wasm-ld");
        if !linker.is_file() {
            return Err(format!("no wasm-ld next to clang ({})", linker.display()));
        }
        let libraries = host_libraries(&[&clang, &linker], &prefix, None)?;
        let tools = Toolset {
            folders: vec![prefix, SYSROOT_LIB.into(), SYSROOT_INCLUDE.into()],
            libraries,
            links: merged_usr_links(),
            _staged: Vec::new(),
        };
        Ok((Clang { clang, linker }, tools))
    }

    /// The flags every compile passes (target, sysroot, linker, optimisation); the linker
    /// runs single-threaded so a compile's process count does not grow with the host's cores.
    pub(crate) fn compile_args(&self, strip: bool) -> Vec<OsString> {
        // The wasm driver takes an absolute `-fuse-ld` (it ignores `--ld-path`), so the linker
        // is not looked up on a PATH the jail does not have.
        let mut ld_path = OsString::from("-fuse-ld=");
        ld_path.push(&self.linker);
        let mut args: Vec<OsString> = vec![
            "--target=wasm32-wasi".into(),
            "--sysroot=/usr".into(),
            ld_path,
            "-Wl,--threads=1".into(),
            "-O2".into(),
        ];
        if strip {
            args.push("-s".into());
        }
        args
    }
}

/// Resolves a bare command name through `PATH` (a path with a `/` is taken as is).
fn on_path(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return name.is_file().then(|| name.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The shared libraries `exe` loads, as `ldd` resolves them, each with its folder made
/// canonical (the jail then needs only the merged-/usr links, not every symlinked folder).
fn shared_libraries(exe: &Path, library_path: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let mut ldd = std::process::Command::new("ldd");
    ldd.arg(exe).env_clear();
    if let Some(path) = library_path {
        ldd.env("LD_LIBRARY_PATH", path);
    }
    let output = ldd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running ldd on {}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!("ldd {} failed", exe.display()));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut libs = Vec::new();
    for line in text.lines() {
        // `libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x…)` or `/lib64/ld-linux….so.2 (0x…)`.
        let path = match line.split_once("=>") {
            Some((_, rest)) => rest.trim(),
            None => line.trim(),
        };
        let Some(path) = path
            .split_whitespace()
            .next()
            .filter(|p| p.starts_with('/'))
        else {
            if line.contains("not found") {
                return Err(format!("{}: {}", exe.display(), line.trim()));
            }
            continue;
        };
        let path = Path::new(path);
        let (Some(dir), Some(file)) = (path.parent(), path.file_name()) else {
            continue;
        };
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("resolving {}: {e}", dir.display()))?;
        libs.push(dir.join(file));
    }
    Ok(libs)
}
