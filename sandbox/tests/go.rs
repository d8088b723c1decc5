//! Go through Go's own compiler for wasip1 (needs scripts/setup.d/25-go.sh): output, exit codes,
//! compile errors, every limit, files, the build cache, and sources that try to make the
//! toolchain read the host, under each confinement mechanism.
//!
//! A Go module is ~2.6 MB of wasm, and each distinct source costs a compile plus a Cranelift
//! compile, so the run-time checks share one program (`data/go/probe.go`) that picks its
//! behaviour from stdin: one compile, then milliseconds per run.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use sandbox::{
    Config, ConfinementChoice, Language, Limits, Mechanism, Outcome, Program, ProgramFile, Sandbox,
    Status,
};
use support::SANDBOX;

const PROBE: &str = include_str!("data/go/probe.go");

/// Whether Go runs here. CI installs it, so there a missing toolchain fails; elsewhere the test
/// says why it checks nothing.
fn installed(sandbox: &Sandbox) -> bool {
    match sandbox.unsupported_reason(Language::Go) {
        None => true,
        Some(why) if std::env::var_os("CI").is_some() => panic!("Go unsupported in CI: {why}"),
        Some(why) => {
            eprintln!("Go unsupported here ({why}): its checks are skipped");
            false
        }
    }
}

fn limits() -> Limits {
    Limits {
        wall_time: Duration::from_secs(2),
        memory_bytes: 128 << 20,
        stdout_bytes: 64 << 10,
        ..Limits::default()
    }
}

fn go(source: &str, stdin: &str) -> Program {
    Program {
        language: Language::Go,
        source: source.into(),
        stdin: stdin.into(),
        limits: Some(limits()),
        ..Program::default()
    }
}

async fn probe(stdin: &str) -> Outcome {
    SANDBOX.run(go(PROBE, stdin)).await.unwrap()
}

#[tokio::test]
async fn go_reads_stdin_writes_stdout_and_exits_with_its_status() {
    if !installed(&SANDBOX) {
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
    if !installed(&SANDBOX) {
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
    if !installed(&SANDBOX) {
        return;
    }
    for (what, status) in [
        ("loop", Status::Timeout),
        ("sleep", Status::Timeout),
        ("alloc", Status::MemoryLimit),
        ("flood", Status::OutputLimit),
    ] {
        let out = probe(what).await;
        assert_eq!(out.status, status, "{what}: {out:?}");
        assert!(
            out.wall_time < Duration::from_secs(4),
            "{what}: {:?}",
            out.wall_time
        );
    }
}

#[tokio::test]
async fn go_sees_only_its_working_folder_and_no_network() {
    if !installed(&SANDBOX) {
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
    if !installed(&SANDBOX) {
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
    if !installed(&SANDBOX) {
        return;
    }
    // A source no earlier run has cached on disk.
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let source = format!(
        "package main\n\nimport \"fmt\"\n\nfunc main() {{ fmt.Println(\"once\") }}\n\n// {nonce}\n"
    );
    let sandbox = || {
        Sandbox::new(Config {
            fast_python: false,
            full_python: false,
            ..Config::default()
        })
        .unwrap()
    };
    let first = sandbox();
    for _ in 0..3 {
        let out = first.run(go(&source, "")).await.unwrap();
        assert_eq!((out.status, out.stdout.as_str()), (Status::Ok, "once\n"));
    }
    let counts = first.build_counts();
    assert_eq!(
        (counts.compiles, counts.native, counts.memory_hits),
        (1, 1, 2)
    );
    drop(first);
    // A restarted service loads the native code from disk: no compile at all, and the run
    // takes milliseconds.
    let second = sandbox();
    let out = second.run(go(&source, "")).await.unwrap();
    assert!(out.compile.unwrap().cached);
    let counts = second.build_counts();
    assert_eq!((counts.compiles, counts.disk_hits), (0, 1), "{counts:?}");
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
    let sb = Sandbox::new(Config {
        confinement: choice,
        fast_python: false,
        full_python: false,
        concurrency: 1,
        ..Config::default()
    })
    .unwrap();
    if !installed(&SANDBOX) {
        return;
    }
    // Go is installed: a mechanism this host offers must hold it (never a silent skip).
    let offered = match expected {
        Mechanism::Namespaces => std::path::Path::new("/usr/bin/bwrap").exists(),
        Mechanism::Landlock => SANDBOX.compiler_confinement(Language::C).is_some(),
    };
    if !offered {
        eprintln!("{expected:?} is not offered here: its Go checks are skipped");
        return;
    }
    assert_eq!(
        sb.compiler_confinement(Language::Go),
        Some(expected),
        "{:?}",
        sb.unsupported_reason(Language::Go)
    );
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
