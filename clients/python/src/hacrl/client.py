"""A typed client of the HACRL verifier's REST API: `Client` (sync) and `AsyncClient` (for
async trainers), one implementation of the API's calls (`_Api`) under both, retries built in."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import time
import uuid
from pathlib import Path
from typing import (
    Any,
    AsyncIterator,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Union,
    cast,
)
from urllib.parse import quote

import httpx

from .errors import ConnectionFailed, HacrlError, decode
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
    Task,
    TasksStored,
)

DEFAULT_URL = "http://127.0.0.1:8080"

# Every write of the API is idempotent (agents by name, tasks by (dataset, external_id),
# rollouts by client-chosen id, metrics by (run, agent, step)), so a retried request (see
# errors.RETRY_STATUSES) can never store anything twice.


def _segment(value: str) -> str:
    """`value` as one path segment: `/`, `%`, `?`, `#` and the rest quoted."""
    return quote(str(value), safe="")


class _Api:
    """The API's calls, each one request, shared by `Client` and `AsyncClient`: each method
    builds the request and hands it to `_call`, which the sync client runs at once and the
    async one returns as a coroutine to await."""

    url: str

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _call_get(self, path: str, **params: Any) -> Any:
        return self._call("GET", path, params={k: v for k, v in params.items() if v is not None})

    def _call_post(self, path: str, body: Any) -> Any:
        return self._call("POST", path, json=body)

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
        return cast(Agent, self._call_post("/v1/agents", body))

    def agents(self) -> List[Agent]:
        return cast(List[Agent], self._call_get("/v1/agents"))

    def agent(self, id_or_name: str) -> Agent:
        return cast(Agent, self._call_get(f"/v1/agents/{_segment(id_or_name)}"))

    def capability(self, agent: str, *, run: str = "default", window: int = 5) -> Capability:
        """Accuracy per step and capability (mean accuracy over the last `window` steps)."""
        return cast(
            Capability,
            self._call_get(f"/v1/agents/{_segment(agent)}/capability", run=run, window=window),
        )

    # -- tasks -----------------------------------------------------------------------------

    def import_tasks(self, tasks: Sequence[NewTask]) -> TasksStored:
        """Stores tasks given as JSON objects (all or nothing; re-importing is a no-op)."""
        return cast(TasksStored, self._call_post("/v1/tasks", {"tasks": list(tasks)}))

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
            self._call(
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
        return cast(Page, self._call_get("/v1/tasks", dataset=dataset, kind=kind, after=after, limit=limit))

    # -- rollouts and the pool -------------------------------------------------------------

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
            self._call_get(
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
        return cast(Groups, self._call_get("/v1/pool/groups", run=run, step=step))

    def step_submissions(self, *, run: str = "default", step: int) -> StepSubmissions:
        """Which agents have stored rollouts in one step of a run, and how many each."""
        path = f"/v1/runs/{_segment(run)}/steps/{step}"
        return cast(StepSubmissions, self._call_get(path))

    # -- training metrics ------------------------------------------------------------------

    def record_metrics(
        self, *, run: str, agent_id: str, step: int, extra: Any = None, **metrics: float
    ) -> Dict[str, Any]:
        """Stores one agent's metrics for one step (loss, reward_mean, accuracy, clip_fraction,
        kl, grad_norm; anything else in `extra`). Recording the same step again replaces it."""
        body: Dict[str, Any] = {"run": run, "agent_id": agent_id, "step": step, **metrics}
        if extra is not None:
            body["extra"] = extra
        return cast(Dict[str, Any], self._call_post("/v1/metrics", body))

    def metrics(self, *, run: str, agent_id: Optional[str] = None) -> List[Dict[str, Any]]:
        return cast(List[Dict[str, Any]], self._call_get("/v1/metrics", run=run, agent_id=agent_id))

    # -- stateless scoring -----------------------------------------------------------------

    def verify_math(
        self, reference: str, response: str, *, options: Optional[Dict[str, Any]] = None
    ) -> MathVerdict:
        """Checks a math answer; `outcome` is `correct`, `incorrect` or `undecided` (scored 0)."""
        body: Dict[str, Any] = {"reference": reference, "response": response}
        if options is not None:
            body["options"] = options
        return cast(MathVerdict, self._call_post("/v1/verify/math", body))

    def verify_code(
        self, reference: Dict[str, Any], response: str, *, prompt: str = ""
    ) -> CodeVerdict:
        """Judges a program (fenced block or bare code) against a code reference."""
        return cast(
            CodeVerdict,
            self._call_post(
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
    ) -> RunCodeResult:
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
        return cast(RunCodeResult, self._call_post("/run_code", body))

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
        return cast(RewardResponse, self._call_post("/v1/reward", body))


class _Retrying:
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


def _with_ids(rollouts: Sequence[NewRollout]) -> List[NewRollout]:
    """Each rollout without an `id` gets a fresh UUID here, before the first attempt, so that a
    retried batch (503, lost connection) is recognised by the service: a rollout already stored
    comes back with `duplicate: true` and is never stored twice."""
    return [r if "id" in r else cast(NewRollout, {**r, "id": str(uuid.uuid4())}) for r in rollouts]


def _add(out: SubmitResult, part: SubmitResult) -> None:
    out["created"] += part["created"]
    out["duplicates"] += part["duplicates"]
    out["results"].extend(part["results"])


def _missing(agents: Sequence[str], s: StepSubmissions) -> List[str]:
    seen: Set[str] = {a["agent"] for a in s["agents"]}
    return sorted(set(agents) - seen)


def _late(step: int, run: str, timeout: float, missing: List[str]) -> TimeoutError:
    return TimeoutError(
        f"step {step} of run {run!r}: no rollouts after {timeout:g} s from " + ", ".join(missing)
    )


class Client(_Api, _Retrying):
    """The verifier at `url` (default `$HACRL_URL`, else http://127.0.0.1:8080), sending
    `token` (default `$HACRL_TOKEN`) as a bearer token when one is set.

    Requests answered 429/502/503/504, or that got no answer, are retried `retries` times with
    exponential back-off starting at `backoff` seconds (longer when the service's `Retry-After`
    asks). Errors raise `HacrlError`'s subclasses (`hacrl.errors`); no answer at all raises
    `ConnectionFailed`.
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
        _Retrying.__init__(self, url, token, retries, backoff)
        self._http = http or httpx.Client(base_url=self.url, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Sends a request, retrying as described above; returns the decoded JSON body."""
        headers = {**self._auth, **kwargs.pop("headers", {})}
        for delay in self._waits():
            try:
                return decode(self._http.request(method, path, headers=headers, **kwargs))
            except httpx.TransportError as cause:
                e: HacrlError = ConnectionFailed(self.url, cause)
            except HacrlError as answered:
                e = answered
            if delay is None or not e.transient:
                raise e
            time.sleep(self._wait_for(e, delay))
        raise AssertionError("unreachable")

    _call = request

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

    def submit_rollouts(
        self, rollouts: Sequence[NewRollout], *, batch_size: int = 256
    ) -> SubmitResult:
        """Verifies and stores rollouts in batches of `batch_size`, in order (ids as `_with_ids`
        gives them, so that retries never store one twice)."""
        items = _with_ids(rollouts)
        out: SubmitResult = {"created": 0, "duplicates": 0, "results": []}
        for start in range(0, len(items), max(1, batch_size)):
            _add(out, self._call_post("/v1/rollouts", {"rollouts": items[start : start + batch_size]}))
        return out

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
            missing = _missing(agents, s)
            if not missing:
                return s
            left = deadline - time.monotonic()
            if left <= 0:
                raise _late(step, run, timeout, missing)
            time.sleep(min(wait, left))
            wait = min(wait * 2, max_poll)


class AsyncClient(_Api, _Retrying):
    """`Client` for asyncio: the same calls, awaited (`await c.verify_math(...)`), the same
    retries and errors, on one `httpx.AsyncClient`; `async with hacrl.AsyncClient() as c:`."""

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        timeout: float = 120.0,
        retries: int = 5,
        backoff: float = 0.5,
        http: Optional[httpx.AsyncClient] = None,
        token: Optional[str] = None,
    ) -> None:
        _Retrying.__init__(self, url, token, retries, backoff)
        self._http = http or httpx.AsyncClient(base_url=self.url, timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Sends a request, retrying as `Client.request` does; returns the decoded JSON body."""
        headers = {**self._auth, **kwargs.pop("headers", {})}
        for delay in self._waits():
            try:
                return decode(await self._http.request(method, path, headers=headers, **kwargs))
            except httpx.TransportError as cause:
                e: HacrlError = ConnectionFailed(self.url, cause)
            except HacrlError as answered:
                e = answered
            if delay is None or not e.transient:
                raise e
            await asyncio.sleep(self._wait_for(e, delay))
        raise AssertionError("unreachable")

    _call = request

    async def ready(self) -> bool:
        """Whether the service answers and reaches its database."""
        try:
            return (await self._http.get("/readyz")).status_code == 200
        except httpx.TransportError:
            return False

    async def wait_ready(self, timeout: float = 60.0) -> None:
        """Waits until `ready()` or raises TimeoutError."""
        deadline = time.monotonic() + timeout
        while not await self.ready():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.url} not ready after {timeout} s")
            await asyncio.sleep(0.2)

    async def iter_tasks(
        self, *, dataset: Optional[str] = None, kind: Optional[str] = None, page_size: int = 500
    ) -> AsyncIterator[Task]:
        """Every task matching the filters, page by page (`async for`)."""
        after: Optional[int] = None
        while True:
            page = await self.tasks(dataset=dataset, kind=kind, after=after, limit=page_size)
            for item in page["items"]:
                yield cast(Task, item)
            if "next" not in page:
                return
            after = page["next"]

    async def submit_rollouts(
        self, rollouts: Sequence[NewRollout], *, batch_size: int = 256
    ) -> SubmitResult:
        """`Client.submit_rollouts`, awaited."""
        items = _with_ids(rollouts)
        out: SubmitResult = {"created": 0, "duplicates": 0, "results": []}
        for start in range(0, len(items), max(1, batch_size)):
            part = await self._call_post("/v1/rollouts", {"rollouts": items[start : start + batch_size]})
            _add(out, part)
        return out

    async def wait_for_step(
        self,
        agents: Sequence[str],
        *,
        run: str = "default",
        step: int,
        timeout: float = 600.0,
        poll: float = 0.5,
        max_poll: float = 5.0,
    ) -> StepSubmissions:
        """`Client.wait_for_step`, awaited."""
        deadline = time.monotonic() + timeout
        wait = poll
        while True:
            s = await self.step_submissions(run=run, step=step)
            missing = _missing(agents, s)
            if not missing:
                return s
            left = deadline - time.monotonic()
            if left <= 0:
                raise _late(step, run, timeout, missing)
            await asyncio.sleep(min(wait, left))
            wait = min(wait * 2, max_poll)


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
