"""Python client of the HACRL verifier: the shared rollout pool,
verifiable rewards (math answers, sandboxed code), and reward functions for TRL, verl and
OpenRLHF.

    import hacrl
    c = hacrl.Client("http://127.0.0.1:8080")
    agent = c.create_agent("qwen3-1.7b", family="qwen3")
"""

from . import errors, openrlhf, scoring, trl, verl
from .client import DEFAULT_URL, AsyncClient, Client
from .errors import (
    Conflict,
    ConnectionFailed,
    DatabaseUnavailable,
    Forbidden,
    HacrlError,
    Internal,
    InvalidRequest,
    NotFound,
    RateLimited,
    SandboxBusy,
    Unauthenticated,
)

__all__ = [
    "AsyncClient",
    "Client",
    "DEFAULT_URL",
    "Conflict",
    "ConnectionFailed",
    "DatabaseUnavailable",
    "Forbidden",
    "HacrlError",
    "Internal",
    "InvalidRequest",
    "NotFound",
    "RateLimited",
    "SandboxBusy",
    "Unauthenticated",
    "errors",
    "openrlhf",
    "scoring",
    "trl",
    "verl",
]
__version__ = "0.1.0"
