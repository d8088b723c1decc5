//! Each confinement mechanism on its own: the compiler cannot read a host file that the
//! process running the sandbox can read (CI runs this as root, where file permissions would
//! let everything through and only the jail and the drop to `nobody` keep the host out).

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use sandbox::{Config, ConfinementChoice, Language, Limits, Mechanism, Program, Sandbox, Status};

/// A sandbox compiling under `choice` only (no Python runtimes: they are not under test).
fn sandbox(choice: ConfinementChoice) -> Sandbox {
    Sandbox::new(Config {
        confinement: choice,
        fast_python: false,
        full_python: false,
        concurrency: 1,
        ..Config::default()
    })
    .expect("sandbox starts")
}

fn c_program(source: String) -> Program {
    Program {
        language: Language::C,
        source,
        limits: Some(Limits {
            wall_time: Duration::from_secs(2),
            ..Limits::default()
        }),
        ..Program::default()
    }
}

/// A root-only secret file (mode 0600) and a world-readable one, in a world-readable folder.
fn canaries() -> (tempfile::TempDir, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = format!("S{}", std::process::id() as u64 * 7919 + 12345);
    let mut paths = Vec::new();
    for (name, mode) in [("open.h", 0o644), ("owner_only.h", 0o600)] {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("\"{secret}\"\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        paths.push(p.display().to_string());
    }
    (dir, secret, paths)
}

/// Whether this host has what `mechanism` needs (the toolchain, and bwrap or Landlock), so
/// that its absence is a failure rather than a skip.
fn prerequisites(mechanism: Mechanism) -> bool {
    let toolchain = std::path::Path::new("/usr/lib/wasm32-wasi/libc.a").is_file()
        && std::path::Path::new("/usr/bin/clang-19").exists();
    toolchain
        && match mechanism {
            Mechanism::Namespaces => std::path::Path::new("/usr/bin/bwrap").exists(),
            Mechanism::Landlock => {
                // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) is the ABI.
                let abi = unsafe {
                    libc::syscall(
                        libc::SYS_landlock_create_ruleset,
                        std::ptr::null::<u8>(),
                        0usize,
                        1u32,
                    )
                };
                abi >= 1
            }
        }
}

/// Runs the include/embed attempts under `choice`.
async fn attempts(choice: ConfinementChoice, expected: Mechanism) {
    let sb = sandbox(choice);
    let Some(mechanism) = sb.compiler_confinement(Language::C) else {
        let why = sb.unsupported_reason(Language::C).unwrap();
        assert!(
            !prerequisites(expected),
            "{expected:?} should work on this host but did not: {why}"
        );
        eprintln!("{expected:?} unavailable on this host: {why}");
        // Fail closed: C is refused, not compiled unconfined.
        assert!(sb.run(c_program("int main(void){}".into())).await.is_err());
        return;
    };
    assert_eq!(mechanism, expected);
    let (_dir, secret, paths) = canaries();
    for path in &paths {
        for source in [
            format!(
                "#include <stdio.h>\nconst char *s =\n#include \"{path}\"\n;\nint main(void){{puts(s);}}\n"
            ),
            format!(
                "#include <stdio.h>\nstatic const char s[] = {{\n#embed \"{path}\"\n, 0}};\nint main(void){{puts(s);}}\n"
            ),
        ] {
            let out = sb.run(c_program(source)).await.unwrap();
            let text = format!("{out:?}");
            assert_eq!(
                out.status,
                Status::CompileError,
                "{mechanism:?} {path}: {text}"
            );
            assert!(
                !text.contains(&secret),
                "{mechanism:?} leaked {path}: {text}"
            );
        }
    }
    // And the jail still compiles and runs an ordinary program.
    let ok = sb
        .run(c_program(
            "#include <stdio.h>\nint main(void){puts(\"fine\");return 0;}\n".into(),
        ))
        .await
        .unwrap();
    assert_eq!(
        (ok.status, ok.stdout.as_str()),
        (Status::Ok, "fine\n"),
        "{ok:?}"
    );
}

#[tokio::test]
async fn namespaces_keep_host_files_out() {
    attempts(ConfinementChoice::Namespaces, Mechanism::Namespaces).await;
}

#[tokio::test]
async fn landlock_keeps_host_files_out() {
    attempts(ConfinementChoice::Landlock, Mechanism::Landlock).await;
}

#[test]
fn bad_confinement_names_are_refused() {
    assert_eq!(
        "landlock".parse::<ConfinementChoice>(),
        Ok(ConfinementChoice::Landlock)
    );
    let err = "none".parse::<ConfinementChoice>().unwrap_err();
    assert!(err.contains("auto, namespaces, landlock"), "{err}");
}
