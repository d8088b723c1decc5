//! What every interpreted language shares (Lua, SQL, JavaScript, Ruby, TypeScript): the limits and
//! statuses, the escape checks of hostile.rs per language, the program's files, the names and
//! versions.

mod interpreted;
mod support;

use std::time::Duration;

use interpreted::tight;
use sandbox::{Language, Limits, Outcome, Program, ProgramFile, RunError, Status};
use support::{SANDBOX, installed};

const LANGUAGES: [Language; 5] = [
    Language::Lua,
    Language::Sql,
    Language::JavaScript,
    Language::Ruby,
    Language::TypeScript,
];

async fn run(language: Language, source: &str, stdin: &str) -> Outcome {
    interpreted::run(language, source, stdin, tight()).await
}

/// Endless work in each language, and how it must end.
fn endless(language: Language) -> [(&'static str, Status); 3] {
    match language {
        Language::Lua => [
            (
                "io.write('start\\n') io.stdout:flush() while true do end",
                Status::Timeout,
            ),
            (
                "local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 1 << 20) .. i end",
                Status::MemoryLimit,
            ),
            (
                "local s = string.rep('y', 4096) while true do io.write(s) end",
                Status::OutputLimit,
            ),
        ],
        Language::Sql => [
            (
                "SELECT 'start';\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;",
                Status::Timeout,
            ),
            (
                "CREATE TABLE t(x);\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO t SELECT randomblob(1000) FROM c;",
                Status::MemoryLimit,
            ),
            (
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT printf('%.4000c', 'w') FROM c;",
                Status::OutputLimit,
            ),
        ],
        Language::Ruby => [
            ("puts 'start'\n$stdout.flush\nloop {}", Status::Timeout),
            (
                "a = []\nloop { a << ('x' * (1 << 20)) + a.size.to_s }",
                Status::MemoryLimit,
            ),
            (
                "s = 'v' * 4096\nloop { $stdout.write(s) }",
                Status::OutputLimit,
            ),
        ],
        // JavaScript, and TypeScript, which it is a subset of.
        _ => [
            ("console.log('start'); for (;;) {}", Status::Timeout),
            (
                "const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length);",
                Status::MemoryLimit,
            ),
            (
                "const s = 'z'.repeat(4096); for (;;) process.stdout.write(s);",
                Status::OutputLimit,
            ),
        ],
    }
}

#[tokio::test]
async fn time_memory_and_output_limits_end_runs_with_the_shared_statuses() {
    for language in LANGUAGES {
        if !installed(language) {
            continue;
        }
        for (src, status) in endless(language) {
            // Only the endless loop is meant to meet the wall clock: the memory and output
            // bombs get ten seconds, so that a loaded machine cannot turn them into timeouts.
            let limits = match status {
                Status::Timeout => tight(),
                _ => Limits {
                    wall_time: Duration::from_secs(10),
                    ..tight()
                },
            };
            let out = interpreted::run(language, src, "", limits.clone()).await;
            assert_eq!(out.status, status, "{language} {src}: {out:?}");
            assert!(
                out.wall_time < limits.wall_time + Duration::from_millis(3500),
                "{language}: {:?}",
                out.wall_time
            );
            assert!(
                out.peak_memory_bytes <= 64 << 20,
                "{language}: {}",
                out.peak_memory_bytes
            );
            if status == Status::Timeout {
                assert_eq!(
                    out.stdout, "start\n",
                    "{language}: output before the limit survives"
                );
            }
        }
    }
}

/// Attempts to reach the host, per language, each with what a contained run answers.
fn escapes(language: Language) -> Vec<&'static str> {
    match language {
        Language::Lua => vec![
            "local f = io.open('/etc/passwd') print(f == nil)",
            "local f = io.open('../../../../etc/passwd') print(f == nil)",
            "print(os.getenv('HOME'), os.getenv('PATH'))",
            "print(pcall(os.execute, 'id'))",
            "print(pcall(io.popen, 'id'))",
            "print(io.open('/tmp/hacrl-escape-lua', 'w') == nil)",
            "print(package.loadlib == nil or select(2, package.loadlib('/lib/x86_64-linux-gnu/libc.so.6', '*')) ~= nil)",
        ],
        Language::Sql => vec![
            ".read /etc/passwd",
            "ATTACH '/etc/passwd' AS p; SELECT count(*) FROM p.sqlite_master;",
            ".shell id",
            ".system cat /etc/passwd",
            "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6');",
            ".output /tmp/hacrl-escape-sql\nSELECT 1;",
            "ATTACH '/tmp/hacrl-escape-sql.db' AS w; CREATE TABLE w.t(x);",
            "SELECT readfile('/etc/passwd');",
            "SELECT writefile('/tmp/hacrl-escape-sql', 'x');",
        ],
        Language::Ruby => vec![
            "begin\n  puts File.read('/etc/passwd')\nrescue SystemCallError => e\n  puts e.class\nend",
            "begin\n  puts File.read('../../../../etc/passwd')\nrescue SystemCallError => e\n  puts e.class\nend",
            "begin\n  Dir.chdir('/')\n  puts File.read('etc/passwd')\nrescue SystemCallError => e\n  puts e.class\nend",
            "begin\n  File.symlink('/etc/passwd', 'p')\n  puts File.read('p')\nrescue SystemCallError, NotImplementedError => e\n  puts e.class\nend",
            "p ENV.to_h, Dir.glob('/*'), Dir.pwd",
            "begin\n  File.write('/tmp/hacrl-escape-ruby', 'x')\nrescue SystemCallError => e\n  puts e.class\nend",
            "begin\n  require 'socket'\n  TCPSocket.new('127.0.0.1', 80)\n  puts 'loaded socket'\nrescue LoadError, SystemCallError => e\n  puts e.class\nend",
            // WASI cannot start a process: `system` and `spawn` return without running one.
            // (Backticks need more than this test's 64 MiB before they fail: ruby.rs.)
            "begin\n  p system('id'), spawn('id')\n  exec('id')\nrescue NotImplementedError, SystemCallError => e\n  puts e.class\nend",
        ],
        Language::TypeScript => {
            let mut typed = escapes(Language::JavaScript);
            // ES module syntax becomes require(), which knows no host module either.
            typed.push("import * as os from 'qjs:os';\nconsole.log('imported', typeof os);");
            typed.push("import { exec } from 'child_process';\nconsole.log('loaded', exec);");
            typed
        }
        _ => vec![
            "try { require('fs').readFileSync('/etc/passwd', 'utf8'); console.log('read'); } catch (e) { console.log(e.code); }",
            "try { require('fs').readFileSync('../../../../etc/passwd', 'utf8'); console.log('read'); } catch (e) { console.log(e.code); }",
            "console.log(JSON.stringify(process.env), typeof std, typeof os)",
            "try { require('fs').writeFileSync('/tmp/hacrl-escape-js', 'x'); } catch (e) { console.log(e.message); }",
            "for (const m of ['child_process', 'net', 'http', 'qjs:os', 'qjs:std']) { try { require(m); console.log('loaded', m); } catch (e) { console.log(e.code); } }",
            "import('qjs:os').then((os) => console.log('imported', typeof os.exec), (e) => console.log('refused', e.message));",
        ],
    }
}

#[tokio::test]
async fn no_language_reads_the_host_its_environment_or_the_network_or_writes_outside() {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let root_line = passwd.lines().next().unwrap_or("root:x:0:0");
    for language in LANGUAGES {
        if !installed(language) {
            continue;
        }
        for src in escapes(language) {
            let out = run(language, src, "").await;
            let seen = format!("{}{}", out.stdout, out.stderr);
            assert!(
                !seen.contains(root_line),
                "{language} read /etc/passwd: {src}: {seen}"
            );
            assert!(
                !seen.contains("uid="),
                "{language} ran a host command: {src}: {seen}"
            );
            assert!(
                !seen.contains("loaded "),
                "{language} loaded a host module: {src}: {seen}"
            );
            assert!(
                !seen.contains("imported"),
                "{language} imported a host module: {src}: {seen}"
            );
            assert!(
                !seen.contains("/root") && !seen.contains("/usr/bin"),
                "{language} saw the host environment: {src}: {seen}"
            );
            assert!(
                matches!(out.status, Status::Ok | Status::RuntimeError),
                "{language} {src}: {out:?}"
            );
        }
    }
    for leftover in [
        "/tmp/hacrl-escape-lua",
        "/tmp/hacrl-escape-sql",
        "/tmp/hacrl-escape-sql.db",
        "/tmp/hacrl-escape-js",
        "/tmp/hacrl-escape-ruby",
    ] {
        assert!(
            !std::path::Path::new(leftover).exists(),
            "{leftover} was written on the host"
        );
    }
}

#[tokio::test]
async fn programs_see_their_files_and_not_the_source_slot_of_another_language() {
    for (language, src) in [
        (
            Language::Lua,
            "local f = assert(io.open('data/in.txt')) io.write(f:read('a'))",
        ),
        (
            Language::Sql,
            "CREATE TABLE t(x); INSERT INTO t VALUES (readfile('data/in.txt'));\nSELECT x FROM t;",
        ),
        (
            Language::JavaScript,
            "process.stdout.write(require('fs').readFileSync('data/in.txt', 'utf8'))",
        ),
        (Language::Ruby, "print File.read('data/in.txt')"),
        (
            Language::TypeScript,
            "import { readFileSync } from 'fs';\nconst text: string = readFileSync('data/in.txt', 'utf8');\nprocess.stdout.write(text);",
        ),
    ] {
        if !installed(language) {
            continue;
        }
        let out = SANDBOX
            .run(Program {
                language,
                source: src.into(),
                files: vec![ProgramFile {
                    path: "data/in.txt".into(),
                    contents: b"hello".to_vec(),
                }],
                limits: Some(tight()),
                ..Program::default()
            })
            .await
            .unwrap();
        assert_eq!(out.status, Status::Ok, "{language}: {out:?}");
        assert_eq!(out.stdout.trim_end(), "hello", "{language}");
    }
    if installed(Language::Lua) {
        let clash = Program {
            language: Language::Lua,
            source: "print(1)".into(),
            files: vec![ProgramFile {
                path: "main.lua".into(),
                contents: b"print(2)".to_vec(),
            }],
            ..Program::default()
        };
        match SANDBOX.run(clash).await {
            Err(RunError::InvalidProgram(why)) => assert!(why.contains("main.lua"), "{why}"),
            other => panic!("a file in the program's own slot must be refused: {other:?}"),
        }
    }
}

#[test]
fn sandbox_fusion_names_parse() {
    for (name, language) in [
        ("lua", Language::Lua),
        ("sql", Language::Sql),
        ("SQLite", Language::Sql),
        ("nodejs", Language::JavaScript),
        ("javascript", Language::JavaScript),
        ("js", Language::JavaScript),
        ("ruby", Language::Ruby),
        ("rb", Language::Ruby),
        ("typescript", Language::TypeScript),
        ("TS", Language::TypeScript),
    ] {
        assert_eq!(Language::parse(name), Some(language), "{name}");
    }
    assert_eq!(Language::JavaScript.as_str(), "javascript");
    assert_eq!(
        serde_json::to_string(&Language::JavaScript).unwrap(),
        "\"javascript\""
    );
    assert_eq!(
        serde_json::from_str::<Language>("\"nodejs\"").unwrap(),
        Language::JavaScript
    );
    assert_eq!(serde_json::to_string(&Language::Ruby).unwrap(), "\"ruby\"");
    assert_eq!(
        serde_json::to_string(&Language::TypeScript).unwrap(),
        "\"typescript\""
    );
    assert_eq!(
        serde_json::from_str::<Language>("\"ts\"").unwrap(),
        Language::TypeScript
    );
}

#[test]
fn versions_are_reported_for_what_is_installed() {
    for language in LANGUAGES {
        let version = SANDBOX.version(language);
        assert_eq!(
            version.is_some(),
            SANDBOX.supports(language),
            "{language}: {version:?}"
        );
    }
    if SANDBOX.supports(Language::Lua) {
        assert_eq!(SANDBOX.version(Language::Lua).as_deref(), Some("Lua 5.4.8"));
    }
}
