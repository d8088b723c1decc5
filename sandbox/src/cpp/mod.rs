//! Headers that make judge-style C and C++ compile against Debian's wasm32-wasi libc and libc++.
//!
//! They are embedded in the binary and written into each compile's own work folder, because the
//! compile runs confined to that folder plus the toolchain: nothing in the source tree (or
//! anywhere else on the host) is visible to it.

use std::path::Path;

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
];

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
