"""What the framework adapters (`hacrl.trl`, `hacrl.verl`, `hacrl.openrlhf`) share: labels read
from dataset values, completions read as text, and `/v1/reward` called in bounded chunks with a
failure policy chosen by the user.

Failure policy (`on_error`), for a chunk the service cannot grade — it is down past the
deadline, or it refuses the chunk (422: a label it cannot read, 404: an unknown task id):

- `"raise"`: raise `RewardUnavailable`, which ends the training step;
- `"none"`: `None` for each of its rows (TRL leaves `None` rows out of the loss);
- `"zero"`: reward 0.0 for each of its rows.

Either way the rows are counted in `Scores.failed`, which each adapter reports in its
framework's logs.

Abstentions: where the math checker cannot decide (its verdict's `outcome` is `undecided`:
shapes it cannot compare, its work bound hit) the service scores 0. A `Grader` given
`on_undecided` calls it with `(response, label)` for those rows and takes the float it returns
(a model-based judge, say) as the reward; `None` keeps the service's 0. Such rows are marked in
`Scores.undecided` either way.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, cast

from .client import Client, jsonable
from .errors import HacrlError
from .types import RewardResponse

OnError = Literal["raise", "none", "zero"]
ON_ERROR_VALUES = ("raise", "none", "zero")

class RewardUnavailable(RuntimeError):
    """The service could not grade a chunk of rows and `on_error="raise"` was chosen."""


def check_on_error(on_error: str) -> OnError:
    """`on_error` itself, or a ValueError naming the accepted values."""
    if on_error not in ON_ERROR_VALUES:
        raise ValueError(f"on_error must be one of {ON_ERROR_VALUES}, got {on_error!r}")
    return cast(OnError, on_error)


def missing(label: Any) -> bool:
    """Whether a dataset value holds no label: None, NaN (a gap in a pandas column), or a blank
    string. Such rows are not sent; each adapter documents what it returns for them."""
    if label is None:
        return True
    if isinstance(label, float) and math.isnan(label):
        return True
    if callable(getattr(label, "item", None)) and getattr(label, "shape", None) == ():
        return missing(label.item())  # numpy scalars
    return isinstance(label, str) and not label.strip()


def completion_text(x: Any) -> str:
    """A completion as text. Plain strings stay; a conversational one (a list of
    `{"role", "content"}` messages) is its last assistant message, so that a tool's answer after
    it is never graded as the model's. Content given as parts keeps its text parts."""
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return _content(x.get("content"))
    if isinstance(x, list):
        for message in reversed(x):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                return _content(message.get("content"))
        return ""
    return str(x)


def _content(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, list):  # [{"type": "text", "text": …}, {"type": "image", …}]
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return str(content)


@dataclass
class Scores:
    """Rewards per row (None where not graded), and what happened to the rows."""

    rewards: List[Optional[float]]
    correct: List[Optional[bool]]
    judge_error: List[bool]
    undecided: List[bool] = field(default_factory=list)  # the math checker abstained
    failed: int = 0  # rows the service could not grade (on_error applied)
    unlabelled: int = 0  # rows without a label, never sent
    errors: List[str] = field(default_factory=list)  # why, one line per failed chunk


@dataclass
class Grader:
    """Grades responses against labels through `/v1/reward`, `batch_size` rows a request.

    A transport error or a 502/503/504 is retried with back-off until `deadline` seconds have
    passed since the chunk's first try; each try waits at most `timeout` seconds. The object
    holds only settings until first used, so it pickles (TRL's async GRPO, verl's Ray workers);
    its `Client` is made lazily in each process. `on_undecided` must pickle too (a module-level
    function does).
    """

    url: Optional[str] = None
    on_error: OnError = "raise"
    batch_size: int = 64
    timeout: float = 60.0
    deadline: float = 120.0
    on_undecided: Optional[Callable[[str, Any], Optional[float]]] = None
    _client: Optional[Client] = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_on_error(self.on_error)
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")

    def __getstate__(self) -> Dict[str, Any]:
        # An httpx client holds sockets and locks: each process makes its own.
        return {**self.__dict__, "_client": None}

    @property
    def client(self) -> Client:
        if self._client is None:
            # Retries happen here, bounded by the deadline, not by a count of resends.
            self._client = Client(self.url, timeout=self.timeout, retries=0)
        return self._client

    def grade(self, responses: Sequence[str], labels: Sequence[Any]) -> Scores:
        """Grades `responses[i]` against `labels[i]`; rows whose label is `missing` are skipped."""
        if len(responses) != len(labels):
            raise ValueError(f"{len(labels)} labels for {len(responses)} responses")
        n = len(responses)
        out = Scores(
            rewards=[None] * n, correct=[None] * n, judge_error=[False] * n, undecided=[False] * n
        )
        rows = [i for i in range(n) if not missing(labels[i])]
        out.unlabelled = n - len(rows)
        for start in range(0, len(rows), self.batch_size):
            chunk = rows[start : start + self.batch_size]
            try:
                answer = self.post([responses[i] for i in chunk], [jsonable(labels[i]) for i in chunk])
            except HacrlError as e:
                if self.on_error == "raise":
                    raise RewardUnavailable(
                        f"{self.client.url}/v1/reward could not grade {len(chunk)} rows: {e}"
                    ) from e
                out.failed += len(chunk)
                out.errors.append(str(e))
                for i in chunk:
                    out.rewards[i] = None if self.on_error == "none" else 0.0
                continue
            logs = answer.get("extra_logs") or {}
            flags = logs.get("judge_error") or [0.0] * len(chunk)
            right: Sequence[Optional[float]] = logs.get("correct") or [None] * len(chunk)
            abstained = logs.get("undecided") or [0.0] * len(chunk)
            for k, i in enumerate(chunk):
                out.rewards[i] = float(answer["rewards"][k])
                out.judge_error[i] = bool(flags[k])
                out.correct[i] = None if right[k] is None else bool(right[k])
                out.undecided[i] = bool(abstained[k])
                if out.undecided[i] and self.on_undecided is not None:
                    judged = self.on_undecided(responses[i], labels[i])
                    if judged is not None:
                        out.rewards[i] = float(judged)
        return out

    def post(
        self, queries: List[str], labels: List[Any], prompts: Optional[List[str]] = None
    ) -> RewardResponse:
        """One `/v1/reward` request (`queries`, already `jsonable` labels and, when given, the
        prompts the service cuts off), retried within the deadline as described above."""
        give_up = time.monotonic() + self.deadline
        wait = 0.25
        while True:
            try:
                return self.client.reward(queries, labels, prompts=prompts)
            except HacrlError as e:
                # Worth another try within the deadline: no answer (ConnectionFailed), or a
                # status that says "not now" (errors.RETRY_STATUSES); any other 4xx would fail
                # again.
                if not e.transient or time.monotonic() + wait > give_up:
                    raise
                wait = max(wait, e.retry_after or 0.0)
            time.sleep(wait)
            wait = min(wait * 2, 5.0)


__all__ = [
    "Grader",
    "OnError",
    "RewardUnavailable",
    "Scores",
    "check_on_error",
    "completion_text",
    "missing",
]
