#!/usr/bin/env python3
"""The harness of the side-by-side benchmarks: the same programs through a running verifier's
/run_code and run natively, each timed the same way. One subcommand per benchmark, called by its
script once that script has made the native side ready (toolchain, venvs, Debian packages); the
script's header says what the benchmark runs and shows.

    scripts/bench-go            -> bench.py go URL N P GO
    scripts/bench-rust          -> bench.py rust URL N P
    scripts/bench-scientific    -> bench.py scientific URL N P NATIVE_PYTHON WASI_PYTHON
    scripts/bench-interpreters  -> bench.py interpreters URL N P [LANGUAGE...]

Per program and runner: p50/p99 of N sequential warm runs (for /run_code the request's wall time,
for a native run spawn to exit) and runs/s of N runs made P at a time. Standard library only.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


# --- The harness ---------------------------------------------------------------------------------


def http_run(url, request, runtime=None):
    """POSTs REQUEST to URL/run_code: (wall seconds, the program's stdout). The run must succeed,
    on RUNTIME where one is named."""
    body = json.dumps(request).encode()
    req = urllib.request.Request(url + "/run_code", body, {"content-type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(req) as r:
        answer = json.load(r)
    elapsed = time.perf_counter() - started
    assert answer["status"] == "Success", answer
    if runtime is not None:
        assert answer.get("runtime") == runtime, answer
    return elapsed, answer["run_result"]["stdout"]


def native_run(cmd, stdin=None, env=None):
    """Runs CMD, spawn to exit: (wall seconds, its stdout). It must exit 0."""
    started = time.perf_counter()
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    assert out.returncode == 0, out
    return elapsed, out.stdout


def measure(run, n, p):
    """One warm-up run (for /run_code of a compiled language, the one compile), then N sequential
    runs and N runs P at a time: (p50 ms, p99 ms, runs/s)."""
    run()
    seq = sorted(run()[0] for _ in range(n))
    started = time.perf_counter()
    with ThreadPoolExecutor(p) as pool:
        list(pool.map(lambda _: run(), range(n)))
    rate = n / (time.perf_counter() - started)
    p99 = seq[min(len(seq) - 1, int(round(0.99 * len(seq))) - 1)]
    return statistics.median(seq) * 1000, p99 * 1000, rate


def compiled(url, n, p, language, ext, programs, stdin, build, natives, steps, env=None):
    """A compiled language (Go, Rust): each program built natively (BUILD(path, binary) is the
    command), its output checked against the sandbox's, then the sandbox's cached build and each
    native way to run it (NATIVES(path, binary): (how, command) pairs) measured; a Markdown table.
    Then the first-compile cost: 5 distinct sources, each sent once (STEPS names what that
    costs), p50 and max."""
    work = tempfile.mkdtemp(prefix=f"bench-{language}-")

    def sandbox(code):
        request = {"language": language, "code": code, "stdin": stdin, "compile_timeout": 60}
        return http_run(url, request)

    print("| program | how | p50 / p99 ms | runs/s |")
    print("|---|---|---|---|")
    for name, code in programs.items():
        path = os.path.join(work, f"{name}.{ext}")
        with open(path, "w") as f:
            f.write(code)
        binary = os.path.join(work, name)
        subprocess.run(build(path, binary), check=True, env=env)
        want = native_run([binary], stdin, env)[1]
        assert sandbox(code)[1] == want, "sandbox and native disagree"
        runners = [("sandbox /run_code (cached build)", lambda code=code: sandbox(code))]
        runners += [(how, lambda cmd=cmd: native_run(cmd, stdin, env)) for how, cmd in natives(path, binary)]
        for how, run in runners:
            p50, p99, rate = measure(run, n, p)
            print(f"| {name} | {how} | {p50:.2f} / {p99:.2f} | {rate:.1f} |", flush=True)

    firsts = []
    for i in range(5):
        code = programs["sum"] + f"\n// first compile {time.time_ns()} {i}\n"
        firsts.append(sandbox(code)[0])
    print(f"\nfirst run of a new source via /run_code ({steps} + Cranelift + run): "
          f"p50 {statistics.median(firsts) * 1000:.0f} ms, max {max(firsts) * 1000:.0f} ms over {len(firsts)}")


# --- The benchmarks ------------------------------------------------------------------------------


def go(url, n, p, go_bin):
    """scripts/bench-go: GO_BIN is the native toolchain's `go`."""
    programs = {
        "sum": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n',
        "loop": 'package main\n\nimport "fmt"\n\nfunc main() {\n\ts := 0\n\tfor i := 1; i <= 10000000; i++ {\n\t\ts += i % 7\n\t}\n\tfmt.Println(s)\n}\n',
    }
    gocache = tempfile.mkdtemp(prefix="bench-go-cache-")
    env = dict(os.environ, GOCACHE=gocache, GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="", GO111MODULE="off")
    compiled(url, n, p, "go", "go", programs, "2 40\n",
             build=lambda path, binary: [go_bin, "build", "-o", binary, path],
             natives=lambda path, binary: [("native binary", [binary]), ("native `go run`", [go_bin, "run", path])],
             steps="compile + link", env=env)


def rust(url, n, p):
    """scripts/bench-rust: the native binary from the `rustc` on PATH."""
    read = ("use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n"
            "    std::io::stdin().read_to_string(&mut s).unwrap();\n")
    programs = {
        "sum": read + "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
                      "    println!(\"{}\", v[0] + v[1]);\n}\n",
        # The bound comes from stdin so neither compiler can fold the loop away.
        "loop": read + "    let n: u64 = s.split_whitespace().next().unwrap().parse::<u64>().unwrap() * 250_000;\n"
                       "    let mut t = 0u64;\n    for i in 1..=n {\n        t += i % 7;\n    }\n"
                       "    println!(\"{t}\");\n}\n",
    }
    compiled(url, n, p, "rust", "rs", programs, "40 2\n",
             build=lambda path, binary: ["rustc", "-O", "--edition", "2021", "-o", binary, path],
             natives=lambda path, binary: [("native binary", [binary])],
             steps="rustc + lld")


def scientific(url, n, p, native, cli):
    """scripts/bench-scientific: NATIVE is a CPython with the stack, CLI wasi-python's CLI."""
    programs = {
        "numpy": "import numpy as np\nprint(int(np.arange(1000).sum()))",
        "pandas": "import pandas as pd\n"
                  "df = pd.DataFrame({'k': [1, 2, 1, 2], 'v': [1.0, 2.0, 3.0, 4.0]})\n"
                  "print(df.groupby('k')['v'].sum().to_dict())",
        "sklearn": "import numpy as np\nfrom sklearn.linear_model import LinearRegression\n"
                   "x = np.arange(20.0).reshape(-1, 1)\n"
                   "print(round(float(LinearRegression().fit(x, 3 * x.ravel() + 1).coef_[0]), 3))",
    }

    def sandbox(code):
        request = {"language": "python", "code": code, "run_timeout": 60}
        return http_run(url, request, runtime="python_scientific")

    def cli_run(code):
        started = time.perf_counter()
        out = subprocess.run([cli, "run", "--", "-c", code], capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        result = json.loads(out.stdout)
        assert out.returncode == 0 and result["exit_code"] == 0, (out, result)
        return elapsed, result["stdout"]

    print(f"N={n} sequential runs for p50/p99, N runs {p} at a time for runs/s")
    print(f"{'program':8} {'where':22} {'p50 ms':>8} {'p99 ms':>8} {'runs/s':>8}  output")
    for name, code in programs.items():
        for where, run in (("sandbox (HTTP)", sandbox),
                           ("native python3", lambda code: native_run([native, "-c", code])),
                           ("wasi-python run (CLI)", cli_run)):
            once = lambda run=run, code=code: run(code)  # noqa: E731
            out = once()[1].strip()
            p50, p99, rate = measure(once, n, p)
            print(f"{name:8} {where:22} {p50:8.1f} {p99:8.1f} {rate:8.2f}  {out}")


def interpreters(url, n, p, *only):
    """scripts/bench-interpreters: ONLY, when given, names the languages to run."""
    programs = {
        "lua": ("lua5.4", "lua", {
            "sum": "local a, b = io.read('n', 'n')\nprint(a + b)",
            "loop": "local s = 0\nfor i = 1, 1000000 do s = s + i % 7 end\nprint(s)",
        }),
        "sql": ("sqlite3", "sql", {
            "sum": "CREATE TABLE t(a, b);\nINSERT INTO t VALUES (2, 40);\nSELECT a + b FROM t;",
            "loop": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000) SELECT sum(i % 7) FROM r;",
        }),
        "nodejs": ("node", "js", {
            "sum": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);",
            "loop": "let s = 0;\nfor (let i = 1; i <= 1000000; i++) s += i % 7;\nconsole.log(s);",
        }),
        "ruby": ("ruby", "rb", {
            "sum": "a, b = gets.split.map(&:to_i)\nputs a + b",
            "loop": "s = 0\ni = 1\nwhile i <= 1_000_000\n  s += i % 7\n  i += 1\nend\nputs s",
        }),
    }
    stdin = "2 40\n"

    def native_cmd(cmd, path):
        if cmd == "sqlite3":
            return ["sqlite3", "-batch", ":memory:", f".read {path}"]
        return [cmd, path]

    print(f"N={n} sequential runs for p50/p99, N runs {p} at a time for runs/s")
    print(f"{'language':8} {'program':6} {'where':14} {'p50 ms':>8} {'p99 ms':>8} {'runs/s':>8}  output")
    with tempfile.TemporaryDirectory() as tmp:
        for language, (cmd, ext, sources) in programs.items():
            if only and language not in only:
                continue
            for name, code in sources.items():
                path = os.path.join(tmp, f"{name}.{ext}")
                with open(path, "w") as f:
                    f.write(code)
                request = {"language": language, "code": code, "stdin": stdin}
                for where, run in (("sandbox (HTTP)", lambda: http_run(url, request)),
                                   (f"native {cmd}", lambda: native_run(native_cmd(cmd, path), stdin))):
                    out = run()[1].strip()
                    p50, p99, rate = measure(run, n, p)
                    print(f"{language:8} {name:6} {where:14} {p50:8.2f} {p99:8.2f} {rate:8.1f}  {out}")


BENCHMARKS = {"go": go, "rust": rust, "scientific": scientific, "interpreters": interpreters}

if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] not in BENCHMARKS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(BENCHMARKS)}}} URL N P [ARGS...]")
    benchmark, url, n, p = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    BENCHMARKS[benchmark](url, n, p, *sys.argv[5:])
