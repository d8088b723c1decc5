"""Errors of the service, one class per error code it sends (`{"error": {"code", "message",
"field"}}`), all under `HacrlError`; a request that got no answer at all raises
`ConnectionFailed`. Catch the base class, or the code you can act on:

    try:
        c.submit_rollouts(batch)
    except hacrl.InvalidRequest as e:      # 422/400: e.field names what is wrong
        ...
    except hacrl.DatabaseUnavailable:      # 503: nothing of it was stored, send it again
        ...
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

import httpx

# Statuses worth another attempt: 503 is the service's "nothing stored" (database away, every
# sandbox slot taken), 429 a token over its rate or sandbox share (nothing done), 502/504 come
# from proxies in front of it.
RETRY_STATUSES = frozenset({429, 502, 503, 504})


class HacrlError(Exception):
    """An error answer of the service: HTTP status, error code, message, the field at fault and,
    for 429 and 503, the seconds its `Retry-After` asks to wait."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: Optional[str] = None,
        retry_after: Optional[float] = None,
    ):
        super().__init__(f"HTTP {status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Whether the same request may succeed later (see `RETRY_STATUSES`)."""
        return self.status in RETRY_STATUSES


class InvalidRequest(HacrlError):
    """400/413/422: the request is unreadable, too large or has bad values (`field` says where)."""


class Unauthenticated(HacrlError):
    """401: no valid token (none sent, unknown, revoked or expired)."""


class Forbidden(HacrlError):
    """403: the token lacks the route's scope, or writes for another agent than its own."""


class RateLimited(HacrlError):
    """429: the token is over its request rate or sandbox share; retry after `retry_after`."""


class NotFound(HacrlError):
    """404: an unknown agent, task or route."""


class Conflict(HacrlError):
    """409: an id or name reused with other content."""


class DatabaseUnavailable(HacrlError):
    """503: the service cannot reach its database; nothing of the request was stored."""


class SandboxBusy(HacrlError):
    """503: every sandbox slot stays taken past the request's time budget; `retry_after` says
    when to come back."""


class Internal(HacrlError):
    """500: a bug in the service."""


class ConnectionFailed(HacrlError):
    """No answer at all: the service is down, unreachable, or the connection broke or timed out.
    A write may or may not have been stored; resending it is safe (every write is idempotent)."""

    def __init__(self, url: str, cause: Exception):
        super().__init__(0, "connection_failed", f"{url}: {type(cause).__name__}: {cause}")
        self.__cause__ = cause

    @property
    def transient(self) -> bool:
        return True


_BY_CODE: Dict[str, Type[HacrlError]] = {
    "invalid_request": InvalidRequest,
    "unauthenticated": Unauthenticated,
    "forbidden": Forbidden,
    "rate_limited": RateLimited,
    "not_found": NotFound,
    "conflict": Conflict,
    "database_unavailable": DatabaseUnavailable,
    "sandbox_busy": SandboxBusy,
    "internal": Internal,
}


def retry_after(r: httpx.Response) -> Optional[float]:
    """The seconds a `Retry-After` header asks to wait, if it holds a number."""
    try:
        return max(0.0, float(r.headers["retry-after"]))
    except (KeyError, ValueError):
        return None


def decode(r: httpx.Response) -> Any:
    """The JSON body of a success; otherwise the error's class, by its code (`HacrlError` for a
    code this client does not know, or an answer that is not the service's, e.g. a proxy's)."""
    try:
        body = r.json()
    except ValueError:
        body = None
    if r.is_success:
        return body
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        code = str(err.get("code", ""))
        cls = _BY_CODE.get(code, HacrlError)
        raise cls(r.status_code, code, str(err.get("message", "")), err.get("field"), retry_after(r))
    raise HacrlError(r.status_code, "http_error", r.text[:500], None, retry_after(r))
