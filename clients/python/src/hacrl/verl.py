"""verl reward functions scored by the verifier.

verl loads a custom reward function from a file path and a name:

    custom_reward_function.path=$(python -c 'import hacrl.verl as m; print(m.__file__)')
    custom_reward_function.name=compute_score          # NaiveRewardManager, one call per sample
    # or, with reward_model.reward_manager=batch:
    custom_reward_function.name=compute_score_batch

and calls `compute_score(data_source, solution_str, ground_truth, extra_info)`. `ground_truth`
is the dataset's `reward_model.ground_truth`: a math answer, a code reference (object or JSON
text) or a pool task id; `extra_info["task_id"]`, when present, names a pool task instead. The
service URL comes from `$HACRL_URL` (default http://127.0.0.1:8080). This module does not
import verl.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

# Absolute: verl loads this file by path (importlib), outside its package.
from hacrl.client import Client, jsonable

_clients: Dict[str, Client] = {}


def _client() -> Client:
    # One connection pool per process and URL: verl calls compute_score once per sample, from
    # each of its reward workers.
    url = os.environ.get("HACRL_URL", "http://127.0.0.1:8080")
    if url not in _clients:
        _clients[url] = Client(url)
    return _clients[url]


def _label(ground_truth: Any, extra_info: Optional[Dict[str, Any]]) -> Any:
    if isinstance(extra_info, dict) and extra_info.get("task_id"):
        return {"task_id": str(extra_info["task_id"])}
    return jsonable(ground_truth)


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Optional[Dict[str, Any]] = None,
) -> float:
    """The reward of one response, in [0, 1]."""
    del data_source  # the label says how to grade; the data source adds nothing
    return float(_client().reward([solution_str], [_label(ground_truth, extra_info)])["rewards"][0])


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Optional[Dict[str, Any]]]] = None,
) -> List[float]:
    """The rewards of a batch, in one request (verl's `BatchRewardManager` signature)."""
    del data_sources
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    labels = [_label(g, e) for g, e in zip(ground_truths, infos)]
    return [float(x) for x in _client().reward(list(solution_strs), labels)["rewards"]]


__all__ = ["compute_score", "compute_score_batch"]
