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
    ap.add_argument("--cases", help="instead: grade a labelled cases file with both checkers and "
                    "print agreement with the labels and false positives per category")
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


def strip_think(text):
    """What TRL's reasoning_accuracy_reward grades: the text after the last </think>."""
    if "</think>" in text:
        return text.rsplit("</think>", 1)[1]
    i = text.find("<think>")
    return text if i < 0 else text[:i]


def our_case_verdicts(path):
    """Our verdict on every case, from the math bench's cases mode (release build)."""
    out = os.path.abspath("target/math-bench/case_verdicts.jsonl")
    env = dict(os.environ, MATH_BENCH_CASES=os.path.abspath(path), MATH_BENCH_CASES_OUT=out)
    print("running cargo bench -p verifier --bench math (cases mode) ...", file=sys.stderr,
          flush=True)
    subprocess.run(["cargo", "bench", "-p", "verifier", "--bench", "math"], env=env, check=True,
                   capture_output=True, text=True)
    return [json.loads(line) for line in open(out)]


def compare_cases(path, parse, verify):
    """Math-Verify beside ours on a labelled cases file, against the labels.

    Bare LaTeX is wrapped in $...$ as Math-Verify expects; a case graded by us with
    ignore_think is given to Math-Verify after the same cut (what TRL does before calling it).
    Safety cases (hostile sizes) are left out: Math-Verify's signal timeouts make them slow.
    """
    def wrap(t):
        anchored = any(k in t for k in ["$", "\\boxed", "\\(", "\\[", "####"])
        return t if anchored or len(t.split()) > 3 else f"${t}$"

    rows = [r for r in our_case_verdicts(path) if r["category"] != "safety"]
    stats = collections.defaultdict(collections.Counter)
    lines = []
    for r in rows:
        response = r["response"]
        if r.get("options", {}).get("ignore_think"):
            response = strip_think(response)
        try:
            mv = bool(verify(parse(wrap(r["reference"])), parse(wrap(response))))
        except Exception:
            mv = False
        for key in (r["category"], "all"):
            st = stats[key]
            st["n"] += 1
            st["positive"] += r["expected"]
            st["ours_agree"] += r["ours"] == r["expected"]
            st["mv_agree"] += mv == r["expected"]
            st["ours_fp"] += r["ours"] and not r["expected"]
            st["mv_fp"] += mv and not r["expected"]
        if mv != r["expected"] or r["ours"] != r["expected"]:
            lines.append(f"[{r['category']}] label={r['expected']} ours={r['ours']} "
                         f"math-verify={mv}: {r['reference']!r} vs {r['response']!r} ({r['why']})")
    print("\n".join(lines))
    print(f"\n{path}\n")
    print("| category | cases | labelled correct | ours agree | Math-Verify agree | "
          "ours false positives | Math-Verify false positives |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted(stats, key=lambda k: (k == "all", k)):
        st = stats[key]
        name = "**all**" if key == "all" else key
        print(f"| {name} | {st['n']} | {st['positive']} | {st['ours_agree']} "
              f"({100 * st['ours_agree'] / st['n']:.1f}%) | {st['mv_agree']} "
              f"({100 * st['mv_agree'] / st['n']:.1f}%) | {st['ours_fp']} | {st['mv_fp']} |")


if __name__ == "__main__":
    main()
