"""What `Client` and `AsyncClient` share: each call of the API built once, as a `Call` (the
request, and the type its answer decodes to), and the transport's settings and retry policy.
The two clients differ only in how they send a `Call`: at once, or awaited.

Every write of the API is idempotent (agents by name, tasks by (dataset, external_id),
rollouts by client-chosen id, metrics by (run, agent, step)), so a retried request (see
errors.RETRY_STATUSES) can never store anything twice.
"""

from __future__ import annotations

import gzip
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import (
    Any,
    Dict,
    Generic,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    TypeVar,
    Union,
    cast,
)
from urllib.parse import quote

from .errors import HacrlError
from .types import (
    Agent,
    Capability,
    CodeVerdict,
    Groups,
    MathVerdict,
    NewRollout,
    NewTask,
    Page,
    RewardResponse,
    RunCodeResult,
    StepSubmissions,
    SubmitResult,
    TasksStored,
)

DEFAULT_URL = "http://127.0.0.1:8080"

T = TypeVar("T")

# What `import_jsonl` reads rows from.
JsonlSource = Union[str, "os.PathLike[str]", bytes, Iterable[Dict[str, Any]]]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request of the API: `method`, `path` and the keyword arguments of
    `httpx.Client.request`; `T` is what its JSON answer is (the clients return it as sent)."""

    method: str
    path: str
    kwargs: Dict[str, Any]


def _get(path: str, **params: Any) -> Call[Any]:
    return Call("GET", path, {"params": {k: v for k, v in params.items() if v is not None}})


def _post(path: str, body: Any) -> Call[Any]:
    return Call("POST", path, {"json": body})


def segment(value: str) -> str:
    """`value` as one path segment: `/`, `%`, `?`, `#` and the rest quoted."""
    return quote(str(value), safe="")


# -- the calls, one function each, named and parametrised as the clients' methods (whose
# docstrings describe them) ---------------------------------------------------------------


def create_agent(
    name: str,
    *,
    family: Optional[str] = None,
    size_params: Optional[int] = None,
    tokenizer: Optional[str] = None,
    metadata: Any = None,
) -> Call[Agent]:
    body: Dict[str, Any] = {"name": name}
    for key, value in (
        ("family", family),
        ("size_params", size_params),
        ("tokenizer", tokenizer),
        ("metadata", metadata),
    ):
        if value is not None:
            body[key] = value
    return _post("/v1/agents", body)


def agents() -> Call[List[Agent]]:
    return _get("/v1/agents")


def agent(id_or_name: str) -> Call[Agent]:
    return _get(f"/v1/agents/{segment(id_or_name)}")


def capability(agent: str, *, run: str = "default", window: int = 5) -> Call[Capability]:
    return _get(f"/v1/agents/{segment(agent)}/capability", run=run, window=window)


def import_tasks(tasks: Sequence[NewTask]) -> Call[TasksStored]:
    return _post("/v1/tasks", {"tasks": list(tasks)})


def import_jsonl(source: JsonlSource, dataset: str) -> Call[TasksStored]:
    headers = {"content-type": "application/x-ndjson"}
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        body = path.read_bytes()
        if path.suffix == ".gz":
            headers["content-encoding"] = "gzip"
    elif isinstance(source, bytes):
        body = source
        if body[:2] == b"\x1f\x8b":
            headers["content-encoding"] = "gzip"
    else:
        body = "".join(json.dumps(row) + "\n" for row in source).encode()
    if "content-encoding" not in headers and len(body) > 1 << 20:
        body = gzip.compress(body)
        headers["content-encoding"] = "gzip"
    return Call(
        "POST", "/v1/tasks", {"params": {"dataset": dataset}, "content": body, "headers": headers}
    )


def tasks(
    *,
    dataset: Optional[str] = None,
    kind: Optional[str] = None,
    after: Optional[int] = None,
    limit: Optional[int] = None,
) -> Call[Page]:
    return _get("/v1/tasks", dataset=dataset, kind=kind, after=after, limit=limit)


def rollouts(
    *,
    run: Optional[str] = None,
    step: Optional[int] = None,
    agent_id: Optional[str] = None,
    task_id: Optional[str] = None,
    after: Optional[int] = None,
    limit: Optional[int] = None,
) -> Call[Page]:
    return _get(
        "/v1/rollouts",
        run=run,
        step=step,
        agent_id=agent_id,
        task_id=task_id,
        after=after,
        limit=limit,
    )


def pool_groups(*, run: str = "default", step: int) -> Call[Groups]:
    return _get("/v1/pool/groups", run=run, step=step)


def step_submissions(*, run: str = "default", step: int) -> Call[StepSubmissions]:
    return _get(f"/v1/runs/{segment(run)}/steps/{step}")


def record_metrics(
    *, run: str, agent_id: str, step: int, extra: Any = None, **metrics: float
) -> Call[Dict[str, Any]]:
    body: Dict[str, Any] = {"run": run, "agent_id": agent_id, "step": step, **metrics}
    if extra is not None:
        body["extra"] = extra
    return _post("/v1/metrics", body)


def metrics(*, run: str, agent_id: Optional[str] = None) -> Call[List[Dict[str, Any]]]:
    return _get("/v1/metrics", run=run, agent_id=agent_id)


def verify_math(
    reference: str, response: str, *, options: Optional[Dict[str, Any]] = None
) -> Call[MathVerdict]:
    body: Dict[str, Any] = {"reference": reference, "response": response}
    if options is not None:
        body["options"] = options
    return _post("/v1/verify/math", body)


def verify_code(
    reference: Dict[str, Any], response: str, *, prompt: str = ""
) -> Call[CodeVerdict]:
    body = {"reference": reference, "prompt": prompt, "response": response}
    return _post("/v1/verify/code", body)


def run_code(
    code: str,
    *,
    language: str = "python",
    stdin: Optional[str] = None,
    run_timeout: float = 10.0,
    compile_timeout: float = 10.0,
    **extra: Any,
) -> Call[RunCodeResult]:
    body: Dict[str, Any] = {
        "code": code,
        "language": language,
        "run_timeout": run_timeout,
        "compile_timeout": compile_timeout,
        **extra,
    }
    if stdin is not None:
        body["stdin"] = stdin
    return _post("/run_code", body)


def reward(
    queries: Sequence[str],
    labels: Sequence[Any],
    *,
    prompts: Optional[Sequence[str]] = None,
) -> Call[RewardResponse]:
    body: Dict[str, Any] = {"query": list(queries), "labels": list(labels)}
    if prompts is not None:
        body["prompts"] = list(prompts)
    return _post("/v1/reward", body)


# -- what the clients' composite calls share ----------------------------------------------


def rollout_batches(
    rollouts: Sequence[NewRollout], batch_size: int
) -> Iterator[Call[SubmitResult]]:
    """`submit_rollouts`' requests, in order, `batch_size` rollouts each. Each rollout without an
    `id` gets a fresh UUID here, before the first attempt, so that a retried batch (503, lost
    connection) is recognised by the service: a rollout already stored comes back with
    `duplicate: true` and is never stored twice."""
    items = [r if "id" in r else cast(NewRollout, {**r, "id": str(uuid.uuid4())}) for r in rollouts]
    for start in range(0, len(items), max(1, batch_size)):
        yield _post("/v1/rollouts", {"rollouts": items[start : start + batch_size]})


def no_results() -> SubmitResult:
    return {"created": 0, "duplicates": 0, "results": []}


def add(out: SubmitResult, part: SubmitResult) -> None:
    out["created"] += part["created"]
    out["duplicates"] += part["duplicates"]
    out["results"].extend(part["results"])


def missing(agents: Sequence[str], s: StepSubmissions) -> List[str]:
    seen: Set[str] = {a["agent"] for a in s["agents"]}
    return sorted(set(agents) - seen)


def late(step: int, run: str, timeout: float, missing: List[str]) -> TimeoutError:
    return TimeoutError(
        f"step {step} of run {run!r}: no rollouts after {timeout:g} s from " + ", ".join(missing)
    )


class Retrying:
    """What both clients share of the transport: the URL, the token and the retry policy."""

    def __init__(
        self, url: Optional[str], token: Optional[str], retries: int, backoff: float
    ) -> None:
        self.url = (url or os.environ.get("HACRL_URL") or DEFAULT_URL).rstrip("/")
        token = token or os.environ.get("HACRL_TOKEN")
        # Sent with every request, also through a caller's own `http` client.
        self._auth = {"authorization": f"Bearer {token.strip()}"} if token else {}
        self.retries = retries
        self.backoff = backoff

    def _headers(self, kwargs: Dict[str, Any]) -> Dict[str, str]:
        """The token's header and the request's own (taken out of `kwargs`)."""
        return {**self._auth, **kwargs.pop("headers", {})}

    def _waits(self) -> Iterator[Optional[float]]:
        """Before each attempt after the first, the back-off (doubling, at most 10 s); `None`
        after the last."""
        delay = self.backoff
        for _ in range(self.retries):
            yield delay
            delay = min(delay * 2, 10.0)
        yield None

    @staticmethod
    def _wait_for(e: HacrlError, delay: float) -> float:
        """How long to wait after `e`: the back-off, or longer if the service asked."""
        return max(delay, e.retry_after or 0.0)
