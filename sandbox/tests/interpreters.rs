//! Lua, SQL and JavaScript on their wasm interpreters (scripts/setup.d/22-interpreters.sh):
//! what programs see. The limits, statuses and escape checks every interpreted language shares
//! are in interpreter_limits.rs.

mod interpreted;
mod support;

use std::time::Duration;

use interpreted::tight;
use sandbox::{Language, Limits, Outcome, Program, Runtime, Status};
use support::{SANDBOX, installed};

/// Held for reading by every run under the tight limits and for writing by the test that fills
/// the machine's cores with 48 runs: a 1.5 s program started beside those would time out
/// without having run (CI, 2026-12-07: a stdin check ended after 3.3 s with 1,542 fuel used).
static CORES: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

async fn run(language: Language, source: &str, stdin: &str) -> Outcome {
    let _shared = CORES.read().await;
    interpreted::run(language, source, stdin, tight()).await
}

#[tokio::test]
async fn lua_reads_stdin_recovers_from_errors_and_resumes_coroutines() {
    if !installed(Language::Lua) {
        return;
    }
    let src = "local a, b = io.read('n', 'n')\nprint(a + b, math.maxinteger)\n\
        print(pcall(error, 'boom'))\n\
        print(select(2, pcall(function() local t = nil; return t.x end)))\n\
        local ok, e = pcall(function() return pcall(function() error({code = 7}) end) end)\n\
        print(ok, e)\n\
        local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)\n\
        print(co(), co(), co())\n\
        print(string.format('%.3f', 1/3), #arg, arg[0])";
    let out = run(Language::Lua, src, "2 40").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.runtime, Some(Runtime::Lua));
    assert_eq!(
        out.stdout,
        "42\t9223372036854775807\nfalse\tboom\n\
         main.lua:4: attempt to index a nil value (local 't')\ntrue\tfalse\n1\t2\t3\n\
         0.333\t0\tmain.lua\n"
    );
}

#[tokio::test]
async fn lua_uncaught_error_is_a_runtime_error_with_a_traceback() {
    if !installed(Language::Lua) {
        return;
    }
    let out = run(Language::Lua, "print('before')\nerror('bad input')", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert_eq!(out.exit_code, Some(1));
    assert_eq!(out.stdout, "before\n");
    assert!(
        out.stderr
            .starts_with("lua: main.lua:2: bad input\nstack traceback:"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn lua_protected_calls_nest_to_a_bound() {
    if !installed(Language::Lua) {
        return;
    }
    // Within the bound, nested pcalls unwind to the right level each time.
    let ok = "local function f(n) if n == 0 then error('deep') end\n\
        local ok, e = pcall(f, n - 1); return 'caught at ' .. n .. ': ' .. tostring(e) end\n\
        print(f(3))";
    let out = run(Language::Lua, ok, "").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(
        out.stdout,
        "caught at 3: caught at 2: caught at 1: main.lua:1: deep\n"
    );
    // Past it the run ends, not the host: each level holds a fiber stack of the engine's pool.
    let deep = "local function f(n) return select(2, pcall(f, n + 1)) end\nprint(f(0))";
    let out = run(Language::Lua, deep, "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(out.message.unwrap().contains("nested protected calls"));
    // The sandbox is unharmed: the next run works.
    assert_eq!(run(Language::Lua, "print(1)", "").await.stdout, "1\n");
}

/// Every run may nest to the bound at once: the engine's pool holds a fiber stack per nested
/// protected call of every admitted run, so concurrent deep runs all finish.
#[tokio::test]
async fn concurrent_runs_nesting_to_the_bound_all_finish() {
    if !installed(Language::Lua) {
        return;
    }
    let _alone = CORES.write().await;
    // Seven pcalls inside the main chunk's protected call, then busy work while all are open.
    let src = "local function f(n) if n == 0 then local s = 0 for i = 1, 3000000 do s = s + i end return s end\n\
        return select(2, pcall(f, n - 1)) end\nprint(f(7))";
    let runs: Vec<_> = (0..48)
        .map(|_| {
            SANDBOX.run(Program {
                language: Language::Lua,
                source: src.into(),
                // Long enough for 48 runs time-sliced on the test machine's cores.
                limits: Some(Limits {
                    wall_time: Duration::from_secs(30),
                    ..tight()
                }),
                ..Program::default()
            })
        })
        .collect();
    for out in futures_join(runs).await {
        let out = out.expect("program accepted");
        assert_eq!(out.status, Status::Ok, "{out:?}");
        assert_eq!(out.stdout, "4500001500000\n");
    }
}

/// Awaits all `futures` concurrently.
async fn futures_join<T: Send + 'static, F: std::future::Future<Output = T> + Send + 'static>(
    futures: Vec<F>,
) -> Vec<T> {
    let mut set = tokio::task::JoinSet::new();
    for f in futures {
        set.spawn(f);
    }
    let mut all = Vec::new();
    while let Some(out) = set.join_next().await {
        all.push(out.unwrap());
    }
    all
}

#[tokio::test]
async fn sql_runs_a_script_on_an_empty_in_memory_database() {
    if !installed(Language::Sql) {
        return;
    }
    let src = "CREATE TABLE t(a INTEGER, b TEXT);\nINSERT INTO t VALUES (1, 'x'), (2, NULL);\n\
        SELECT * FROM t ORDER BY a;\nSELECT count(*), sum(a), typeof(b) FROM t WHERE a = 2;\n\
        .mode csv\nSELECT 'a,b', 3.5;";
    let out = run(Language::Sql, src, "").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.runtime, Some(Runtime::Sqlite));
    assert_eq!(out.stdout, "1|x\n2|\n1|2|null\n\"a,b\",3.5\r\n");
    assert_eq!(out.stderr, "", "no warning about a home folder");
    // A fresh database every run: the table above is gone.
    let out = run(Language::Sql, "SELECT count(*) FROM sqlite_master;", "").await;
    assert_eq!(out.stdout, "0\n");
}

#[tokio::test]
async fn sql_error_is_a_runtime_error_and_later_statements_still_run() {
    if !installed(Language::Sql) {
        return;
    }
    let out = run(Language::Sql, "SELECT * FROM missing;\nSELECT 42;", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert_eq!(out.exit_code, Some(1));
    assert_eq!(out.stdout, "42\n", "like `sqlite3 :memory: < main.sql`");
    assert!(
        out.stderr.contains("no such table: missing"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn javascript_node_subset_reads_stdin_every_usual_way() {
    if !installed(Language::JavaScript) {
        return;
    }
    let programs = [
        "const d = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(d[0] + d[1]);",
        "const d = require('fs').readFileSync('/dev/stdin').toString().split('\\n');\nconsole.log(Number(d[0]) + Number(d[1]));",
        "const rl = require('readline').createInterface({ input: process.stdin });\nconst l = [];\nrl.on('line', (x) => l.push(+x)).on('close', () => console.log(l[0] + l[1]));",
        "let s = '';\nprocess.stdin.on('data', (c) => (s += c));\nprocess.stdin.on('end', () => { const [a, b] = s.split('\\n').map(Number); process.stdout.write(a + b + '\\n'); });",
        "(async () => { const rl = require('node:readline').createInterface({ input: process.stdin }); let t = 0; for await (const x of rl) t += +x; console.log(t); })();",
    ];
    for src in programs {
        let out = run(Language::JavaScript, src, "2\n40\n").await;
        assert_eq!(out.status, Status::Ok, "{src}: {out:?}");
        assert_eq!(out.runtime, Some(Runtime::QuickJs));
        assert_eq!(out.stdout, "42\n", "{src}");
    }
}

#[tokio::test]
async fn javascript_console_log_formats_like_node() {
    if !installed(Language::JavaScript) {
        return;
    }
    let src = "console.log([1, 2, 3], { a: 1, b: 'x' }, 'top', null, undefined, -0, 10n);\n\
        console.log('%s=%d', 'n', 42, [], {});\nconsole.log(new Map([[1, 'a']]), new Set([2]));\n\
        setTimeout(() => console.log('timer'), 10);\nPromise.resolve().then(() => console.log('job'));\n\
        console.log('sync');";
    let out = run(Language::JavaScript, src, "").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(
        out.stdout,
        "[ 1, 2, 3 ] { a: 1, b: 'x' } top null undefined -0 10n\nn=42 [] {}\n\
         Map(1) { 1 => 'a' } Set(1) { 2 }\nsync\njob\ntimer\n"
    );
}

#[tokio::test]
async fn javascript_errors_and_exit_codes() {
    if !installed(Language::JavaScript) {
        return;
    }
    let out = run(Language::JavaScript, "console.log('a');\nnull.x;", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert_eq!(out.stdout, "a\n");
    assert!(out.stderr.contains("TypeError"), "{}", out.stderr);
    let out = run(
        Language::JavaScript,
        "console.log('a'); process.exit(3); console.log('b');",
        "",
    )
    .await;
    assert_eq!((out.status, out.exit_code), (Status::RuntimeError, Some(3)));
    assert_eq!(out.stdout, "a\n");
    let out = run(
        Language::JavaScript,
        "process.exitCode = 2; console.log('done');",
        "",
    )
    .await;
    assert_eq!((out.exit_code, out.stdout.as_str()), (Some(2), "done\n"));
    let out = run(
        Language::JavaScript,
        "(async () => { console.log('a'); await null; throw new Error('async boom'); })();",
        "",
    )
    .await;
    assert_eq!(
        out.status,
        Status::RuntimeError,
        "an unhandled rejection fails, as in Node: {out:?}"
    );
    assert!(out.stderr.contains("async boom"), "{}", out.stderr);
    assert_eq!(out.stdout, "a\n");
    let handled = "const p = Promise.reject(new Error('x'));\nsetTimeout(() => {}, 0);\np.catch(() => console.log('caught'));";
    let out = run(Language::JavaScript, handled, "").await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "caught\n"),
        "{out:?}"
    );
    let out = run(Language::JavaScript, "require('child_process')", "").await;
    assert_eq!(out.status, Status::RuntimeError);
    assert!(
        out.stderr.contains("Cannot find module 'child_process'"),
        "{}",
        out.stderr
    );
    let deep = "let d = 0; function f() { d++; f(); }\ntry { f(); } catch (e) { console.log(e instanceof RangeError, d > 1000); }";
    let out = run(Language::JavaScript, deep, "").await;
    assert_eq!(out.stdout, "true true\n", "{out:?}");
}
