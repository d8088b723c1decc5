"""Writes expected.json: each task's accepted solution and test run under native CPython with
the scientific stack (an independent runtime: the sandbox's is CPython 3.15 in wasm), and checks
that the other three variants are wrong (other output), crash (an exception) and slow (still
running after the time given). Run with a Python that has numpy, pandas, scipy, scikit-learn,
statsmodels and matplotlib:

    python tasks_gen.py   # from this folder
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SLOW_S = 5


def tasks():
    out, name, part = {}, None, None
    with open(os.path.join(HERE, "tasks.txt")) as f:
        for line in f:
            if line.startswith("=== "):
                name = line[4:].strip()
                out[name] = {}
            elif line.startswith("--- "):
                part = line[4:].strip()
                out[name][part] = ""
            else:
                out[name][part] += line
    return out


def run(source, timeout):
    with tempfile.TemporaryDirectory() as d:
        try:
            p = subprocess.run([sys.executable, "-c", source], cwd=d, capture_output=True,
                               text=True, timeout=timeout, env={**os.environ, "MPLBACKEND": "Agg"})
        except subprocess.TimeoutExpired:
            return "slow", ""
        return ("ok" if p.returncode == 0 else "crash"), p.stdout + p.stderr[-300:]


expected, problems = {}, []
for name, t in tasks().items():
    status, out = run(t["accepted"] + "\n" + t["test"], 60)
    if status != "ok":
        problems.append(f"{name} accepted: {status} {out}")
        continue
    expected[name] = out
    for variant, want in [("wrong", "ok"), ("crash", "crash"), ("slow", "slow")]:
        # Imports alone can take seconds on a loaded machine: only the slow variant is cut short.
        got, vout = run(t[variant] + "\n" + t["test"], SLOW_S if variant == "slow" else 120)
        if got != want or (variant == "wrong" and vout == out):
            problems.append(f"{name} {variant}: {got} {vout!r}")
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(expected)} tasks; {len(problems)} problems")
print("\n".join(problems))
