//! Headers that make judge-style C and C++ compile against Debian's wasm32-wasi libc and libc++,
//! and the testlib-compatible header C++ checkers (special judges) include.
//!
//! They are embedded in the binary and written into each compile's own work folder, because the
//! compile runs confined to that folder plus the toolchain: nothing in the source tree (or
//! anywhere else on the host) is visible to it.
//!
//! It also holds what C++ exceptions need besides the set-up's libraries: the entry point a
//! program then links ([`START_SOURCE`]) and the translation of its module ([`exnref`]); and
//! words, where they are missing, why a `try` does not compile.

pub(crate) mod exnref;

use std::path::Path;

use crate::outcome::{Outcome, Status};

/// Folder, relative to the work folder, passed to clang with `-isystem`.
pub(crate) const INCLUDE_DIR: &str = "include";

/// Header forced into every C and C++ compile (`-include`), relative to the work folder.
pub(crate) const RUNTIME_HEADER: &str = "include/hacrl/runtime.h";

/// `(path under INCLUDE_DIR, contents)` of every header.
const HEADERS: &[(&str, &str)] = &[
    // Symbols the compiler runtime's 128-bit division needs and wasi-libc lacks.
    ("hacrl/runtime.h", include_str!("hacrl/runtime.h")),
    // GCC's "everything" header, which libc++ lacks.
    ("bits/stdc++.h", include_str!("bits/stdc++.h")),
    // libc++'s <thread> without threads declares no std::this_thread; this one adds sleeping.
    ("thread", include_str!("thread")),
    // libc++ without filesystem support hides std::ifstream/ofstream; this one shows them.
    ("fstream", include_str!("fstream")),
    // A testlib-compatible checker library of our own, for special judges (`#include
    // "testlib.h"` finds it too: quoted includes fall back to the `-isystem` folders).
    ("testlib.h", include_str!("testlib.h")),
];

/// The entry point of a C++ program linked with exceptions, written into its work folder.
pub(crate) const START_FILE: &str = "start.cpp";

/// [`START_FILE`]'s source.
pub(crate) const START_SOURCE: &str = include_str!("hacrl/start.cpp");

/// Writes the headers under `dir/include`.
pub(crate) fn write_headers(dir: &Path) -> std::io::Result<()> {
    let include = dir.join(INCLUDE_DIR);
    for (path, contents) in HEADERS {
        let file = include.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, contents)?;
    }
    Ok(())
}

/// Appends what the headers contribute to a compile's output (every path and its contents).
pub(crate) fn identity(id: &mut Vec<u8>) {
    for (path, contents) in HEADERS {
        id.push(0);
        id.extend(path.as_bytes());
        id.push(0);
        id.extend(contents.as_bytes());
    }
}

/// What the sandbox's C++ lacks when the set-up could not build the exception libraries,
/// stated where clang's own error would leave the reader guessing.
const CPP_EXCEPTIONS_UNSUPPORTED: &str = "C++ exceptions (try/throw/catch) are not supported \
    in this installation: Debian's wasm32-wasi libc++ and libc++abi are built without exception \
    support, and the set-up step that builds them with wasm exception handling \
    (scripts/setup.d/21-clang-wasi.sh) did not complete; library calls that would throw \
    (std::stoi on bad input, vector::at out of range) abort the program instead";

/// Turns clang's "cannot use 'try' with exceptions disabled" into a statement of what the
/// sandbox does not support, in both the outcome's message and the diagnostics users read.
pub(crate) fn explain_unsupported(outcome: &mut Outcome) {
    let Some(compile) = outcome.compile.as_mut() else {
        return;
    };
    if outcome.status == Status::CompileError && compile.stderr.contains("with exceptions disabled")
    {
        compile.stderr.push_str("note: ");
        compile.stderr.push_str(CPP_EXCEPTIONS_UNSUPPORTED);
        compile.stderr.push('\n');
        outcome.message = Some(CPP_EXCEPTIONS_UNSUPPORTED.to_string());
    }
}
