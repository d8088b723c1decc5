//! TypeScript: sucrase strips the types inside the guest (scripts/setup.d/24-typescript.sh),
//! then QuickJS runs the program as JavaScript (ts.wasm, 22-interpreters.sh). What programs see
//! and how they end; the limits, statuses and escape checks every interpreted language shares
//! are in interpreter_limits.rs.

mod interpreted;
mod support;

use interpreted::tight;
use sandbox::{Language, Outcome, Runtime, Status};
use support::{SANDBOX, installed};

async fn run(source: &str, stdin: &str) -> Outcome {
    interpreted::run(Language::TypeScript, source, stdin, tight()).await
}

#[tokio::test]
async fn typescript_reads_stdin_as_node_programs_do_with_types_and_imports() {
    if !installed(Language::TypeScript) {
        return;
    }
    let programs = [
        "const d: number[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(d[0] + d[1]);",
        "import * as fs from 'fs';\nconst [a, b] = fs.readFileSync(0, 'utf8').split('\\n').map((x: string): number => +x);\nconsole.log(a + b);",
        "import { readFileSync } from 'node:fs';\nconst text = readFileSync('/dev/stdin').toString() as string;\nconsole.log(text.split('\\n').reduce((s: number, x) => s + Number(x), 0));",
        "import readline from 'readline';\nconst rl = readline.createInterface({ input: process.stdin });\nconst l: number[] = [];\nrl.on('line', (x: string) => l.push(+x)).on('close', () => console.log(l[0] + l[1]));",
        "import * as readline from 'readline';\n(async (): Promise<void> => { let t = 0; for await (const x of readline.createInterface({ input: process.stdin })) t += +x; console.log(t); })();",
    ];
    for src in programs {
        let out = run(src, "2\n40\n").await;
        assert_eq!(out.status, Status::Ok, "{src}: {out:?}");
        assert_eq!(out.runtime, Some(Runtime::QuickJs));
        assert_eq!(out.stdout, "42\n", "{src}");
    }
}

#[tokio::test]
async fn typescript_only_syntax_is_stripped_or_compiled() {
    if !installed(Language::TypeScript) {
        return;
    }
    let src = r#"
interface Point { x: number; y?: number }
type Pair<T> = [T, T];
enum Dir { Up = 1, Down, Left = 'L' }
const enum Small { A = 2 }
abstract class Shape { abstract area(): number; describe(): string { return `${this.constructor.name} ${this.area()}`; } }
class Square extends Shape {
  static count: number = 0;
  readonly #tag = 's';
  constructor(private readonly side: number, public label?: string) { super(); Square.count++; }
  area(): number { return this.side ** 2; }
}
function first<T extends { length: number }>(xs: T[]): T | undefined { return xs[0]; }
declare const missing: unique symbol;
const p: Point = { x: 3 } satisfies Point;
const pair: Pair<string> = ['a', 'b'];
const sq = new Square(4, 'four');
const n = <number>(7 as unknown);
const maybe: Point | null = Math.random() > 2 ? p : null;
console.log(Dir.Down, Dir[2], Dir.Left, Small.A, p.y ?? 'none', maybe?.x, pair.join(''));
console.log(sq.describe(), sq.label!, Square.count, first<string>(['z'])?.length, n);
"#;
    let out = run(src, "").await;
    assert_eq!(out.status, Status::Ok, "{out:?}");
    assert_eq!(
        out.stdout,
        "2 Down L 2 none undefined ab\nSquare 16 four 1 1 7\n"
    );
}

#[tokio::test]
async fn types_are_not_checked_but_syntax_is() {
    if !installed(Language::TypeScript) {
        return;
    }
    // A type error still runs, as under `node --experimental-strip-types` or tsx.
    let out = run(
        "const n: number = 'not a number' as any as string;\nconsole.log(n);",
        "",
    )
    .await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "not a number\n")
    );
    // A syntax error ends the run as one in JavaScript does: a runtime error naming the line,
    // nothing run.
    let out = run("console.log('never');\nlet x: number = ;", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert_eq!(out.exit_code, Some(1));
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with("SyntaxError: ") && out.stderr.contains("at main.ts:2:"),
        "{}",
        out.stderr
    );
    // Runtime errors point at the program's own lines: stripping keeps them where they were.
    let out = run(
        "interface A {\n  x: number;\n}\nconst a = null as unknown as A;\nconsole.log(a.x);",
        "",
    )
    .await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(
        out.stderr.contains("TypeError") && out.stderr.contains("main.ts:5"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn programs_run_strict_and_see_nothing_of_the_stripper() {
    if !installed(Language::TypeScript) {
        return;
    }
    // Strict, as tsc emits under `strict` and as ES modules are: an undeclared assignment (a
    // type error tsc reports) throws.
    let out = run("undeclared = 1;", "").await;
    assert_eq!(out.status, Status::RuntimeError, "{out:?}");
    assert!(out.stderr.contains("ReferenceError"), "{}", out.stderr);
    let out = run(
        "console.log(typeof sucrase, typeof strip, Object.keys(globalThis).filter((k) => /sucrase|strip/i.test(k)).length);",
        "",
    )
    .await;
    assert_eq!(out.stdout, "undefined undefined 0\n", "{out:?}");
    // Exports land on module.exports, as in a CommonJS module.
    let out = run(
        "export function solve(a: number): number { return a * 2; }\nconsole.log(module.exports.solve(21));",
        "",
    )
    .await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (Status::Ok, "42\n"),
        "{out:?}"
    );
}

#[test]
fn the_version_names_the_stripper_and_quickjs() {
    if !installed(Language::TypeScript) {
        return;
    }
    let version = SANDBOX.version(Language::TypeScript).unwrap();
    assert!(
        version
            .starts_with("sucrase 3.35.1 (TypeScript types stripped, not checked) on QuickJS-ng "),
        "{version}"
    );
}
