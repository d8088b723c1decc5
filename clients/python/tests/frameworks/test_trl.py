"""`hacrl.trl` inside TRL's own reward computation: `GRPOTrainer._calculate_rewards` of the
installed TRL, called as `_generate_and_score_completions` calls it, on a stand-in for the rest
of the trainer (its accelerator's device, reward functions and their names, state and metric
log): the reward-calling code itself is TRL's, the model and generation are not needed."""

from __future__ import annotations

import asyncio
import pickle
import threading
from collections import defaultdict
from types import SimpleNamespace
from typing import Any, Dict, List

import trl
from accelerate import PartialState
from trl import GRPOTrainer

import hacrl.trl


def test_the_pinned_version_is_installed():
    assert trl.__version__ == "1.16.0"


class Trainer:
    """What `_calculate_rewards` reads of a GRPOTrainer, with its metric log kept to inspect."""

    def __init__(self, *funcs: Any):
        # One CPU process, as accelerate sets it up for the trainer (TRL logs through it).
        self.accelerator = PartialState(cpu=True)
        self.args = SimpleNamespace(report_to=[])
        self.reward_funcs = list(funcs)
        self.reward_processing_classes = [None] * len(funcs)
        self.reward_func_names = [trl.trainer.utils.get_callable_name(f) for f in funcs]
        self.state = SimpleNamespace(global_step=3)
        self.environments = None
        self._pending_metrics: Dict[str, List[float]] = defaultdict(list)
        self._log_completion_extra = lambda column, values: None
        self.async_loop = asyncio.new_event_loop()
        threading.Thread(target=self.async_loop.run_forever, daemon=True).start()

    _log_metric = GRPOTrainer._log_metric

    def rewards(self, inputs: List[Dict[str, Any]], completions: List[Any]) -> List[float]:
        prompts = [x["prompt"] for x in inputs]
        ids = [[1, 2]] * len(completions)
        out = GRPOTrainer._calculate_rewards(self, inputs, prompts, completions, ids)
        return out[:, 0].tolist()


def same(a: List[float], b: List[Any]) -> bool:
    """Equal, with None expected where TRL holds NaN (a row left out)."""
    return len(a) == len(b) and all(
        (y is None and x != x) or x == y for x, y in zip(a, b)
    )


def test_plain_rows_with_extra_columns_and_an_incidental_task_id(url: str):
    t = Trainer(hacrl.trl.Reward(url))
    # HumanEval/MBPP-like rows carry a task_id that is not a pool task: the answer column wins.
    inputs = [
        {"prompt": "2 + 16?", "answer": "18", "task_id": "HumanEval/0", "source": "x"},
        {"prompt": "6 * 7?", "answer": 42, "task_id": "HumanEval/1", "source": "y"},
        {"prompt": "gap", "answer": float("nan"), "task_id": "HumanEval/2", "source": "z"},
        {"prompt": "none", "answer": None, "task_id": "HumanEval/3", "source": "z"},
    ]
    rewards = t.rewards(inputs, ["\\boxed{18}", "\\boxed{41}", "\\boxed{1}", "\\boxed{1}"])
    assert same(rewards, [1.0, 0.0, None, None])
    assert t._pending_metrics["hacrl/unlabelled"] == [2.0]
    assert t._pending_metrics["hacrl/judge_errors"] == [0.0]


def test_conversational_rows_are_graded_on_the_last_assistant_message(url: str):
    t = Trainer(hacrl.trl.Reward(url))
    prompt = [{"role": "user", "content": "2 + 16?"}]
    inputs = [{"prompt": prompt, "answer": "18"}] * 2
    completions = [
        [{"role": "assistant", "content": "It is \\boxed{18}."}],
        # A tool's result after the answer is not the model's answer.
        [{"role": "assistant", "content": "\\boxed{18}"},
         {"role": "tool", "content": "\\boxed{99}"}],
    ]
    assert t.rewards(inputs, completions) == [1.0, 1.0]


def test_an_async_reward_function_pickled_as_the_async_trainer_does(url: str):
    fn = pickle.loads(pickle.dumps(hacrl.trl.AsyncReward(url, name="hacrl_async")))
    t = Trainer(fn)
    assert t.reward_func_names == ["hacrl_async"]
    assert trl.trainer.utils.is_async_callable(fn)
    inputs = [{"prompt": "p", "answer": "7"}, {"prompt": "p", "answer": "8"}]
    assert t.rewards(inputs, ["\\boxed{7}", "\\boxed{7}"]) == [1.0, 0.0]


def test_a_sandbox_failure_is_none_and_counted(url: str):
    # A program that exhausts its time budget on every run is graded, but one the sandbox
    # cannot judge (a reference in a language it does not run) is a judge error.
    t = Trainer(hacrl.trl.Reward(url))
    ref = {"language": "cobol", "style": "stdio", "cases": [{"stdin": "", "stdout": "1"}]}
    inputs = [{"prompt": "p", "answer": ref}, {"prompt": "p", "answer": "1"}]
    rewards = t.rewards(inputs, ["```cobol\nDISPLAY 1\n```", "\\boxed{1}"])
    assert same(rewards, [None, 1.0])
    assert t._pending_metrics["hacrl/judge_errors"] == [1.0]
