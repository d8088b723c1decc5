//! Go through Go's own compiler for wasip1 (needs scripts/setup.d/25-go.sh): output, exit codes,
//! compile errors, every limit, files, the build cache, and sources that try to make the
//! toolchain read the host, under each confinement mechanism.
//!
//! A Go module is ~2.6 MB of wasm, and each distinct source costs a compile plus a Cranelift
//! compile, so the run-time checks share one program (`data/go/probe.go`) that picks its
//! behaviour from stdin: one compile, then milliseconds per run.

mod compiled;
mod support;

use std::os::unix::fs::PermissionsExt;

use compiled::{compiles_once, confined, limits_end_runs_with_their_status, program};
use sandbox::{ConfinementChoice, Language, Mechanism, Outcome, Program, ProgramFile, Status};
use support::{SANDBOX, installed};

const PROBE: &str = include_str!("data/go/probe.go");

fn go(source: &str, stdin: &str) -> Program {
    program(Language::Go, source, stdin)
}

async fn probe(stdin: &str) -> Outcome {
    SANDBOX.run(go(PROBE, stdin)).await.unwrap()
}

#[tokio::test]
async fn go_reads_stdin_writes_stdout_and_exits_with_its_status() {
    if !installed(Language::Go) {
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
    let out = probe("goroutines").await;
    assert_eq!((out.status, out.stdout.as_str()), (Status::Ok, "328350\n"));
}

#[tokio::test]
async fn go_panics_and_deadlocks_are_runtime_errors() {
    if !installed(Language::Go) {
        return;
    }
    let out = probe("panic").await;
    assert_eq!(
        (out.status, out.exit_code, out.stdout.as_str()),
        (Status::RuntimeError, Some(2), "before\n"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("panic: runtime error: index out of range"),
        "{out:?}"
    );
    // Trimmed paths: the trace names the source file, not a host or jail folder.
    assert!(out.stderr.contains("\tmain.go:"), "{}", out.stderr);
    let out = probe("deadlock").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(out.stderr.contains("deadlock"), "{out:?}");
}

#[tokio::test]
async fn go_limits_end_runs_with_their_status() {
    limits_end_runs_with_their_status(Language::Go, PROBE).await;
}

#[tokio::test]
async fn go_sees_only_its_working_folder_and_no_network() {
    if !installed(Language::Go) {
        return;
    }
    let mut program = go(PROBE, "files");
    program.files = vec![ProgramFile {
        path: "data/in.txt".into(),
        contents: b"gopher\n".to_vec(),
    }];
    program.fetch_files = vec!["out.txt".into()];
    let out = SANDBOX.run(program).await.unwrap();
    assert_eq!((out.status, out.stdout.as_str()), (Status::Ok, "GOPHER\n"));
    assert_eq!(out.files[0].contents, b"GOPHER\n");

    let out = probe("host").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    for line in out.stdout.lines().take(4) {
        assert!(line.ends_with(" true"), "read a host file: {line}");
    }
    let out = probe("net").await;
    assert_eq!(out.stdout, "dial true\n", "{out:?}");
    // No host environment, and the toolchain's folder is not recorded in the module.
    let out = probe("env").await;
    assert_eq!(
        out.stdout,
        "goroot=\"\" env=[\"PYTHONHASHSEED=0\" \"PYTHONUNBUFFERED=1\" \"PYTHONDONTWRITEBYTECODE=1\"] args=[\"main\"]\n",
        "{out:?}"
    );
}

#[tokio::test]
async fn go_compile_errors_come_back_as_compile_errors() {
    if !installed(Language::Go) {
        return;
    }
    for (source, says) in [
        (
            "package main\n\nfunc main() { x := 1 }\n",
            "main.go:3:15: declared and not used: x",
        ),
        (
            "package main\n\nimport \"fmt\"\n\nfunc main() {}\n",
            "\"fmt\" imported and not used",
        ),
        ("package lib\n\nfunc F() {}\n", "main"),
        (
            "package main\n\nimport \"internal/abi\"\n\nvar _ = abi.FuncPCABI0\n\nfunc main() {}\n",
            "could not import internal/abi",
        ),
        (
            "package main\n\nimport \"golang.org/x/exp/slices\"\n\nvar _ = slices.Max[[]int]\n\nfunc main() {}\n",
            "could not import golang.org/x/exp/slices",
        ),
    ] {
        let out = SANDBOX.run(go(source, "")).await.unwrap();
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
async fn a_go_source_compiles_once() {
    if !installed(Language::Go) {
        return;
    }
    // A source no earlier run has cached on disk.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let source = format!(
        "package main\n\nimport \"fmt\"\n\nfunc main() {{ fmt.Println(\"once\") }}\n\n// {nonce}\n"
    );
    // Cached on disk, a run takes milliseconds.
    let second = compiles_once(Language::Go, &source).await;
    let started = std::time::Instant::now();
    let out = second.run(go(&source, "")).await.unwrap();
    assert_eq!(out.status, Status::Ok);
    eprintln!("a cached Go run took {:?}", started.elapsed());
}

/// A canary file with a secret, world-readable, outside every jail.
fn canary() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = format!("GOSECRET{}", std::process::id() as u64 * 7919);
    let path = dir.path().join("canary.txt");
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let path = path.display().to_string();
    (dir, secret, path)
}

/// Go sources that try to make the toolchain read `{P}` (a host path) while compiling, and how
/// each must end; each prints what it got, so a leak would show if it compiled.
const ESCAPES: &[(&str, Status)] = &[
    // The `go` command would read the file; the compiler alone has no embed configuration.
    (
        "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed {P}\nvar s string\n\nfunc main() { fmt.Print(s) }\n",
        Status::CompileError,
    ),
    (
        "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed ../../../../../../../../..{P}\nvar s string\n\nfunc main() { fmt.Print(s) }\n",
        Status::CompileError,
    ),
    // cgo would run the C toolchain on the preamble.
    (
        "package main\n\n// #include \"{P}\"\nimport \"C\"\n\nfunc main() {}\n",
        Status::CompileError,
    ),
    // Imports resolve only through the importcfg.
    (
        "package main\n\nimport c \"{P}\"\n\nfunc main() { println(c.X) }\n",
        Status::CompileError,
    ),
    (
        "package main\n\nimport c \"./canary\"\n\nfunc main() { println(c.X) }\n",
        Status::CompileError,
    ),
    // Directives that only the `go` command acts on (the compiler ignores them; the linker
    // acts on cgo_import_dynamic only for dynamically linked ELF).
    (
        "//go:generate cat {P}\npackage main\n\nfunc main() {}\n",
        Status::Ok,
    ),
    (
        "package main\n\n//go:cgo_import_dynamic leak leak \"{P}\"\n\nfunc main() {}\n",
        Status::Ok,
    ),
    // A line directive only renames positions.
    (
        "package main\n\n//line {P}:1\nfunc main() { undefined() }\n",
        Status::CompileError,
    ),
];

/// Sends every escape under `choice`; no response may hold the secret, and an ordinary program
/// still compiles (with a go.mod asking for another toolchain, which no step reads).
async fn escapes_fail(choice: ConfinementChoice, expected: Mechanism) {
    let Some(sb) = confined(choice, expected, Language::Go) else {
        return;
    };
    let (_dir, secret, path) = canary();
    for (escape, status) in ESCAPES {
        let source = escape.replace("{P}", &path);
        let out = sb.run(go(&source, "")).await.unwrap();
        let text = format!("{out:?}");
        assert!(
            !text.contains(&secret),
            "{expected:?} leaked: {source}\n{text}"
        );
        assert_eq!(out.status, *status, "{expected:?}: {source}\n{text}");
    }
    let mut program = go(PROBE, "sum 1 2");
    program.files = vec![ProgramFile {
        path: "go.mod".into(),
        contents: b"module m\n\ngo 1.99\n\ntoolchain go1.99.0\n".to_vec(),
    }];
    let out = sb.run(program).await.unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "3\n"),
        "{out:?}"
    );
    assert!(sb.version(Language::Go).unwrap().starts_with("Go 1."));
}

#[tokio::test]
async fn go_escapes_fail_under_namespaces() {
    escapes_fail(ConfinementChoice::Namespaces, Mechanism::Namespaces).await;
}

#[tokio::test]
async fn go_escapes_fail_under_landlock() {
    escapes_fail(ConfinementChoice::Landlock, Mechanism::Landlock).await;
}

#[test]
fn go_is_named_as_sandbox_fusion_names_it() {
    for name in ["go", "golang", "Go"] {
        assert_eq!(Language::parse(name), Some(Language::Go), "{name}");
    }
    assert_eq!(serde_json::to_string(&Language::Go).unwrap(), "\"go\"");
    assert_eq!(
        serde_json::from_str::<Language>("\"golang\"").unwrap(),
        Language::Go
    );
    assert!(Language::ALL.contains(&Language::Go));
}
