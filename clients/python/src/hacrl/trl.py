"""TRL `GRPOTrainer` reward functions scored by the verifier (tested with TRL 1.16).

    from trl import GRPOTrainer
    import hacrl.trl

    trainer = GRPOTrainer(
        model=..., train_dataset=dataset,  # columns: "prompt", "answer" (and/or "task_id")
        reward_funcs=[hacrl.trl.Reward("http://127.0.0.1:8080", label_column="answer")],
    )

TRL calls a reward function as `f(prompts=, completions=, completion_ids=, **columns,
trainer_state=, log_extra=, log_metric=)`, every other dataset column arriving as a list aligned
with `completions`. A `None` reward leaves that row out of the loss. `Reward` and `AsyncReward`
are objects holding settings only (their HTTP client is made on first use in each process), so
they pickle, as TRL's async GRPO needs. This module does not import TRL.

Labels, in this order:
1. the `label_column` column (default `"answer"`) when the dataset has it: a math answer, a code
   reference object or its JSON text, verl's `{"inputs", "outputs"}`, or a pool task id;
2. else the `task_id_column` column (default `"task_id"`): pool task ids, graded against the
   hidden references the service holds.
An incidental `task_id` column (HumanEval, MBPP) thus never overrides the answers. A row whose
label is missing (None, NaN, blank) gets `None`.

What each row gets: the service's reward; `None` when the sandbox failed to judge it
(`judge_error`: the reward would mean nothing); and, when the service cannot grade a chunk, what
`on_error` says (`"raise"`, `"none"`, `"zero"`; see `hacrl.scoring`). Counts go to TRL's logs
through `log_metric`: `hacrl/judge_errors`, `hacrl/failed`, `hacrl/unlabelled`.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, List, Optional, Sequence

from .client import Client
from .scoring import Grader, OnError, Scores, check_on_error, completion_text


class Reward:
    """A `GRPOTrainer` reward function (see the module's documentation).

    With `record_as="agent-name"` (rows must carry task ids in `task_id_column`), every
    completion is also stored in the pool as a rollout of that agent (registered on first use)
    in run `run`, at the trainer's global step, through `/v1/rollouts`; the rewards then come
    from the stored verdicts. `name` is the function's `__name__`, TRL's label for the reward in
    its logs.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        label_column: str = "answer",
        task_id_column: str = "task_id",
        on_error: OnError = "raise",
        batch_size: int = 64,
        timeout: float = 60.0,
        deadline: float = 120.0,
        on_undecided: Optional[Callable[[str, Any], Optional[float]]] = None,
        record_as: Optional[str] = None,
        run: str = "trl",
        name: str = "hacrl",
    ) -> None:
        self.grader = Grader(
            url, on_error=check_on_error(on_error), batch_size=batch_size, timeout=timeout,
            deadline=deadline, on_undecided=on_undecided,
        )
        self.label_column = label_column
        self.task_id_column = task_id_column
        self.record_as = record_as
        self.run = run
        self.__name__ = name
        self._agent_id: Optional[str] = None

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
    ) -> List[Optional[float]]:
        responses = [completion_text(c) for c in completions]
        if self.record_as is not None:
            return self._record(self.record_as, responses, columns)
        labels = self._labels(columns)
        scores = self.grader.grade(responses, labels)
        _log(columns, scores)
        return [None if err else r for r, err in zip(scores.rewards, scores.judge_error)]

    def _labels(self, columns: Dict[str, Any]) -> Sequence[Any]:
        for key in (self.label_column, self.task_id_column):
            labels: Optional[Sequence[Any]] = columns.get(key)
            if labels is not None:
                return labels
        raise ValueError(
            f"the dataset has neither a '{self.label_column}' nor a '{self.task_id_column}' "
            f"column (columns: {sorted(k for k in columns if k not in _TRAINER_KWARGS)})"
        )

    def _record(
        self, agent: str, responses: List[str], columns: Dict[str, Any]
    ) -> List[Optional[float]]:
        task_ids = columns.get(self.task_id_column)
        if task_ids is None:
            raise ValueError(
                f"record_as needs a '{self.task_id_column}' column of pool task ids in the dataset"
            )
        client: Client = self.grader.client
        if self._agent_id is None:
            self._agent_id = client.create_agent(agent)["id"]
        state = columns.get("trainer_state")
        step = int(getattr(state, "global_step", 0) or 0)
        result = client.submit_rollouts(
            [
                {"task_id": str(t), "agent_id": self._agent_id, "run": self.run, "step": step,
                 "response": r}
                for t, r in zip(task_ids, responses)
            ]
        )
        return [
            None if x["status"] == "judge_error" else float(x["reward"]) for x in result["results"]
        ]

    def __getstate__(self) -> Dict[str, Any]:
        # The agent is looked up again in each process (registering is idempotent).
        return {**self.__dict__, "_agent_id": None}


class AsyncReward(Reward):
    """`Reward` as a coroutine: TRL gathers async reward functions on its own event loop, so
    grading runs in a worker thread while other reward functions proceed."""

    async def __call__(  # type: ignore[override]
        self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
    ) -> List[Optional[float]]:
        return await asyncio.to_thread(Reward.__call__, self, prompts, completions, **columns)


# What TRL passes besides dataset columns.
_TRAINER_KWARGS = frozenset(
    {"trainer_state", "log_extra", "log_metric", "completion_ids", "environments"}
)


def _log(columns: Dict[str, Any], scores: Scores) -> None:
    log_metric = columns.get("log_metric")
    if not callable(log_metric):
        return
    log_metric("hacrl/judge_errors", float(sum(scores.judge_error)))
    log_metric("hacrl/failed", float(scores.failed))
    log_metric("hacrl/unlabelled", float(scores.unlabelled))
    log_metric("hacrl/undecided", float(sum(scores.undecided)))


def reward(url: Optional[str] = None, **settings: Any) -> Reward:
    """`Reward(url, **settings)`, the name earlier versions documented."""
    return Reward(url, **settings)


__all__ = ["AsyncReward", "Reward", "reward"]
