//! Rust sources that try to make rustc read the host, through the real service (the C, C++ and
//! Go suites: compile_escape.rs). Every technique goes through `POST /run_code` and
//! `POST /v1/verify/code` under each confinement; the canary's secret must appear nowhere, and
//! under namespaces the canary must look like a path that does not exist.

mod escape;
mod support;

use escape::{MinMax, Technique, min_max_passes_both_endpoints, techniques_leak_nothing};
use sandbox::ConfinementChoice;

/// What rustc reads for a source: the `include*!` macros, `#[path]` modules, attributes whose
/// value is a file, linker inputs, diagnostics that quote a file.
const RUST_TECHNIQUES: &[Technique] = &[
    Technique {
        name: "include_str! absolute",
        source: "fn main() { print!(\"{}\", include_str!(\"{P}\")); }\n",
    },
    Technique {
        name: "include_bytes! absolute",
        source: "fn main() { print!(\"{:?}\", include_bytes!(\"{P}\")); }\n",
    },
    Technique {
        name: "include_str! relative dot-dot",
        source: "fn main() { print!(\"{}\", include_str!(\"../../../../../../../../..{P}\")); }\n",
    },
    Technique {
        name: "include_str! through the toolchain's folder",
        source: "fn main() { print!(\"{}\", include_str!(concat!(env!(\"LD_LIBRARY_PATH\"), \"/../../../../../..{P}\"))); }\n",
    },
    Technique {
        name: "include_str! via /proc/self/root",
        source: "fn main() { print!(\"{}\", include_str!(\"/proc/self/root{P}\")); }\n",
    },
    Technique {
        name: "include_str! of the service's environment",
        source: "fn main() { print!(\"{}\", include_str!(\"/proc/{PID}/environ\")); }\n// {P}\n",
    },
    Technique {
        name: "include_str! of /etc/passwd",
        source: "fn main() { print!(\"{}\", include_str!(\"/etc/passwd\")); }\n// {P}\n",
    },
    Technique {
        name: "include! as tokens",
        source: "fn main() { let s = include!(\"{P}\"); print!(\"{s}\"); }\n",
    },
    Technique {
        name: "path attribute module",
        source: "#[path = \"{P}\"]\nmod leak;\nfn main() {}\n",
    },
    Technique {
        name: "doc attribute from a file",
        source: "#[doc = include_str!(\"{P}\")]\npub fn f() {}\nfn main() { let x: u8 = 256; }\n",
    },
    Technique {
        name: "link attribute naming the file",
        source: "#[link(name = \"{P}\", kind = \"static\")]\nextern \"C\" { fn leak(); }\nfn main() { unsafe { leak() } }\n",
    },
    Technique {
        name: "linker argument pulling the file in",
        source: "#![crate_type = \"bin\"]\n#[link(name = \"c\", modifiers = \"+verbatim\")]\nextern \"C\" {}\nfn main() { println!(\"{}\", \"{P}\"); }\n",
    },
    Technique {
        name: "run-time read of the path",
        source: "fn main() { match std::fs::read_to_string(\"{P}\") { Ok(s) => print!(\"{s}\"), Err(e) => print!(\"{e}\") } }\n",
    },
];

#[tokio::test]
async fn no_rust_technique_reads_the_host_under_namespaces() {
    techniques_leak_nothing(ConfinementChoice::Namespaces, RUST_TECHNIQUES, &["rust"]).await;
}

#[tokio::test]
async fn no_rust_technique_reads_the_host_under_landlock() {
    techniques_leak_nothing(ConfinementChoice::Landlock, RUST_TECHNIQUES, &["rust"]).await;
}

#[tokio::test]
async fn rust_programs_pass_through_both_endpoints() {
    let rust = "use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n    std::io::stdin().read_to_string(&mut s).unwrap();\n    let mut xs: Vec<i64> = s.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();\n    xs.sort();\n    println!(\"{} {}\", xs[0], xs[xs.len() - 1]);\n}\n";
    min_max_passes_both_endpoints(MinMax {
        names: ["rust", "rs"],
        fences: ["rust", "rs"],
        source: rust,
        wrong: rust.replace("xs[0], xs[xs.len() - 1]", "xs[xs.len() - 1], xs[0]"),
        broken: ("fn main() { let x: u32 = \"one\"; }\n", "mismatched types"),
    })
    .await;
}
