"""Retries on a real 503: a second verifier reaches PostgreSQL through a TCP relay the test cuts,
so the service itself answers "database unavailable, nothing stored"; the client retries with
the same rollout ids until the relay is back, and every rollout is stored exactly once."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from typing import Iterator, List, Tuple
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

import hacrl
from hacrl.types import NewRollout


class Relay:
    """Forwards TCP connections to `target`; `cut()` drops every connection and refuses new
    ones (closes them on accept) until `restore()`."""

    def __init__(self, target: Tuple[str, int]):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.lock = threading.Lock()
        self.open: List[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                conn.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                conn.close()
                continue
            with self.lock:
                self.open += [conn, upstream]
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.up = False
        with self.lock:
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.open.clear()

    def restore(self) -> None:
        self.up = True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def relayed_service() -> Iterator[Tuple[str, Relay]]:
    binary = os.environ.get("HACRL_VERIFIER_BIN")
    database = os.environ.get("DATABASE_URL")
    if not binary or not database:
        pytest.skip("needs HACRL_VERIFIER_BIN and DATABASE_URL (scripts/test sets both)")
    parts = urlsplit(database)
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    netloc = parts.netloc.rsplit("@", 1)
    host = f"127.0.0.1:{relay.port}"
    via = urlunsplit(parts._replace(netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))
    port = _free_port()
    proc = subprocess.Popen(
        [binary, "serve", "--listen", f"127.0.0.1:{port}", "--database-url", via,
         "--db-timeout-secs", "1", "--sandbox-concurrency", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        hacrl.Client(f"http://127.0.0.1:{port}").wait_ready(120)
        yield f"http://127.0.0.1:{port}", relay
    finally:
        proc.terminate()
        proc.wait(10)


def test_submissions_retry_through_a_real_503_and_store_each_rollout_once(
    client: hacrl.Client, tag: str, math_tasks: List[str], relayed_service: Tuple[str, Relay]
) -> None:
    url, relay = relayed_service
    agent = client.create_agent(f"r-{tag}")["id"]
    rollouts: List[NewRollout] = [
        {"task_id": t, "agent_id": agent, "run": tag, "step": 1, "response": "\\boxed{18}"}
        for t in math_tasks
    ]

    # The service itself says 503 while its database is unreachable.
    relay.cut()
    # With tokens asked for (scripts/test), the token check meets the outage first: 503 too.
    token = os.environ.get("HACRL_TOKEN")
    auth = {"authorization": f"Bearer {token}"} if token else {}
    r = httpx.post(f"{url}/v1/rollouts", json={"rollouts": rollouts}, headers=auth, timeout=30)
    assert r.status_code == 503, r.text
    assert client.rollouts(run=tag)["items"] == []  # nothing of it was stored

    # The client keeps retrying, with the same ids, until the database is back.
    threading.Timer(2.0, relay.restore).start()
    started = time.monotonic()
    with hacrl.Client(url, retries=10, backoff=0.25) as retrying:
        out = retrying.submit_rollouts(rollouts)
    assert time.monotonic() - started >= 1.5, "the first attempt should have failed"
    assert (out["created"], out["duplicates"]) == (3, 0)
    assert [r["correct"] for r in out["results"]] == [True, False, False]
    stored = client.rollouts(run=tag)["items"]
    assert sorted(r["id"] for r in stored) == sorted(r["id"] for r in out["results"])

    # Without retries the same outage surfaces as an error naming the status.
    relay.cut()
    with hacrl.Client(url, retries=0) as once, pytest.raises(hacrl.HacrlError) as e:
        once.submit_rollouts(rollouts)
    assert e.value.status == 503
    relay.restore()
