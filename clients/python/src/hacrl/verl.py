"""verl reward functions scored by the verifier (tested with verl 0.9.1).

verl 0.9 loads a custom reward function from a file path and a name, under `reward.`:

    reward.custom_reward_function.path=$(python -c 'import hacrl.verl as m; print(m.__file__)')
    reward.custom_reward_function.name=compute_score          # one request per sample
    # or, one request per batch of concurrent samples:
    reward.custom_reward_function.name=compute_score_async

(the top-level `custom_reward_function.*` keys are still accepted by verl's config but its
`main_ppo` never reads them: verl's own `default_compute_score` then runs instead, silently).
Every reward manager of 0.9 (`naive`, `dapo`, `gdpo`, `remote`, `rate_limited`) calls
`compute_score(data_source=, solution_str=, ground_truth=, extra_info=, **kwargs)` once per
sample; `compute_score_async` is awaited on the reward worker's event loop, where the calls of
one batch arrive together and are sent as one `/v1/reward` request (of at most
`HACRL_BATCH_SIZE` rows).

`ground_truth` is the dataset's `reward_model.ground_truth`: a math answer, a code reference
(object or JSON text), verl's code ground truth `{"inputs": [...], "outputs": [...]}` (object or
JSON text), or a pool task id; `extra_info["task_id"]`, when present, names a pool task instead.

Both return a dict: `score` (what verl trains on), `acc` (1.0 when correct), `judge_error` (1.0
when the sandbox failed to judge: the score means nothing) and `failed` (1.0 when the service
could not grade it and the failure policy gave the score). verl logs every key of the dict per
step. A missing ground truth scores 0.0 with `failed` 1.0.

Settings come from the environment, since verl passes none: `HACRL_URL` (default
http://127.0.0.1:8080), `HACRL_ON_ERROR` (`raise`, the default, `none` or `zero`; `none` scores
0.0 here, as verl has no way to leave a sample out) and `HACRL_BATCH_SIZE` (default 64);
`reward.custom_reward_function.reward_kwargs` may set `on_error` too. This module does not import
verl.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Dict, List, Optional, Tuple

# Absolute: verl loads this file by path (importlib), outside its package.
from hacrl.scoring import Grader, Scores, check_on_error

_graders: Dict[Tuple[str, str, int], Grader] = {}


def _grader(on_error: Optional[str]) -> Grader:
    # One connection pool per process and setting: verl calls compute_score once per sample,
    # from each of its reward workers.
    url = os.environ.get("HACRL_URL", "http://127.0.0.1:8080")
    policy = check_on_error(on_error or os.environ.get("HACRL_ON_ERROR", "raise"))
    # verl cannot leave a sample out: "none" scores 0.0 and says so in `failed`.
    policy = "zero" if policy == "none" else policy
    size = int(os.environ.get("HACRL_BATCH_SIZE", "64"))
    key = (url, policy, size)
    if key not in _graders:
        _graders[key] = Grader(url, on_error=policy, batch_size=size)
    return _graders[key]


def _label(ground_truth: Any, extra_info: Any) -> Any:
    if isinstance(extra_info, dict) and extra_info.get("task_id"):
        return {"task_id": str(extra_info["task_id"])}
    return ground_truth


def _result(scores: Scores, i: int) -> Dict[str, float]:
    reward = scores.rewards[i]
    return {
        "score": 0.0 if reward is None else reward,
        "acc": 1.0 if scores.correct[i] else 0.0,
        "judge_error": 1.0 if scores.judge_error[i] else 0.0,
        # Graded rows always carry `correct`; unlabelled and failed ones never do.
        "failed": 1.0 if scores.correct[i] is None else 0.0,
    }


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Optional[Dict[str, Any]] = None,
    on_error: Optional[str] = None,
    **kwargs: Any,
) -> Dict[str, float]:
    """The reward of one response (see the module's documentation). Other keyword arguments
    verl passes (`reward_router_address`, `reward_kwargs` settings) are accepted and unused."""
    del data_source, kwargs  # the label says how to grade; the rest adds nothing
    scores = _grader(on_error).grade([solution_str], [_label(ground_truth, extra_info)])
    return _result(scores, 0)


# How long the first call of a batch waits for the others: verl's reward worker starts every
# sample of a batch at once, but each first decodes its response in a thread, so their calls
# arrive a few milliseconds apart.
_WINDOW_S = 0.05


class _Coalescer:
    """Gathers the `compute_score_async` calls that arrive on one event loop within `_WINDOW_S`
    of each other and grades them in one request (in a worker thread, so the loop keeps
    running)."""

    def __init__(self) -> None:
        self.pending: List[Tuple[str, Any, "asyncio.Future[Dict[str, float]]"]] = []

    async def submit(self, grader: Grader, response: str, label: Any) -> Dict[str, float]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Dict[str, float]] = loop.create_future()
        self.pending.append((response, label, future))
        if len(self.pending) == 1:
            loop.call_later(_WINDOW_S, lambda: loop.create_task(self._flush(grader)))
        return await future

    async def _flush(self, grader: Grader) -> None:
        batch, self.pending = self.pending, []
        try:
            scores = await asyncio.to_thread(
                grader.grade, [b[0] for b in batch], [b[1] for b in batch]
            )
        except Exception as e:  # the policy said raise: every caller of the batch sees it
            for _, _, f in batch:
                f.set_exception(e)
            return
        for i, (_, _, f) in enumerate(batch):
            f.set_result(_result(scores, i))


_coalescers: Dict[Tuple[int, Tuple[str, str, int]], _Coalescer] = {}


async def compute_score_async(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Optional[Dict[str, Any]] = None,
    on_error: Optional[str] = None,
    **kwargs: Any,
) -> Dict[str, float]:
    """`compute_score` as a coroutine; concurrent calls share one request."""
    del data_source, kwargs
    grader = _grader(on_error)
    key = (id(asyncio.get_running_loop()), (grader.url or "", grader.on_error, grader.batch_size))
    coalescer = _coalescers.setdefault(key, _Coalescer())
    return await coalescer.submit(grader, solution_str, _label(ground_truth, extra_info))


__all__ = ["compute_score", "compute_score_async"]
