#!/usr/bin/env python3
"""Runs the workspace's test binaries side by side: what `cargo test --workspace --no-fail-fast`
runs, but several binaries at once.

`cargo test` runs one test binary after another. Most of the sandbox's and the verifier's binaries
keep both cores busy, but the trainer's run libtorch on one thread and several others wait on
clocks, so a sequential run leaves a core idle for much of its time. This builds the binaries with
`cargo test --no-run` (a no-op after scripts/test's build stage), then runs them `--jobs` at a
time, longest first by the durations the last run recorded and never more at once than the
machine's memory holds (by the peaks the last run recorded), each as cargo would run it (from its
package's folder, with cargo's environment variables), and prints each binary's whole output when
it ends, so outputs never interleave. Every binary runs even when another failed; the exit status
is non-zero if any did. Doc-tests run afterwards through cargo (`--doc`).

    scripts/test-binaries.py [--jobs N]
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARGO = os.environ.get("CARGO", "cargo")
# What each binary cost when it last ran here: seconds, and the peak memory of its process tree
# (its own and its children's, such as a vLLM server), in MiB. A binary starts only when its peak
# fits beside the running ones' in MEMORY_SHARE of the machine's memory: two big ones at once ran
# this 24 GiB machine out of memory (2026-12-07: the OOM killer ended engine_gemma, 19 GiB with
# its vLLM server, beside the scientific runtime's tests). The committed file serves a target that
# has none yet: seconds of a cold run on a 2-core machine, each binary's largest peak measured.
DEFAULT_COSTS = ROOT / "scripts" / "test-costs.json"
MEMORY_SHARE = 0.8
# For a binary never measured: a long one (so it is not left for the end) of middling size.
UNKNOWN = {"seconds": 600.0, "peak_mib": 4096}


def binaries():
    """(name, executable, package folder, package name, version) of every test binary."""
    out = subprocess.run(
        [CARGO, "test", "--workspace", "--locked", "--no-run",
         "--message-format=json-render-diagnostics"],
        cwd=ROOT, stdout=subprocess.PIPE, check=True, text=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            continue
        manifest = Path(msg["manifest_path"])
        # package_id: "path+file:///…/sandbox#0.1.0" or "…#name@0.1.0".
        spec = msg["package_id"].rsplit("#", 1)[-1]
        name, _, version = spec.rpartition("@")
        name = name or manifest.parent.name
        kinds = ",".join(msg["target"]["kind"])
        label = f"{name}::{msg['target']['name']}" + ("" if kinds == "test" else f" ({kinds})")
        found[msg["executable"]] = (label, msg["executable"], manifest.parent, name, version)
    return sorted(found.values())


def costs_file():
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "test-costs.json"


def machine_mib():
    with open("/proc/meminfo") as f:
        return int(f.readline().split()[1]) // 1024


PAGE = os.sysconf("SC_PAGE_SIZE")


def stat(pid):
    """The fields of /proc/PID/stat after the command name (field 3 first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree(root):
    """Resident memory of process `root` and all its descendants, in MiB, and each of those
    processes' start time by pid (by parentage: the test kit starts its servers in process
    groups of their own)."""
    children, rss, began = {}, {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := stat(entry)) is not None:
            pid = int(entry)
            children.setdefault(int(fields[1]), []).append(pid)
            rss[pid] = int(fields[21]) * PAGE
            began[pid] = fields[19]
    total, seen, stack = 0, {}, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        seen[pid] = began.get(pid)
        stack.extend(children.get(pid, []))
    return total >> 20, seen


def run(binary):
    """Runs one test binary as `cargo test` would; returns (label, seconds, peak MiB, code,
    output)."""
    label, exe, folder, package, version = binary
    env = dict(os.environ)
    env.update({
        "CARGO": CARGO,
        "CARGO_MANIFEST_DIR": str(folder),
        "CARGO_PKG_NAME": package,
        "CARGO_PKG_VERSION": version,
        "CARGO_CRATE_NAME": package.replace("-", "_"),
    })
    with tempfile.TemporaryFile(mode="w+b") as log:
        started = time.monotonic()
        proc = subprocess.Popen([exe], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
        peak, descendants = 0, {}
        while True:
            rss, seen = tree(proc.pid)
            peak = max(peak, rss)
            descendants.update(seen)
            try:
                code = proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                pass
        seconds = time.monotonic() - started
        # What it started ends with it: a binary killed mid-test (the OOM killer, a test's panic)
        # leaves its servers running otherwise, and one vLLM server, its engine gone, ignored the
        # SIGTERM its parent's death sent it and held 1.6 GB (seen 2026-12-07). A pid counts
        # only while its start time is the one seen, so a reused pid is never hit.
        for pid, began in descendants.items():
            fields = stat(pid)
            if pid != proc.pid and fields is not None and fields[19] == began:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass  # it ended meanwhile
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    return label, seconds, peak, code, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="test binaries running at once (default: the number of cores)")
    args = parser.parse_args()

    bins = binaries()
    path = costs_file()
    known = {}
    for source in (DEFAULT_COSTS, path):
        try:
            known.update(json.loads(source.read_text()))
        except (OSError, ValueError):
            pass
    cost = lambda b: known.get(b[0], UNKNOWN)  # noqa: E731
    queue = sorted(bins, key=lambda b: -cost(b)["seconds"])
    budget = machine_mib() * MEMORY_SHARE
    print(f"==> {len(bins)} test binaries, up to {args.jobs} at a time within "
          f"{budget / 1024:.0f} GiB", flush=True)

    failed, measured = [], {}
    lock = threading.Condition()
    running = {}  # label -> expected peak MiB

    def next_binary():
        """The longest binary left that fits beside the running ones (None when none is left)."""
        with lock:
            while queue:
                for i, b in enumerate(queue):
                    need = cost(b)["peak_mib"]
                    if not running or sum(running.values()) + need <= budget:
                        running[b[0]] = need
                        return queue.pop(i)
                lock.wait()
            return None

    def worker():
        while (b := next_binary()) is not None:
            label, seconds, peak, code, output = run(b)
            with lock:
                del running[label]
                measured[label] = {"seconds": round(seconds, 1), "peak_mib": peak}
                status = "ok" if code == 0 else f"FAILED ({code})"
                print(f"==> [{len(measured)}/{len(bins)}] {label}: {seconds:.1f} s, "
                      f"peak {peak} MiB, {status}", flush=True)
                print(output, flush=True)
                if code != 0:
                    failed.append(label)
                lock.notify_all()

    started = time.monotonic()
    workers = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    known.update(measured)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")

    print("==> doc-tests", flush=True)
    doc = subprocess.run([CARGO, "test", "--workspace", "--locked", "--doc"], cwd=ROOT)
    if doc.returncode != 0:
        failed.append("doc-tests")

    print(f"==> test binaries: {time.monotonic() - started:.0f} s wall, "
          f"{sum(m['seconds'] for m in measured.values()):.0f} s summed over binaries", flush=True)
    slowest = sorted(measured.items(), key=lambda kv: -kv[1]["seconds"])[:10]
    for label, m in slowest:
        print(f"    {m['seconds']:7.1f} s  {m['peak_mib']:6d} MiB  {label}")
    if failed:
        print("==> FAILED: " + ", ".join(failed), flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
