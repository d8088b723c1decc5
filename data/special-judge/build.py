#!/usr/bin/env python3
"""Builds `problems.jsonl` (the task file `verifier import-tasks` reads) and `solutions.jsonl`
(each problem's reference, right-but-different and wrong solutions, for the tests) from the
problems defined in `problems.py` beside this file.

    python3 data/special-judge/build.py           # writes the two files
    python3 data/special-judge/build.py --check   # and runs everything natively first (python3,
                                                  # g++ with our testlib.h): each reference answer
                                                  # and right solution is accepted by its checker,
                                                  # exact comparison rejects the right one on
                                                  # some case, the checker the wrong one

The expected output of each case is the reference solution's (Python, run natively here).
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTLIB = os.path.join(HERE, "..", "..", "sandbox", "src", "toolchain", "cpp")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

from problems import PROBLEMS  # noqa: E402

WORK = tempfile.mkdtemp(prefix="special-judge-")


def native(language, source):
    """A command that runs `source` natively."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    if language == "python":
        path = os.path.join(WORK, digest + ".py")
        with open(path, "w") as f:
            f.write(source)
        return [sys.executable, path]
    exe = os.path.join(WORK, digest)
    if not os.path.exists(exe):
        src = exe + ".cpp"
        with open(src, "w") as f:
            f.write(source)
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", TESTLIB, "-o", exe, src], check=True)
    return [exe]


def run(language, source, stdin):
    out = subprocess.run(native(language, source), input=stdin, capture_output=True, text=True,
                         timeout=20)
    if out.returncode != 0:
        raise SystemExit(f"exit {out.returncode}: {out.stderr}\n{source}")
    return out.stdout


def exact(got, expected, tol=1e-6):
    """The judge's comparison without a checker (verifier/src/code/compare.rs): line by line,
    trimmed, trailing blank lines ignored, tokens equal or numbers within 1e-6."""

    def lines(s):
        v = [line.strip() for line in s.splitlines()]
        while v and not v[-1]:
            v.pop()
        return v

    def token(a, b):
        if a == b:
            return True
        if not any(c in a + b for c in ".eE"):
            return False
        try:
            x, y = float(a), float(b)
        except ValueError:
            return False
        return x == y or abs(x - y) <= tol * max(1.0, abs(x), abs(y))

    g, e = lines(got), lines(expected)
    return len(g) == len(e) and all(
        gl == el or (len(gl.split()) == len(el.split()) and all(map(token, gl.split(), el.split())))
        for gl, el in zip(g, e))


def check(p, stdin, output, answer):
    """The checker's exit status on one case (0 accept, 1 reject) and message."""
    folder = tempfile.mkdtemp(dir=WORK)
    for name, text in [("input.txt", stdin), ("output.txt", output), ("answer.txt", answer)]:
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    c = p["checker"]
    out = subprocess.run(native(c["language"], c["source"]) + ["input.txt", "output.txt",
                         "answer.txt"], cwd=folder, capture_output=True, text=True, timeout=20)
    if out.returncode not in (0, 1) or "Traceback" in out.stderr:
        raise SystemExit(f"{p['id']}: the checker failed ({out.returncode}): {out.stderr}")
    return out.returncode, out.stderr.strip()


def main():
    checking = "--check" in sys.argv[1:]
    ids = [p["id"] for p in PROBLEMS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    tasks, solutions = [], []
    for p in PROBLEMS:
        answers = [run("python", p["reference"], stdin) for stdin in p["cases"]]
        if checking:
            differs = rejected = False
            for stdin, answer in zip(p["cases"], answers):
                code, said = check(p, stdin, answer, answer)
                assert code == 0, f"{p['id']}: the answer is rejected: {said}\n{stdin}"
                right = run(p["language"], p["right"], stdin)
                code, said = check(p, stdin, right, answer)
                assert code == 0, f"{p['id']}: the right solution is rejected: {said}\n{stdin}"
                differs |= not exact(right, answer)
                try:
                    wrong = run(p["language"], p["wrong"], stdin)
                except SystemExit:
                    continue
                code, said = check(p, stdin, wrong, answer)
                rejected |= code == 1
            assert differs, f"{p['id']}: exact comparison accepts the right solution"
            assert rejected, f"{p['id']}: the wrong solution is never rejected"
            print(f"ok {p['id']}", file=sys.stderr)
        language = {"cpp": "C++", "python": "Python"}[p["language"]]
        prompt = (f"{p['statement'].strip()}\n\nWrite a {language} program that reads standard "
                  "input and writes standard output. Any valid answer is accepted.")
        tasks.append({
            "external_id": p["id"],
            "kind": "code",
            "prompt": prompt,
            "reference": {
                "language": p["language"],
                "style": "stdio",
                "cases": [{"stdin": s, "stdout": a} for s, a in zip(p["cases"], answers)],
                "checker": p["checker"],
            },
            "metadata": {"category": p["category"], "source": "hacrl-special-judge"},
        })
        solutions.append({
            "external_id": p["id"],
            "reference": {"language": "python", "source": p["reference"]},
            "right": {"language": p["language"], "source": p["right"]},
            "wrong": {"language": p["language"], "source": p["wrong"]},
        })
    for name, rows in [("problems.jsonl", tasks), ("solutions.jsonl", solutions)]:
        with open(os.path.join(HERE, name), "w") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(tasks)} problems", file=sys.stderr)


if __name__ == "__main__":
    main()
