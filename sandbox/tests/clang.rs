//! C and C++ through clang's wasm32-wasi target (needs scripts/setup.d/21-clang-wasi.sh).

mod support;

use std::time::Duration;

use sandbox::{Config, Language, Limits, Program, RunError, Runtime, Sandbox, Status};
use support::SANDBOX;

fn program(language: Language, source: &str, stdin: &str) -> Program {
    Program {
        language,
        source: source.into(),
        stdin: stdin.into(),
        limits: Some(Limits {
            wall_time: Duration::from_secs(2),
            memory_bytes: 64 << 20,
            ..Limits::default()
        }),
        ..Program::default()
    }
}

/// True when the toolchain is installed; otherwise says why the test is vacuous here.
fn toolchain() -> bool {
    let ok = SANDBOX.supports(Language::C);
    if !ok {
        eprintln!("clang wasm32-wasi toolchain not installed: C/C++ checks skipped");
    }
    ok
}

#[tokio::test]
async fn c_program_reads_stdin_and_exits() {
    if !toolchain() {
        return;
    }
    let src = "#include <stdio.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 3; printf(\"%ld\\n\",a+b); return a>b;}";
    let out = SANDBOX
        .run(program(Language::C, src, "2 40"))
        .await
        .unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str(), out.exit_code),
        (Status::Ok, "42\n", Some(0)),
        "{out:?}"
    );
    let out = SANDBOX
        .run(program(Language::C, src, "40 2"))
        .await
        .unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str(), out.exit_code),
        (Status::RuntimeError, "42\n", Some(1)),
        "{out:?}"
    );
}

#[tokio::test]
async fn cpp_program_uses_the_standard_library() {
    if !toolchain() {
        return;
    }
    let src = "#include <iostream>\n#include <vector>\n#include <algorithm>\n#include <map>\nint main(){int n; std::cin>>n; std::vector<int> v(n); for(auto&x:v) std::cin>>x; std::sort(v.begin(), v.end()); std::map<int,int> c; for(int x: v) c[x]++; for(int x: v) std::cout<<x<<' '; std::cout<<c.size()<<std::endl;}";
    let out = SANDBOX
        .run(program(Language::Cpp, src, "5\n3 1 2 3 1\n"))
        .await
        .unwrap();
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.stdout, "1 1 2 3 3 3\n");
    assert_eq!(out.runtime, Some(Runtime::Wasi));
    assert!(out.compile.as_ref().is_some_and(|c| c.ok));
}

#[tokio::test]
async fn compile_errors_and_hostile_c_are_contained() {
    if !toolchain() {
        return;
    }
    let out = SANDBOX
        .run(program(Language::C, "int main( { return 0; }", ""))
        .await
        .unwrap();
    assert_eq!(out.status, Status::CompileError, "{out:?}");
    assert!(
        out.compile
            .as_ref()
            .is_some_and(|c| !c.ok && c.stderr.contains("error"))
    );

    let out = SANDBOX
        .run(program(
            Language::C,
            "int main(void){ volatile int x = 0; for(;;) x++; }",
            "",
        ))
        .await
        .unwrap();
    assert_eq!(out.status, Status::Timeout, "{out:?}");

    // The volatile store keeps clang from eliding the allocations.
    let bomb = "#include <stdlib.h>\n#include <string.h>\nstatic char *volatile keep;\nint main(void){ for(;;){ char *p = malloc(1<<20); if(!p) return 7; memset(p, 1, 1<<20); keep = p; } }";
    let out = SANDBOX.run(program(Language::C, bomb, "")).await.unwrap();
    assert_eq!(
        (out.status, out.exit_code),
        (Status::MemoryLimit, Some(7)),
        "{out:?}"
    );

    let passwd = "#include <stdio.h>\nint main(void){ FILE *f = fopen(\"/etc/passwd\", \"r\"); if(!f){ puts(\"denied\"); return 0;} return 1; }";
    let out = SANDBOX.run(program(Language::C, passwd, "")).await.unwrap();
    assert_eq!(out.stdout, "denied\n", "{out:?}");

    for crash in [
        "int main(void){ __builtin_trap(); }",
        "int main(void){ volatile int *p = (volatile int*)0xFFFFFFF0; return *p; }",
    ] {
        let out = SANDBOX.run(program(Language::C, crash, "")).await.unwrap();
        assert_eq!(out.status, Status::RuntimeError, "{crash}: {out:?}");
    }
}

#[tokio::test]
async fn missing_toolchain_is_a_clear_unsupported_language_error() {
    let config = Config {
        clang: Some("/nonexistent/clang".into()),
        fast_python: false,
        full_python: false,
        ..Config::default()
    };
    let sandbox = Sandbox::new(config).unwrap();
    assert!(!sandbox.supports(Language::Cpp));
    match sandbox
        .run(program(Language::Cpp, "int main(){}", ""))
        .await
    {
        Err(RunError::UnsupportedLanguage(msg)) => assert!(msg.contains("cpp"), "{msg}"),
        other => panic!("expected unsupported_language, got {other:?}"),
    }
}
