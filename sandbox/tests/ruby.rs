//! Ruby on ruby.wasm's CRuby (scripts/setup.d/23-ruby.sh): what programs see, how they end.
//! The limits, statuses and escape checks every interpreted language shares are in
//! interpreter_limits.rs.

mod interpreted;
mod support;

use std::time::Duration;

use sandbox::{Language, Limits, Outcome, Runtime, Status};
use support::SANDBOX;

fn limits() -> Limits {
    Limits {
        wall_time: Duration::from_secs(5),
        memory_bytes: 128 << 20,
        stdout_bytes: 64 << 10,
        stderr_bytes: 64 << 10,
        ..Limits::default()
    }
}

fn installed() -> bool {
    support::installed(Language::Ruby)
}

async fn run(source: &str, stdin: &str) -> Outcome {
    interpreted::run(Language::Ruby, source, stdin, limits()).await
}

#[tokio::test]
async fn ruby_reads_stdin_every_usual_way() {
    if !installed() {
        return;
    }
    let programs = [
        "a = gets.to_i\nb = gets.to_i\nputs a + b",
        "puts $stdin.read.split.map(&:to_i).sum",
        "puts STDIN.readlines.sum(&:to_i)",
        "puts ARGF.each_line.map(&:to_i).sum",
        "t = 0\n$stdin.each_line { |l| t += Integer(l) }\nprint t, \"\\n\"",
        "a, b = readlines.map(&:chomp).map(&:to_i)\nprintf(\"%d\\n\", a + b)",
    ];
    for src in programs {
        let out = run(src, "2\n40\n").await;
        assert_eq!(out.status, Status::Ok, "{src}: {out:?}");
        assert_eq!(out.runtime, Some(Runtime::Ruby));
        assert_eq!(out.stdout, "42\n", "{src}");
    }
}

#[tokio::test]
async fn ruby_runs_the_language_and_its_libraries() {
    if !installed() {
        return;
    }
    // The standard library, a bundled gem (prime) without RubyGems, big integers, UTF-8 input,
    // pattern matching, the `__FILE__ == $0` idiom and a frozen-string-literal comment.
    let src = "# frozen_string_literal: true\nrequire 'set'\nrequire 'json'\nrequire 'prime'\n\
        p Set[3, 1, 3].to_a.sort, JSON.generate({a: [1, nil]}), Prime.first(4)\n\
        puts 2**100, (1..20).reduce(:*) % 1_000_000_007\n\
        s = gets.chomp\nputs s.length, s.reverse, s.encoding\n\
        case [1, [2, 3]]\nin [a, [b, *c]] then p [a, b, c]\nend\n\
        puts __FILE__ == $0, $0\nputs 'x'.frozen?\npp({k: 1})";
    let out = run(src, "héllo\n").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(
        out.stdout,
        "[1, 3]\n\"{\\\"a\\\":[1,null]}\"\n[2, 3, 5, 7]\n\
         1267650600228229401496703205376\n146326063\n5\nolléh\nUTF-8\n[1, 2, [3]]\n\
         true\nmain.rb\ntrue\n{k: 1}\n"
    );
    assert_eq!(out.stderr, "");
}

#[tokio::test]
async fn an_uncaught_exception_is_a_runtime_error_reported_as_ruby_does() {
    if !installed() {
        return;
    }
    let out = run(
        "def check(x) = raise ArgumentError, \"bad #{x}\"\nputs 'before'\ncheck(3)",
        "",
    )
    .await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert_eq!(out.exit_code, Some(1));
    assert_eq!(out.stdout, "before\n", "output before the error is kept");
    assert_eq!(
        out.stderr,
        "main.rb:1:in 'Object#check': bad 3 (ArgumentError)\n\tfrom main.rb:3:in '<main>'\n",
        "the program's frames only, as `ruby main.rb` prints them"
    );
    let out = run("x = \n", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(out.stderr.contains("SyntaxError"), "{}", out.stderr);
}

#[tokio::test]
async fn exit_abort_and_exit_bang_set_the_status() {
    if !installed() {
        return;
    }
    for (src, code, stdout, stderr) in [
        ("puts 'a'\nexit 3\nputs 'b'", 3, "a\n", ""),
        ("puts 'a'\nexit\n", 0, "a\n", ""),
        ("exit false", 1, "", ""),
        ("print 'a'\nabort 'gave up'", 1, "a", "gave up\n"),
        ("print 'a'\n$stdout.flush\nexit! 4", 4, "a", ""),
        (
            "begin\n  exit 2\nensure\n  puts 'ensure runs'\nend",
            2,
            "ensure runs\n",
            "",
        ),
        (
            "begin\n  raise 'x'\nrescue => e\n  puts e.message\nend",
            0,
            "x\n",
            "",
        ),
    ] {
        let out = run(src, "").await;
        assert_eq!(out.exit_code, Some(code), "{src}: {out:?}");
        let status = if code == 0 {
            Status::Ok
        } else {
            Status::RuntimeError
        };
        assert_eq!(out.status, status, "{src}: {out:?}");
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            (stdout, stderr),
            "{src}"
        );
    }
}

#[tokio::test]
async fn deep_recursion_is_a_catchable_system_stack_error() {
    if !installed() {
        return;
    }
    let src = "def depth(n) = depth(n + 1)\nbegin\n  depth(0)\nrescue SystemStackError => e\n  puts e.message\nend\n\
        def d(n) = n.zero? ? 0 : 1 + d(n - 1)\nputs d(10_000)";
    let out = run(src, "").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(out.stdout, "stack level too deep\n10000\n");
    // Uncaught, the report stays short: Ruby elides the repeated frames.
    let out = run("def f = f\nf", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(
        out.stderr
            .contains("stack level too deep (SystemStackError)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.len() < 4096, "{}", out.stderr.len());
}

#[tokio::test]
async fn the_javascript_bridge_and_sockets_are_absent() {
    if !installed() {
        return;
    }
    // ruby.wasm's `js` extension calls a JavaScript host there is not: the run ends.
    let out = run("require 'js'\nputs JS.global", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(
        out.message
            .as_deref()
            .unwrap_or("")
            .contains("no JavaScript here"),
        "{out:?}"
    );
    // No socket library is built in, and no process starts: ruby.wasm's `popen` fails.
    for (src, stdout) in [
        (
            "begin\n  require 'socket'\n  puts 'loaded'\nrescue LoadError => e\n  puts e.class\nend",
            "LoadError\n",
        ),
        ("p defined?(TCPSocket), defined?(UNIXSocket)", "nil\nnil\n"),
        (
            "begin\n  puts `id`\nrescue StandardError, NotImplementedError => e\n  puts 'refused'\nend",
            "refused\n",
        ),
        (
            "begin\n  puts IO.popen('id').read\nrescue StandardError, NotImplementedError => e\n  puts 'refused'\nend",
            "refused\n",
        ),
    ] {
        let out = run(src, "").await;
        assert_eq!(
            (out.status, out.stdout.as_str()),
            (Status::Ok, stdout),
            "{src}: {out:?}"
        );
    }
}

#[tokio::test]
async fn each_run_starts_a_fresh_interpreter() {
    if !installed() {
        return;
    }
    let out = run(
        "$seen = 1\nclass Integer\n  def +(o) = 0\nend\nputs 1 + 1",
        "",
    )
    .await;
    assert_eq!(out.stdout, "0\n", "{out:?}");
    let out = run("p $seen\nputs 1 + 1", "").await;
    assert_eq!(out.stdout, "nil\n2\n", "{out:?}");
}

#[test]
fn the_version_is_ruby_3_4() {
    if installed() {
        assert_eq!(
            SANDBOX.version(Language::Ruby).as_deref(),
            Some("Ruby 3.4.1")
        );
    }
}
