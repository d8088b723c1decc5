#!/usr/bin/env python3
"""Side-by-side run of our math checker and Math-Verify 0.9.0 on the same pairs.

Runs `cargo bench -p verifier --bench math` (which grades GSM8K and Minerva references against
themselves and against perturbed answers, writes every pair with our verdict, and prints our
checks/s/core), then grades the same pairs with Math-Verify (parse both sides + verify, one core),
and prints throughput, the ratio, and the agreement rate per set/kind as a Markdown table.

Usage: verifier/benches/mathverify_compare.sh  (installs Math-Verify on demand, then runs this
file with the venv's Python from the repository root)
Options: --pairs PATH (reuse a pairs file, skip cargo), --limit N (Math-Verify on N pairs per
set/kind), --disagreements PATH (write the pairs where the two checkers differ).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time


def run_cargo(pairs_path):
    env = dict(os.environ, MATH_BENCH_PAIRS=pairs_path)
    print("running cargo bench -p verifier --bench math ...", file=sys.stderr, flush=True)
    out = subprocess.run(
        ["cargo", "bench", "-p", "verifier", "--bench", "math"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout
    print(out, file=sys.stderr)
    rates = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)$", line.strip())
        if m:
            rates[(m.group(1), m.group(2))] = float(m.group(5))
    return rates


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", help="existing pairs file (skips cargo; no throughput for ours)")
    ap.add_argument("--limit", type=int, default=0, help="max pairs per set/kind for Math-Verify")
    ap.add_argument("--disagreements", default="target/math-bench/disagreements.jsonl")
    ap.add_argument("--cases", help="instead: run Math-Verify on our hand-written cases file and "
                    "list where it differs from the expected labels")
    args = ap.parse_args()

    from math_verify import parse, verify  # noqa: E402  (after argparse so --help works anywhere)

    if args.cases:
        return compare_cases(args.cases, parse, verify)

    os.makedirs("target/math-bench", exist_ok=True)
    rates = {}
    pairs_path = args.pairs
    if not pairs_path:
        pairs_path = os.path.abspath("target/math-bench/pairs.jsonl")
        rates = run_cargo(pairs_path)
    with open(pairs_path) as f:
        pairs = [json.loads(line) for line in f]

    groups = collections.defaultdict(list)
    for p in pairs:
        groups[(p["set"], p["kind"])].append(p)
    if args.limit:
        for k in groups:
            groups[k] = groups[k][: args.limit]

    # Warm up sympy/antlr so import and first-call costs are not charged to the first group.
    verify(parse("\\frac{1}{2}"), parse("0.5"))

    results = {}
    disagreements = []
    total = sum(len(v) for v in groups.values())
    done = 0
    for key in sorted(groups):
        items = groups[key]
        agree = mv_correct = ours_correct = 0
        t0 = time.perf_counter()
        for p in items:
            try:
                ok = bool(verify(parse(p["reference"]), parse(p["response"])))
            except Exception:  # Math-Verify may raise on odd input; count as incorrect
                ok = False
            agree += ok == p["correct"]
            mv_correct += ok
            ours_correct += p["correct"]
            if ok != p["correct"]:
                disagreements.append(dict(p, mathverify=ok))
        dt = time.perf_counter() - t0
        done += len(items)
        print(f"  math-verify {key[0]}/{key[1]}: {len(items)} pairs in {dt:.1f}s ({done}/{total})",
              file=sys.stderr, flush=True)
        results[key] = dict(n=len(items), agree=agree, mv=mv_correct, ours=ours_correct,
                            mv_rate=len(items) / dt if dt > 0 else float("inf"))

    with open(args.disagreements, "w") as f:
        for d in disagreements:
            f.write(json.dumps(d) + "\n")

    print("| set | kind | pairs | ours correct | Math-Verify correct | agreement | "
          "ours checks/s/core | Math-Verify checks/s/core | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")

    def row(name_set, name_kind, rs, ours_rate):
        n = sum(r["n"] for r in rs)
        agree = sum(r["agree"] for r in rs)
        mv_time = sum(r["n"] / r["mv_rate"] for r in rs)
        mv_rate = n / mv_time if mv_time else float("nan")
        ratio = f"{ours_rate / mv_rate:,.0f}×" if ours_rate else "n/a"
        ours = f"{ours_rate:,.0f}" if ours_rate else "n/a"
        print(f"| {name_set} | {name_kind} | {n} | {sum(r['ours'] for r in rs)} | "
              f"{sum(r['mv'] for r in rs)} | {100 * agree / n:.1f}% | {ours} | "
              f"{mv_rate:,.0f} | {ratio} |")

    for key in sorted(results):
        row(key[0], key[1], [results[key]], rates.get(key))
    for s in sorted({k[0] for k in results}):
        row(s, "all", [r for k, r in results.items() if k[0] == s], rates.get((s, "all")))
    row("all", "all", list(results.values()), rates.get(("all", "all")))
    print(f"\n{len(disagreements)} disagreements written to {args.disagreements}", file=sys.stderr)


def compare_cases(path, parse, verify):
    """Math-Verify on our labelled cases; bare LaTeX is wrapped in $...$ as Math-Verify expects."""
    def wrap(t):
        anchored = any(k in t for k in ["$", "\\boxed", "\\(", "\\[", "####"])
        return t if anchored or len(t.split()) > 3 else f"${t}$"

    rows = [json.loads(line) for line in open(path)]
    rows = [r for r in rows if r["category"] != "safety"]
    differ = collections.Counter()
    for r in rows:
        try:
            ok = bool(verify(parse(wrap(r["reference"])), parse(wrap(r["response"]))))
        except Exception:
            ok = False
        if ok != r["expected"]:
            differ[r["category"]] += 1
            print(f"[{r['category']}] expected={r['expected']} math-verify={ok}: "
                  f"{r['reference']!r} vs {r['response']!r} {r['why']}")
    total = sum(differ.values())
    print(f"\nMath-Verify matches the expected label on {len(rows) - total} of {len(rows)} cases "
          f"({100 * (len(rows) - total) / len(rows):.1f}%); differences by category: {dict(differ)}")


if __name__ == "__main__":
    main()
