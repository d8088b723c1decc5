"""`Client` and `AsyncClient` offer the same calls with the same parameters, each call built once
in `hacrl._api` with those parameters too; the async ones are coroutines. Needs no service: the
calls themselves are tested against the real one in test_client.py, and `mypy --strict` checks
their types (scripts/test)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, List

import hacrl
from hacrl import _api

# Only one of the two clients has these under this name (its context manager, and how it closes).
_OWN = {"close", "__enter__", "__exit__", "aclose", "__aenter__", "__aexit__"}


def _calls(cls: type) -> List[str]:
    return sorted(
        name for name, f in vars(cls).items()
        if callable(f) and (not name.startswith("_") or name in _OWN)
    )


def _params(f: Callable[..., Any]) -> List[inspect.Parameter]:
    params = list(inspect.signature(f).parameters.values())
    return params[1:] if params and params[0].name == "self" else params


def test_both_clients_make_the_same_calls_with_the_same_parameters() -> None:
    sync = [n for n in _calls(hacrl.Client) if n not in _OWN]
    assert sync == [n for n in _calls(hacrl.AsyncClient) if n not in _OWN]
    assert len(sync) > 20
    for name in sync:
        f, g = getattr(hacrl.Client, name), getattr(hacrl.AsyncClient, name)
        assert _params(f) == _params(g), name
        returns = inspect.signature(f).return_annotation, inspect.signature(g).return_annotation
        if name == "iter_tasks":
            assert inspect.isasyncgenfunction(g)
            assert returns == ("Iterator[Task]", "AsyncIterator[Task]")
        else:
            assert inspect.iscoroutinefunction(g), f"AsyncClient.{name} is not `async def`"
            assert returns[0] == returns[1], name
        built = getattr(_api, name, None)
        if built is not None:  # one request: built once, with the method's parameters
            assert _params(built) == _params(f), name
            assert all(f"_api.{name}(" in inspect.getsource(h) for h in (f, g)), name


def test_hacrl_client_still_exports_both_clients() -> None:
    from hacrl.client import DEFAULT_URL, AsyncClient, Client, jsonable

    assert (Client, AsyncClient) == (hacrl.Client, hacrl.AsyncClient)
    assert DEFAULT_URL == hacrl.DEFAULT_URL and jsonable([1]) == [1]
