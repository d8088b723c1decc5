"""A typed client of the HACRL verifier's REST API (one `httpx.Client`, retries built in)."""

from __future__ import annotations

import gzip
import json
import os
import time
import uuid
from urllib.parse import quote
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union, cast

import httpx

from .types import (
    Agent,
    Capability,
    Groups,
    MathVerdict,
    NewRollout,
    NewTask,
    Page,
    RewardResponse,
    StepSubmissions,
    SubmitResult,
    Task,
    TasksStored,
)

DEFAULT_URL = "http://127.0.0.1:8080"

# Statuses worth retrying: 503 is the service's "database unavailable, nothing stored"; 502/504
# come from proxies in front of it. Every write of the API is idempotent (agents by name, tasks
# by (dataset, external_id), rollouts by client-chosen id, metrics by (run, agent, step)), so a
# retried request can never store anything twice. 429 is the token's rate or sandbox share:
# nothing was done, and its Retry-After says when to come back.
RETRY_STATUSES = frozenset({429, 502, 503, 504})


class HacrlError(Exception):
    """An error answer of the service: HTTP status, error code, message and the field at fault."""

    def __init__(self, status: int, code: str, message: str, field: Optional[str] = None):
        super().__init__(f"HTTP {status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class Client:
    """The verifier at `url` (default `$HACRL_URL`, else http://127.0.0.1:8080), sending
    `token` (default `$HACRL_TOKEN`) as a bearer token when one is set.

    Requests that fail with 502/503/504 or a transport error are retried `retries` times with
    exponential back-off starting at `backoff` seconds.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        timeout: float = 120.0,
        retries: int = 5,
        backoff: float = 0.5,
        http: Optional[httpx.Client] = None,
        token: Optional[str] = None,
    ) -> None:
        self.url = (url or os.environ.get("HACRL_URL") or DEFAULT_URL).rstrip("/")
        token = token or os.environ.get("HACRL_TOKEN")
        # Sent with every request, also through a caller's own `http` client.
        self._auth = {"authorization": f"Bearer {token.strip()}"} if token else {}
        self.retries = retries
        self.backoff = backoff
        self._http = http or httpx.Client(base_url=self.url, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Sends a request, retrying as described above; returns the decoded JSON body."""
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                headers = {**self._auth, **kwargs.pop("headers", {})}
                r = self._http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError:
                if last:
                    raise
            else:
                if r.status_code not in RETRY_STATUSES or last:
                    return _decode(r)
                delay = max(delay, _retry_after(r))
            time.sleep(delay)
            delay = min(delay * 2, 10.0)
        raise AssertionError("unreachable")

    def _get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    def _post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, json=body)

    # -- health ----------------------------------------------------------------------------

    def ready(self) -> bool:
        """Whether the service answers and reaches its database."""
        try:
            return self._http.get("/readyz").status_code == 200
        except httpx.TransportError:
            return False

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Blocks until `ready()` or raises TimeoutError."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.url} not ready after {timeout} s")
            time.sleep(0.2)

    # -- agents ----------------------------------------------------------------------------

    def create_agent(
        self,
        name: str,
        *,
        family: Optional[str] = None,
        size_params: Optional[int] = None,
        tokenizer: Optional[str] = None,
        metadata: Any = None,
    ) -> Agent:
        """Registers an agent; registering the same name with the same fields returns it."""
        body: Dict[str, Any] = {"name": name}
        for key, value in (
            ("family", family),
            ("size_params", size_params),
            ("tokenizer", tokenizer),
            ("metadata", metadata),
        ):
            if value is not None:
                body[key] = value
        return cast(Agent, self._post("/v1/agents", body))

    def agents(self) -> List[Agent]:
        return cast(List[Agent], self._get("/v1/agents"))

    def agent(self, id_or_name: str) -> Agent:
        return cast(Agent, self._get(f"/v1/agents/{id_or_name}"))

    def capability(self, agent: str, *, run: str = "default", window: int = 5) -> Capability:
        """Accuracy per step and capability (mean accuracy over the last `window` steps)."""
        return cast(
            Capability, self._get(f"/v1/agents/{agent}/capability", run=run, window=window)
        )

    # -- tasks -----------------------------------------------------------------------------

    def import_tasks(self, tasks: Sequence[NewTask]) -> TasksStored:
        """Stores tasks given as JSON objects (all or nothing; re-importing is a no-op)."""
        return cast(TasksStored, self._post("/v1/tasks", {"tasks": list(tasks)}))

    def import_jsonl(
        self, source: Union[str, "os.PathLike[str]", bytes, Iterable[Dict[str, Any]]], dataset: str
    ) -> TasksStored:
        """Stores benchmark rows (GSM8K, MATH, AIME, HumanEval, … formats) as JSON Lines: a file
        path (`.gz` is sent compressed), raw bytes, or an iterable of row dicts."""
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
        return cast(
            TasksStored,
            self.request(
                "POST", "/v1/tasks", params={"dataset": dataset}, content=body, headers=headers
            ),
        )

    def tasks(
        self,
        *,
        dataset: Optional[str] = None,
        kind: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> Page:
        """One page of tasks (prompts only); pass `page["next"]` as `after` for the next."""
        return cast(Page, self._get("/v1/tasks", dataset=dataset, kind=kind, after=after, limit=limit))

    def iter_tasks(
        self, *, dataset: Optional[str] = None, kind: Optional[str] = None, page_size: int = 500
    ) -> Iterator[Task]:
        """Every task matching the filters, page by page."""
        after: Optional[int] = None
        while True:
            page = self.tasks(dataset=dataset, kind=kind, after=after, limit=page_size)
            for item in page["items"]:
                yield cast(Task, item)
            if "next" not in page:
                return
            after = page["next"]

    # -- rollouts and the pool -------------------------------------------------------------

    def submit_rollouts(
        self, rollouts: Sequence[NewRollout], *, batch_size: int = 256
    ) -> SubmitResult:
        """Verifies and stores rollouts in batches of `batch_size`, in order.

        Each rollout without an `id` gets a fresh UUID here, before the first attempt, so that a
        retried batch (503, lost connection) is recognised by the service: a rollout already
        stored comes back with `duplicate: true` and is never stored twice.
        """
        items: List[NewRollout] = []
        for r in rollouts:
            if "id" not in r:
                r = cast(NewRollout, {**r, "id": str(uuid.uuid4())})
            items.append(r)
        out: SubmitResult = {"created": 0, "duplicates": 0, "results": []}
        for start in range(0, len(items), max(1, batch_size)):
            part = cast(
                SubmitResult,
                self._post("/v1/rollouts", {"rollouts": items[start : start + batch_size]}),
            )
            out["created"] += part["created"]
            out["duplicates"] += part["duplicates"]
            out["results"].extend(part["results"])
        return out

    def rollouts(
        self,
        *,
        run: Optional[str] = None,
        step: Optional[int] = None,
        agent_id: Optional[str] = None,
        task_id: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> Page:
        return cast(
            Page,
            self._get(
                "/v1/rollouts",
                run=run,
                step=step,
                agent_id=agent_id,
                task_id=task_id,
                after=after,
                limit=limit,
            ),
        )

    def pool_groups(self, *, run: str = "default", step: int) -> Groups:
        """Every agent's responses per task of one step, with rewards and log-probs."""
        return cast(Groups, self._get("/v1/pool/groups", run=run, step=step))

    def step_submissions(self, *, run: str = "default", step: int) -> StepSubmissions:
        """Which agents have stored rollouts in one step of a run, and how many each."""
        path = f"/v1/runs/{quote(run, safe='')}/steps/{step}"
        return cast(StepSubmissions, self._get(path))

    def wait_for_step(
        self,
        agents: Sequence[str],
        *,
        run: str = "default",
        step: int,
        timeout: float = 600.0,
        poll: float = 0.5,
        max_poll: float = 5.0,
    ) -> StepSubmissions:
        """Blocks until every agent named in `agents` has stored rollouts in `step` of `run`: the
        barrier between agents that train in separate processes (the pool is the only thing they
        share). Polls with doubling intervals up to `max_poll`; on `timeout` raises TimeoutError
        naming the agents still missing."""
        deadline = time.monotonic() + timeout
        wait = poll
        while True:
            s = self.step_submissions(run=run, step=step)
            missing = sorted(set(agents) - {a["agent"] for a in s["agents"]})
            if not missing:
                return s
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"step {step} of run {run!r}: no rollouts after {timeout:g} s from "
                    + ", ".join(missing)
                )
            time.sleep(min(wait, left))
            wait = min(wait * 2, max_poll)

    # -- training metrics ------------------------------------------------------------------

    def record_metrics(
        self, *, run: str, agent_id: str, step: int, extra: Any = None, **metrics: float
    ) -> Dict[str, Any]:
        """Stores one agent's metrics for one step (loss, reward_mean, accuracy, clip_fraction,
        kl, grad_norm; anything else in `extra`). Recording the same step again replaces it."""
        body: Dict[str, Any] = {"run": run, "agent_id": agent_id, "step": step, **metrics}
        if extra is not None:
            body["extra"] = extra
        return cast(Dict[str, Any], self._post("/v1/metrics", body))

    def metrics(self, *, run: str, agent_id: Optional[str] = None) -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], self._get("/v1/metrics", run=run, agent_id=agent_id))

    # -- stateless scoring -----------------------------------------------------------------

    def verify_math(
        self, reference: str, response: str, *, options: Optional[Dict[str, Any]] = None
    ) -> MathVerdict:
        """Checks a math answer; `outcome` is `correct`, `incorrect` or `undecided` (scored 0)."""
        body: Dict[str, Any] = {"reference": reference, "response": response}
        if options is not None:
            body["options"] = options
        return cast(MathVerdict, self._post("/v1/verify/math", body))

    def verify_code(
        self, reference: Dict[str, Any], response: str, *, prompt: str = ""
    ) -> Dict[str, Any]:
        """Judges a program (fenced block or bare code) against a code reference."""
        return cast(
            Dict[str, Any],
            self._post(
                "/v1/verify/code", {"reference": reference, "prompt": prompt, "response": response}
            ),
        )

    def run_code(
        self,
        code: str,
        *,
        language: str = "python",
        stdin: Optional[str] = None,
        run_timeout: float = 10.0,
        compile_timeout: float = 10.0,
        **extra: Any,
    ) -> Dict[str, Any]:
        """Runs a program once in the sandbox (SandboxFusion's /run_code request and answer)."""
        body: Dict[str, Any] = {
            "code": code,
            "language": language,
            "run_timeout": run_timeout,
            "compile_timeout": compile_timeout,
            **extra,
        }
        if stdin is not None:
            body["stdin"] = stdin
        return cast(Dict[str, Any], self._post("/run_code", body))

    def reward(
        self,
        queries: Sequence[str],
        labels: Sequence[Any],
        *,
        prompts: Optional[Sequence[str]] = None,
    ) -> RewardResponse:
        """OpenRLHF's remote reward call: grades each query (its part after the prompt, when
        prompts are given) against its label — a math answer, a code reference, a task id."""
        body: Dict[str, Any] = {"query": list(queries), "labels": list(labels)}
        if prompts is not None:
            body["prompts"] = list(prompts)
        return cast(RewardResponse, self._post("/v1/reward", body))


def _retry_after(r: httpx.Response) -> float:
    """The seconds a `Retry-After` header asks to wait (0 when absent or not a number)."""
    try:
        return max(0.0, float(r.headers.get("retry-after", "0")))
    except ValueError:
        return 0.0


def _decode(r: httpx.Response) -> Any:
    """The JSON body of a success; a `HacrlError` (status, code, message, field) otherwise."""
    try:
        body = r.json()
    except ValueError:
        body = None
    if r.is_success:
        return body
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        raise HacrlError(
            r.status_code, str(err.get("code", "")), str(err.get("message", "")), err.get("field")
        )
    raise HacrlError(r.status_code, "http_error", r.text[:500])


def jsonable(v: Any) -> Any:
    """Dataset values (numpy scalars and arrays, pyarrow rows) as plain JSON values, so that
    labels read from parquet or `datasets` columns can be sent as they are."""
    if callable(getattr(v, "tolist", None)):  # numpy scalars and arrays
        return jsonable(v.tolist())
    if callable(getattr(v, "as_py", None)):  # pyarrow scalars
        return jsonable(v.as_py())
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v
