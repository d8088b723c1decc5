"""An OpenRLHF `reward_func(queries, prompts, labels)` file scored by the verifier (tested with
OpenRLHF 0.11.2; its flags are those of 0.10.2 and later).

OpenRLHF takes a reward from either a URL or a Python file, both through `--reward.remote_url`:

    --reward.remote_url http://127.0.0.1:8080/v1/reward --data.label_key answer
    # or, with a failure policy:
    --reward.remote_url $(python -c 'import hacrl.openrlhf as m; print(m.__file__)') \\
        --data.label_key answer

With the URL, a request the service refuses (422: a label it cannot read) or cannot answer
(down) leaves the sample with `reward=None`: OpenRLHF logs the error at INFO level and carries
on, failing later on a missing reward. With this file, the service's answer is the same, and
when it cannot grade, `HACRL_ON_ERROR` (`zero`, the default here, or `raise`) decides: `zero`
gives reward 0.0 and `extra_logs["reward_failed"] = 1.0`, which OpenRLHF averages into its logs;
`raise` raises, which OpenRLHF turns into `reward=None` as above. `extra_logs` also carries
`correct`, `code` and `judge_error` per sample, as the service sends them. `HACRL_URL` names the
service (default http://127.0.0.1:8080).

OpenRLHF decodes each query with its special tokens kept (`…#### 18<|im_end|>`); the service
cuts the prompt off and strips trailing chat-template tokens before grading. This module does
not import OpenRLHF.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

# Absolute: OpenRLHF loads this file by path (importlib), outside its package.
import httpx

from hacrl.client import jsonable
from hacrl.errors import HacrlError
from hacrl.scoring import Grader, RewardUnavailable, check_on_error, missing

_grader: Optional[Grader] = None


def _get_grader() -> Grader:
    global _grader
    if _grader is None:
        policy = check_on_error(os.environ.get("HACRL_ON_ERROR", "zero"))
        if policy == "none":
            raise ValueError("HACRL_ON_ERROR=none: OpenRLHF has no way to skip a sample")
        _grader = Grader(os.environ.get("HACRL_URL", "http://127.0.0.1:8080"), on_error=policy)
    return _grader


def reward_func(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]
) -> Dict[str, Any]:
    """OpenRLHF's reward-function contract: `{"rewards", "scores", "extra_logs"}`, one value
    per query in each (OpenRLHF calls it with one query at a time)."""
    grader = _get_grader()
    n = len(queries)
    rewards: List[float] = [0.0] * n
    logs: Dict[str, List[float]] = {
        k: [0.0] * n for k in ("correct", "code", "judge_error", "reward_failed")
    }
    rows = [i for i in range(n) if not missing(labels[i])]
    for i in set(range(n)) - set(rows):  # nothing to grade against: 0.0, counted
        logs["reward_failed"][i] = 1.0
    for start in range(0, len(rows), grader.batch_size):
        chunk = rows[start : start + grader.batch_size]
        try:
            # The service's own reading of OpenRLHF's request: prompts cut off, tokens stripped.
            answer = grader.post(
                [queries[i] for i in chunk],
                [jsonable(labels[i]) for i in chunk],
                prompts=[prompts[i] for i in chunk],
            )
        except (HacrlError, httpx.HTTPError) as e:
            if grader.on_error == "raise":
                raise RewardUnavailable(f"the reward service could not grade: {e}") from e
            for i in chunk:
                logs["reward_failed"][i] = 1.0
            continue
        sent = answer.get("extra_logs") or {}
        for k, i in enumerate(chunk):
            rewards[i] = float(answer["rewards"][k])
            for key in ("correct", "code", "judge_error"):
                logs[key][i] = float(sent.get(key, [0.0] * len(chunk))[k])
    return {"rewards": rewards, "scores": list(rewards), "extra_logs": logs}


__all__ = ["reward_func"]
