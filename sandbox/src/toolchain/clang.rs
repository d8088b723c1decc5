//! C and C++ through clang's wasm32-wasi target (Debian's clang-19 + wasi-libc + libc++): the
//! flags, the files a compile writes and clang's self-test; the [toolchain](super) runs it.

use std::ffi::OsString;
use std::path::Path;

use super::cpp;
use super::step::{OUTPUT, Prepared, Step};
pub(crate) use crate::confine::Clang;
use crate::confine::{Canary, ConfinementChoice, Jail, Toolset};
use crate::program::{Language, Program};

/// clang's flags for C++ (`-isystem include`: the judge-style headers of [`cpp`], written
/// into each compile's folder).
const CPP_FLAGS: &[&str] = &[
    "--driver-mode=g++",
    "-std=c++17",
    "-fno-exceptions",
    "-isystem",
    cpp::INCLUDE_DIR,
    "-include",
    cpp::RUNTIME_HEADER,
];
/// clang's flags for C.
const C_FLAGS: &[&str] = &["-std=c17", "-include", cpp::RUNTIME_HEADER];
/// The stack a program gets: 8 MiB, Linux's default, instead of wasm-ld's 64 KiB, on which a
/// correct solution with a deep recursion (a DFS over 10⁵ vertices) or a large local array
/// crashes. It is part of the run's linear memory (and so of its memory limit).
const LINK_FLAGS: &[&str] = &["-Wl,-z,stack-size=8388608"];

impl Clang {
    /// Finds clang and the wasi sysroot and confines them.
    pub(crate) fn establish(
        configured: Option<&Path>,
        choice: ConfinementChoice,
        concurrency: usize,
    ) -> Result<(Jail, Clang), String> {
        let (clang, tools): (Clang, Toolset) = Clang::discover(configured)?;
        let jail = Jail::establish(choice, tools, concurrency, |jail| clang.self_test(jail))?;
        Ok((jail, clang))
    }

    /// The clang executable.
    pub(crate) fn executable(&self) -> &Path {
        &self.clang
    }

    /// The language standard, in words.
    pub(crate) fn version(language: Language) -> String {
        match language {
            Language::C => "C17 (clang, wasm32-wasi)",
            _ => "C++17 without exceptions (clang, wasm32-wasi)",
        }
        .to_string()
    }

    /// Appends the arguments and headers every compile uses.
    pub(crate) fn identity(&self, id: &mut Vec<u8>) {
        let flags = (CPP_FLAGS.iter().chain(C_FLAGS).chain(LINK_FLAGS)).map(std::ffi::OsStr::new);
        for arg in self
            .compile_args(true)
            .iter()
            .map(|a| a.as_os_str())
            .chain(flags)
        {
            id.push(0);
            id.extend(arg.as_encoded_bytes());
        }
        cpp::identity(id);
    }

    /// Writes the source and headers into `dir`; the one step compiling and linking them.
    pub(crate) fn prepare(&self, dir: &Path, program: &Program) -> std::io::Result<Prepared> {
        let (file, extra) = match program.language {
            Language::Cpp => ("main.cpp", CPP_FLAGS),
            _ => ("main.c", C_FLAGS),
        };
        std::fs::write(dir.join(file), &program.source)?;
        cpp::write_headers(dir)?;
        let args = extra
            .iter()
            .map(OsString::from)
            .chain(self.compile_args(true))
            .chain(LINK_FLAGS.iter().map(OsString::from))
            .chain(["-o", OUTPUT, file, "-lm"].map(OsString::from))
            .collect();
        let step = Step {
            program: self.clang.clone(),
            args,
        };
        Ok((vec![step], Vec::new()))
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
            .compile_args(false)
            .into_iter()
            .chain(["-o", "probe.wasm", "probe.c"].map(OsString::from))
            .collect();
        let (ok, diagnostics, work) = jail.probe(
            &[("probe.c", source.as_bytes())],
            &[(self.clang.as_path(), args)],
            &[],
        )?;
        Ok((ok && work.path().join("probe.wasm").is_file(), diagnostics))
    }
}
