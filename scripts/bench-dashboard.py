#!/usr/bin/env python3
"""Page load times of the dashboard (/ui) on a large pool, next to the JSON API calls that read
the same rows.

Fills the pool of a running verifier through its REST API (so every rollout is scored and
stored as in a real run): RUNS runs x 2 agents x STEPS steps x PER_STEP rollouts, with metrics
rows per agent and step, then times each page and its JSON counterpart (median of REPEAT
requests, server + transfer, measured with a fresh connection each time, as a browser opening a
link does). Usage:

    scripts/up --no-import &             # or any verifier
    scripts/bench-dashboard.py http://127.0.0.1:8080 [--steps 500] [--per-step 64] [--runs 2]
    scripts/bench-dashboard.py http://127.0.0.1:8080 --run NAME   # time an existing run's pages

Standard library only.
"""

import argparse
import json
import statistics
import time
import urllib.parse
import urllib.request
import uuid


def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        payload = r.read()
        return r.status, payload


def post(base, path, body):
    status, payload = call(base + path, body)
    assert status in (200, 201), (path, status, payload[:300])
    return json.loads(payload)


def timed(url, repeat):
    times = []
    size = 0
    for _ in range(repeat):
        start = time.perf_counter()
        status, payload = call(url)
        times.append(time.perf_counter() - start)
        assert status == 200, (url, status)
        size = len(payload)
    return statistics.median(times), size


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--per-step", type=int, default=64, help="rollouts per agent per step")
    p.add_argument("--tasks", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--run", help="time this run's pages on the pool as it is (no fill)")
    a = p.parse_args()
    base = a.url.rstrip("/")
    if a.run:
        existing(base, a.run, a.repeat)
    else:
        fill_and_time(base, a)


def existing(base, run, repeat):
    """Times the pages of `run` in the pool as it stands."""
    seg = urllib.parse.quote(run, safe="")
    _, payload = call(f"{base}/v1/rollouts?run={seg}&limit=1")
    first = json.loads(payload)["items"][0]
    step = first["step"]
    print(f"run {run}: timing step {step}, task {first['task_id']}")
    table(base, run, step, first["task_id"], repeat)


def fill_and_time(base, a):
    tag = uuid.uuid4().hex[:8]

    agents = [post(base, "/v1/agents", {"name": f"bench-{n}-{tag}", "family": f})["id"]
              for n, f in (("llama", "llama"), ("qwen3", "qwen3"))]
    tasks = [{"dataset": f"bench-{tag}", "external_id": str(i), "kind": "math",
              "prompt": f"What is {i} + {i}? Answer with \\boxed{{}}.", "reference": str(2 * i)}
             for i in range(a.tasks)]
    post(base, "/v1/tasks", {"tasks": tasks})
    status, payload = call(f"{base}/v1/tasks?dataset=bench-{tag}&limit=1000")
    ids = {t["external_id"]: t["id"] for t in json.loads(payload)["items"]}
    task_ids = [ids[str(i)] for i in range(min(a.tasks, 1000))]

    start = time.perf_counter()
    stored = 0
    runs = [f"bench-{tag}/run{r}" for r in range(a.runs)]
    for run in runs:
        batch = []
        for step in range(a.steps):
            for k, agent in enumerate(agents):
                for i in range(a.per_step):
                    t = (step * a.per_step + i) % len(task_ids)
                    right = (i + step + k) % 3 == 0
                    answer = 2 * t if right else 2 * t + 1
                    batch.append({"id": str(uuid.uuid4()), "task_id": task_ids[t], "agent_id": agent,
                                  "run": run, "step": step,
                                  "response": f"{t} + {t} = {answer}, so \\boxed{{{answer}}}",
                                  "token_count": 20 + i % 7, "logprob_mean": -0.4, "logprob_sum": -9.0})
                post(base, "/v1/metrics", {
                    "run": run, "agent_id": agent, "step": step, "loss": -0.01 * k, "kl": 1e-3,
                    "grad_norm": 0.5, "extra": {"capability": 0.3 + 0.1 * k, "clip_own": 0.2,
                                                "clip_cross": 0.5, "entropy": 1.2,
                                                "omega_source_over_learner": {"other": 1.1}}})
            if len(batch) >= 4096 or step == a.steps - 1:
                post(base, "/v1/rollouts", {"rollouts": batch})
                stored += len(batch)
                batch = []
    fill = time.perf_counter() - start
    print(f"pool: {stored} rollouts in {len(runs)} runs, {a.steps} steps, filled in {fill:.0f} s")

    table(base, runs[0], a.steps // 2, task_ids[0], a.repeat)


def table(base, run, step, task, repeat):
    """One row per page: its median time and size, and its JSON counterpart's."""
    seg = urllib.parse.quote(run, safe="")
    rows = [
        ("runs list", "/ui", None),
        ("run page (curves + steps table)", f"/ui/runs/{seg}", f"/v1/metrics?run={seg}"),
        (f"step page (step {step})", f"/ui/runs/{seg}/steps/{step}",
         f"/v1/pool/groups?run={seg}&step={step}"),
        ("task page (≤ 500 rollouts)", f"/ui/tasks/{task}",
         f"/v1/rollouts?task_id={task}&limit=500"),
    ]
    print("| page | ms | KiB | JSON counterpart | ms | KiB |")
    print("|---|---:|---:|---|---:|---:|")
    for name, page, api in rows:
        t, n = timed(base + page, repeat)
        cols = [name, f"{t * 1e3:.0f}", f"{n / 1024:.0f}"]
        if api:
            ta, na = timed(base + api, repeat)
            cols += [f"`{api.split('?')[0]}`", f"{ta * 1e3:.0f}", f"{na / 1024:.0f}"]
        else:
            cols += ["", "", ""]
        print("| " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
