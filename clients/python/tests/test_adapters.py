"""The TRL and verl adapters, called exactly as those trainers call them, against the real
service."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace
from typing import List

import hacrl
import hacrl.verl


def test_trl_reward_grades_completions_against_the_label_column(url: str):
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
):
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


def test_verl_compute_score_loaded_by_path_as_verl_does(url: str, monkeypatch, math_tasks: List[str]):
    monkeypatch.setenv("HACRL_URL", url)
    # verl's custom_reward_function: importlib from custom_reward_function.path, then getattr(name).
    spec = importlib.util.spec_from_file_location("custom_module", hacrl.verl.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compute_score = getattr(module, "compute_score")

    assert compute_score("openai/gsm8k", "so \\boxed{72}", "72") == 1.0
    assert compute_score("openai/gsm8k", "so \\boxed{71}", "72", {"split": "train", "index": 0}) == 0.0
    code_truth = '{"language": "python", "style": "stdio", "cases": [{"stdin": "", "stdout": "hi"}]}'
    assert compute_score("code", "```python\nprint('hi')\n```", code_truth) == 1.0
    assert compute_score("pool", "\\boxed{42}", None, {"task_id": math_tasks[1]}) == 1.0

    batch = getattr(module, "compute_score_batch")
    assert batch(
        data_sources=["a", "b"],
        solution_strs=["\\boxed{18}", "\\boxed{1}"],
        ground_truths=["18", "2"],
        extra_infos=[None, None],
    ) == [1.0, 0.0]


class _Scalar:
    """Stands for a numpy scalar as `datasets` hands it over (`tolist()` gives the value)."""

    def __init__(self, value: object):
        self.value = value

    def tolist(self) -> object:
        return self.value


def test_labels_from_array_columns_are_sent_as_plain_json(url: str, monkeypatch):
    fn = hacrl.trl.reward(url)
    assert fn(prompts=["p"], completions=["\\boxed{18}"], answer=[_Scalar(18)]) == [1.0]
    monkeypatch.setenv("HACRL_URL", url)
    assert hacrl.verl.compute_score("s", "\\boxed{7}", _Scalar(7)) == 1.0
