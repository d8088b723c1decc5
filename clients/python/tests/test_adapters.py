"""The TRL and verl adapters, called exactly as those trainers call them, against the real
service."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import threading
import time
from types import SimpleNamespace
from typing import Any, List, Optional, Tuple

import pytest

import hacrl
import hacrl.scoring
import hacrl.verl
from hacrl.scoring import OnError
from hacrl.types import RewardResponse


def test_trl_reward_grades_completions_against_the_label_column(url: str) -> None:
    fn = hacrl.trl.reward(url, label_column="answer")
    assert fn.__name__ == "hacrl"  # TRL logs each reward under its function's name
    # GRPOTrainer: prompts, completions, then every other column of the batch as a keyword.
    rewards = fn(
        prompts=["2 + 16?", "6 * 7?", "Write inc.", "any"],
        completions=["\\boxed{18}", "\\boxed{41}",
                     "```python\ndef inc(x):\n    return x + 1\n```", "\\boxed{3}"],
        answer=[18, "42",
                {"language": "python", "style": "assert", "entry_point": "inc",
                 "test": "def check(c):\n    assert c(1) == 2\n"},
                ["3", "three"]],
        completion_ids=[[1], [2], [3], [4]],
        trainer_state=SimpleNamespace(global_step=3),
    )
    assert rewards == [1.0, 0.0, 1.0, 1.0]

    # Conversational datasets: prompts and completions are lists of messages.
    rewards = fn(
        prompts=[[{"role": "user", "content": "2 + 16?"}]],
        completions=[[{"role": "assistant", "content": "It is \\boxed{18}."}]],
        answer=["#### 18"],
    )
    assert rewards == [1.0]


def test_trl_reward_records_rollouts_of_pool_tasks(
    client: hacrl.Client, url: str, tag: str, math_tasks: List[str]
) -> None:
    fn = hacrl.trl.reward(url, record_as=f"trl-{tag}", run=tag)
    rewards = fn(
        prompts=["q0", "q0", "q1"],
        completions=["\\boxed{18}", "\\boxed{17}", "\\boxed{42}"],
        task_id=[math_tasks[0], math_tasks[0], math_tasks[1]],
        trainer_state=SimpleNamespace(global_step=4),
    )
    assert rewards == [1.0, 0.0, 1.0]
    groups = client.pool_groups(run=tag, step=4)["groups"]
    assert sorted(len(g["rollouts"]) for g in groups) == [1, 2]
    assert client.capability(f"trl-{tag}", run=tag)["steps"][0]["accuracy"] == 2 / 3

    # Without task ids it cannot record, and says why.
    try:
        fn(prompts=["q"], completions=["1"], answer=["1"])
    except ValueError as e:
        assert "task_id" in str(e)
    else:
        raise AssertionError("expected a ValueError")


def test_verl_compute_score_loaded_by_path_as_verl_does(
    url: str, monkeypatch: pytest.MonkeyPatch, math_tasks: List[str]
) -> None:
    monkeypatch.setenv("HACRL_URL", url)
    # verl's reward.custom_reward_function: importlib from its path, then getattr(name).
    spec = importlib.util.spec_from_file_location("custom_module", hacrl.verl.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compute_score = getattr(module, "compute_score")

    def score(*args: Any, **kwargs: Any) -> float:
        value: float = compute_score(*args, **kwargs)["score"]
        return value

    assert score("openai/gsm8k", "so \\boxed{72}", "72") == 1.0
    assert score("openai/gsm8k", "so \\boxed{71}", "72", {"split": "train", "index": 0}) == 0.0
    code_truth = '{"language": "python", "style": "stdio", "cases": [{"stdin": "", "stdout": "hi"}]}'
    assert score("code", "```python\nprint('hi')\n```", code_truth) == 1.0
    assert score("pool", "\\boxed{42}", None, {"task_id": math_tasks[1]}) == 1.0
    # verl 0.9 passes keywords only, plus reward_kwargs and reward-model settings.
    assert compute_score(
        data_source="s", solution_str="\\boxed{3}", ground_truth="3", extra_info={},
        reward_router_address=None, some_reward_kwarg=1,
    ) == {"score": 1.0, "acc": 1.0, "judge_error": 0.0, "failed": 0.0}
    # No ground truth: 0.0, counted as failed rather than learnt from as a wrong answer.
    assert compute_score(data_source="s", solution_str="1", ground_truth=float("nan"))["failed"] == 1.0


class _Scalar:
    """Stands for a numpy scalar as `datasets` hands it over (`tolist()` gives the value)."""

    def __init__(self, value: object):
        self.value = value

    def tolist(self) -> object:
        return self.value


def test_labels_from_array_columns_are_sent_as_plain_json(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fn = hacrl.trl.reward(url)
    assert fn(prompts=["p"], completions=["\\boxed{18}"], answer=[_Scalar(18)]) == [1.0]
    monkeypatch.setenv("HACRL_URL", url)
    assert hacrl.verl.compute_score("s", "\\boxed{7}", _Scalar(7))["score"] == 1.0


def _start(binary: str, database: str, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [binary, "serve", "--listen", f"127.0.0.1:{port}", "--database-url", database],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    hacrl.Client(f"http://127.0.0.1:{port}").wait_ready(120)
    return proc


class _StopAfterFirstChunk(hacrl.scoring.Grader):
    """Stops the service once the first chunk is graded: an outage in the middle of a batch."""

    proc: Optional[subprocess.Popen[bytes]] = None

    def post(
        self, queries: List[str], labels: List[Any], prompts: Optional[List[str]] = None
    ) -> RewardResponse:
        answer = super().post(queries, labels, prompts)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        return answer


def test_an_outage_mid_batch_follows_the_failure_policy() -> None:
    binary, database = os.environ.get("HACRL_VERIFIER_BIN"), os.environ.get("DATABASE_URL")
    if not binary or not database:
        pytest.skip("needs HACRL_VERIFIER_BIN and DATABASE_URL (scripts/test sets both)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    answers, labels = ["\\boxed{1}", "\\boxed{2}", "\\boxed{3}", "\\boxed{4}"], [1, 2, 3, 5]

    policies: Tuple[Tuple[OnError, List[Optional[float]]], ...] = (
        ("none", [None, None]), ("zero", [0.0, 0.0]))
    for policy, rest in policies:
        grader = _StopAfterFirstChunk(url, on_error=policy, batch_size=2, deadline=1.0)
        grader.proc = _start(binary, database, port)
        scores = grader.grade(answers, labels)
        assert scores.rewards == [1.0, 1.0] + rest and scores.failed == 2

    # The default raises, after retrying within its deadline rather than a count of resends.
    grader = _StopAfterFirstChunk(url, batch_size=2, deadline=1.0)
    grader.proc = _start(binary, database, port)
    started = time.monotonic()
    with pytest.raises(hacrl.scoring.RewardUnavailable):
        grader.grade(answers, labels)
    assert 0.5 <= time.monotonic() - started < 10  # retried, then gave up at the deadline

    # Back within the deadline: every chunk graded.
    grader = _StopAfterFirstChunk(url, batch_size=2, deadline=60.0)
    grader.proc = _start(binary, database, port)
    threading.Timer(0.5, lambda: setattr(grader, "restarted", _start(binary, database, port))).start()
    try:
        assert grader.grade(answers, labels).rewards == [1.0, 1.0, 1.0, 0.0]
    finally:
        while not hasattr(grader, "restarted"):
            time.sleep(0.1)
        grader.restarted.terminate()
        grader.restarted.wait(10)


MATRIX = r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}"


def model_judge(response: str, label: object) -> Optional[float]:
    """Stands in for a model-based judge: module-level, so a Grader holding it pickles."""
    return 0.5 if "pmatrix" in response else None


def test_undecided_rows_go_to_the_callers_judge_and_the_rest_do_not(url: str) -> None:
    import pickle

    # A 2×2 plus a 2×1 matrix: the checker cannot compare it and abstains.
    odd = rf"$\boxed{{{MATRIX} + \begin{{pmatrix}} 1 \\ 2 \end{{pmatrix}}}}$"
    grader = pickle.loads(pickle.dumps(hacrl.scoring.Grader(url, on_undecided=model_judge)))
    s = grader.grade([odd, r"\boxed{7}", r"\boxed{8}"], [MATRIX, "7", "7"])
    assert s.undecided == [True, False, False]
    assert s.rewards == [0.5, 1.0, 0.0]
    plain = hacrl.scoring.Grader(url).grade([odd], [MATRIX])
    assert (plain.undecided, plain.rewards) == ([True], [0.0])
