"""Fixtures: the REAL running verifier (no mocks).

`scripts/test` starts one on a free port against the run's throwaway database and sets
`HACRL_URL`, `DATABASE_URL` and `HACRL_VERIFIER_BIN`; by hand, point them at `scripts/up`'s
service (names below are unique per session, so reruns against the same database work).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Iterator, List

import pytest

import hacrl

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def url() -> str:
    value = os.environ.get("HACRL_URL")
    if not value:
        pytest.fail("HACRL_URL is not set: run these tests through scripts/test, or start "
                    "scripts/up and export HACRL_URL=http://127.0.0.1:8080")
    return value


@pytest.fixture(scope="session")
def client(url: str) -> Iterator[hacrl.Client]:
    with hacrl.Client(url) as c:
        c.wait_ready(60)
        yield c


@pytest.fixture
def tag() -> str:
    """A unique suffix for agent names, datasets and runs."""
    return uuid.uuid4().hex[:10]


@pytest.fixture
def math_tasks(client: hacrl.Client, tag: str) -> List[str]:
    """Three math tasks (answers 18, 42, 7); returns their ids."""
    stored = client.import_tasks(
        [
            {"dataset": f"py-{tag}", "external_id": str(i), "kind": "math",
             "prompt": f"question {i}", "reference": {"answer": answer}}
            for i, answer in enumerate(["18", "42", "7"])
        ]
    )
    return [t["id"] for t in stored["tasks"]]
