//! What the compiled languages' sandbox tests share (go.rs, rust.rs): a program with the tests'
//! limits, the limits' statuses, the build cache across a restart, and a sandbox confined by one
//! mechanism for the escape checks.

use std::time::Duration;

use sandbox::{Config, ConfinementChoice, Language, Limits, Mechanism, Program, Sandbox, Status};

use crate::support::{SANDBOX, installed};

/// `source` in `language` with `stdin`, under the tests' limits.
pub fn program(language: Language, source: &str, stdin: &str) -> Program {
    Program {
        language,
        source: source.into(),
        stdin: stdin.into(),
        limits: Some(Limits {
            wall_time: Duration::from_secs(2),
            memory_bytes: 128 << 20,
            stdout_bytes: 64 << 10,
            ..Limits::default()
        }),
        ..Program::default()
    }
}

/// Runs `probe` with each of the stdin commands that break a limit (`loop`, `sleep`, `alloc`,
/// `flood`); each must end with its limit's status, promptly.
pub async fn limits_end_runs_with_their_status(language: Language, probe: &str) {
    if !installed(language) {
        return;
    }
    for (what, status) in [
        ("loop", Status::Timeout),
        ("sleep", Status::Timeout),
        ("alloc", Status::MemoryLimit),
        ("flood", Status::OutputLimit),
    ] {
        let out = SANDBOX.run(program(language, probe, what)).await.unwrap();
        assert_eq!(out.status, status, "{what}: {out:?}");
        assert!(
            out.wall_time < Duration::from_secs(4),
            "{what}: {:?}",
            out.wall_time
        );
    }
}

/// Runs `source` (printing `once`, with a nonce no earlier run has cached on disk) three times:
/// one compile, then memory hits; then a restarted sandbox loads its native code from disk, with
/// no compile at all. Returns the restarted sandbox.
pub async fn compiles_once(language: Language, source: &str) -> Sandbox {
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
        let out = first.run(program(language, source, "")).await.unwrap();
        assert_eq!((out.status, out.stdout.as_str()), (Status::Ok, "once\n"));
    }
    let counts = first.build_counts();
    assert_eq!(
        (counts.compiles, counts.native, counts.memory_hits),
        (1, 1, 2)
    );
    drop(first);
    let second = sandbox();
    let out = second.run(program(language, source, "")).await.unwrap();
    assert!(out.compile.unwrap().cached);
    let counts = second.build_counts();
    assert_eq!((counts.compiles, counts.disk_hits), (0, 1), "{counts:?}");
    second
}

/// A sandbox whose `language` compiler is confined by `expected` (asked for with `choice`);
/// `None` where the language is not installed or the host does not offer the mechanism. Where
/// the language is installed, a mechanism this host offers must hold it (never a silent skip).
pub fn confined(
    choice: ConfinementChoice,
    expected: Mechanism,
    language: Language,
) -> Option<Sandbox> {
    if !installed(language) {
        return None;
    }
    let sb = Sandbox::new(Config {
        confinement: choice,
        fast_python: false,
        full_python: false,
        concurrency: 1,
        ..Config::default()
    })
    .unwrap();
    let offered = match expected {
        Mechanism::Namespaces => std::path::Path::new("/usr/bin/bwrap").exists(),
        Mechanism::Landlock => SANDBOX.compiler_confinement(Language::C).is_some(),
    };
    if !offered {
        eprintln!("{expected:?} is not offered here: its {language:?} checks are skipped");
        return None;
    }
    assert_eq!(
        sb.compiler_confinement(language),
        Some(expected),
        "{:?}",
        sb.unsupported_reason(language)
    );
    Some(sb)
}
