#!/usr/bin/env python3
"""Builds `problems.jsonl` (the task file `verifier import-tasks` reads) and `solutions.jsonl`
(each problem's right, wrong, slow and chatty solutions, for the tests) from the problems in
`problems.py` beside this file.

    python3 data/interactive/build.py           # writes the two files
    python3 data/interactive/build.py --check   # and first plays every solution against its
                                                # interactor natively (python3, g++), pipes
                                                # crossed: the right one is accepted on every
                                                # case, the wrong and chatty ones rejected on
                                                # some, the slow one still running after
                                                # TIME_LIMIT_MS on some

The build is deterministic: the same `problems.py` gives the same bytes.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

from problems import PROBLEMS, statement  # noqa: E402

# The program's wall-clock limit per case in the task files (the interactor gets the same).
TIME_LIMIT_MS = 6000
KINDS = ("right", "wrong", "slow", "chatty")
WORK = tempfile.mkdtemp(prefix="interactive-")


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
        with open(exe + ".cpp", "w") as f:
            f.write(source)
        subprocess.run(["g++", "-std=c++17", "-O2", "-o", exe, exe + ".cpp"], check=True)
    return [exe]


def play(problem, kind, case_input, seconds):
    """Plays one solution against the interactor on one case: the interactor's exit status,
    or "timeout" when it has not ended after `seconds`."""
    files = [os.path.join(WORK, name) for name in ("input.txt", "output.txt", "answer.txt")]
    for path, text in zip(files, [case_input, "", ""]):
        with open(path, "w") as f:
            f.write(text)
    with tempfile.TemporaryFile() as log:
        judge = subprocess.Popen(native("python", problem["interactor"]) + files,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        solution = subprocess.Popen(native(problem["language"], problem[kind]),
                                    stdin=judge.stdout, stdout=judge.stdin,
                                    stderr=subprocess.DEVNULL)
        judge.stdin.close()
        judge.stdout.close()
        try:
            status = judge.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            judge.kill()
            status = "timeout"
        solution.kill()
        solution.wait()
        judge.wait()
        log.seek(0)
        said = log.read().decode(errors="replace").strip().splitlines()
    return status, said[-1] if said else ""


def check(problem):
    """The four solutions behave as their names say; raises SystemExit when one does not."""
    seconds = TIME_LIMIT_MS / 1000
    for kind in KINDS:
        results = [play(problem, kind, stdin, seconds) for stdin, _ in problem["cases"]]
        statuses = [s for s, _ in results]
        ok = {
            "right": all(s == 0 for s in statuses),
            "wrong": 1 in statuses and set(statuses) <= {0, 1},
            "slow": "timeout" in statuses and set(statuses) <= {0, "timeout"},
            "chatty": 1 in statuses and set(statuses) <= {0, 1},
        }[kind]
        print(f"{problem['id']:20} {kind:7} {statuses}")
        if not ok:
            raise SystemExit(f"{problem['id']}: the {kind} solution gave {results}")


def task(problem):
    return {
        "external_id": problem["id"],
        "kind": "code",
        "prompt": statement(problem["text"], problem["language"]),
        "reference": {
            "language": problem["language"],
            "style": "stdio",
            "time_limit_ms": TIME_LIMIT_MS,
            "cases": [{"stdin": stdin + "\n", "stdout": answer + "\n"}
                      for stdin, answer in problem["cases"]],
            "interactor": {"language": "python", "source": problem["interactor"]},
        },
        "metadata": {"category": "interactive"},
    }


def main():
    if "--check" in sys.argv[1:]:
        for problem in PROBLEMS:
            check(problem)
    with open(os.path.join(HERE, "problems.jsonl"), "w") as f:
        for problem in PROBLEMS:
            f.write(json.dumps(task(problem), ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "solutions.jsonl"), "w") as f:
        for problem in PROBLEMS:
            row = {"external_id": problem["id"]}
            row.update({kind: {"language": problem["language"], "source": problem[kind]}
                        for kind in KINDS})
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
