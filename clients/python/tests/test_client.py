"""The client against the real service: every resource, errors, batching and idempotent ids."""

from __future__ import annotations

import socket
import uuid
from typing import List

import pytest

import hacrl
from conftest import REPO
from hacrl.types import NewRollout


def test_agents_register_idempotently_and_conflicts_name_the_field(client: hacrl.Client, tag: str) -> None:
    a = client.create_agent(f"qwen-{tag}", family="qwen3", size_params=1_700_000_000)
    again = client.create_agent(f"qwen-{tag}", family="qwen3", size_params=1_700_000_000)
    assert again["id"] == a["id"]
    assert client.agent(f"qwen-{tag}")["id"] == a["id"]
    assert client.agent(a["id"])["name"] == f"qwen-{tag}"
    assert a["id"] in {x["id"] for x in client.agents()}
    with pytest.raises(hacrl.HacrlError) as e:
        client.create_agent(f"qwen-{tag}", family="llama")
    assert e.value.status == 409
    with pytest.raises(hacrl.HacrlError) as e:
        client.agent(f"nobody-{tag}")
    assert e.value.status == 404


def test_tasks_import_as_json_and_json_lines_and_page(client: hacrl.Client, tag: str, math_tasks: List[str]) -> None:
    # Re-importing the same tasks is a no-op.
    again = client.import_tasks(
        [{"dataset": f"py-{tag}", "external_id": "0", "kind": "math", "prompt": "question 0",
          "reference": {"answer": "18"}}]
    )
    assert (again["created"], again["unchanged"]) == (0, 1)
    assert again["tasks"][0]["id"] == math_tasks[0]

    gsm8k = client.import_jsonl(REPO / "e2e" / "data" / "gsm8k_test.jsonl", f"gsm8k-{tag}")
    assert gsm8k["created"] == len((REPO / "e2e/data/gsm8k_test.jsonl").read_text().splitlines())
    humaneval = client.import_jsonl(REPO / "data" / "HumanEval.jsonl.gz", f"he-{tag}")
    assert humaneval["created"] == 164
    rows = client.import_jsonl(
        [{"question": "What is 2 + 3?", "answer": "2 + 3 = 5\n#### 5"}], f"rows-{tag}"
    )
    assert rows["created"] == 1

    seen = list(client.iter_tasks(dataset=f"he-{tag}", page_size=50))
    assert len(seen) == 164 and len({t["id"] for t in seen}) == 164
    assert all(t["kind"] == "code" and "reference" not in t for t in seen)
    page = client.tasks(dataset=f"py-{tag}", limit=2)
    assert len(page["items"]) == 2 and "next" in page

    with pytest.raises(hacrl.HacrlError) as e:
        client.import_tasks([{"dataset": "d", "external_id": "1", "kind": "poetry", "prompt": "p",
                              "reference": "1"}])
    assert (e.value.status, e.value.field) == (422, "tasks[0].kind")


def test_rollouts_go_in_batches_with_client_ids_and_resubmit_as_duplicates(
    client: hacrl.Client, tag: str, math_tasks: List[str]
) -> None:
    agent = client.create_agent(f"a-{tag}")["id"]
    responses = ["\\boxed{18}", "\\boxed{41}", "\\boxed{7}", "it is 18", "\\boxed{42}"]
    rollouts: List[NewRollout] = [
        {"task_id": math_tasks[i % 3], "agent_id": agent, "run": tag, "step": 1, "response": r,
         "logprob_mean": -0.5}
        for i, r in enumerate(responses)
    ]
    out = client.submit_rollouts(rollouts, batch_size=2)  # three requests
    assert (out["created"], out["duplicates"]) == (5, 0)
    assert [r["correct"] for r in out["results"]] == [True, False, True, True, True]
    ids = [r["id"] for r in out["results"]]
    assert all(uuid.UUID(i) for i in ids) and len(set(ids)) == 5

    # The same rollouts with the ids the client chose: stored once, answered from the pool.
    again = client.submit_rollouts([{**r, "id": i} for r, i in zip(rollouts, ids)], batch_size=4)
    assert (again["created"], again["duplicates"]) == (0, 5)
    assert [r["reward"] for r in again["results"]] == [r["reward"] for r in out["results"]]
    listed = client.rollouts(run=tag, limit=100)["items"]
    assert sorted(r["id"] for r in listed) == sorted(ids)

    with pytest.raises(hacrl.HacrlError) as e:
        client.submit_rollouts([{"task_id": str(uuid.uuid4()), "agent_id": agent, "response": "1"}])
    assert (e.value.status, e.value.field) == (404, "rollouts[0].task_id")


def test_pool_groups_capability_and_metrics(client: hacrl.Client, tag: str, math_tasks: List[str]) -> None:
    a = client.create_agent(f"ga-{tag}")
    b = client.create_agent(f"gb-{tag}")
    client.submit_rollouts(
        [
            {"task_id": math_tasks[0], "agent_id": a["id"], "run": tag, "step": 1, "response": "\\boxed{18}"},
            {"task_id": math_tasks[0], "agent_id": b["id"], "run": tag, "step": 1, "response": "\\boxed{3}"},
            {"task_id": math_tasks[1], "agent_id": a["id"], "run": tag, "step": 2, "response": "\\boxed{42}"},
        ]
    )
    groups = client.pool_groups(run=tag, step=1)["groups"]
    assert len(groups) == 1
    assert sorted((m["agent"], m["reward"]) for m in groups[0]["rollouts"]) == [
        (f"ga-{tag}", 1.0), (f"gb-{tag}", 0.0)]
    cap = client.capability(f"ga-{tag}", run=tag, window=5)
    assert cap["capability"] == 1.0 and [s["step"] for s in cap["steps"]] == [1, 2]
    assert client.capability(b["id"], run=tag)["capability"] == 0.0

    subs = client.step_submissions(run=tag, step=1)
    assert sorted((x["agent"], x["rollouts"]) for x in subs["agents"]) == [(f"ga-{tag}", 1), (f"gb-{tag}", 1)]
    assert client.step_submissions(run=tag, step=2)["agents"][0]["agent"] == f"ga-{tag}"
    assert client.wait_for_step([f"ga-{tag}", f"gb-{tag}"], run=tag, step=1, timeout=5)["step"] == 1
    with pytest.raises(TimeoutError, match=f"gb-{tag}"):
        client.wait_for_step([f"ga-{tag}", f"gb-{tag}"], run=tag, step=2, timeout=0.3, poll=0.1)
    with pytest.raises(hacrl.HacrlError) as e:
        client.step_submissions(run=tag, step=-1)
    assert (e.value.status, e.value.field) == (422, "step")

    client.record_metrics(run=tag, agent_id=a["id"], step=1, loss=0.25, accuracy=1.0, extra={"lr": 1e-6})
    client.record_metrics(run=tag, agent_id=a["id"], step=1, loss=0.125)  # replaces step 1
    rows = client.metrics(run=tag, agent_id=a["id"])
    assert [(m["step"], m["loss"]) for m in rows] == [(1, 0.125)]


def test_stateless_math_code_and_run_code(client: hacrl.Client) -> None:
    assert client.verify_math("#### 1,234", "so \\boxed{1234}")["correct"] is True
    assert client.verify_math("18", "\\boxed{17}")["correct"] is False
    assert client.verify_math("18", "\\boxed{17}")["outcome"] == "incorrect"
    ref = {"language": "python", "style": "assert", "entry_point": "add",
           "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}
    v = client.verify_code(ref, "```python\ndef add(a, b):\n    return a + b\n```")
    assert (v["correct"], v["reward"]) == (True, 1.0)
    assert client.verify_code(ref, "def add(a, b):\n    return a - b\n")["correct"] is False

    r = client.run_code("print(input()[::-1])", stdin="abc")
    assert r["status"] == "Success" and r["run_result"] is not None
    assert r["run_result"]["stdout"] == "cba\n"
    r = client.run_code("raise SystemExit(3)")
    assert r["status"] == "Failed" and r["run_result"] is not None
    assert r["run_result"]["return_code"] == 3
    with pytest.raises(hacrl.HacrlError) as e:
        client.verify_math("1", "x" * (2 << 20))
    assert (e.value.status, e.value.field) == (422, "response")


def test_reward_takes_any_label_as_openrlhf_sends_it(client: hacrl.Client, math_tasks: List[str]) -> None:
    code = {"language": "python", "style": "stdio", "cases": [{"stdin": "2 3", "stdout": "5"}]}
    r = client.reward(
        ["P: \\boxed{18}", "P: \\boxed{42}", "P: ```python\na, b = map(int, input().split())\nprint(a + b)\n```", "P: 1"],
        [18, math_tasks[1], code, None],
        prompts=["P: "] * 4,
    )
    assert r["rewards"] == [1.0, 1.0, 1.0, 0.0]
    assert r["extra_logs"]["correct"] == [1.0, 1.0, 1.0, 0.0]
    assert r["extra_logs"]["code"] == [0.0, 0.0, 1.0, 0.0]
    with pytest.raises(hacrl.HacrlError) as e:
        client.reward(["q"], [{"foo": 1}])
    assert (e.value.status, e.value.field) == (422, "labels[0]")


def test_the_token_from_hacrl_token_is_sent(url: str, client: hacrl.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # scripts/test serves with tokens and exports an admin token in HACRL_TOKEN.
    import os

    if not os.environ.get("HACRL_TOKEN"):
        pytest.skip("the service under test asks for no token (HACRL_TOKEN unset)")
    assert isinstance(client.agents(), list)
    forged = "hacrl_" + uuid.uuid4().hex + "_" + "x" * 43
    with hacrl.Client(url, token=forged, retries=0) as bad:
        with pytest.raises(hacrl.HacrlError) as e:
            bad.agents()
    assert (e.value.status, e.value.code, e.value.field) == (401, "unauthenticated", "authorization")
    monkeypatch.delenv("HACRL_TOKEN")
    with hacrl.Client(url, retries=0) as anonymous:
        with pytest.raises(hacrl.HacrlError) as e:
            anonymous.agents()
    assert e.value.status == 401


def test_a_token_over_its_rate_is_retried_after_retry_after(url: str, tag: str) -> None:
    import os
    import subprocess
    import time

    binary, db = os.environ.get("HACRL_VERIFIER_BIN"), os.environ.get("DATABASE_URL")
    if not (os.environ.get("HACRL_TOKEN") and binary and db):
        pytest.skip("needs a service asking for tokens, HACRL_VERIFIER_BIN and DATABASE_URL")
    # One request per second, none above it: the second call at once gets a 429.
    token = subprocess.run(
        [binary, "token", "create", "--name", f"slow-{tag}", "--scope", "score", "--days", "1",
         "--rate", "1", "--burst", "1", "--database-url", db],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    with hacrl.Client(url, token=token, retries=0) as once:
        assert once.verify_math("1", "\\boxed{1}")["correct"] is True
        with pytest.raises(hacrl.HacrlError) as e:
            once.verify_math("1", "\\boxed{1}")
        assert (e.value.status, e.value.code, e.value.field) == (429, "rate_limited", "authorization")
    with hacrl.Client(url, token=token, retries=3, backoff=0.01) as patient:
        started = time.monotonic()
        assert patient.verify_math("2", "\\boxed{2}")["correct"] is True
        assert patient.verify_math("3", "\\boxed{3}")["correct"] is True
        # The client waited for Retry-After (1 s), not its own 10 ms back-off.
        assert time.monotonic() - started >= 0.9


def test_errors_are_classes_by_the_services_codes(url: str, client: hacrl.Client) -> None:
    with pytest.raises(hacrl.NotFound) as not_found:
        client.agent("no/such agent?")  # one quoted path segment, not three
    assert (not_found.value.status, not_found.value.code, not_found.value.transient) == (
        404, "not_found", False)
    with pytest.raises(hacrl.InvalidRequest) as invalid:
        client.verify_math("1", "x" * (2 << 20))
    assert (invalid.value.status, invalid.value.field) == (422, "response")
    assert isinstance(invalid.value, hacrl.HacrlError)
    # Nothing listens there: no answer at all, after the retries, as ConnectionFailed.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with hacrl.Client(closed, retries=1, backoff=0.01) as down:
        with pytest.raises(hacrl.ConnectionFailed) as no_answer:
            down.agents()
    assert no_answer.value.transient and no_answer.value.status == 0


def test_the_async_client_makes_the_same_calls(url: str, tag: str, math_tasks: List[str]) -> None:
    import asyncio

    async def main() -> None:
        async with hacrl.AsyncClient(url) as c:
            assert await c.ready()
            agent = await c.create_agent(f"async-{tag}")
            assert (await c.agent(agent["name"]))["id"] == agent["id"]
            # Concurrent calls on one client, as an async trainer makes them.
            verdicts = await asyncio.gather(
                c.verify_math("18", "\\boxed{18}"), c.verify_math("18", "\\boxed{17}")
            )
            assert [v["outcome"] for v in verdicts] == ["correct", "incorrect"]
            rollouts: List[NewRollout] = [{"task_id": t, "agent_id": agent["id"], "run": tag, "step": 1,
                         "response": "\\boxed{18}"} for t in math_tasks]
            out = await c.submit_rollouts(rollouts, batch_size=2)
            assert (out["created"], len(out["results"])) == (len(math_tasks), len(math_tasks))
            s = await c.wait_for_step([agent["name"]], run=tag, step=1, timeout=10)
            assert s["agents"][0]["rollouts"] == len(math_tasks)
            seen = [t["id"] async for t in c.iter_tasks(dataset=f"py-{tag}", page_size=1)]
            assert sorted(seen) == sorted(math_tasks)
            run = await c.run_code("print(input()[::-1])", stdin="abc")
            assert run["run_result"] is not None and run["run_result"]["stdout"] == "cba\n"
            with pytest.raises(hacrl.NotFound):
                await c.agent(f"nobody-{tag}")

    asyncio.run(main())
