//! Rust through Debian's rustc 1.63 for wasm32-wasi (needs scripts/setup.d/27-rust.sh): output,
//! exit codes, panics, compile errors, every limit, files, the build cache, and sources that try
//! to make the compiler read the host, under each confinement mechanism.
//!
//! The run-time checks share one program (`data/rust/probe.rs`) that picks its behaviour from
//! stdin: one compile, then milliseconds per run.

mod compiled;
mod support;

use std::os::unix::fs::PermissionsExt;

use compiled::{compiles_once, confined, limits_end_runs_with_their_status, program};
use sandbox::{ConfinementChoice, Language, Mechanism, Outcome, Program, ProgramFile, Status};
use support::{SANDBOX, installed};

const PROBE: &str = include_str!("data/rust/probe.rs");

fn rust(source: &str, stdin: &str) -> Program {
    program(Language::Rust, source, stdin)
}

async fn probe(stdin: &str) -> Outcome {
    SANDBOX.run(rust(PROBE, stdin)).await.unwrap()
}

#[tokio::test]
async fn rust_reads_stdin_writes_stdout_and_exits_with_its_status() {
    if !installed(Language::Rust) {
        return;
    }
    let out = probe("sum 2 40").await;
    assert_eq!(
        (out.status, out.stdout.as_str(), out.exit_code),
        (Status::Ok, "42\n", Some(0)),
        "{out:?}"
    );
    assert!(out.compile.as_ref().unwrap().ok, "{out:?}");
    let out = probe("sum 40 2").await;
    assert_eq!(
        (out.status, out.stdout.as_str(), out.exit_code),
        (Status::RuntimeError, "42\n", Some(1)),
        "{out:?}"
    );
    let out = probe("collections").await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "328350 [('o', 4), ('e', 3)]\n"),
        "{out:?}"
    );
}

#[tokio::test]
async fn rust_panics_are_runtime_errors() {
    if !installed(Language::Rust) {
        return;
    }
    let out = probe("panic").await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::RuntimeError, "before\n"),
        "{out:?}"
    );
    assert!(out.stderr.contains("index out of bounds"), "{out:?}");
    // The panic names the source file as compiled, not a host or jail folder.
    assert!(out.stderr.contains("main.rs:"), "{}", out.stderr);
}

#[tokio::test]
async fn rust_limits_end_runs_with_their_status() {
    limits_end_runs_with_their_status(Language::Rust, PROBE).await;
}

#[tokio::test]
async fn rust_sees_only_its_working_folder_and_no_network() {
    if !installed(Language::Rust) {
        return;
    }
    let mut program = rust(PROBE, "files");
    program.files = vec![ProgramFile {
        path: "data/in.txt".into(),
        contents: b"ferris\n".to_vec(),
    }];
    program.fetch_files = vec!["out.txt".into()];
    let out = SANDBOX.run(program).await.unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "FERRIS\n"),
        "{out:?}"
    );
    assert_eq!(out.files[0].contents, b"FERRIS\n");

    let out = probe("host").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    for line in out.stdout.lines().take(3) {
        assert!(line.ends_with(" true"), "read the host: {line}");
    }
    let out = probe("net").await;
    assert_eq!(out.stdout, "connect true\n", "{out:?}");
    let out = probe("env").await;
    assert_eq!(
        out.stdout,
        "env=[\"PYTHONHASHSEED=0\", \"PYTHONUNBUFFERED=1\", \"PYTHONDONTWRITEBYTECODE=1\"] args=[\"main\"]\n",
        "{out:?}"
    );
}

#[tokio::test]
async fn rust_compile_errors_come_back_as_compile_errors() {
    if !installed(Language::Rust) {
        return;
    }
    for (source, says) in [
        (
            "fn main() { let x: u32 = \"one\"; }\n",
            "error[E0308]: mismatched types",
        ),
        ("fn main() { undefined(); }\n", "main.rs:1:13"),
        ("pub fn f() {}\n", "`main` function not found"),
        ("use rand::Rng;\nfn main() {}\n", "unresolved import `rand`"),
        (
            "#![feature(never_type)]\nfn main() {}\n",
            "may not be used on the stable release channel",
        ),
    ] {
        let out = SANDBOX.run(rust(source, "")).await.unwrap();
        let compile = out.compile.as_ref().unwrap();
        assert_eq!(out.status, Status::CompileError, "{source}: {out:?}");
        assert!(
            compile.stderr.contains(says),
            "{source}: {}",
            compile.stderr
        );
    }
}

#[tokio::test]
async fn a_rust_source_compiles_once() {
    if !installed(Language::Rust) {
        return;
    }
    // A source no earlier run has cached on disk.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let source = format!("fn main() {{ println!(\"once\"); }}\n// {nonce}\n");
    compiles_once(Language::Rust, &source).await;
}

/// A canary file with a secret, world-readable, outside every jail; and a Rust module beside
/// it holding the secret.
fn canary() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = format!("RUSTSECRET{}", std::process::id() as u64 * 7919);
    let path = dir.path().join("canary.txt");
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    std::fs::write(
        dir.path().join("canary.rs"),
        format!("pub const S: &str = \"{secret}\";\n"),
    )
    .unwrap();
    for file in ["canary.txt", "canary.rs"] {
        let file = dir.path().join(file);
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let path = path.display().to_string();
    (dir, secret, path)
}

/// Rust sources that try to make the compiler read `{P}` (a host file) or `{M}` (a Rust module
/// holding the secret) while compiling; each prints what it got, so a leak would show.
const ESCAPES: &[&str] = &[
    "fn main() { print!(\"{}\", include_str!(\"{P}\")); }\n",
    "fn main() { print!(\"{:?}\", include_bytes!(\"{P}\")); }\n",
    "fn main() { print!(\"{}\", include_str!(\"../../../../../../../../..{P}\")); }\n",
    "#[path = \"{M}\"]\nmod canary;\nfn main() { print!(\"{}\", canary::S); }\n",
    "include!(\"{M}\");\nfn main() { print!(\"{}\", S); }\n",
    "#[doc = include_str!(\"{P}\")]\nfn main() { let x: u8 = 256; }\n",
    "#[link(name = \"{P}\")]\nextern \"C\" {}\nfn main() {}\n",
    "fn main() { print!(\"{}\", include_str!(\"/proc/self/environ\")); }\n",
];

/// Sends every escape under `choice`; none may compile, no response may hold the secret, and
/// an ordinary program still compiles.
async fn escapes_fail(choice: ConfinementChoice, expected: Mechanism) {
    let Some(sb) = confined(choice, expected, Language::Rust) else {
        return;
    };
    let (dir, secret, path) = canary();
    let module = dir.path().join("canary.rs").display().to_string();
    for escape in ESCAPES {
        let source = escape.replace("{P}", &path).replace("{M}", &module);
        let out = sb.run(rust(&source, "")).await.unwrap();
        let text = format!("{out:?}");
        assert!(
            !text.contains(&secret),
            "{expected:?} leaked: {source}\n{text}"
        );
        assert_eq!(
            out.status,
            Status::CompileError,
            "{expected:?}: {source}\n{text}"
        );
    }
    let out = sb.run(rust(PROBE, "sum 1 2")).await.unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "3\n"),
        "{out:?}"
    );
    assert!(sb.version(Language::Rust).unwrap().starts_with("Rust 1."));
}

#[tokio::test]
async fn rust_escapes_fail_under_namespaces() {
    escapes_fail(ConfinementChoice::Namespaces, Mechanism::Namespaces).await;
}

#[tokio::test]
async fn rust_escapes_fail_under_landlock() {
    escapes_fail(ConfinementChoice::Landlock, Mechanism::Landlock).await;
}

#[test]
fn rust_is_named_as_sandbox_fusion_names_it() {
    for name in ["rust", "rs", "Rust"] {
        assert_eq!(Language::parse(name), Some(Language::Rust), "{name}");
    }
    assert_eq!(serde_json::to_string(&Language::Rust).unwrap(), "\"rust\"");
    assert_eq!(
        serde_json::from_str::<Language>("\"rs\"").unwrap(),
        Language::Rust
    );
    assert!(Language::ALL.contains(&Language::Rust));
}
