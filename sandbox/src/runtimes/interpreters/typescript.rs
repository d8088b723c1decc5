//! TypeScript: the program's types are stripped by sucrase inside the guest, then it runs as
//! JavaScript does on QuickJS (`ts.wasm`, js_main.c built with `HACRL_TYPESCRIPT`).
//!
//! The stripper is sucrase bundled into one script by `scripts/setup.d/24-typescript.sh`. The
//! host reads it once at start-up and hands it to each run through two imports
//! (`hacrl.stripper_size`, `hacrl.stripper_read`); the guest evaluates it and calls it on the
//! program's source. So untrusted source is only ever parsed inside the wasm sandbox, under the
//! run's own limits: a TypeScript parser in the service (swc, oxc) would be a large compile
//! dependency, and one whose crash or stack overflow on hostile input would take the service
//! down. Types are stripped, not checked, as `node --experimental-strip-types` and `tsx` do.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use wasmtime::{Caller, Linker};

use crate::instance::CommandState;

/// The stripper's entry: the function ts.wasm calls, given sucrase's exports.
const ENTRY: &str = include_str!("../../../interpreters/typescript.js");

/// The bundle's file stem in `Config::interpreter_dir` (`.js`, `.version`).
const BUNDLE: &str = "typescript-strip";

/// The type stripper every TypeScript run is handed.
pub(super) struct Stripper {
    /// The script ts.wasm evaluates: sucrase's bundle and [`ENTRY`] in one function, so neither
    /// leaves a global behind for the program to see.
    script: Arc<[u8]>,
    /// sucrase's version.
    version: String,
}

impl Stripper {
    /// Reads the bundle `24-typescript.sh` installed in `dir`.
    pub(super) fn load(dir: &Path) -> Result<Stripper> {
        let bundle = dir.join(format!("{BUNDLE}.js"));
        if !bundle.is_file() {
            anyhow::bail!(
                "the TypeScript stripper is not installed ({} is missing); run \
                 scripts/setup.d/24-typescript.sh",
                bundle.display()
            );
        }
        let read = |path: &Path| {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
        };
        let script = format!(
            "(function () {{\n{}\nconst strip = {ENTRY};\nreturn strip(sucrase);\n}})()",
            read(&bundle)?
        );
        Ok(Stripper {
            script: script.into_bytes().into(),
            version: read(&bundle.with_extension("version"))?.trim().to_string(),
        })
    }

    /// The version `/v1/capabilities` shows, given QuickJS's.
    pub(super) fn version_on(&self, quickjs: &str) -> String {
        format!(
            "{} (TypeScript types stripped, not checked) on QuickJS-ng {quickjs}",
            self.version
        )
    }

    /// Defines `hacrl.stripper_size() -> u32` and `hacrl.stripper_read(dst)`, which copies the
    /// script to `dst` in the guest's memory (bounds-checked there).
    pub(super) fn add_imports(&self, linker: &mut Linker<CommandState>) -> Result<()> {
        let size = u32::try_from(self.script.len()).context("the stripper is over 4 GiB")?;
        linker
            .func_wrap("hacrl", "stripper_size", move || size)
            .map_err(|e| anyhow::anyhow!("linking hacrl.stripper_size: {e:?}"))?;
        let script = self.script.clone();
        linker
            .func_wrap(
                "hacrl",
                "stripper_read",
                move |mut caller: Caller<'_, CommandState>, dst: u32| -> wasmtime::Result<()> {
                    let memory = caller
                        .get_export("memory")
                        .and_then(|e| e.into_memory())
                        .ok_or_else(|| wasmtime::format_err!("ts.wasm exports no memory"))?;
                    memory.write(&mut caller, dst as usize, &script)?;
                    Ok(())
                },
            )
            .map_err(|e| anyhow::anyhow!("linking hacrl.stripper_read: {e:?}"))?;
        Ok(())
    }
}
