"""A typed client of the HACRL verifier's REST API: `Client` (sync) and `AsyncClient` (for
async trainers, in `_async_client`, importable from here), retries built in. Each call of the
API is built once (`_api`); the two clients differ only in how they send it."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterator, List, Optional, Sequence, TypeVar, cast

import httpx

from . import _api
from ._api import DEFAULT_URL, JsonlSource
from ._async_client import AsyncClient
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

__all__ = ["DEFAULT_URL", "AsyncClient", "Client", "HacrlError", "jsonable"]

T = TypeVar("T")


class Client(_api.Retrying):
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
        super().__init__(url, token, retries, backoff)
        self._http = http or httpx.Client(base_url=self.url, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Sends a request, retrying as described above; returns the decoded JSON body."""
        headers = self._headers(kwargs)
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

    def _send(self, call: _api.Call[T]) -> T:
        return cast(T, self.request(call.method, call.path, **call.kwargs))

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
        return self._send(
            _api.create_agent(
                name, family=family, size_params=size_params, tokenizer=tokenizer, metadata=metadata
            )
        )

    def agents(self) -> List[Agent]:
        return self._send(_api.agents())

    def agent(self, id_or_name: str) -> Agent:
        return self._send(_api.agent(id_or_name))

    def capability(self, agent: str, *, run: str = "default", window: int = 5) -> Capability:
        """Accuracy per step and capability (mean accuracy over the last `window` steps)."""
        return self._send(_api.capability(agent, run=run, window=window))

    # -- tasks -----------------------------------------------------------------------------

    def import_tasks(self, tasks: Sequence[NewTask]) -> TasksStored:
        """Stores tasks given as JSON objects (all or nothing; re-importing is a no-op)."""
        return self._send(_api.import_tasks(tasks))

    def import_jsonl(self, source: JsonlSource, dataset: str) -> TasksStored:
        """Stores benchmark rows (GSM8K, MATH, AIME, HumanEval, … formats) as JSON Lines: a file
        path (`.gz` is sent compressed), raw bytes, or an iterable of row dicts."""
        return self._send(_api.import_jsonl(source, dataset))

    def tasks(
        self,
        *,
        dataset: Optional[str] = None,
        kind: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> Page:
        """One page of tasks (prompts only); pass `page["next"]` as `after` for the next."""
        return self._send(_api.tasks(dataset=dataset, kind=kind, after=after, limit=limit))

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
        """Verifies and stores rollouts in batches of `batch_size`, in order (each without an
        `id` is given one first, so that retries never store one twice)."""
        out = _api.no_results()
        for batch in _api.rollout_batches(rollouts, batch_size):
            _api.add(out, self._send(batch))
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
        return self._send(
            _api.rollouts(
                run=run, step=step, agent_id=agent_id, task_id=task_id, after=after, limit=limit
            )
        )

    def pool_groups(self, *, run: str = "default", step: int) -> Groups:
        """Every agent's responses per task of one step, with rewards and log-probs."""
        return self._send(_api.pool_groups(run=run, step=step))

    def step_submissions(self, *, run: str = "default", step: int) -> StepSubmissions:
        """Which agents have stored rollouts in one step of a run, and how many each."""
        return self._send(_api.step_submissions(run=run, step=step))

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
            missing = _api.missing(agents, s)
            if not missing:
                return s
            left = deadline - time.monotonic()
            if left <= 0:
                raise _api.late(step, run, timeout, missing)
            time.sleep(min(wait, left))
            wait = min(wait * 2, max_poll)

    # -- training metrics ------------------------------------------------------------------

    def record_metrics(
        self, *, run: str, agent_id: str, step: int, extra: Any = None, **metrics: float
    ) -> Dict[str, Any]:
        """Stores one agent's metrics for one step (loss, reward_mean, accuracy, clip_fraction,
        kl, grad_norm; anything else in `extra`). Recording the same step again replaces it."""
        return self._send(
            _api.record_metrics(run=run, agent_id=agent_id, step=step, extra=extra, **metrics)
        )

    def metrics(self, *, run: str, agent_id: Optional[str] = None) -> List[Dict[str, Any]]:
        return self._send(_api.metrics(run=run, agent_id=agent_id))

    # -- stateless scoring -----------------------------------------------------------------

    def verify_math(
        self, reference: str, response: str, *, options: Optional[Dict[str, Any]] = None
    ) -> MathVerdict:
        """Checks a math answer; `outcome` is `correct`, `incorrect` or `undecided` (scored 0)."""
        return self._send(_api.verify_math(reference, response, options=options))

    def verify_code(
        self, reference: Dict[str, Any], response: str, *, prompt: str = ""
    ) -> CodeVerdict:
        """Judges a program (fenced block or bare code) against a code reference."""
        return self._send(_api.verify_code(reference, response, prompt=prompt))

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
        return self._send(
            _api.run_code(
                code,
                language=language,
                stdin=stdin,
                run_timeout=run_timeout,
                compile_timeout=compile_timeout,
                **extra,
            )
        )

    def reward(
        self,
        queries: Sequence[str],
        labels: Sequence[Any],
        *,
        prompts: Optional[Sequence[str]] = None,
    ) -> RewardResponse:
        """OpenRLHF's remote reward call: grades each query (its part after the prompt, when
        prompts are given) against its label — a math answer, a code reference, a task id."""
        return self._send(_api.reward(queries, labels, prompts=prompts))


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
