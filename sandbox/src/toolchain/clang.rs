//! C and C++ through clang's wasm32-wasi target (Debian's clang-19 + wasi-libc + libc++): the
//! flags, the files a compile writes and clang's self-test; the [toolchain](super) runs it.
//!
//! C++ has exceptions when scripts/setup.d/21-clang-wasi.sh has built libc++, libc++abi and
//! libunwind with wasm exception handling ([`EXCEPTIONS_FOLDER`]): programs compile with
//! `-fwasm-exceptions`, link those, and their module is translated to the exception
//! instructions wasmtime runs ([`cpp::exnref`]). Without that build, C++ compiles with
//! `-fno-exceptions` against Debian's libraries, and a `try` is a compile error that says why.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::cpp;
use super::step::{OUTPUT, Prepared, Step};
use crate::config::Config;
use crate::confine::{self, Canary, ConfinementChoice, Jail, Toolset};
use crate::outcome::CompileOutcome;
use crate::program::{Language, Program};

/// clang's flags for C++ (`-isystem include`: the judge-style headers of [`cpp`], written
/// into each compile's folder).
const CPP_FLAGS: &[&str] = &[
    "--driver-mode=g++",
    "-std=c++17",
    "-isystem",
    cpp::INCLUDE_DIR,
    "-include",
    cpp::RUNTIME_HEADER,
];
/// C++ without the exception libraries: Debian's libc++ and libc++abi have none.
const NO_EXCEPTIONS: &[&str] = &["-fno-exceptions"];
/// C++ with them: wasm exception handling, the set-up's libraries first (`-L`, added where
/// they are), its libunwind, and [`cpp::START_FILE`] as the entry point.
const EXCEPTIONS: &[&str] = &["-fwasm-exceptions", "-nostartfiles"];
/// clang's flags for C.
const C_FLAGS: &[&str] = &["-std=c17", "-include", cpp::RUNTIME_HEADER];
/// The stack a program gets: 8 MiB, Linux's default, instead of wasm-ld's 64 KiB, on which a
/// correct solution with a deep recursion (a DFS over 10⁵ vertices) or a large local array
/// crashes. It is part of the run's linear memory (and so of its memory limit).
const LINK_FLAGS: &[&str] = &["-Wl,-z,stack-size=8388608"];

/// Where scripts/setup.d/21-clang-wasi.sh builds libc++, libc++abi and libunwind with wasm
/// exception handling, under the cache root: `lib/` with the three archives, and `stamp`,
/// which names the sources and flags of the build.
const EXCEPTIONS_FOLDER: &str = "clang-wasi/exceptions";

/// clang, and the C++ libraries with exceptions when the set-up built them.
#[derive(Debug, Clone)]
pub(crate) struct Clang {
    driver: confine::Clang,
    exceptions: Option<Exceptions>,
}

/// The exception-enabled C++ libraries.
#[derive(Debug, Clone)]
struct Exceptions {
    /// Their folder as the jail sees it (staged when its user cannot reach the cache).
    lib: PathBuf,
    /// The build's stamp: builds against other libraries are not reused.
    stamp: String,
}

/// The libraries in `folder`, exposed to the jail; `None` when the set-up did not build them
/// (or they cannot be exposed: C++ then goes without exceptions, as before).
fn find_exceptions(folder: &Path, tools: &mut Toolset) -> Option<Exceptions> {
    let stamp = std::fs::read_to_string(folder.join("stamp")).ok()?;
    let lib = folder.join("lib");
    let complete = ["libc++.a", "libc++abi.a", "libunwind.a"]
        .iter()
        .all(|a| lib.join(a).is_file());
    if !complete {
        return None;
    }
    match tools.add_folder(&lib, Jail::as_nobody()) {
        Ok(lib) => Some(Exceptions {
            lib,
            stamp: stamp.trim().to_string(),
        }),
        Err(e) => {
            tracing::warn!("C++ exceptions unavailable: {e}");
            None
        }
    }
}

impl Clang {
    /// Finds clang and the wasi sysroot, and the exception libraries when `exceptions` asks
    /// for them, and confines them.
    pub(crate) fn establish(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
        exceptions: bool,
    ) -> Result<(Jail, Clang), String> {
        let (driver, mut tools) = confine::Clang::discover(configured)?;
        let exceptions = exceptions
            .then(|| find_exceptions(&Config::cache_root().join(EXCEPTIONS_FOLDER), &mut tools))
            .flatten();
        let clang = Clang { driver, exceptions };
        let jail = Jail::establish(choice, tools, concurrency, |jail| clang.self_test(jail))?;
        Ok((jail, clang))
    }

    /// The clang executable.
    pub(crate) fn executable(&self) -> &Path {
        &self.driver.clang
    }

    /// The language standard, in words.
    pub(crate) fn version(&self, language: Language) -> String {
        match (language, &self.exceptions) {
            (Language::C, _) => "C17 (clang, wasm32-wasi)",
            (_, Some(_)) => "C++17 (clang, wasm32-wasi)",
            (_, None) => "C++17 without exceptions (clang, wasm32-wasi)",
        }
        .to_string()
    }

    /// Appends the arguments and headers every compile uses.
    pub(crate) fn identity(&self, id: &mut Vec<u8>) {
        let flags = (CPP_FLAGS.iter().chain(NO_EXCEPTIONS).chain(EXCEPTIONS))
            .chain(C_FLAGS.iter().chain(LINK_FLAGS))
            .map(std::ffi::OsStr::new);
        for arg in self
            .driver
            .compile_args(true)
            .iter()
            .map(|a| a.as_os_str())
            .chain(flags)
        {
            id.push(0);
            id.extend(arg.as_encoded_bytes());
        }
        cpp::identity(id);
        if let Some(e) = &self.exceptions {
            id.push(0);
            id.extend(e.stamp.as_bytes());
            id.push(0);
            id.extend(cpp::START_SOURCE.as_bytes());
        }
    }

    /// Writes the source and headers into `dir`; the one step compiling and linking them.
    pub(crate) fn prepare(&self, dir: &Path, program: &Program) -> std::io::Result<Prepared> {
        let (file, extra) = match program.language {
            Language::Cpp => ("main.cpp", CPP_FLAGS),
            _ => ("main.c", C_FLAGS),
        };
        std::fs::write(dir.join(file), &program.source)?;
        cpp::write_headers(dir)?;
        let mut args: Vec<OsString> = extra.iter().map(OsString::from).collect();
        let mut inputs = vec![OsString::from(file)];
        match (program.language, &self.exceptions) {
            (Language::Cpp, Some(e)) => {
                std::fs::write(dir.join(cpp::START_FILE), cpp::START_SOURCE)?;
                args.extend(EXCEPTIONS.iter().map(OsString::from));
                let mut search = OsString::from("-L");
                search.push(&e.lib);
                args.push(search);
                inputs.extend([cpp::START_FILE, "-lunwind"].map(OsString::from));
            }
            (Language::Cpp, None) => args.extend(NO_EXCEPTIONS.iter().map(OsString::from)),
            _ => {}
        }
        let args = args
            .into_iter()
            .chain(self.driver.compile_args(true))
            .chain(LINK_FLAGS.iter().map(OsString::from))
            .chain(["-o", OUTPUT].map(OsString::from))
            .chain(inputs)
            .chain(["-lm".into()])
            .collect();
        let step = Step {
            program: self.driver.clang.clone(),
            args,
        };
        Ok((vec![step], Vec::new()))
    }

    /// A C++ module linked against the exception libraries, its exception instructions
    /// translated to the ones wasmtime runs; any other module as it is. A module the
    /// translation cannot read fails the compile, with why.
    pub(crate) fn finish(
        &self,
        language: Language,
        mut compile: CompileOutcome,
        wasm: Vec<u8>,
    ) -> (CompileOutcome, Option<Vec<u8>>) {
        if language != Language::Cpp || self.exceptions.is_none() {
            return (compile, Some(wasm));
        }
        match cpp::exnref::translate(&wasm) {
            Ok(wasm) => (compile, Some(wasm)),
            Err(e) => {
                compile.ok = false;
                compile.stderr.push_str(&format!(
                    "translating the module's wasm exception instructions: {e}\n"
                ));
                (compile, None)
            }
        }
    }

    /// Compiles a program that includes a secret host file (readable by the service) and a
    /// program that must compile; the jail holds only if the first fails without the secret in
    /// its diagnostics and the second links.
    fn self_test(&self, jail: &Jail) -> Result<(), String> {
        let canary = Canary::new("canary.h", |secret| {
            Ok(format!("int {secret} = 1;\n").into_bytes())
        })?;
        let leak = format!(
            "#include \"{}\"\nint main(void) {{ return {}; }}\n",
            canary.path.display(),
            canary.secret
        );
        let (ok, diagnostics) = self.probe(jail, &leak)?;
        if ok || diagnostics.contains(&canary.secret) {
            return Err("a host file outside the toolchain was readable through it".into());
        }
        let (ok, diagnostics) = self.probe(
            jail,
            "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n",
        )?;
        if !ok {
            return Err(format!(
                "a plain C program did not compile inside it: {}",
                diagnostics.trim()
            ));
        }
        Ok(())
    }

    /// Compiles `source` as C in a fresh work folder; returns (linked, diagnostics).
    fn probe(&self, jail: &Jail, source: &str) -> Result<(bool, String), String> {
        let args = self
            .driver
            .compile_args(false)
            .into_iter()
            .chain(["-o", "probe.wasm", "probe.c"].map(OsString::from))
            .collect();
        let (ok, diagnostics, work) = jail.probe(
            &[("probe.c", source.as_bytes())],
            &[(self.driver.clang.as_path(), args)],
            &[],
        )?;
        Ok((ok && work.path().join("probe.wasm").is_file(), diagnostics))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_incomplete_libraries_leave_cpp_without_exceptions() {
        let dir = tempfile::tempdir().unwrap();
        let mut tools = Toolset::default();
        assert!(find_exceptions(&dir.path().join("absent"), &mut tools).is_none());
        std::fs::write(dir.path().join("stamp"), "built\n").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/libc++.a"), "").unwrap();
        assert!(find_exceptions(dir.path(), &mut tools).is_none());
        assert!(tools.folders.is_empty());
        for archive in ["libc++abi.a", "libunwind.a"] {
            std::fs::write(dir.path().join("lib").join(archive), "").unwrap();
        }
        let found = find_exceptions(dir.path(), &mut tools).unwrap();
        assert_eq!(found.stamp, "built");
        assert_eq!(tools.folders, [found.lib]);
    }
}
