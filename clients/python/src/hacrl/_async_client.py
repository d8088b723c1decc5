"""`AsyncClient`: `Client` for asyncio, the same calls (each built once, in `_api`) sent on one
`httpx.AsyncClient` and awaited. Import it from `hacrl` or `hacrl.client`."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, TypeVar, cast

import httpx

from . import _api
from ._api import JsonlSource
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

T = TypeVar("T")


class AsyncClient(_api.Retrying):
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
        super().__init__(url, token, retries, backoff)
        self._http = http or httpx.AsyncClient(base_url=self.url, timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Sends a request, retrying as `Client.request` does; returns the decoded JSON body."""
        headers = self._headers(kwargs)
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

    async def _send(self, call: _api.Call[T]) -> T:
        return cast(T, await self.request(call.method, call.path, **call.kwargs))

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

    # -- agents ----------------------------------------------------------------------------

    async def create_agent(
        self,
        name: str,
        *,
        family: Optional[str] = None,
        size_params: Optional[int] = None,
        tokenizer: Optional[str] = None,
        metadata: Any = None,
    ) -> Agent:
        """Registers an agent; registering the same name with the same fields returns it."""
        return await self._send(
            _api.create_agent(
                name, family=family, size_params=size_params, tokenizer=tokenizer, metadata=metadata
            )
        )

    async def agents(self) -> List[Agent]:
        return await self._send(_api.agents())

    async def agent(self, id_or_name: str) -> Agent:
        return await self._send(_api.agent(id_or_name))

    async def capability(self, agent: str, *, run: str = "default", window: int = 5) -> Capability:
        """Accuracy per step and capability (mean accuracy over the last `window` steps)."""
        return await self._send(_api.capability(agent, run=run, window=window))

    # -- tasks -----------------------------------------------------------------------------

    async def import_tasks(self, tasks: Sequence[NewTask]) -> TasksStored:
        """Stores tasks given as JSON objects (all or nothing; re-importing is a no-op)."""
        return await self._send(_api.import_tasks(tasks))

    async def import_jsonl(self, source: JsonlSource, dataset: str) -> TasksStored:
        """Stores benchmark rows (GSM8K, MATH, AIME, HumanEval, … formats) as JSON Lines: a file
        path (`.gz` is sent compressed), raw bytes, or an iterable of row dicts."""
        return await self._send(_api.import_jsonl(source, dataset))

    async def tasks(
        self,
        *,
        dataset: Optional[str] = None,
        kind: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> Page:
        """One page of tasks (prompts only); pass `page["next"]` as `after` for the next."""
        return await self._send(_api.tasks(dataset=dataset, kind=kind, after=after, limit=limit))

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

    # -- rollouts and the pool -------------------------------------------------------------

    async def submit_rollouts(
        self, rollouts: Sequence[NewRollout], *, batch_size: int = 256
    ) -> SubmitResult:
        """`Client.submit_rollouts`, awaited."""
        out = _api.no_results()
        for batch in _api.rollout_batches(rollouts, batch_size):
            _api.add(out, await self._send(batch))
        return out

    async def rollouts(
        self,
        *,
        run: Optional[str] = None,
        step: Optional[int] = None,
        agent_id: Optional[str] = None,
        task_id: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> Page:
        return await self._send(
            _api.rollouts(
                run=run, step=step, agent_id=agent_id, task_id=task_id, after=after, limit=limit
            )
        )

    async def pool_groups(self, *, run: str = "default", step: int) -> Groups:
        """Every agent's responses per task of one step, with rewards and log-probs."""
        return await self._send(_api.pool_groups(run=run, step=step))

    async def step_submissions(self, *, run: str = "default", step: int) -> StepSubmissions:
        """Which agents have stored rollouts in one step of a run, and how many each."""
        return await self._send(_api.step_submissions(run=run, step=step))

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
            missing = _api.missing(agents, s)
            if not missing:
                return s
            left = deadline - time.monotonic()
            if left <= 0:
                raise _api.late(step, run, timeout, missing)
            await asyncio.sleep(min(wait, left))
            wait = min(wait * 2, max_poll)

    # -- training metrics ------------------------------------------------------------------

    async def record_metrics(
        self, *, run: str, agent_id: str, step: int, extra: Any = None, **metrics: float
    ) -> Dict[str, Any]:
        """Stores one agent's metrics for one step (loss, reward_mean, accuracy, clip_fraction,
        kl, grad_norm; anything else in `extra`). Recording the same step again replaces it."""
        return await self._send(
            _api.record_metrics(run=run, agent_id=agent_id, step=step, extra=extra, **metrics)
        )

    async def metrics(self, *, run: str, agent_id: Optional[str] = None) -> List[Dict[str, Any]]:
        return await self._send(_api.metrics(run=run, agent_id=agent_id))

    # -- stateless scoring -----------------------------------------------------------------

    async def verify_math(
        self, reference: str, response: str, *, options: Optional[Dict[str, Any]] = None
    ) -> MathVerdict:
        """Checks a math answer; `outcome` is `correct`, `incorrect` or `undecided` (scored 0)."""
        return await self._send(_api.verify_math(reference, response, options=options))

    async def verify_code(
        self, reference: Dict[str, Any], response: str, *, prompt: str = ""
    ) -> CodeVerdict:
        """Judges a program (fenced block or bare code) against a code reference."""
        return await self._send(_api.verify_code(reference, response, prompt=prompt))

    async def run_code(
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
        return await self._send(
            _api.run_code(
                code,
                language=language,
                stdin=stdin,
                run_timeout=run_timeout,
                compile_timeout=compile_timeout,
                **extra,
            )
        )

    async def reward(
        self,
        queries: Sequence[str],
        labels: Sequence[Any],
        *,
        prompts: Optional[Sequence[str]] = None,
    ) -> RewardResponse:
        """OpenRLHF's remote reward call: grades each query (its part after the prompt, when
        prompts are given) against its label — a math answer, a code reference, a task id."""
        return await self._send(_api.reward(queries, labels, prompts=prompts))
