//! Go, compiled for `GOOS=wasip1 GOARCH=wasm` by Go's own compiler and linker
//! (scripts/setup.d/25-go.sh installs them with the standard library prebuilt for wasip1).
//!
//! The sandbox runs `compile` and `link` itself rather than the `go` command: a single-file
//! `package main` needs nothing else, and what the `go` command adds is what a sandbox must not
//! do (resolve and download modules, switch toolchains, run `go:generate`, read and write a build
//! cache, embed files named by `//go:embed`, run cgo). Imports resolve only through an importcfg
//! naming the prebuilt standard library; `internal/` and `vendor/` packages are left out of the
//! one the compiler sees, as the `go` command would refuse them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::step::{OUTPUT, Prepared, Step};
use crate::config::Config;
use crate::confine::{Canary, ConfinementChoice, Jail, Toolset};
use crate::program::Program;

/// The folder scripts/setup.d/25-go.sh installs for the sandbox, under the cache root.
const FOLDER: &str = "go/wasip1-1.27.3";

/// The environment of both steps: the target (the tools default to the host's).
const ENV: &[(&str, &str)] = &[("GOOS", "wasip1"), ("GOARCH", "wasm")];

/// The importcfg of the compile step (standard packages a program may import).
const COMPILE_CFG: &str = "importcfg";
/// The importcfg of the link step (every standard package).
const LINK_CFG: &str = "importcfg.link";

/// An installed Go toolchain for wasip1.
#[derive(Clone)]
pub(crate) struct Go {
    /// The installed folder: `bin/compile`, `bin/link`, `pkg/<import path>.a`, `VERSION`.
    origin: PathBuf,
    /// The folder the jail exposes: `origin`, or a staged copy the jail's user can reach.
    folder: PathBuf,
    /// `go1.27.3`.
    version: String,
    /// `bin/compile` in `origin`.
    compile: PathBuf,
    /// Import paths of the prebuilt standard packages, sorted.
    packages: Arc<Vec<String>>,
}

impl Go {
    /// Finds the toolchain (in `configured`, else under the cache root) and confines it.
    pub(crate) fn establish(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<(Jail, Go), String> {
        let folder = configured
            .map(Path::to_path_buf)
            .unwrap_or_else(|| Config::cache_root().join(FOLDER));
        let missing = || {
            format!(
                "Go is not installed in {} (run scripts/setup.d/25-go.sh)",
                folder.display()
            )
        };
        let version = std::fs::read_to_string(folder.join("VERSION")).map_err(|_| missing())?;
        let compile = folder.join("bin/compile");
        if !compile.is_file() || !folder.join("bin/link").is_file() {
            return Err(missing());
        }
        let mut packages = Vec::new();
        archives(&folder.join("pkg"), "", &mut packages)
            .map_err(|e| format!("listing Go's standard library: {e}"))?;
        if !packages.iter().any(|p| p == "runtime") {
            return Err(missing());
        }
        packages.sort();
        let tools = Toolset::folder(&folder, Jail::as_nobody())?;
        let go = Go {
            compile,
            version: version.trim().to_string(),
            packages: Arc::new(packages),
            folder: tools.folders[0].clone(),
            origin: folder,
        };
        let jail = Jail::establish(choice, tools, concurrency, |jail| go.self_test(jail))?;
        Ok((jail, go))
    }

    /// The compiler executable on the host.
    pub(crate) fn executable(&self) -> &Path {
        &self.compile
    }

    /// The toolchain's version and target, in words.
    pub(crate) fn version(&self) -> String {
        let number = self.version.trim_start_matches("go");
        format!("Go {number} (GOOS=wasip1 GOARCH=wasm)")
    }

    /// Appends the version, the standard packages and the steps' arguments.
    pub(crate) fn identity(&self, id: &mut Vec<u8>) {
        id.extend(self.origin.as_os_str().as_encoded_bytes());
        id.push(0);
        id.extend(self.version.as_bytes());
        for package in self.packages.iter() {
            id.push(0);
            id.extend(package.as_bytes());
        }
        // The arguments less the paths a jail decides.
        for step in self.steps(Path::new(""), "main.go") {
            for arg in step.args {
                id.push(0);
                id.extend(arg.as_encoded_bytes());
            }
        }
    }

    /// Writes the source and the importcfgs into `dir`; the compile and the link step.
    pub(crate) fn prepare(
        &self,
        jail: &Jail,
        dir: &Path,
        program: &Program,
    ) -> std::io::Result<Prepared> {
        std::fs::write(dir.join("main.go"), &program.source)?;
        self.write_importcfgs(dir, &[])?;
        let env = ENV.iter().map(|(k, v)| (*k, v.to_string())).collect();
        Ok((self.steps(&jail.work_folder(dir), "main.go"), env))
    }

    /// Writes [`COMPILE_CFG`] and [`LINK_CFG`] naming the prebuilt archives, plus `extra`
    /// `(import path, archive)` entries.
    fn write_importcfgs(&self, dir: &Path, extra: &[(&str, &Path)]) -> std::io::Result<()> {
        let line = |package: &str| {
            format!(
                "packagefile {package}={}\n",
                self.folder
                    .join("pkg")
                    .join(format!("{package}.a"))
                    .display()
            )
        };
        let extra: String = extra
            .iter()
            .map(|(p, a)| format!("packagefile {p}={}\n", a.display()))
            .collect();
        let public: String = (self.packages.iter())
            .filter(|p| importable(p))
            .map(|p| line(p))
            .collect();
        let all: String = self.packages.iter().map(|p| line(p)).collect();
        std::fs::write(dir.join(COMPILE_CFG), public + &extra)?;
        std::fs::write(dir.join(LINK_CFG), all + &extra)
    }

    /// `compile` then `link` of `file` (a `package main`) into [`OUTPUT`]; `work` is the work
    /// folder as the jail shows it.
    fn steps(&self, work: &Path, file: &str) -> Vec<Step> {
        // Paths recorded in the module (panic traces) are relative to the work folder, so they
        // do not depend on the mechanism or reveal a host path.
        let trim = format!("{}=>", work.display());
        let compile = [
            "-o",
            "main.a",
            "-p",
            "main",
            "-importcfg",
            COMPILE_CFG,
            "-pack",
            "-complete",
            "-nolocalimports",
            "-c=1",
            "-trimpath",
            &trim,
            file,
        ];
        let link = [
            "-o",
            OUTPUT,
            "-importcfg",
            LINK_CFG,
            "-buildmode=exe",
            "-s",
            "main.a",
        ];
        vec![
            Step {
                program: self.folder.join("bin/compile"),
                args: compile.map(OsString::from).to_vec(),
            },
            Step {
                program: self.folder.join("bin/link"),
                args: link.map(OsString::from).to_vec(),
            },
        ]
    }

    /// Compiles a package holding a secret, puts its archive outside the jail (readable by the
    /// service), then compiles a program importing it through the importcfg: the jail holds
    /// only if that fails without the secret, and an ordinary program still compiles and links.
    fn self_test(&self, jail: &Jail) -> Result<(), String> {
        let compile = self.folder.join("bin/compile");
        let canary = Canary::new("canary.a", |secret| {
            let source = format!("package canary\n\nconst Secret = \"{secret}\"\n");
            let args = ["-o", "canary.a", "-p", "canary", "-pack", "canary.go"];
            let (ok, diagnostics, work) = jail.probe(
                &[("canary.go", source.as_bytes())],
                &[(compile.as_path(), args.map(OsString::from).to_vec())],
                ENV,
            )?;
            if !ok {
                return Err(format!(
                    "a Go package did not compile inside it: {}",
                    diagnostics.trim()
                ));
            }
            std::fs::read(work.path().join("canary.a")).map_err(|e| e.to_string())
        })?;
        let leak = "package main\n\nimport \"canary\"\n\nfunc main() { println(canary.Secret) }\n";
        let (ok, diagnostics) = self.probe(jail, leak, &[("canary", &canary.path)])?;
        if ok || diagnostics.contains(&canary.secret) {
            return Err("a host file outside the toolchain was readable through it".into());
        }
        let plain = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ok\") }\n";
        let (ok, diagnostics) = self.probe(jail, plain, &[])?;
        if !ok {
            return Err(format!(
                "a plain Go program did not compile inside it: {}",
                diagnostics.trim()
            ));
        }
        Ok(())
    }

    /// Compiles and links `source` in a fresh work folder with `extra` importcfg entries;
    /// returns (linked, diagnostics).
    fn probe(
        &self,
        jail: &Jail,
        source: &str,
        extra: &[(&str, &Path)],
    ) -> Result<(bool, String), String> {
        let cfg = tempfile::tempdir().map_err(|e| e.to_string())?;
        self.write_importcfgs(cfg.path(), extra)
            .map_err(|e| format!("writing importcfg: {e}"))?;
        let read = |name| std::fs::read(cfg.path().join(name)).map_err(|e| e.to_string());
        let (compile_cfg, link_cfg) = (read(COMPILE_CFG)?, read(LINK_CFG)?);
        // The probe's own folder is where the jail shows it; its name is known only inside
        // `probe`, so paths are not trimmed here.
        let steps = self.steps(Path::new("/nonexistent"), "main.go");
        let steps: Vec<(&Path, Vec<OsString>)> = steps
            .iter()
            .map(|s| (s.program.as_path(), s.args.clone()))
            .collect();
        let (ok, diagnostics, work) = jail.probe(
            &[
                ("main.go", source.as_bytes()),
                (COMPILE_CFG, &compile_cfg),
                (LINK_CFG, &link_cfg),
            ],
            &steps,
            ENV,
        )?;
        Ok((ok && work.path().join(OUTPUT).is_file(), diagnostics))
    }
}

/// Whether a program may import `package` (the `go` command refuses `internal/` and `vendor/`
/// packages of the standard library outside it).
fn importable(package: &str) -> bool {
    !package
        .split('/')
        .any(|part| part == "internal" || part == "vendor")
}

/// Collects the import paths of the `.a` archives under `dir` (`prefix` is `dir`'s own).
fn archives(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if entry.file_type()?.is_dir() {
            archives(&entry.path(), &path, out)?;
        } else if let Some(package) = path.strip_suffix(".a") {
            out.push(package.to_string());
        }
    }
    Ok(())
}
